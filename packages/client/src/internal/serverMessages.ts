/**
 * What the connection does with the messages a server sends it: answering
 * its requests (2025-11-25) with the input handlers (`serverRequests.ts`)
 * under a bound, and dispatching what arrives outside any request's stream
 * (stdio, the GET stream): notifications are published, requests answered.
 *
 * Gotchas:
 * - At most `MAX_PENDING_SERVER_REQUESTS` (64) server requests are answered
 *   at a time per connection; more are refused at once (-32603).
 * - A request outside a stream belongs to the one 2025-11-25 call in flight,
 *   or to the connection (the Layer's handlers, the connection's keys) when
 *   there are several or none; it is answered in a fiber of the connection's
 *   scope, so a slow handler blocks nothing else.
 * - Before a 2025-11-25 session exists (and on 2026-07-28) a request outside
 *   a stream gets -32601, except `ping`, which is answered in both eras.
 *
 * Source: MCP 2025-11-25, basic/transports, client/elicitation,
 * client/sampling, client/roots, basic/utilities/ping; MCP 2026-07-28,
 * basic/transports/stdio.
 */
import { Deferred, Effect } from "effect"
import { ErrorCode } from "@mrtr/protocol/ErrorCode"
import { type ActiveCall, type ConnectionState, isRecord, legacyHeaders, respond } from "./connectionState.ts"
import type { Deps } from "./eraTypes.ts"
import { type Answered, answerServerRequest, isServerRequest } from "./serverRequests.ts"

/** The most server requests one connection answers at a time (2025-11-25); more are refused with -32603. */
export const MAX_PENDING_SERVER_REQUESTS = 64

/** Tells the call's `onServerRequest` of an answered request. */
export const report = (call: ActiveCall | undefined, answered: Answered) =>
  call?.onServerRequest === undefined || answered.answered === undefined ? Effect.void : call.onServerRequest({
    key: answered.answered.key,
    method: call.keys.method,
    target: call.keys.target,
    request: answered.answered.request,
    response: answered.answered.result
  })

/** Builds the connection's `bounded` and `dispatch` over its `state`. */
export const makeServerMessages = (deps: Deps, state: ConnectionState) => {
  const { transport } = deps

  // -- Answering the server's requests ------------------------------------------

  /**
   * `answerServerRequest`, at most `MAX_PENDING_SERVER_REQUESTS` at a time per
   * connection: past it a request is refused at once (-32603), so a server
   * flooding requests cannot make the client start handlers without bound.
   */
  const bounded = (...args: Parameters<typeof answerServerRequest>): Effect.Effect<Answered> =>
    Effect.suspend(() => {
      if (state.pending >= MAX_PENDING_SERVER_REQUESTS) {
        return Effect.succeed<Answered>({
          response: {
            jsonrpc: "2.0",
            id: args[0].id,
            error: {
              code: ErrorCode.InternalError,
              message: `Too many requests pending on this connection (${MAX_PENDING_SERVER_REQUESTS})`
            }
          }
        })
      }
      state.pending++
      return answerServerRequest(...args).pipe(Effect.ensuring(Effect.sync(() => void state.pending--)))
    })

  // -- Requests the server makes outside a request's stream -------------------

  /** Handles a message that arrived outside any request's stream (stdio, the GET stream). */
  const dispatch = (message: unknown): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (!isRecord(message) || typeof message.method !== "string") return Effect.void
      if (!isServerRequest(message)) {
        if ("id" in message) return Effect.void
        return deps.publish({ method: message.method, ...(isRecord(message.params) ? { params: message.params } : {}) })
      }
      const current = state.connection
      if (current === undefined || current.era !== "2025-11-25") {
        return respond(
          transport,
          message.method === "ping"
            ? { jsonrpc: "2.0", id: message.id, result: {} }
            : { jsonrpc: "2.0", id: message.id, error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${message.method}` } },
          {}
        )
      }
      const call = state.active.size === 1 ? [...state.active][0] : undefined
      // answered in a fiber of its own: a person taking their time blocks neither
      // the other requests nor the notifications that arrive meanwhile
      return bounded(
        message,
        call?.handlers ?? deps.layerHandlers,
        current.capabilities,
        call?.keys ?? state.connectionKeys
      ).pipe(
        Effect.tap((answered) => respond(transport, answered.response, legacyHeaders(transport, current.protocolVersion))),
        Effect.tap((answered) => report(call, answered)),
        Effect.flatMap((answered) =>
          answered.failure !== undefined && call !== undefined && call.failOnHandlerError
            ? Deferred.fail(call.failed, answered.failure)
            : Effect.void
        ),
        Effect.asVoid,
        Effect.forkIn(deps.scope),
        Effect.asVoid
      )
    })

  return { bounded, dispatch }
}

/** The pieces `makeServerMessages` builds. */
export type ServerMessages = ReturnType<typeof makeServerMessages>
