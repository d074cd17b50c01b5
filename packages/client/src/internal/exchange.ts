/**
 * One JSON-RPC request / response exchange over the `ClientTransport`: send
 * the request, surface the notifications its stream carries, hand the
 * requests the server makes on it (2025-11-25) to `serve`, and read the
 * response (its `result` object, or the JSON-RPC error as `McpError`).
 *
 * Gotchas:
 * - Server requests are served concurrently with reading the stream (the
 *   server may wait for their answers before it responds); when `serve`
 *   fails (a handler failed), the exchange fails with that error at once.
 *   Without `serve` (2026-07-28, where servers must not send requests) they
 *   are ignored.
 * - A JSON-RPC error without an id (e.g. a 400 before the server read the
 *   request) is taken as the answer; any other id mismatch is a
 *   `ProtocolViolation`.
 * - `onAbandon` runs when the exchange ends without a response (interrupted,
 *   failed): 2025-11-25 over HTTP sends `notifications/cancelled` there. It
 *   is best effort: given up (interrupted) after `ABANDON_NOTICE_MS`, so a
 *   server that never answers the notice holds nobody, and an interrupted
 *   caller is never stuck behind it.
 * - `idleTimeout`: the longest wait for the next message of the stream; the
 *   clock is paused while a server request is being answered (a person
 *   filling a form keeps a 2025-11-25 call's stream silent), and the time
 *   the transport spends signing in (`signInMillis`: the sign-in a 401
 *   starts) is not counted. Past it the exchange fails with
 *   `RequestTimeout` (`bound: "request"`).
 *
 * Source: MCP 2026-07-28, basic/transports; MCP 2025-11-25, basic/transports,
 * basic/utilities/cancellation.
 */
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import type { Duration } from "effect"
import { Clock, Deferred, Effect, Exit, FiberSet, Stream } from "effect"
import type { ClientTransport, OutgoingRequest } from "../ClientTransport.ts"
import { ProtocolViolation, type RequestError, RequestTimeout, TransportError } from "../Errors.ts"
import { bounded, boundMillis } from "./deadline.ts"
import { isRecord, isServerRequest } from "./outgoing.ts"
import { mcpErrorOf } from "./results.ts"

/** How long the notice of an abandoned exchange (`onAbandon`) may take, in ms, before it is given up. */
const ABANDON_NOTICE_MS = 1_000

/** A notification received on a request's stream, with the request it belongs to. */
export interface StreamNotification {
  readonly method: string
  readonly params?: Readonly<Record<string, unknown>> | undefined
  readonly request: { readonly id: RequestId; readonly method: string }
}

/** How one exchange treats what its stream carries besides the response. */
export interface ExchangeHooks<E> {
  readonly onNotification: (notification: StreamNotification) => Effect.Effect<void>
  readonly serve?:
    | ((request: Record<string, unknown> & { readonly id: RequestId }) => Effect.Effect<void, E>)
    | undefined
  /** Fails the exchange from outside its stream (a handler answering a request that came on another channel). */
  readonly failed?: Deferred.Deferred<never, E> | undefined
  readonly onAbandon?: Effect.Effect<void> | undefined
  readonly idleTimeout?: Duration.Duration | undefined
}

/** Sends `message` with `headers` and returns the response's `result`. */
export const exchange = <E = never>(
  transport: ClientTransport["Service"],
  message: OutgoingRequest,
  headers: Readonly<Record<string, string>>,
  hooks: ExchangeHooks<E>
): Effect.Effect<Record<string, unknown>, RequestError | E> =>
  // Only a call that serves requests (2025-11-25) needs a fiber set (and a scope for it): a
  // 2026-07-28 round forks nothing but its time bound.
  hooks.serve === undefined
    ? exchangeWith(transport, message, headers, hooks, undefined)
    : Effect.scoped(
      Effect.flatMap(FiberSet.make<void, E>(), (fibers) => exchangeWith(transport, message, headers, hooks, fibers))
    )

const exchangeWith = <E>(
  transport: ClientTransport["Service"],
  message: OutgoingRequest,
  headers: Readonly<Record<string, string>>,
  hooks: ExchangeHooks<E>,
  fibers: FiberSet.FiberSet<void, E> | undefined
): Effect.Effect<Record<string, unknown>, RequestError | E> =>
  // Plain combinators rather than a generator: this runs once per round.
  Effect.clockWith((clock) => {
    const { id, method } = message
    const violation = (reason: string, result?: unknown) =>
      new ProtocolViolation({ method, reason, ...(result === undefined ? {} : { result }) })
    let response: Record<string, unknown> | undefined
    const serve = hooks.serve
    let serving = 0
    let lastActivity = clock.currentTimeMillisUnsafe()
    // The time the transport spent signing in (the user's, above all) is not idle time of the server's.
    const signIn = transport.signInMillis
    let signedInAtActivity = signIn === undefined ? 0 : signIn(lastActivity)
    const read = transport.request(message, headers).pipe(
      Stream.runForEachWhile((incoming): Effect.Effect<boolean, ProtocolViolation> => {
        lastActivity = clock.currentTimeMillisUnsafe()
        if (signIn !== undefined) signedInAtActivity = signIn(lastActivity)
        if (!isRecord(incoming)) return Effect.succeed(true)
        if (typeof incoming.method === "string") {
          if (isServerRequest(incoming)) {
            if (serve === undefined || fibers === undefined) return Effect.succeed(true)
            const served = Effect.sync(() => void serving++).pipe(
              Effect.andThen(serve(incoming)),
              Effect.ensuring(Effect.flatMap(Clock.currentTimeMillis, (now) =>
                Effect.sync(() => {
                  serving--
                  lastActivity = now
                })))
            )
            return FiberSet.run(fibers, served).pipe(Effect.as(true))
          }
          if ("id" in incoming) return Effect.succeed(true)
          return hooks.onNotification({
            method: incoming.method,
            ...(isRecord(incoming.params) ? { params: incoming.params } : {}),
            request: { id, method }
          }).pipe(Effect.as(true))
        }
        if (!("result" in incoming) && !("error" in incoming)) return Effect.succeed(true)
        const uncorrelatedError = "error" in incoming && (incoming.id === undefined || incoming.id === null)
        if (incoming.id !== id && !uncorrelatedError) {
          return Effect.fail(violation(`response id ${JSON.stringify(incoming.id)} does not match request id ${id}`))
        }
        response = incoming
        return Effect.succeed(false)
      })
    )
    // What can end the exchange besides its stream; each is one more fiber per round, so only the ones in use.
    const failures: Array<Effect.Effect<never, E>> = []
    if (fibers !== undefined) failures.push(FiberSet.join(fibers).pipe(Effect.andThen(Effect.never)))
    if (hooks.failed !== undefined) failures.push(Deferred.await(hooks.failed))
    const stopped = failures.length === 0 ? read : Effect.raceAllFirst([read, ...failures])
    const idle = hooks.idleTimeout === undefined ? undefined : boundMillis(hooks.idleTimeout)
    // The idle bound: expires `idle` ms after the stream last spoke; a server request being answered holds it
    // off, and the time spent signing in since is added to it.
    const raced: Effect.Effect<void, RequestError | E> = idle !== undefined
      ? bounded(stopped, idle, (now) => {
        if (serving > 0) lastActivity = now
        const signingIn = signIn === undefined ? 0 : signIn(now) - signedInAtActivity
        return lastActivity + idle + signingIn - now
      }, () => new RequestTimeout({ method, bound: "request", millis: idle }))
      : stopped
    const onAbandon = hooks.onAbandon
    return raced.pipe(
      Effect.onExit((exit) =>
        response === undefined && onAbandon !== undefined && !Exit.isSuccess(exit)
          // interruptible inside the finalizer, so the bound can stop it
          ? Effect.ignore(Effect.timeout(Effect.interruptible(onAbandon), ABANDON_NOTICE_MS))
          : Effect.void
      ),
      Effect.flatMap(() => resultOf(method, id, response))
    )
  })

/** The `result` of `response`, or its JSON-RPC error as `McpError`; `undefined` (the stream ended without one) fails. */
const resultOf = (
  method: string,
  id: RequestId,
  response: Record<string, unknown> | undefined
): Effect.Effect<Record<string, unknown>, RequestError> => {
  const violation = (reason: string, result: unknown) => Effect.fail(new ProtocolViolation({ method, reason, result }))
  if (response === undefined) {
    return Effect.fail(new TransportError({ reason: `The transport ended without a response to ${method} (id ${id})` }))
  }
  if ("error" in response) {
    const error = mcpErrorOf(response.error)
    return error === undefined ? violation("malformed JSON-RPC error", response) : Effect.fail(error)
  }
  if (!isRecord(response.result)) return violation("the result is not an object", response)
  return Effect.succeed(response.result)
}
