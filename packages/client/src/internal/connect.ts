/**
 * Establishing the connection, once, before its first request: the era
 * (pinned by `protocol`, or probed with `server/discover`, see
 * `eraProbe.ts`), and on 2025-11-25 the session (`handshake`).
 *
 * - `handshake`: `initialize` (capabilities from the Layer's handlers,
 *   `roots.listChanged` when the roots handler reports changes), then
 *   `notifications/initialized`, the GET stream (HTTP) and `logging/setLevel`
 *   when a `logLevel` is configured and the server logs.
 * - `connect`: the connection negotiated, established by the first caller
 *   under the connection's lock and remembered; later callers get it at once.
 *
 * Gotchas:
 * - Until the session is established only pings are answered (-32601
 *   otherwise); the connection is set before the GET stream opens, so the
 *   requests it carries are answered as the session's. Its fiber starts at
 *   once, so the GET is sent before the handshake returns: the request that
 *   needed the session never races it (a server may take the first GET after
 *   a request as that request's resumption, as the conformance suite's
 *   2025-11-25 `sse-retry` does).
 * - `notifications/initialized` is bounded by `requestTimeout` like a
 *   request (`RequestTimeout`): over HTTP it waits for the server's 202.
 * - The probe's `probeTimeout`, like every `requestTimeout`, does not count
 *   the time the transport spends signing in (the sign-in a 401 starts).
 * - A legacy verdict whose `initialize` is refused the way a modern-only
 *   server refuses it (-32601, or -32022 / -32602 whose `data.supported`
 *   lists 2026-07-28) falls back to 2026-07-28.
 * - `makeHandshake` is built before `makeConnect` (the probe falls back on
 *   the handshake), both after the exchanges (`eraSend.ts`).
 *
 * Source: MCP 2026-07-28, basic/versioning, basic/lifecycle; MCP 2025-11-25,
 * basic/lifecycle, basic/transports, server/utilities/logging.
 */
import { Duration, Effect, Option, Stream } from "effect"
import { ErrorCode } from "@mrtr/protocol/ErrorCode"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import { PROTOCOL_VERSION } from "@mrtr/protocol/Meta"
import type { OutgoingRequest } from "../ClientTransport.ts"
import { type RequestError, RequestTimeout, TransportError } from "../Errors.ts"
import { type ConnectionState, isRecord, legacyHeaders, respond, takeRequestId } from "./connectionState.ts"
import { boundedExceptSignIn, boundMillis } from "./deadline.ts"
import { verdictOf } from "./eraProbe.ts"
import type { Connection, Deps, LegacyConnection } from "./eraTypes.ts"
import type { Exchanges } from "./eraSend.ts"
import { exchange } from "./exchange.ts"
import { initializeParams, legacyCapabilities, readInitializeResult } from "./legacySession.ts"
import type { ServerMessages } from "./serverMessages.ts"

// -- Establishing the connection ---------------------------------------------

const ignoreNotification = () => Effect.void

/** `initialize` refused the way a modern-only server refuses it. */
const refusedAsModern = (error: RequestError) =>
  error._tag === "McpError" && (
    error.code === ErrorCode.MethodNotFound ||
    // a modern-only server SHOULD name its versions in any error to initialize (-32022, or -32602 as in 2025-11-25)
    ((error.code === ErrorCode.UnsupportedProtocolVersion || error.code === ErrorCode.InvalidParams) &&
      isRecord(error.data) && Array.isArray(error.data.supported) && error.data.supported.includes(PROTOCOL_VERSION))
  )

/** Builds the connection's 2025-11-25 `handshake` over its `state`. */
export const makeHandshake = (
  deps: Deps,
  state: ConnectionState,
  { dispatch, legacyExchange }: Pick<ServerMessages, "dispatch"> & Pick<Exchanges, "legacyExchange">
) => {
  const { transport } = deps

  const handshake: Effect.Effect<LegacyConnection, RequestError> = Effect.gen(function*() {
    const capabilities = legacyCapabilities(
      deps.declared(deps.layerHandlers),
      Option.exists(deps.layerHandlers.roots, (roots) => roots.changes !== undefined)
    )
    const message: OutgoingRequest = {
      jsonrpc: "2.0",
      id: takeRequestId(),
      method: "initialize",
      params: initializeParams(capabilities, deps.clientInfo)
    }
    const raw = yield* exchange(transport, message, {}, {
      onNotification: ignoreNotification,
      serve: pingOnly,
      idleTimeout: deps.requestTimeout
    })
    const initialize = yield* readInitializeResult(raw)
    const established: LegacyConnection = {
      era: "2025-11-25",
      protocolVersion: initialize.protocolVersion,
      initialize,
      capabilities
    }
    const headers = legacyHeaders(transport, initialize.protocolVersion)
    // Bounded like a request: over HTTP the notification waits for its 202, which a server may never send.
    const initialized = transport.notify({ jsonrpc: "2.0", method: "notifications/initialized" }, headers)
    const millis = boundMillis(deps.requestTimeout)
    yield* millis === undefined ? initialized : boundedExceptSignIn(
      initialized,
      millis,
      transport.signInMillis,
      () => new RequestTimeout({ method: "notifications/initialized", bound: "request", millis })
    )
    state.connection = established
    if (transport.listen !== undefined) {
      yield* transport.listen(headers).pipe(
        Stream.runForEach(dispatch),
        Effect.catch((error) => Effect.logDebug("The GET stream ended", error.message)),
        // started here, so the GET is sent before the handshake returns: the session's stream is open (or
        // opening) before the first request, not raced by it
        Effect.forkIn(deps.scope, { startImmediately: true })
      )
    }
    if (deps.logLevel !== undefined && initialize.capabilities.logging !== undefined) {
      yield* legacyExchange(established, {
        method: "logging/setLevel",
        params: () => ({ level: deps.logLevel }),
        capabilities,
        target: "",
        handlers: deps.layerHandlers,
        failOnHandlerError: false,
        onNotification: ignoreNotification,
        requestTimeout: deps.requestTimeout
      }).pipe(Effect.ignore)
    }
    return established
  })

  /** Until the session is established only pings are answered. */
  const pingOnly = (request: Record<string, unknown> & { readonly id: RequestId }) =>
    respond(
      transport,
      request.method === "ping"
        ? { jsonrpc: "2.0", id: request.id, result: {} }
        : { jsonrpc: "2.0", id: request.id, error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${request.method}` } },
      {}
    )

  return handshake
}

/** Builds the connection's `connect` over its `state`, the modern exchange and `handshake`. */
export const makeConnect = (
  deps: Deps,
  state: ConnectionState,
  { handshake, modernExchange }: Pick<Exchanges, "modernExchange"> & {
    readonly handshake: Effect.Effect<LegacyConnection, RequestError>
  }
) => {
  const { transport } = deps

  const modern: Connection = { era: "2026-07-28", protocolVersion: PROTOCOL_VERSION }

  const probe: Effect.Effect<Connection, RequestError> = Effect.gen(function*() {
    const attempt = modernExchange(
      "server/discover",
      { _meta: deps.modernMeta(deps.declared(deps.layerHandlers), undefined) },
      undefined,
      ignoreNotification,
      undefined
    ).pipe(Effect.exit, Effect.map(Option.some))
    // A sign-in the probe's 401 starts waits for the user: that time is not the server's (`signInMillis`).
    const probeMillis = boundMillis(Duration.fromInputUnsafe(deps.probeTimeout))
    const outcome = yield* probeMillis === undefined
      ? attempt
      : boundedExceptSignIn(attempt, probeMillis, transport.signInMillis, () => "expired" as const).pipe(
        Effect.catch(() => Effect.succeedNone)
      )
    const verdict = yield* verdictOf(
      Option.getOrUndefined(outcome),
      transport.kind,
      new TransportError({ reason: `server/discover got no answer within ${Duration.format(Duration.fromInputUnsafe(deps.probeTimeout))}` })
    )
    switch (verdict._tag) {
      case "Modern":
        state.discovered = Option.getOrUndefined(verdict.discovered)
        return modern
      case "Fail":
        return yield* Effect.fail(verdict.error)
      case "Legacy":
        return yield* handshake.pipe(
          Effect.catchIf(refusedAsModern, () => Effect.succeed(modern))
        )
    }
  })

  const establish: Effect.Effect<Connection, RequestError> = deps.protocol === "2026-07-28"
    ? Effect.succeed(modern)
    : deps.protocol === "2025-11-25"
    ? handshake
    : probe

  const connect: Effect.Effect<Connection, RequestError> = Effect.suspend(() =>
    state.connection !== undefined ? Effect.succeed(state.connection) : state.lock.withPermits(1)(
      Effect.suspend(() =>
        state.connection !== undefined ? Effect.succeed(state.connection) : establish.pipe(
          Effect.tap((established) => Effect.sync(() => void (state.connection = established)))
        )
      )
    )
  )

  return connect
}
