/**
 * When a round of the engine ends: the watch that decides a handler can make
 * no further progress without answers (no step, digest or scheduled task of
 * its fibers running, nothing changed for two turns of the event loop), and
 * the scheduler that reports its fibers' tasks to it.
 *
 * Gotcha: a busy handler that never stops keeps the round open for at most
 * `MAX_ACTIVE_TURNS` turns of the event loop without a change.
 */
import type { Scheduler } from "effect"

/**
 * The scheduler the handler's fibers run on: `base`, reporting to the watch
 * every task it queues for them until the task has run. A fiber that yields
 * (every 2048 operations) or resumes after an asynchronous callback is
 * active, so a long computation between two concurrent asks does not split
 * them into two rounds.
 */
export const trackingScheduler = (base: Scheduler.Scheduler, watch: RoundEndWatch): Scheduler.Scheduler => ({
  executionMode: base.executionMode,
  shouldYield: (fiber) => base.shouldYield(fiber),
  makeDispatcher: () => {
    const dispatcher = base.makeDispatcher()
    return {
      scheduleTask: (task, priority) => {
        watch.taskQueued()
        dispatcher.scheduleTask(() => {
          try {
            task()
          } finally {
            watch.taskRan()
          }
        }, priority)
      },
      flush: () => dispatcher.flush()
    }
  }
})

/**
 * How many consecutive turns of the event loop the handler's fibers may keep
 * running (see `trackingScheduler`) without any ask, step or digest changing
 * before the round ends anyway: enough for some hundred thousand operations of
 * work between two concurrent asks, and an end for a fiber that never stops
 * (a busy polling loop).
 */
const MAX_ACTIVE_TURNS = 64

/** What a round's handler tells the watch, and how the round learns it is over (see `roundEndWatch`). */
export interface RoundEndWatch {
  /** Something happened that may lead to more asks this round. */
  readonly changed: () => void
  /** A step or a question digest starts. */
  readonly begin: () => void
  /** It ended (a change). */
  readonly end: () => void
  /** A task was queued for one of the handler's fibers. */
  readonly taskQueued: () => void
  /** It ran. */
  readonly taskRan: () => void
  /** The round is over (decided, or the request was interrupted). */
  readonly isStopped: () => boolean
  /** Runs `f` once the round is decided suspended (at once when it already is). */
  readonly onSuspend: (f: () => void) => void
  /** Stops watching (the round ended otherwise). */
  readonly stop: () => void
}

/**
 * Decides when a round can make no more progress without answers: some ask
 * waits (`asking`), no step or question digest is in flight (`begin`/`end`),
 * and for two consecutive turns of the event loop (`setImmediate`) nothing
 * changed (`changed`) and the handler's fibers ran nothing (`taskQueued`/
 * `taskRan`, for at most {@link MAX_ACTIVE_TURNS} turns), so work that is
 * about to register another ask of the same round (a concurrent branch of
 * `Mrtr.all`, a microtask, an I/O callback that already fired) does so first.
 * Plain callbacks rather than a fiber: it runs on every suspended round.
 */
export const roundEndWatch = (asking: () => boolean): RoundEndWatch => {
  let version = 0
  let mark = 0
  let quiet = 0
  let busy = 0
  let tasks = 0
  let ranTask = false
  let activeTurns = 0
  // Waiting for a change until an ask waits (`asking`) and no work is in flight.
  let waitingForChange = true
  let timer: ReturnType<typeof setImmediate> | undefined
  let suspended = false
  let stopped = false
  let listener: (() => void) | undefined
  const suspend = () => {
    suspended = true
    const notify = listener
    listener = undefined
    notify?.()
  }
  const tick = () => {
    timer = undefined
    if (stopped) return
    const changedSince = version !== mark
    const active = tasks > 0 || ranTask
    ranTask = false
    activeTurns = changedSince ? 0 : active ? activeTurns + 1 : 0
    const still = !changedSince && busy === 0 && (!active || activeTurns > MAX_ACTIVE_TURNS)
    quiet = still ? quiet + 1 : 0
    if (quiet < 2) return next()
    if (asking()) return suspend()
    // Quiet, but no ask waits (the handler dropped the ones it made): the
    // round goes on until something changes.
    quiet = 0
    waitingForChange = true
  }
  const next = () => {
    if (busy > 0 || !asking()) {
      waitingForChange = true
      return
    }
    mark = version
    timer = setImmediate(tick)
  }
  const changed = () => {
    version++
    if (waitingForChange && !stopped) {
      waitingForChange = false
      quiet = 0
      next()
    }
  }
  return {
    /** Something happened that may lead to more asks this round. */
    changed,
    /** A step or a question digest starts. */
    begin: () => {
      busy++
    },
    /** It ended (a change). */
    end: () => {
      busy--
      changed()
    },
    /** A task was queued for one of the handler's fibers. */
    taskQueued: () => {
      tasks++
    },
    /** It ran. */
    taskRan: () => {
      tasks--
      ranTask = true
    },
    /** The round is over (decided, or the request was interrupted). */
    isStopped: () => stopped,
    onSuspend: (f: () => void) => {
      if (suspended) f()
      else listener = f
    },
    stop: () => {
      stopped = true
      listener = undefined
      if (timer !== undefined) clearImmediate(timer)
      timer = undefined
    }
  }
}
