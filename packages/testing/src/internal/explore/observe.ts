/**
 * What an exploration watches inside the server while a conversation runs,
 * the same on every way it is carried (2026-07-28 rounds, the 2025-11-25
 * shim's in-flight requests, a task): everything the server does for the
 * conversation runs in fibers forked from the explorer's requests, so it
 * inherits what {@link Observer.provide} puts in their context.
 *
 * - determinism: `Engine.ReplayCheck` hands over each suspended round; the
 *   round runs again from the journal it left, without answers, with `Date`,
 *   `Date.now` and `Math.random` changed (the clock 61 s ahead), and must
 *   suspend with the same pending asks (same keys, same question digests);
 * - each `Mrtr.step` runs once (its `mrtr.step` span, seen by a tracer; one
 *   that runs during a replay ran again);
 * - the handler's failures, as the server reports them (`ErrorReporter`):
 *   an `ElicitationDeclined` or `ElicitationCancelled` it did not catch;
 * - its error logs (a defect's cause).
 *
 * Gotcha: while a round is replayed, `Date` and `Math.random` are replaced
 * globally: explorations run one at a time.
 */
import { Engine } from "@mrtr/core/engine"
import type { InputRequest } from "@mrtr/protocol/Schema"
import { Cause, Effect, ErrorReporter, Exit, Logger, Tracer } from "effect"
import type { Violation } from "./model.ts"

/** A decline or cancel the handler did not catch, as the server reported it. */
export interface Uncaught {
  readonly action: "decline" | "cancel"
  readonly key: string
}

/** One conversation's observer. */
export interface Observer {
  readonly violations: Array<Violation>
  /** The server's error logs. */
  readonly errors: ReadonlyArray<string>
  /** The declines and cancels the handler did not catch. */
  readonly uncaught: ReadonlyArray<Uncaught>
  /** The number of the last round the server suspended (0: none yet). */
  readonly round: () => number
  /** Runs `effect` (requests to the server) with the observer in its context. */
  readonly provide: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The step counts, checked once the conversation is over. */
  readonly finish: () => void
}

/** The question of an input request, for a message. */
const question = (request: InputRequest | undefined): string =>
  request === undefined ? "not asked" : JSON.stringify({ method: request.method, params: request.params })

/** A tracer that reports each `mrtr.step` that ran to completion. */
const stepTracer = (onStep: (name: string) => void): Tracer.Tracer =>
  Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      if (options.name !== "mrtr.step") return span
      const end = span.end.bind(span)
      span.end = (endTime, exit) => {
        end(endTime, exit)
        if (Exit.isSuccess(exit)) onStep(String(span.attributes.get("mrtr.step.name")))
      }
      return span
    }
  })

const SHIFT_MS = 61_000

/**
 * Runs `effect` with the clock 61 s ahead (`Date`, `Date.now`, so Effect's
 * `Clock` too) and another `Math.random`: what a replay that reads them
 * outside `Mrtr.step` sees differently.
 */
const elsewhen = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const RealDate = globalThis.Date
      const random = Math.random
      let seed = 0x2f6b
      const Shifted = function(this: unknown, ...args: Array<any>) {
        if (!new.target) return new RealDate(RealDate.now() + SHIFT_MS).toString()
        return args.length === 0 ? new RealDate(RealDate.now() + SHIFT_MS) : new (RealDate as any)(...args)
      } as unknown as DateConstructor
      Object.setPrototypeOf(Shifted, RealDate)
      ;(Shifted as any).prototype = RealDate.prototype
      ;(Shifted as any).now = () => RealDate.now() + SHIFT_MS
      globalThis.Date = Shifted
      Math.random = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648
        return seed / 2147483648
      }
      return { RealDate, random }
    }),
    () => effect,
    ({ RealDate, random }) =>
      Effect.sync(() => {
        globalThis.Date = RealDate
        Math.random = random
      })
  )

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** The observer of one conversation; `determinism: false` leaves rounds unreplayed. */
export const make = (options: { readonly determinism: boolean }): Observer => {
  const violations: Array<Violation> = []
  const errors: Array<string> = []
  const uncaught: Array<Uncaught> = []
  const steps = new Map<string, number>()
  let round = 0
  let replaying = false

  const tracer = stepTracer((name) => {
    if (replaying) {
      violations.push({
        property: "step-once",
        message:
          `Mrtr.step "${name}" ran again when the round was replayed from its journal (was its value journaled? ` +
          `does its schema decode what it encoded? is its name unique?)`
      })
    } else steps.set(name, (steps.get(name) ?? 0) + 1)
  })

  // The server's logs are kept, not printed: its error logs (a defect's cause) go into the violation.
  const logger = Logger.make<unknown, void>((entry) => {
    if (entry.logLevel === "Error" || entry.logLevel === "Fatal") {
      errors.push(
        [entry.message].flat().map(String).join(" ") +
          (entry.cause.reasons.length === 0 ? "" : `\n${Cause.pretty(entry.cause)}`)
      )
    }
  })

  // The handler's failures the server answers itself: a decline or cancel among them was not caught.
  const reporter: ErrorReporter.ErrorReporter = {
    [ErrorReporter.TypeId]: ErrorReporter.TypeId,
    report: ({ cause }) => {
      if (replaying) return
      for (const reason of cause.reasons) {
        if (reason._tag !== "Fail" || !isRecord(reason.error) || typeof reason.error.key !== "string") continue
        const tag = reason.error._tag
        if (tag === "ElicitationDeclined") uncaught.push({ action: "decline", key: reason.error.key })
        else if (tag === "ElicitationCancelled") uncaught.push({ action: "cancel", key: reason.error.key })
      }
    }
  }

  const compare = (suspended: Engine.Suspended, exit: Exit.Exit<Engine.Outcome<unknown>, unknown>) => {
    const at = `round ${suspended.round}: replayed from the same journal without answers, the handler`
    if (Exit.isFailure(exit)) {
      violations.push({ property: "determinism", message: `${at} failed:\n${Cause.pretty(exit.cause)}` })
      return
    }
    const replayed = exit.value
    if (replayed._tag !== "InputRequired") {
      violations.push({
        property: "determinism",
        message: `${at} did not ask again but ${replayed._tag === "Complete" ? "completed" : "detached"}`
      })
      return
    }
    const before = suspended.journal.pending
    const after = replayed.journal.pending
    const keys = Object.keys(before)
    const changed = keys.find((key) => !Object.hasOwn(after, key) || after[key] !== before[key]) ??
      Object.keys(after).find((key) => !Object.hasOwn(before, key))
    if (changed === undefined) return
    const first = (suspended.result.inputRequests ?? {}) as Record<string, InputRequest>
    const second = (replayed.result.inputRequests ?? {}) as Record<string, InputRequest>
    violations.push({
      property: "determinism",
      key: changed,
      message: `${at} asked "${changed}" differently (the first run: ${question(first[changed])}; the replay, ` +
        `with the clock and Math.random changed: ${question(second[changed])}): something outside Mrtr.step ` +
        `(time, randomness, a mutable variable) changes its path`
    })
  }

  const check = (suspended: Engine.Suspended, replay: Effect.Effect<Engine.Outcome<unknown>, unknown>) =>
    Effect.suspend(() => {
      round = suspended.round
      if (!options.determinism || violations.length > 0) return Effect.void
      replaying = true
      return elsewhen(Effect.exit(replay)).pipe(
        Effect.map((exit) => compare(suspended, exit)),
        Effect.ensuring(Effect.sync(() => {
          replaying = false
        }))
      )
    })

  return {
    violations,
    errors,
    uncaught,
    round: () => round,
    provide: (effect) =>
      effect.pipe(
        Effect.withTracer(tracer),
        Effect.provideService(Logger.CurrentLoggers, new Set([logger])),
        Effect.provideService(ErrorReporter.CurrentErrorReporters, new Set([reporter])),
        Effect.provideService(Engine.ReplayCheck, check)
      ),
    finish: () => {
      for (const [name, count] of steps) {
        if (count > 1) {
          violations.push({
            property: "step-once",
            message: `Mrtr.step "${name}" ran ${count} times in one conversation`
          })
        }
      }
    }
  }
}
