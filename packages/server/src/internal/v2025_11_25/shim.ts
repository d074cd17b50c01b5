/**
 * The legacy fulfilment shim: runs a `tools/call`, `prompts/get` or
 * `resources/read` of a 2025-11-25 session through the same engine as the
 * 2026-07-28 wire, delivering each round's input requests as real
 * server-to-client requests.
 *
 * The call is one `Engine.drive` whose fulfil is this era's: when a round
 * suspends, every input request of the round goes out at once (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`, each with its own JSON-RPC id) on the request's own stream
 * (its SSE stream on HTTP, stdout on stdio); their answers become the next
 * round's `inputResponses` (that round's answers only) and the engine runs
 * the next round in process, from the journal of the round before (nothing
 * is sealed: the state never leaves the server, so the codec's expiry
 * and single use play no part), until the handler completes or `maxRounds`
 * is reached. Keys, digests, decoding, capability
 * checks (against the capabilities of `initialize`) and bounds are the
 * engine's, so a decline, a cancel, a wrong-kind or a malformed answer
 * behaves as on 2026-07-28 (typed failure, or the question asked again).
 *
 * A URL-mode elicitation gets an `elicitationId` (a UUID, kept while the same
 * key is asked again), and `notifications/elicitation/complete` is sent once
 * the handler has moved past it (a later round no longer asks it). The
 * rounds run in process (`Engine.Request.inProcess`): a secure elicitation
 * (`Elicitation.secure`) waits for its page after the acceptance, so the
 * notification follows the page's submission.
 *
 * Failures, all at once and structured (JSON-RPC -32600 / -32603 with
 * `data.reason`): a round that cannot be delivered (no session, or a reply
 * that cannot stream) → `input_undeliverable`; too many unanswered legs on
 * the session → `too_many_pending_inputs`; a leg unanswered after
 * `legTimeoutMs` → `input_timeout` (the leg is cancelled with
 * `notifications/cancelled`); a JSON-RPC error as a leg's answer →
 * `input_failed`; on a shared directory, the
 * session's record gone while a leg waits (a Redis that lost its keys) →
 * `session_lost`. The first failure abandons
 * the round's other legs.
 * Interrupting the request (cancellation, the stream closing) interrupts the
 * handler and the pending legs.
 *
 * Gotcha (cost): a round of one leg runs it in the round's fiber, and a
 * leg's `legTimeoutMs` is one timer failing its deferred (`awaitLeg`), not a
 * forked race, under effect's default clock; under another (`TestClock`) it
 * is `Effect.timeoutOrElse`.
 * Source: MCP 2025-11-25, client/elicitation, client/sampling, client/roots,
 * basic/utilities/cancellation; `docs/architecture.md` (the 2025-11-25 walk).
 */
import { Engine } from "@mrtr/core/engine"
import { Legacy } from "@mrtr/protocol"
import { ErrorCode, McpError } from "@mrtr/protocol/ErrorCode"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import type { InputRequest, InputResponses } from "@mrtr/protocol/Schema"
import { type Clock, Deferred, Effect, Metric } from "effect"
import * as Observability from "../../Observability.ts"
import type { WireMessage } from "../../Transport.ts"
import type { Call } from "../registry.ts"
import { LegRejected, type Session } from "./session.ts"

/** Where the shim runs one call. */
export interface CallSite {
  readonly engine: Engine.Services
  readonly audience: string
  readonly principal: string | undefined
  /** The request's session; undefined for a legacy request outside any session. */
  readonly session: Session | undefined
  /** False when the request's reply cannot carry server-to-client requests (no SSE). */
  readonly canDeliver: boolean
  /** Writes a message on the request's own stream. */
  readonly emit: (message: WireMessage) => Effect.Effect<void>
  readonly maxPendingLegs: number
  readonly legTimeoutMs: number
  /**
   * On a shared directory: fails (`session_lost`) once the session's shared
   * record is gone while the round's legs wait, so the call ends at once
   * rather than after `legTimeoutMs` (an answer POSTed to another instance
   * can no longer reach this one); the legs are then cancelled. Never
   * succeeds.
   */
  readonly sessionLost?: Effect.Effect<never, McpError> | undefined
}

const failure = (code: number, message: string, data: Record<string, unknown>) => new McpError({ code, message, data })

/** What a leg's deferred fails with when its time is up (see `awaitLeg`). */
const TIMED_OUT: unique symbol = Symbol("mrtr/legacy/leg-timed-out")

/** The longest delay one `setTimeout` takes, in ms (a longer one fires at once). */
const MAX_TIMER_MILLIS = 2 ** 31 - 1

/** Effect's default clock, read once: under it a leg's bound is a plain timer (see `awaitLeg`). */
let defaultClock: Clock.Clock | undefined
const isDefaultClock = (clock: Clock.Clock): boolean =>
  clock === (defaultClock ??= Effect.runSync(Effect.clockWith(Effect.succeed)))

/**
 * The answer to a leg (its deferred's outcome), or `onTimeout()` after `ms`
 * milliseconds. Under effect's default
 * clock the bound is one `setTimeout` that fails the leg's deferred (no fiber
 * forked, no race: this runs for every leg of every 2025-11-25 round); under
 * another clock (`TestClock`), or for a bound longer than one timer takes,
 * it is `Effect.timeoutOrElse`, so tests that move the clock see it.
 */
export const awaitLeg = <E>(
  deferred: Deferred.Deferred<unknown, LegRejected>,
  ms: number,
  onTimeout: () => Effect.Effect<never, E>
): Effect.Effect<unknown, LegRejected | E> =>
  Effect.clockWith((clock) => {
    // Past what one `setTimeout` takes (about 24.8 days; `Infinity` included) it would fire at once: effect's sleep
    // splits a long bound, and an infinite one never fires.
    if (!isDefaultClock(clock) || !(ms <= MAX_TIMER_MILLIS)) {
      return Effect.timeoutOrElse(Deferred.await(deferred), { duration: ms, orElse: onTimeout })
    }
    const timer = setTimeout(() => Deferred.doneUnsafe(deferred, Effect.fail(new LegRejected(TIMED_OUT))), ms)
    return Deferred.await(deferred).pipe(
      Effect.ensuring(Effect.sync(() => clearTimeout(timer))),
      Effect.catch((error: LegRejected): Effect.Effect<never, LegRejected | E> =>
        error.error === TIMED_OUT ? onTimeout() : Effect.fail(error)
      )
    )
  })

/** The methods of a round, for error messages. */
const methodsOf = (requests: Readonly<Record<string, InputRequest>>) =>
  Array.from(new Set(Object.values(requests).map((r) => r.method))).join(", ")

/** Runs `call` to completion through `Engine.drive`, fulfilling every round over the legacy wire. */
export const runCall = (context: CallSite, call: Call): Effect.Effect<Record<string, unknown>, unknown, any> => {
  const elicitationIds = new Map<string, string>()
  // URL elicitations answered "accept" in the last round, by key.
  let accepted = new Map<string, string>()

  const completeUrlElicitations = (stillAsked: ReadonlySet<string>) =>
    Effect.suspend(() => {
      const done = Array.from(accepted).filter(([key]) => !stillAsked.has(key))
      accepted = new Map()
      return Effect.forEach(done, ([key, elicitationId]) => {
        elicitationIds.delete(key)
        return context.emit({
          jsonrpc: "2.0",
          method: Legacy.Method.notificationsElicitationComplete,
          params: { elicitationId }
        })
      }, { discard: true })
    })

  const leg = (session: Session, key: string, request: InputRequest): Effect.Effect<unknown, McpError> =>
    Effect.suspend(() => {
      if (session.inputEnded) {
        return Effect.fail(failure(
          ErrorCode.InvalidRequest,
          `This request needs input from the client (${request.method}, input "${key}"), whose input has ended`,
          { reason: "input_undeliverable", inputRequests: [key] }
        ))
      }
      if (session.legs.size >= context.maxPendingLegs) {
        return Effect.fail(failure(
          ErrorCode.InvalidRequest,
          `Too many unanswered server-to-client requests on this session (at most ${context.maxPendingLegs})`,
          { reason: "too_many_pending_inputs", maxPendingInputs: context.maxPendingLegs }
        ))
      }
      // The id names this instance: an answer POSTed to another one is routed here (fleet.ts).
      const id: RequestId = `mrtr.${session.instanceId}.${++session.nextLegId}`
      const isUrl = request.method === "elicitation/create" && (request.params as { mode?: unknown }).mode === "url"
      let elicitationId: string | undefined
      if (isUrl) {
        elicitationId = elicitationIds.get(key) ?? globalThis.crypto.randomUUID()
        elicitationIds.set(key, elicitationId)
      }
      const deferred = Deferred.makeUnsafe<unknown, LegRejected>()
      session.legs.set(id, deferred)
      const inFlight = Observability.legacyLegsInFlight
      const cancel = (reason: string) =>
        context.emit({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } })
      return Metric.modify(inFlight, 1).pipe(
        Effect.andThen(context.emit(Legacy.fromInputRequest(request, id, elicitationId) as WireMessage)),
        Effect.andThen(awaitLeg(deferred, context.legTimeoutMs, () =>
          Effect.andThen(
            cancel("timeout"),
            Effect.fail(failure(
              ErrorCode.InternalError,
              `The client did not answer ${request.method} (input "${key}") within ${context.legTimeoutMs} ms`,
              { reason: "input_timeout", key, method: request.method, timeoutMs: context.legTimeoutMs }
            ))
          ))),
        Effect.catch((error: McpError | LegRejected) =>
          Effect.fail(
            error instanceof LegRejected
              ? failure(
                ErrorCode.InternalError,
                `The client answered ${request.method} (input "${key}") with an error`,
                { reason: "input_failed", key, method: request.method, error: error.error }
              )
              : error
          )
        ),
        Effect.tap((answer) =>
          Effect.sync(() => {
            if (elicitationId !== undefined && (answer as { action?: unknown } | null)?.action === "accept") {
              accepted.set(key, elicitationId)
            }
          })
        ),
        Effect.onInterrupt(() => session.legs.has(id) ? cancel("request cancelled") : Effect.void),
        Effect.ensuring(Effect.andThen(Effect.sync(() => session.legs.delete(id)), Metric.modify(inFlight, -1)))
      )
    })

  // This era's fulfil: the round's input requests as server-to-client requests; their answers run the next round.
  const fulfil = (suspended: Engine.Suspended): Effect.Effect<Engine.Fulfilment<never>, McpError> => {
    const requests = suspended.result.inputRequests ?? {}
    const session = context.session
    if (session === undefined || !context.canDeliver) {
      return Effect.fail(failure(
        ErrorCode.InvalidRequest,
        session === undefined
          ? `This request needs input from the client (${
            methodsOf(requests)
          }), which a 2025-11-25 request outside any session cannot carry: initialize a session first`
          : `This request needs input from the client (${
            methodsOf(requests)
          }), which this reply cannot carry: accept text/event-stream`,
        { reason: "input_undeliverable", inputRequests: Object.keys(requests) }
      ))
    }
    const entries = Object.entries(requests)
    const answerOf = ([key, request]: readonly [string, InputRequest]) =>
      Effect.map(leg(session, key, request), (answer) => [key, answer] as const)
    // The usual round asks one thing: its leg runs in this fiber (no fiber forked for it).
    const legs = entries.length === 1
      ? Effect.map(answerOf(entries[0]!), (answer) => [answer])
      : Effect.forEach(entries, answerOf, { concurrency: "unbounded" })
    return completeUrlElicitations(new Set(Object.keys(requests))).pipe(
      // One watch of the session's record per round: when it wins, the legs are interrupted (and cancelled).
      Effect.andThen(context.sessionLost === undefined ? legs : Effect.raceFirst(legs, context.sessionLost)),
      Effect.map((answers) => Engine.answered(Object.fromEntries(answers) as unknown as InputResponses))
    )
  }

  return Engine.drive(context.engine, call.handler, {
    method: call.method,
    target: call.target,
    arguments: call.arguments,
    audience: context.audience,
    principal: context.principal,
    clientCapabilities: context.session?.clientCapabilities ?? {},
    // the journal stays in this process between rounds: nothing to seal
    seal: false,
    inProcess: true
    // Run without `detach`: a 2025-11-25 call never becomes a task.
  }, {
    fulfil,
    complete: (value) => Effect.as(completeUrlElicitations(new Set()), value)
  })
}
