/**
 * Runs tasks (SEP-2663) on one server instance: creates a task's record,
 * runs its handler with `Engine.drive` (the journal from the `TaskStore`,
 * not a sealed `requestState`), and records the end: `completed` with the
 * result (`results.ts`), `failed` with a JSON-RPC error (`errors.ts`), or,
 * as this way's fulfil, `input_required` with the round's `inputRequests`
 * (the fiber then ends; the next round starts when every key is answered,
 * on whichever instance takes the last answer).
 *
 * Every change goes through {@link Runner.apply}: one atomic `modify` of the
 * store with a transition of `taskRecord.ts`, then `announce` (this
 * instance's `subscriptions/listen` streams and, through the
 * `NotificationBus`, the other instances'), counted in `mrtr_tasks_total`.
 *
 * Gotchas: a round's fiber is forked into the server's scope: when the
 * server stops, it is interrupted and the task released (`owner` cleared) so
 * another instance resumes it by replay. A watchdog interrupts the fiber when
 * the task's TTL passes, or once it is terminal or gone elsewhere (cancelled
 * on another instance), checking every poll interval (kept within 100 ms–1 s).
 * While a round runs, its owner renews the task's lease every `heartbeatMs`
 * (default a third of `leaseMs`, 15 s); an owner that crashed (SIGKILL)
 * stops renewing, and once the lease has passed any instance may claim the
 * task and re-run the round by replay (its unfinished step runs again). An
 * owner whose renewal finds the task claimed by another stops its fiber. A
 * store that cannot answer while a round ends (`TaskStoreUnavailable`) is
 * logged; the lease then lapses and the task is resumed like a crashed one.
 * Source: ext-tasks `specification/draft/tasks.md` §Task Creation, §Task Status.
 */
import type { RequestState } from "@mrtr/core"
import { Engine, Journal } from "@mrtr/core/engine"
import { ErrorCode, McpError } from "@mrtr/protocol/ErrorCode"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import type { InputResponses } from "@mrtr/protocol/Schema"
import { isTerminalStatus } from "@mrtr/protocol/Tasks"
import { Cause, Clock, Duration, Effect, Exit, Fiber, Metric, Schedule, type Scope } from "effect"
import * as SecureRandom from "effect/crypto/SecureRandom"
import { tasksTotal } from "../Observability.ts"
import { McpRequest } from "../RequestContext.ts"
import type {
  TaskCall,
  TaskRecord,
  TaskStore,
  TaskStoreFull,
  TaskStoreUnavailable,
  TaskTooLarge
} from "../TaskStore.ts"
import { errorOf } from "./errors.ts"
import { encodeCreateTask, encodeResult, type Encoding } from "./results.ts"
import { claimed, dictionary, released, renewed, settled, taskFields, waiting } from "./taskRecord.ts"

/** Task defaults of a server (Tasks extension): past the lease of a crashed owner, any instance resumes the task. */
export interface TaskOptions {
  /**
   * How long a task is kept, in milliseconds from its creation; `null`: no limit.
   *
   * @default 300_000
   */
  readonly ttlMs?: number | null | undefined
  /**
   * The `pollIntervalMs` a task tells its client to poll at.
   *
   * @default 1_000
   */
  readonly pollIntervalMs?: number | undefined
  /**
   * How long an owner's claim on a running task holds without renewal, in milliseconds.
   *
   * @default 15_000
   */
  readonly leaseMs?: number | undefined
  /**
   * How often the owner renews its claim, in milliseconds; keep it well below `leaseMs`.
   *
   * @default leaseMs / 3
   */
  readonly heartbeatMs?: number | undefined
}

/** What the task runtime needs from the server that hosts it. */
export interface TaskHost {
  readonly store: TaskStore["Service"]
  readonly scope: Scope.Scope
  readonly engine: Engine.Services
  readonly audience: string
  /** The server's result encoding (its `_meta`). */
  readonly encoding: Encoding
  readonly options: TaskOptions
  /** The handler of `tool` for `args` (tool errors already turned into `isError` results), if the tool exists. */
  readonly handlerFor: (
    tool: string,
    args: Readonly<Record<string, unknown>>
  ) => Effect.Effect<Record<string, unknown>, unknown, any> | undefined
}

/** The runner of one instance (see {@link makeRunner}). */
export interface Runner {
  /**
   * Applies `transition` atomically; announces and returns the new record, or
   * `undefined` when it did not apply. A status change is counted.
   */
  readonly apply: (
    taskId: string,
    transition: (record: TaskRecord, now: number) => TaskRecord | undefined
  ) => Effect.Effect<TaskRecord | undefined, TaskStoreUnavailable>
  /** Ends a task not yet terminal with `patch` (its status and result or error), releasing its lease (see `apply`). */
  readonly settle: (
    taskId: string,
    patch: Partial<TaskRecord>
  ) => Effect.Effect<TaskRecord | undefined, TaskStoreUnavailable>
  /**
   * Creates the task for a `tools/call` (its journal so far), starts it and
   * returns the `CreateTaskResult`; a full store is -32603.
   */
  readonly create: (call: TaskCall, journal: Journal.Journal) => Effect.Effect<Record<string, unknown>, McpError>
  /** Claims a task nobody runs (all its answers in, or its instance gone) and runs its next round here. */
  readonly resume: (
    taskId: string,
    claimable: (record: TaskRecord, now: number) => boolean
  ) => Effect.Effect<void, TaskStoreUnavailable>
  /** Interrupts the task's fiber on this instance, if it runs here; its finalizers have run when this returns. */
  readonly interruptLocal: (taskId: string) => Effect.Effect<void>
}

const countStatus = (status: string) => Metric.update(Metric.withAttributes(tasksTotal, { status }), 1)

/** Builds the runner of one server instance; `announce` receives every record this instance changes. */
export const makeRunner = (host: TaskHost, announce: (record: TaskRecord) => Effect.Effect<void>): Runner => {
  const { audience, engine, store } = host
  const ttlMs = host.options.ttlMs === undefined ? 300_000 : host.options.ttlMs
  const pollIntervalMs = host.options.pollIntervalMs ?? 1_000
  const leaseMs = Math.max(1, host.options.leaseMs ?? 15_000)
  const heartbeatMs = Math.max(1, host.options.heartbeatMs ?? Math.floor(leaseMs / 3))
  const instanceId = SecureRandom.uuidV4Unsafe()
  // The fibers running task rounds on this instance, by task id.
  const running = new Map<string, Fiber.Fiber<void>>()

  /**
   * Applies `transition` atomically; announces and returns the new record, or
   * `undefined` when it did not apply. A status change is counted.
   */
  const apply = (
    taskId: string,
    transition: (record: TaskRecord, now: number) => TaskRecord | undefined
  ): Effect.Effect<TaskRecord | undefined, TaskStoreUnavailable> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      store.modify(taskId, (record) => {
        const next = transition(record, now)
        return next === undefined ? [undefined, record] as const : [{ next, from: record.status }, next] as const
      })).pipe(
        // A change that outgrows the store's byte bounds (its journal, a client's answers): the task fails with why,
        // its journal and answers dropped (a settled record is smaller than the one the store holds).
        Effect.catchTag("TaskTooLarge", (error) =>
          Effect.andThen(
            Effect.logWarning(`Task failed: ${error.message}`).pipe(Effect.annotateLogs({ taskId })),
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              store.modify(taskId, (record) => {
                const next = settled(record, {
                  status: "failed",
                  statusMessage: error.message,
                  error: { code: ErrorCode.InternalError, message: error.message },
                  journal: undefined,
                  keyAliases: undefined
                }, now)
                return next === undefined
                  ? [undefined, record] as const
                  : [{ next, from: record.status }, next] as const
              }).pipe(Effect.catchTag("TaskTooLarge", () => Effect.succeed(undefined))))
          )),
        Effect.flatMap((change) =>
          change === undefined ? Effect.succeed(undefined) : Effect.as(
            Effect.andThen(
              change.from === change.next.status ? Effect.void : countStatus(change.next.status),
              announce(change.next)
            ),
            change.next
          )
        )
      )

  /** A store failure inside a task's own fiber: logged (the lease lapses and another round resumes the task). */
  const logUnavailable = (taskId: string, what: string) => (error: TaskStoreUnavailable) =>
    Effect.logWarning(`Task store unavailable (${error.reason}): ${what}`).pipe(Effect.annotateLogs({ taskId }))

  const settle = (taskId: string, patch: Partial<TaskRecord>) =>
    apply(taskId, (record, now) => settled(record, patch, now))

  /**
   * The end of a round this instance ran: recorded only while the task is
   * still ours (an instance whose lease lapsed, e.g. its event loop stalled,
   * and whose task another instance took over, records nothing).
   */
  const ended = (taskId: string, transition: (record: TaskRecord, now: number) => TaskRecord | undefined) =>
    apply(taskId, (record, now) => record.owner === instanceId ? transition(record, now) : undefined)

  const failedWith = (taskId: string, cause: Cause.Cause<unknown>) =>
    Effect.flatMap(
      errorOf(cause, { era: "2026-07-28", log: "Task failed", annotations: { taskId } }),
      (error) =>
        ended(taskId, (record, now) => settled(record, { status: "failed", statusMessage: error.message, error }, now))
    )

  /**
   * A task's journal is sealed with the server's key ring (AEAD), bound to
   * the task, in its record: the values it holds (a secure elicitation's
   * answer, steps' results) never sit in a store in clear.
   */
  const journalBinding = (taskId: string, call: TaskCall): RequestState.Binding =>
    call.principal === undefined
      ? { method: "tasks/journal", target: taskId, argumentsDigest: "", audience }
      : { method: "tasks/journal", target: taskId, argumentsDigest: "", audience, principal: call.principal }

  const sealJournal = (taskId: string, call: TaskCall, journal: Journal.Journal): Effect.Effect<string | undefined> =>
    journal === Journal.empty
      ? Effect.succeed(undefined)
      : engine.codec.sealStored(journal, journalBinding(taskId, call))

  // Our own output once the AEAD verified it: trusted as a journal.
  const openJournal = (record: TaskRecord) =>
    record.journal === undefined
      ? Effect.succeed(Journal.empty)
      : Effect.map(engine.codec.unsealStored(record.journal, journalBinding(record.taskId, record.call)), (payload) =>
        payload as Journal.Journal)

  /** The request context a task's handler sees: the creating call's capabilities and principal, no streaming. */
  const requestContext = (taskId: string, call: TaskCall) =>
    McpRequest.of({
      id: `task:${taskId}` as RequestId,
      method: "tools/call",
      clientCapabilities: call.clientCapabilities,
      principal: call.principal,
      notify: () => Effect.void
    })

  /** One round of the task's handler, from the record's journal and answers, and its recorded end. */
  const round = (record: TaskRecord): Effect.Effect<void> => {
    const { call, taskId } = record
    const handler = host.handlerFor(call.tool, call.arguments)
    if (handler === undefined) {
      return failedWith(taskId, Cause.fail(McpError.invalidParams(`Unknown tool: ${call.tool}`))).pipe(
        Effect.catchTag("TaskStoreUnavailable", logUnavailable(taskId, "the failure was not recorded")),
        Effect.asVoid
      )
    }
    return Effect.matchEffect(openJournal(record), {
      // Sealed with a key no longer in the ring (or not by this server): the task cannot go on.
      onFailure: () =>
        failedWith(taskId, Cause.die(new Error("The task's journal cannot be unsealed with the key ring"))).pipe(
          Effect.catchTag("TaskStoreUnavailable", logUnavailable(taskId, "the failure was not recorded")),
          Effect.asVoid
        ),
      onSuccess: (journal) => roundOf(record, handler, journal)
    })
  }

  /** {@link round} once the record's journal is unsealed. */
  const roundOf = (
    record: TaskRecord,
    handler: Effect.Effect<Record<string, unknown>, unknown, any>,
    journal: Journal.Journal
  ): Effect.Effect<void> => {
    const { call, taskId } = record
    // The round's end, recorded; a store that cannot answer is logged (the lease lapses, another round resumes).
    const recordEnd = (transition: (current: TaskRecord, now: number) => TaskRecord | undefined) =>
      ended(taskId, transition).pipe(
        Effect.catchTag("TaskStoreUnavailable", logUnavailable(taskId, "the round's end was not recorded")),
        Effect.asVoid
      )
    // This way's fulfil: the round's `input_required` status (its journal sealed) in the store ends the fiber;
    // `tasks/update` resumes it.
    const driven = Engine.drive(engine, handler, {
      method: "tools/call",
      target: call.tool,
      arguments: call.arguments,
      audience,
      principal: call.principal,
      clientCapabilities: call.clientCapabilities,
      journal,
      inputResponses: record.answers as InputResponses,
      // the store keeps the journal: nothing to seal
      seal: false
    }, {
      fulfil: (suspended) =>
        sealJournal(taskId, call, suspended.journal).pipe(
          Effect.flatMap((sealed) =>
            recordEnd((current, now) => waiting(current, suspended.result.inputRequests ?? {}, sealed, now))
          ),
          Effect.as(Engine.end(undefined))
        ),
      complete: (value) =>
        recordEnd((current, now) => {
          const result = encodeResult(host.encoding, "task", "tools/call", value, false, call.principal)
          return settled(current, { status: "completed", result }, now)
        })
      // Not run with `detach`: `Task.detach` does nothing inside a task.
    }).pipe(
      Effect.provideService(McpRequest, requestContext(taskId, call)),
      Effect.scoped
    ) as Effect.Effect<void, unknown>
    return Effect.catchCause(driven, (cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.void
        : failedWith(taskId, cause).pipe(
          Effect.catchTag("TaskStoreUnavailable", logUnavailable(taskId, "the round's end was not recorded")),
          Effect.asVoid
        ))
  }

  /**
   * Ends when the task's TTL passes (a timer), or when a check finds it
   * terminal or gone (cancelled on another instance), every poll interval
   * kept between 100 ms and 1 s.
   */
  const watchdog = (record: TaskRecord) => {
    const checked = store.get(record.taskId).pipe(
      Effect.map((current) => current === undefined || isTerminalStatus(current.status)),
      // A store that cannot answer ends nothing: the next check asks again.
      Effect.catchTag("TaskStoreUnavailable", () => Effect.succeed(false)),
      Effect.repeat({
        until: (over) => over,
        schedule: Schedule.spaced(Duration.millis(Math.min(Math.max(pollIntervalMs, 100), 1_000)))
      })
    )
    if (record.ttlMs === null) return checked
    const expiry = record.createdAt + record.ttlMs
    const expired = Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => Effect.sleep(Duration.millis(Math.max(0, expiry - now)))
    )
    return Effect.raceFirst(checked, expired)
  }

  /**
   * Renews this instance's lease every `heartbeatMs`; ends when a renewal
   * finds the task no longer ours (finished, or claimed by another instance
   * after our lease lapsed). A renewal the store cannot answer is retried at
   * the next beat.
   */
  const heartbeat = (taskId: string) =>
    Effect.sleep(Duration.millis(heartbeatMs)).pipe(
      Effect.andThen(Clock.currentTimeMillis),
      Effect.flatMap((now) =>
        store.modify(taskId, (current) => {
          const next = renewed(current, instanceId, now, leaseMs)
          return next === undefined ? [false, current] as const : [true, next] as const
        })
      ),
      Effect.map((ours) => ours === true),
      Effect.catchTag("TaskStoreUnavailable", () => Effect.succeed(true)),
      // A lease renewal never grows a record past its bounds; if it did, the round goes on until its end is recorded.
      Effect.catchTag("TaskTooLarge", () => Effect.succeed(true)),
      Effect.repeat({ while: (ours) => ours }),
      Effect.asVoid
    )

  /** Runs the next round of a task this instance owns, in the server's scope. */
  const launch = (record: TaskRecord) =>
    Effect.flatMap(
      Effect.forkIn(
        Effect.raceFirst(round(record), Effect.raceFirst(watchdog(record), heartbeat(record.taskId))).pipe(
          Effect.onExit((exit) =>
            Effect.andThen(
              Effect.sync(() => running.delete(record.taskId)),
              // Interrupted without a cancel (this instance stops): release the task for another instance.
              Exit.isFailure(exit)
                ? apply(record.taskId, (current) => released(current, instanceId)).pipe(
                  Effect.catchTag(
                    "TaskStoreUnavailable",
                    logUnavailable(record.taskId, "not released (its lease will lapse)")
                  )
                )
                : Effect.void
            )
          ),
          Effect.asVoid
        ),
        host.scope
      ),
      (fiber) => Effect.sync(() => void running.set(record.taskId, fiber))
    )

  /**
   * Creates the task for a `tools/call` (its journal so far), starts it and
   * returns the `CreateTaskResult` (flat, `resultType: "task"`, no
   * `requestState`). The record is in the store before this returns; a full
   * store is -32603.
   */
  const create = (call: TaskCall, journal: Journal.Journal) => {
    const taskId = SecureRandom.uuidV4Unsafe()
    return Effect.flatMap(Effect.zip(sealJournal(taskId, call, journal), Clock.currentTimeMillis), ([sealed, now]) => {
      const record: TaskRecord = {
        taskId,
        status: "working",
        createdAt: now,
        lastUpdatedAt: now,
        ttlMs,
        pollIntervalMs,
        owner: instanceId,
        leaseExpiresAt: now + leaseMs,
        call,
        journal: sealed,
        inputRequests: dictionary(),
        answers: dictionary()
      }
      return store.insert(record).pipe(
        Effect.mapError((error: TaskStoreFull | TaskTooLarge | TaskStoreUnavailable) =>
          new McpError({ code: ErrorCode.InternalError, message: error.message })
        ),
        Effect.andThen(launch(record)),
        Effect.andThen(countStatus(record.status)),
        Effect.andThen(announce(record)),
        Effect.as(encodeCreateTask(host.encoding, taskFields(record)))
      )
    })
  }

  /** Claims a task nobody runs (all its answers in, or its instance gone) and runs its next round here. */
  const resume = (taskId: string, claimable: (record: TaskRecord, now: number) => boolean) =>
    // A round of it running here already (its lease lapsed under a stalled event loop): never a second one.
    running.has(taskId) ? Effect.void : Effect.flatMap(
      apply(taskId, (record, now) => claimed(record, instanceId, claimable, now, leaseMs)),
      (record) => record === undefined ? Effect.void : launch(record)
    )

  /** Interrupts the task's fiber on this instance, if it runs here; its finalizers have run when this returns. */
  const interruptLocal = (taskId: string) => {
    const fiber = running.get(taskId)
    return fiber === undefined ? Effect.void : Fiber.interrupt(fiber)
  }

  return { apply, settle, create, resume, interruptLocal }
}
