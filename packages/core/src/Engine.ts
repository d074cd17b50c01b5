/**
 * The continuation engine: run a handler against a replay journal, and either
 * complete or suspend it into an `InputRequiredResult` with a freshly sealed
 * `requestState`; and {@link drive}, the one loop that runs a handler round
 * after round over a *fulfil* function (how the round's input requests
 * travel: in a result the client retries, as 2025-11-25 requests, as a
 * task's status). See `docs/architecture.md` for the replay model.
 *
 * One call of {@link run} is one round of one request. It unseals the
 * incoming `requestState` (if any) into a journal, merges the request's
 * `inputResponses`, and runs the handler from the top with a `Conversation`:
 * answered asks and journaled steps return at once, the first unanswered
 * asks register their input requests and wait. When the handler completes,
 * its value is returned; when it can make no further progress without the
 * pending answers (no step, digest or scheduled task of its fibers running,
 * nothing changed for two turns of the event loop), the handler is
 * interrupted, the new journal is sealed and an `InputRequiredResult`
 * carrying every pending input request is returned. An ask the handler itself
 * abandons (a lost race, a timeout) is withdrawn; an ask inside `Mrtr.step`
 * is a defect.
 * The engine keeps no memory between calls: any server instance holding the
 * key ring can run the next round.
 * Source: MCP 2026-07-28, basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import {
  type ClientCapabilities,
  type InputRequest,
  type InputRequiredResult,
  type InputResponses,
  makeInputRequiredResult
} from "@mrtr/protocol/Schema"
import { Context, Effect, Exit, Fiber, Scheduler } from "effect"
import { Digest } from "effect/crypto"
import { canonicalProblem, checkedDigestWith } from "./Canonical.ts"
import { Conversation } from "./Conversation.ts"
import type { MissingClientCapability, NotCanonicalJson } from "./Errors.ts"
import { JournalTooLarge, RoundLimitExceeded } from "./Errors.ts"
import * as JournalWire from "./internal/journalWire.ts"
import * as Round from "./internal/round.ts"
import { trackingScheduler } from "./internal/roundEnd.ts"
import * as Journal from "./Journal.ts"
import {
  type Binding,
  InvalidRequestState,
  type ReplayGuardFull,
  type ReplayGuardUnavailable,
  RequestStateCodec,
  type RequestStateTooLarge
} from "./RequestState.ts"

/**
 * The server-side bounds of a conversation.
 *
 * - `maxRounds`: most `input_required` results one request may produce
 *   (default 16); past it the request fails with `RoundLimitExceeded`.
 *   Rounds that only wait for something outside the conversation (every
 *   pending ask `waiting`: a secure elicitation's page not completed yet)
 *   are not counted; what they wait for expires.
 * - `maxJournalBytes`: most bytes of the journal's JSON, in the compact form
 *   the sealed state carries (default 32 KiB: 16 rounds of a 20-field form
 *   of 20-character answers take about 11.5 KiB);
 *   past it the request fails with `JournalTooLarge`.
 *
 * Provide another value with `Effect.provideService(Limits, ...)` or
 * `Layer.succeed(Limits, ...)`.
 *
 * @category services
 * @since 0.1.0
 */
export const Limits = Context.Reference<{ readonly maxRounds: number; readonly maxJournalBytes: number }>(
  "@mrtr/core/Limits",
  { defaultValue: () => ({ maxRounds: 16, maxJournalBytes: 32 * 1024 }) }
)

/**
 * What the engine needs to know about the request it runs.
 *
 * - `method`: `"tools/call"`, `"prompts/get"` or `"resources/read"`.
 * - `target`: the tool or prompt name, or the resource URI.
 * - `arguments`: the request's arguments (tool arguments, prompt arguments;
 *   `undefined` for resources), bound to the state by their SHA-256 digest.
 * - `audience`: the server's identity (e.g. its name or public URL); state
 *   sealed for one audience is rejected by another.
 * - `principal`: the authenticated user, when there is one.
 * - `clientCapabilities`: from `_meta["io.modelcontextprotocol/clientCapabilities"]`.
 * - `inputResponses`, `requestState`: from the retry's params
 *   (`InputResponseRequestParams`).
 * - `inProcess`: the rounds run in this process one after the other (the
 *   2025-11-25 shim, a task runner) rather than on the client's retries; an
 *   ask may then wait for something the server itself awaits (a secure
 *   elicitation's page) instead of being asked again. Default `false`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Request extends Round.RoundRequest {
  readonly method: string
  readonly target: string
  readonly arguments?: unknown
  readonly audience: string
  readonly principal?: string | undefined
  readonly clientCapabilities: ClientCapabilities
  readonly inputResponses?: InputResponses | undefined
  readonly requestState?: string | undefined
  readonly inProcess?: boolean | undefined
  /**
   * A journal the server kept itself (a task's, from its `TaskStore`), used
   * instead of unsealing `requestState`. Trusted: never take it from the wire.
   */
  readonly journal?: Journal.Journal | undefined
  /**
   * `false`: an `InputRequired` outcome carries no `requestState` (its result
   * is `{ resultType, inputRequests }`), for a caller that keeps the
   * outcome's `journal` itself and passes it back as `journal` (a task's
   * `TaskStore`, the 2025-11-25 shim's next round in process): nothing is
   * sealed, so nothing needs unsealing (no AEAD, no expiry, no single-use
   * redemption). The journal's size is checked all the same. Default `true`.
   */
  readonly seal?: boolean | undefined
  /**
   * Whether `Task.detach` ends the round with a `Detached` outcome (a
   * task-eligible `tools/call` whose request declared the Tasks extension).
   * Otherwise `Task.detach` does nothing and the handler runs on.
   */
  readonly detach?: boolean | undefined
}

/**
 * The outcome of one round:
 * - `Complete`: the handler returned `value`; `round` is the number of
 *   `input_required` results that preceded it (0 when it completed at once,
 *   so a server knows whether the result answers a retry);
 * - `InputRequired`: the handler is suspended; `result` is the
 *   `InputRequiredResult` to send (`resultType: "input_required"`, non-empty
 *   `inputRequests`, sealed `requestState` unless the request said
 *   `seal: false`); `journal` is the same journal unsealed (what a task keeps
 *   in its `TaskStore`).
 * - `Detached`: the handler reached `Task.detach` in a request run with
 *   `detach: true`; `journal` holds the answers and steps so far, from which
 *   the task replays the handler (SEP-2663, composition with MRTR).
 *
 * @category models
 * @since 0.1.0
 */
export type Outcome<A> =
  | { readonly _tag: "Complete"; readonly value: A; readonly round: number }
  | {
    readonly _tag: "InputRequired"
    readonly result: InputRequiredResult
    readonly round: number
    readonly journal: Journal.Journal
  }
  | { readonly _tag: "Detached"; readonly journal: Journal.Journal; readonly round: number }

/**
 * The failures of {@link run} besides the handler's own: a bad, expired or
 * foreign `requestState` (`InvalidRequestState`, JSON-RPC -32602), arguments
 * (or a target) that canonical JSON cannot represent (`NotCanonicalJson`,
 * JSON-RPC -32602: a non-finite number such as `1e400`, a lone surrogate),
 * too many rounds, a journal or sealed state too large, a single-use state
 * that the `ReplayGuard` has no room to redeem (`ReplayGuardFull`) or whose
 * shared store is unreachable (`ReplayGuardUnavailable`), both -32603, and an
 * ask the client cannot answer when the handler does not catch it
 * (`MissingClientCapability`, JSON-RPC -32021).
 *
 * @category models
 * @since 0.1.0
 */
export type RunError =
  | InvalidRequestState
  | RoundLimitExceeded
  | JournalTooLarge
  | RequestStateTooLarge
  | MissingClientCapability
  | NotCanonicalJson
  | ReplayGuardFull
  | ReplayGuardUnavailable

type Winner<A, E> =
  | { readonly _tag: "Done"; readonly exit: Exit.Exit<A, E> }
  | { readonly _tag: "Suspend" }
  | { readonly _tag: "Detach" }

/**
 * Runs one round of `handler` for `request`.
 *
 * Returns `Complete` or `InputRequired` (see {@link Outcome}); fails with the
 * handler's own errors or a {@link RunError}. Requires the
 * `RequestStateCodec` that seals and unseals `requestState`, and a `Digest`
 * (from `effect/crypto`) for question and argument digests.
 *
 * Answers: an `inputResponses` entry is used for the ask with the same key
 * when that key was pending last round for the same question (same digest),
 * or when the journal holds no answer for that key yet (so a client may answer
 * a question before it is asked, as the spec allows). An answer of the wrong
 * kind or shape, or one holding a value canonical JSON cannot represent (a
 * lone surrogate), counts as missing and the key is asked again, with the
 * reason when the ask can present one (`Ask.explain`/`Ask.withReason`: the
 * re-asked form's message says which field was refused and why); the reason
 * is presentation only, the question's digest stays that of the handler's
 * question. Unknown keys are ignored. A recorded answer is reused only while
 * the question is unchanged. Keys are kept in null-prototype objects and maps:
 * `__proto__`, `constructor` or `toString` are keys like any other.
 *
 * @category running
 * @since 0.1.0
 */
export const run = <A, E, R>(
  handler: Effect.Effect<A, E, R>,
  request: Request
): Effect.Effect<
  Outcome<A>,
  E | RunError,
  Exclude<R, Conversation> | RequestStateCodec | Digest.Digest
> =>
  Effect.contextWith((context: Context.Context<RequestStateCodec | Digest.Digest>) =>
    runWith(
      {
        codec: Context.get(context, RequestStateCodec),
        digest: Context.get(context, Digest.Digest),
        limits: Context.get(context, Limits)
      },
      handler,
      request
    )
  )

/**
 * The services {@link runWith} takes as arguments instead of from the context:
 * `codec`, the `RequestStateCodec` service that seals and unseals
 * `requestState`; `digest`, an `effect/crypto` `Digest` service (SHA-256 of
 * canonical JSON, for question and arguments digests); `limits`, the bounds of
 * {@link Limits} (`maxRounds` in rounds, `maxJournalBytes` in bytes).
 *
 * @category models
 * @since 0.1.0
 */
export interface Services {
  readonly codec: RequestStateCodec["Service"]
  readonly digest: Digest.Digest["Service"]
  readonly limits: { readonly maxRounds: number; readonly maxJournalBytes: number }
}

/**
 * {@link run} with its services given as arguments: for a dispatcher that
 * resolves them once (at construction) rather than on every request.
 * Same outcomes and failures as {@link run} (`InvalidRequestState` and the
 * size and round limits answer JSON-RPC -32602, `MissingClientCapability`
 * -32021, through the server's dispatcher).
 * Source: MCP 2026-07-28, basic/patterns/mrtr.
 *
 * @category running
 * @since 0.1.0
 */
export const runWith = <A, E, R>(
  services: Services,
  handler: Effect.Effect<A, E, R>,
  request: Request
): Effect.Effect<Outcome<A>, E | RunError, Exclude<R, Conversation>> =>
  // Written with combinators rather than `Effect.gen`: a generator suspended
  // across the round (until its end is detected) costs CPU and garbage on
  // every request.
  Effect.flatMap(checkedArgumentsDigest(services, request), (argumentsDigest) => {
    const binding: Binding = request.principal === undefined
      ? { method: request.method, target: request.target, argumentsDigest, audience: request.audience }
      : {
        method: request.method,
        target: request.target,
        argumentsDigest,
        audience: request.audience,
        principal: request.principal
      }
    if (request.journal !== undefined) return runRound(services, handler, request, binding, request.journal)
    if (request.requestState === undefined) return runRound(services, handler, request, binding, Journal.empty)
    return Effect.flatMap(services.codec.unseal(request.requestState, binding), (payload) => {
      // An exact check of the compact form (internal/journalWire.ts), not a Schema decode: this runs every round.
      const journal = JournalWire.decode(payload)
      return journal === undefined
        ? Effect.andThen(
          Effect.logDebug("requestState payload is not a journal").pipe(
            Effect.annotateLogs("mrtr.requestState.reason", "journal")
          ),
          Effect.fail(new InvalidRequestState())
        )
        : runRound(services, handler, request, binding, journal)
    })
  })

/**
 * The digest of the request's arguments, once they (and the target) are known
 * to be canonical JSON: a value that is not (`1e400`, a lone surrogate) is a
 * typed `NotCanonicalJson`, whatever the digest cache holds.
 */
const checkedArgumentsDigest = (services: Services, request: Request): Effect.Effect<string, NotCanonicalJson> => {
  const problem = canonicalProblem(request.target, "target") ??
    (request.principal === undefined ? undefined : canonicalProblem(request.principal, "principal"))
  return problem === undefined
    ? checkedDigestWith(services.digest, request.arguments ?? null, "arguments")
    : Effect.fail(problem)
}

/**
 * How the round of `state` ends. The handler runs in a child fiber
 * (interrupted with this one). A round that needs no answer usually completes
 * while it starts; otherwise the round ends with whichever comes first: the
 * handler's exit, its `Task.detach`, or the watch's "suspend" (see
 * `roundEndWatch`). No fiber, race or deferred beyond the handler's own: this
 * runs on every round of every request.
 */
const roundEnd = <A, E>(state: Round.Round, fiber: Fiber.Fiber<A, E>): Effect.Effect<Winner<A, E>> => {
  const watch = state.watch
  const polled = fiber.pollUnsafe()
  if (polled !== undefined) {
    watch.stop()
    return Effect.succeed({ _tag: "Done", exit: polled })
  }
  if (state.isDetached()) {
    watch.stop()
    return Effect.succeed({ _tag: "Detach" })
  }
  return Effect.callback<Winner<A, E>>((resume) => {
    let settled = false
    const settle = (winner: Winner<A, E>) => {
      if (settled) return
      settled = true
      removeObserver()
      watch.stop()
      resume(Effect.succeed(winner))
    }
    const removeObserver = fiber.addObserver((exit) => settle({ _tag: "Done", exit }))
    watch.onSuspend(() => settle({ _tag: "Suspend" }))
    state.onDetach(() => settle({ _tag: "Detach" }))
    return Effect.sync(() => {
      settled = true
      removeObserver()
      watch.stop()
    })
  })
}

/**
 * One round against the given journal: run the handler until it completes or
 * can only wait for answers. The round's state and the `Conversation` the
 * handler asks through are `internal/round.ts`; here, the handler's fiber,
 * the end of the round, and the outcome.
 */
const runRound = <A, E, R>(
  services: Services,
  handler: Effect.Effect<A, E, R>,
  request: Request,
  binding: Binding,
  journal: Journal.Journal
): Effect.Effect<Outcome<A>, E | RunError, Exclude<R, Conversation>> => {
  const state = Round.open(services.digest, request, journal)
  const { codec, limits } = services
  const { conversation, nextJournal, pending, watch } = state
  // The handler is suspended: seal the new journal with every pending ask.
  const suspend = (): Effect.Effect<Outcome<A>, RunError> => {
    const round = journal.round + 1
    // Rounds that only wait for something outside the conversation (a secure elicitation's page) are not counted.
    let onlyWaiting = pending.size > 0
    for (const ask of pending.values()) if (!ask.waiting) onlyWaiting = false
    const waited = (journal.waited ?? 0) + (onlyWaiting ? 1 : 0)
    if (round - waited > limits.maxRounds) return Effect.fail(new RoundLimitExceeded({ maxRounds: limits.maxRounds }))
    const inputRequests: Record<string, InputRequest> = Round.dictionary()
    for (const [key, ask] of pending) inputRequests[key] = ask.request
    const next = nextJournal(round, pending, waited)
    const wire = JournalWire.encode(next)
    const json = JSON.stringify(wire)
    if (request.seal === false) {
      return Effect.as(
        checkSize(json),
        {
          _tag: "InputRequired",
          result: makeInputRequiredResult({ inputRequests }),
          round,
          journal: next
        } satisfies Outcome<A>
      )
    }
    return Effect.flatMap(
      checkSize(json),
      () =>
        Effect.map(codec.seal(new JournalWire.EncodedJson(wire, json), binding), (requestState): Outcome<A> => ({
          _tag: "InputRequired",
          result: makeInputRequiredResult({ inputRequests, requestState }),
          round,
          journal: next
        }))
    )
  }

  // The handler detached: its journal so far, without pending asks, goes to the task.
  const detach = (): Effect.Effect<Outcome<A>, RunError> => {
    const next = nextJournal(journal.round, new Map(), journal.waited ?? 0)
    return Effect.as(
      checkSize(JSON.stringify(JournalWire.encode(next))),
      { _tag: "Detached", journal: next, round: journal.round } as const
    )
  }

  // The size of the journal's JSON in its sealed, compact form (`internal/journalWire.ts`), serialized once:
  // the codec splices the same text into the state.
  const checkSize = (json: string): Effect.Effect<void, JournalTooLarge> => {
    const size = json.length
    return size > limits.maxJournalBytes
      ? Effect.fail(new JournalTooLarge({ size, maxJournalBytes: limits.maxJournalBytes }))
      : Effect.void
  }

  return Effect.flatMap(
    Effect.forkChild(
      // One context update for both (each update refreshes the fiber's caches).
      Effect.updateContext(handler as Effect.Effect<A, E, never>, (context: Context.Context<never>) =>
        Context.add(
          Context.add(context, Conversation, conversation),
          Scheduler.Scheduler,
          trackingScheduler(Context.get(context, Scheduler.Scheduler), watch)
        )),
      { startImmediately: true }
    ),
    (fiber) =>
      Effect.flatMap(roundEnd(state, fiber), (winner): Effect.Effect<Outcome<A>, E | RunError> => {
        if (winner._tag === "Suspend") return Effect.flatMap(Fiber.interrupt(fiber), suspend)
        if (winner._tag === "Detach") return Effect.flatMap(Fiber.interrupt(fiber), detach)
        const exit = winner.exit
        return Exit.isSuccess(exit)
          ? Effect.succeed({ _tag: "Complete", value: exit.value, round: journal.round })
          : Effect.failCause(exit.cause)
      })
  ) as Effect.Effect<Outcome<A>, E | RunError, Exclude<R, Conversation>>
}

/**
 * A round that ended with pending input requests: `result` is its
 * `InputRequiredResult` (sealed `requestState` unless the request said
 * `seal: false`), `journal` the same journal unsealed, `round` its number.
 *
 * @since 0.3.0
 * @category models
 */
export type Suspended = Extract<Outcome<unknown>, { readonly _tag: "InputRequired" }>

/**
 * What a {@link Driver}'s `fulfil` decides for a suspended round: `Answered`
 * runs the next round in this process with `inputResponses` (that round's
 * answers only: the journal keeps the earlier ones); `End` ends the call
 * with `value` (the round travels elsewhere: a result the client retries, a
 * task's `input_required` status).
 *
 * @since 0.3.0
 * @category models
 */
export type Fulfilment<B> =
  | { readonly _tag: "Answered"; readonly inputResponses: InputResponses }
  | { readonly _tag: "End"; readonly value: B }

/**
 * A {@link Fulfilment} that runs the next round with `inputResponses`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const answered = (inputResponses: InputResponses): Fulfilment<never> => ({ _tag: "Answered", inputResponses })

/**
 * A {@link Fulfilment} that ends the call with `value`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const end = <B>(value: B): Fulfilment<B> => ({ _tag: "End", value })

/**
 * How a caller of {@link drive} delivers a conversation's rounds and encodes
 * its end; everything else (keys, digests, decoding, capability checks,
 * bounds, the journal) is the engine's.
 *
 * - `fulfil`: a round suspended: its answers, or the end of the call.
 * - `complete`: the handler returned `value` after `round` input_required
 *   rounds (0: at once).
 * - `detach`: the handler reached `Task.detach` in a request run with
 *   `detach: true`; `journal` holds its answers and steps so far. Absent:
 *   such a request is a defect.
 *
 * @since 0.3.0
 * @category models
 */
export interface Driver<A, B, E, R> {
  /** A round suspended: its answers ({@link answered}), or the end of the call ({@link end}). */
  readonly fulfil: (suspended: Suspended) => Effect.Effect<Fulfilment<B>, E, R>
  /** The handler returned `value` after `round` input_required rounds (0: at once). */
  readonly complete: (value: A, round: number) => Effect.Effect<B, E, R>
  /**
   * The handler reached `Task.detach` (a request run with `detach: true`);
   * `journal` holds its answers and steps so far. Default: none (such a
   * round is a defect).
   */
  readonly detach?: ((journal: Journal.Journal, round: number) => Effect.Effect<B, E, R>) | undefined
}

/**
 * A check of every round that suspends, for a test tool (`@mrtr/testing`'s
 * `Explore`): when one is in the context, {@link drive} hands it each
 * suspended round and `replay`, the same round run again from the journal it
 * left, without answers, before the round is fulfilled (whichever way it
 * travels: a result the client retries, 2025-11-25 requests, a task's
 * status). A deterministic handler suspends again with the same pending asks
 * (same keys, same question digests: `journal.pending`); one that reads the
 * clock, a random number or a mutable variable outside `Mrtr.step` may not.
 * Unset by default: production runs each round once.
 *
 * Gotcha: `replay` runs the handler's code again (a step already journaled
 * replays; one that was not runs again), so only a test sets this.
 *
 * @category services
 * @since 0.5.0
 */
export const ReplayCheck = Context.Reference<
  | ((suspended: Suspended, replay: Effect.Effect<Outcome<unknown>, unknown>) => Effect.Effect<void>)
  | undefined
>("@mrtr/core/Engine/ReplayCheck", { defaultValue: () => undefined })

/**
 * Runs `handler` for `request` round after round until `driver` ends it: the
 * one loop of every way an ask travels (see `docs/architecture.md`).
 * Each round is {@link runWith}; a suspended round goes to `driver.fulfil`,
 * whose `Answered` runs the next round in this process from the round's
 * journal (nothing unsealed again: the request's `requestState` is used by
 * the first round only), and whose `End` is the call's value. Fails with the
 * handler's errors, a {@link RunError} (the round limit included) or the
 * driver's own. A {@link ReplayCheck} in the context sees each suspended
 * round before its fulfil.
 * Source: MCP 2026-07-28, basic/patterns/mrtr.
 *
 * @since 0.3.0
 * @category running
 */
export const drive: <A, E, R, B, E2, R2>(
  services: Services,
  handler: Effect.Effect<A, E, R>,
  request: Request,
  driver: Driver<A, B, E2, R2>
) => Effect.Effect<B, E | E2 | RunError, Exclude<R, Conversation> | R2> = Effect.fnUntraced(
  function*<A, E, R, B, E2, R2>(
    services: Services,
    handler: Effect.Effect<A, E, R>,
    request: Request,
    driver: Driver<A, B, E2, R2>
  ) {
    let current = request
    const check = yield* Effect.service(ReplayCheck)
    while (true) {
      const outcome = yield* runWith(services, handler, current)
      switch (outcome._tag) {
        case "Complete":
          return yield* driver.complete(outcome.value, outcome.round)
        case "Detached":
          if (driver.detach === undefined) {
            return yield* Effect.die(new Error("Task.detach ended a round run without detach"))
          }
          return yield* driver.detach(outcome.journal, outcome.round)
        case "InputRequired": {
          if (check !== undefined) {
            yield* check(
              outcome,
              runWith(services, handler, {
                ...current,
                // The round's own number: the handler sees the round it ran in (`Conversation.round`).
                journal: { ...outcome.journal, round: outcome.journal.round - 1 },
                inputResponses: undefined,
                requestState: undefined,
                seal: false
              }) as Effect.Effect<Outcome<unknown>, unknown>
            )
          }
          const fulfilment = yield* driver.fulfil(outcome)
          if (fulfilment._tag === "End") return fulfilment.value
          // the next round in this process, from this round's journal (its state was unsealed once)
          current = {
            ...current,
            journal: outcome.journal,
            inputResponses: fulfilment.inputResponses,
            requestState: undefined
          }
        }
      }
    }
  }
)
