/**
 * A 2026-07-28 client's call to a 2025-11-25 upstream, held open between the
 * client's rounds (`HeldCalls`): the upstream asks in flight and waits; each
 * question becomes a gateway ask (an `input_required` round); the retry's
 * answers go to the waiting call.
 *
 * Each round runs the gateway's handler from the top (the engine replays):
 *
 * 1. `Mrtr.step` names the held call (`<upstream>/held/<method>/<target>/<n>`):
 *    a fresh id on the first round, the journaled one on the retries.
 * 2. A fresh id leases a client (`open`) and starts the upstream call in the
 *    store, which keeps the lease until the call ends; a journaled one is
 *    advanced there (on this instance or, in a fleet, the one holding it),
 *    without a client.
 * 3. The call's questions are asked with the client's derived keys
 *    (`<upstream>/elicitation-1`, ...): answered from the journal at once when
 *    the client already answered them, else the round ends and the client
 *    answers. Their answers are handed to the call, which goes on.
 * 4. A call no longer held (timed out, its instance gone) is `Unknown`: the
 *    next `n` starts a new call here, whose repeated questions are answered
 *    from the journal (replay: the upstream repeats its work before them).
 *
 * The held call's progress and log messages go to the request of the round
 * in flight (under its progress token, at its log level); between two rounds
 * there is no request to carry them (the 2026-07-28 wire has no session
 * stream) and they are dropped, as are those of a call held by another
 * instance of a fleet. A request cancelled while the upstream works (its
 * scope closed interrupted) cancels the held call, and so its upstream
 * request; a conversation abandoned between rounds is ended by the store's
 * timeout, the same way.
 *
 * Gotchas: the upstream call runs outside the handler's fiber, so it is not
 * interrupted when the round ends; a handler failure (a capability the client
 * lacks) cancels it. Its lease keeps a 2025-11-25 stdio session to this call
 * alone while it is held (see `pool.ts`): that session's questions are this
 * call's, whoever else calls the upstream meanwhile.
 */
import { ClientAddress, Mrtr } from "@mrtr/core"
import { McpError } from "@mrtr/protocol/ErrorCode"
import type { Duration } from "effect"
import { Cause, Effect, Exit, Schema, Scope } from "effect"
import type * as HeldCalls from "../HeldCalls.ts"
import {
  ask,
  callOnce,
  handlersFor,
  type Held,
  type HeldClient,
  isConnectionFailure,
  own,
  type Relay,
  retiredIfAbandoned,
  stripMeta,
  toMcpError
} from "./forward.ts"
import { canonical } from "./pool.ts"

/** Most times one conversation starts its held upstream call anew (holder lost) before it fails. */
const MAX_GENERATIONS = 8

const failedError = (error: { readonly code: number; readonly message: string; readonly data?: unknown }) =>
  new McpError({ code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) })

/** The held-call path over `store`; `timeout` bounds the held upstream request. */
export const make = (store: HeldCalls.HeldCalls["Service"], timeout: Duration.Duration): Held => {
  /** The relay of the round in flight, by held call (none between rounds: their messages are dropped). */
  const relays = new Map<string, Relay>()
  /** One held call's progress and log messages, to the request of the round in flight, if any. */
  const relayFor = (id: string): Relay => ({
    progressToken: `gateway-${id}`,
    onNotification: (notification) =>
      Effect.suspend(() => relays.get(id)?.onNotification?.(notification) ?? Effect.void)
  })
  return {
    forward: ({ conversation, method, open, params, relay, requestScope, upstream }) =>
      Effect.gen(function*() {
        // Without a principal, a call is held in the share of its client address's group (IPv6 by /48), as the
        // server's other shares: one anonymous caller cannot fill the store for every other one.
        const principal = conversation.principal ?? (yield* Effect.map(
          ClientAddress.currentGroup,
          (group) => group === undefined ? undefined : `\u0000address ${group}`
        ))
        const capabilities = canonical(conversation.clientCapabilities)
        /** Registered once: the held call this round waited on, cancelled if the request's scope closes interrupted. */
        let waitedOn: string | undefined
        let watching = false
        const cancelOnCancellation = (id: string) =>
          Effect.suspend(() => {
            waitedOn = id
            if (watching || requestScope === undefined) return Effect.void
            watching = true
            return Scope.addFinalizerExit(requestScope, (exit) =>
              Exit.isFailure(exit) && Cause.hasInterrupts(exit.cause) && waitedOn !== undefined
                ? store.cancel(waitedOn, principal)
                : Effect.void)
          })
        const target = method === "resources/read" ? String(params.uri) : String(params.name)
        const run = (id: string, { client, drop, retire }: HeldClient, answer: HeldCalls.Answer) =>
          callOnce(client, method, params, undefined, timeout, relayFor(id)).pipe(
            Effect.provideContext(handlersFor(
              (method, params, context) =>
                Effect.map(
                  answer({ key: context.key, request: { method, params: stripMeta(params) } as any }),
                  (a) => a as any
                ),
              capabilities
            )),
            // abandoned (timed out, cancelled): its session may still ask for it, so it serves no other call
            retiredIfAbandoned(retire),
            Effect.map(own),
            Effect.catch((error) =>
              (isConnectionFailure(error) ? drop : Effect.void).pipe(
                Effect.andThen(Effect.fail(toMcpError(upstream, error)))
              )
            )
          )
        for (let generation = 0; generation < MAX_GENERATIONS; generation++) {
          let fresh = false
          const id = yield* Mrtr.step(
            `${upstream}/held/${method}/${target}/${generation}`,
            Effect.map(store.newId, (id) => {
              fresh = true
              return id
            }),
            Schema.String
          )
          if (fresh) {
            // the call outlives this round: it leases its client until it ends (a stdio session: for it alone)
            relays.set(id, relay)
            yield* Effect.uninterruptibleMask((restore) =>
              Effect.flatMap(restore(open), (leased) =>
                restore(
                  store.start(id, principal, (answer) => Effect.ensuring(run(id, leased, answer), leased.release))
                ).pipe(
                  Effect.mapError((full) => full.toMcpError()),
                  Effect.onError(() => leased.release)
                ))
            ).pipe(Effect.onError(() => Effect.sync(() => relays.delete(id))))
          }
          let answers: Record<string, unknown> = {}
          while (true) {
            relays.set(id, relay)
            const next = yield* store.advance(id, principal, answers).pipe(
              // Interrupted while the upstream works: the round ended (a fan-out's other ask) or the request was
              // cancelled; the request's scope, closed interrupted, tells the second, which cancels the call upstream.
              Effect.onInterrupt(() => cancelOnCancellation(id)),
              Effect.ensuring(Effect.sync(() => relays.get(id) === relay && relays.delete(id)))
            )
            if (next._tag === "Done") return next.result
            if (next._tag === "Failed") return yield* Effect.fail(failedError(next.error))
            if (next._tag === "Unknown") break
            const answered = yield* Effect.forEach(
              next.questions,
              (question) =>
                Effect.map(
                  ask(conversation, upstream, question.key, question.request),
                  (a) => [question.key, a] as const
                ),
              { concurrency: "unbounded" }
            ).pipe(Effect.tapError(() => store.cancel(id, principal)))
            answers = Object.fromEntries(answered)
          }
        }
        return yield* Effect.fail(
          McpError.internalError(`Upstream ${upstream}: the held call was lost ${MAX_GENERATIONS} times`)
        )
      })
  }
}
