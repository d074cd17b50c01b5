/**
 * Sending one request in the connection's era: `modernExchange` (2026-07-28:
 * the caller's `_meta`, the request headers), `legacyExchange` (2025-11-25:
 * `MCP-Protocol-Version`, only `_meta.progressToken`, the server requests
 * made on the request's stream answered for the call, `notifications/cancelled`
 * when the request is abandoned), and `send`, which connects first and picks
 * the exchange by the era negotiated.
 *
 * Gotchas:
 * - A -32022 whose `data.supported` lists 2026-07-28 is retried once with a
 *   new id.
 * - A 2025-11-25 session the server no longer knows (HTTP 404, -32001) is
 *   initialized again once (no probe: the era is known) and the request
 *   re-sent; concurrent calls share one renewal (under the connection's lock).
 * - `makeExchanges` is built before the connection's establishing pieces
 *   (which use the exchanges), `makeSend` after them (it uses `connect` and
 *   `handshake`).
 *
 * Source: MCP 2026-07-28, basic (request `_meta`), basic/versioning,
 * basic/transports/streamable-http; MCP 2025-11-25, basic/transports
 * (session management), basic/utilities/cancellation.
 */
import { Deferred, type Duration, Effect } from "effect"
import { ErrorCode, type McpError } from "@mrtr/protocol/ErrorCode"
import { requestHeaders } from "@mrtr/protocol/Headers"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import { PROTOCOL_VERSION } from "@mrtr/protocol/Meta"
import type { Tool } from "@mrtr/protocol/Schema"
import type { OutgoingRequest } from "../ClientTransport.ts"
import type { InputHandlerError, RequestError } from "../Errors.ts"
import { type ActiveCall, type ConnectionState, isRecord, legacyHeaders, respond, takeRequestId } from "./connectionState.ts"
import type { Connection, Deps, LegacyConnection, SendOptions } from "./eraTypes.ts"
import { exchange, type StreamNotification } from "./exchange.ts"
import { report, type ServerMessages } from "./serverMessages.ts"
import { callKeys } from "./serverRequests.ts"

/** Builds the connection's `modernExchange` and `legacyExchange` over its `state`. */
export const makeExchanges = (deps: Deps, state: ConnectionState, { bounded }: Pick<ServerMessages, "bounded">) => {
  const { transport } = deps

  const modernExchange = (
    method: string,
    params: Record<string, unknown>,
    tool: Tool | undefined,
    onNotification: (notification: StreamNotification) => Effect.Effect<void>,
    idleTimeout: Duration.Duration | undefined
  ) => {
    const once = Effect.suspend(() => {
      const message: OutgoingRequest = { jsonrpc: "2.0", id: takeRequestId(), method, params }
      return exchange(transport, message, transport.usesHeaders ? requestHeaders(message, tool) : {}, {
        onNotification,
        idleTimeout
      })
    })
    // A -32022 whose `data.supported` lists the version sent is retried once
    // with a new id (a server may reject a version it supports, e.g. during a
    // rolling deploy).
    return once.pipe(
      Effect.catchIf(
        (error): error is McpError =>
          error._tag === "McpError" && error.code === ErrorCode.UnsupportedProtocolVersion &&
          isRecord(error.data) && Array.isArray(error.data.supported) &&
          error.data.supported.includes(PROTOCOL_VERSION),
        () => once
      )
    )
  }

  // -- Sending in the negotiated era --------------------------------------------

  const legacyExchange = (
    current: LegacyConnection,
    options: SendOptions
  ): Effect.Effect<Record<string, unknown>, RequestError | InputHandlerError> =>
    Effect.gen(function*() {
      const meta = options.progressToken === undefined ? undefined : { progressToken: options.progressToken }
      const message: OutgoingRequest = {
        jsonrpc: "2.0",
        id: takeRequestId(),
        method: options.method,
        params: options.params(meta)
      }
      const headers = legacyHeaders(transport, current.protocolVersion)
      const call: ActiveCall = {
        keys: callKeys(options.method, options.target),
        handlers: options.handlers,
        failed: yield* Deferred.make<never, InputHandlerError>(),
        failOnHandlerError: options.failOnHandlerError,
        onServerRequest: options.onServerRequest
      }
      const serve = (request: Record<string, unknown> & { readonly id: RequestId }) =>
        bounded(request, call.handlers, current.capabilities, call.keys).pipe(
          Effect.tap((answered) => respond(transport, answered.response, headers)),
          Effect.tap((answered) => report(call, answered)),
          Effect.flatMap((answered) =>
            answered.failure !== undefined && call.failOnHandlerError ? Effect.fail(answered.failure) : Effect.void
          )
        )
      return yield* Effect.acquireUseRelease(
        Effect.sync(() => state.active.add(call)),
        () =>
          exchange(transport, message, headers, {
            onNotification: options.onNotification,
            serve,
            failed: call.failed,
            idleTimeout: options.requestTimeout,
            // stdio's transport cancels abandoned requests itself
            onAbandon: transport.kind === "stdio" ? undefined : respond(transport, {
              jsonrpc: "2.0",
              method: "notifications/cancelled",
              params: { requestId: message.id, reason: "The client abandoned the request" }
            }, headers)
          }),
        () => Effect.sync(() => state.active.delete(call))
      )
    })

  return { modernExchange, legacyExchange }
}

/** The exchanges `makeExchanges` builds. */
export type Exchanges = ReturnType<typeof makeExchanges>

/** Builds the connection's `send` over its `state`, its exchanges, `connect` and `handshake`. */
export const makeSend = (
  deps: Deps,
  state: ConnectionState,
  { connect, handshake, legacyExchange, modernExchange }: Exchanges & {
    readonly connect: Effect.Effect<Connection, RequestError>
    readonly handshake: Effect.Effect<LegacyConnection, RequestError>
  }
) => {
  const { transport } = deps

  /** The session is gone (HTTP 404 / -32001 "Session not found"): initialize again once. */
  const sessionGone = (error: RequestError | InputHandlerError) =>
    transport.kind === "http" && (
      (error._tag === "TransportError" && error.status === 404) ||
      (error._tag === "McpError" && error.code === -32001)
    )

  const send = (options: SendOptions): Effect.Effect<Record<string, unknown>, RequestError | InputHandlerError> =>
    Effect.flatMap(connect, (current) =>
      current.era === "2026-07-28"
        ? modernExchange(
          options.method,
          options.params(deps.modernMeta(options.capabilities, options.progressToken)),
          options.tool,
          options.onNotification,
          options.requestTimeout
        )
        : legacyExchange(current, options).pipe(
          Effect.catchIf(sessionGone, () =>
            Effect.gen(function*() {
              // a new session, unless a concurrent call renewed it already (no probe: the era is known)
              const renewed = yield* state.lock.withPermits(1)(Effect.suspend(() =>
                state.connection !== undefined && state.connection !== current && state.connection.era === "2025-11-25"
                  ? Effect.succeed(state.connection)
                  : handshake.pipe(Effect.tap((established) => Effect.sync(() => void (state.connection = established))))
              ))
              return yield* legacyExchange(renewed, options)
            }))
        ))

  return send
}
