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
 * Gotchas: the upstream call runs outside the handler's fiber, so it is not
 * interrupted when the round ends; a handler failure (a capability the client
 * lacks) cancels it. Its lease keeps a 2025-11-25 stdio session to this call
 * alone while it is held (see `pool.ts`): that session's questions are this
 * call's, whoever else calls the upstream meanwhile.
 */
import { ClientAddress, Mrtr } from "@mrtr/core"
import { McpError } from "@mrtr/protocol/ErrorCode"
import type { Duration } from "effect"
import { Effect, Schema } from "effect"
import type * as HeldCalls from "../HeldCalls.ts"
import {
  ask,
  callOnce,
  handlersFor,
  type Held,
  type HeldClient,
  isConnectionFailure,
  own,
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
export const make = (store: HeldCalls.HeldCalls["Service"], timeout: Duration.Duration): Held => ({
  forward: ({ conversation, method, open, params, upstream }) =>
    Effect.gen(function*() {
      // Without a principal, a call is held in the share of its client address's group (IPv6 by /48), as the
      // server's other shares: one anonymous caller cannot fill the store for every other one.
      const principal = conversation.principal ?? (yield* Effect.map(
        ClientAddress.currentGroup,
        (group) => group === undefined ? undefined : `\u0000address ${group}`
      ))
      const capabilities = canonical(conversation.clientCapabilities)
      const target = method === "resources/read" ? String(params.uri) : String(params.name)
      const run = ({ client, drop, retire }: HeldClient, answer: HeldCalls.Answer) =>
        callOnce(client, method, params, undefined, timeout).pipe(
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
          yield* Effect.uninterruptibleMask((restore) =>
            Effect.flatMap(restore(open), (leased) =>
              restore(
                store.start(id, principal, (answer) => Effect.ensuring(run(leased, answer), leased.release))
              ).pipe(
                Effect.mapError((full) => full.toMcpError()),
                Effect.onError(() => leased.release)
              ))
          )
        }
        let answers: Record<string, unknown> = {}
        while (true) {
          const next = yield* store.advance(id, principal, answers)
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
})
