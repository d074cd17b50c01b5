/**
 * The client's connection to one server, in the era the server speaks:
 * 2026-07-28 (stateless, `_meta` on every request, `input_required` rounds)
 * or 2025-11-25 (an `initialize` handshake, a session, and requests the
 * server makes in flight). Everything era-specific the client does lives
 * here; `McpClient` sends every request through `send`.
 *
 * - `protocol: "auto"` probes once with `server/discover` (see `eraProbe.ts`)
 *   and remembers the verdict for the connection; `"2026-07-28"` and
 *   `"2025-11-25"` skip the probe. A legacy verdict whose `initialize` is
 *   refused the way a modern-only server refuses it (-32601, or -32022 /
 *   -32602 whose `data.supported` lists 2026-07-28) falls back to 2026-07-28.
 * - 2025-11-25: `initialize` (capabilities from the Layer's handlers,
 *   `roots.listChanged` when the roots handler reports changes), then
 *   `notifications/initialized`, `logging/setLevel` when a `logLevel` is
 *   configured and the server logs, the GET stream (HTTP), and
 *   `notifications/roots/list_changed` whenever the roots change. Requests
 *   carry `MCP-Protocol-Version` (HTTP) and only `_meta.progressToken`. A
 *   session the server no longer knows (HTTP 404, -32001) is initialized
 *   again once and the request re-sent. A request abandoned before its
 *   response is cancelled with `notifications/cancelled` (stdio: by the
 *   transport).
 * - Server requests (2025-11-25) are answered with the input handlers
 *   (`serverRequests.ts`): on a request's own stream they belong to that
 *   call; on the GET stream or stdio they belong to the one call in flight,
 *   or to the connection when there are several or none. At most 64 are
 *   answered at a time per connection; more are refused at once (-32603).
 *   On 2026-07-28 a server request on stdio gets -32601 (`ping` is answered
 *   in both eras).
 *
 * Source: MCP 2026-07-28, basic/versioning, basic/lifecycle; MCP 2025-11-25,
 * basic/lifecycle, basic/transports, client/roots, server/utilities/logging.
 */
import { Deferred, Duration, Effect, Option, type Scope, Semaphore, Stream } from "effect"
import {
  type ClientCapabilities,
  type DiscoverResult,
  ErrorCode,
  type Implementation,
  type LoggingLevel,
  type McpError,
  type ProgressToken,
  PROTOCOL_VERSION,
  type RequestId,
  requestHeaders,
  type Tool
} from "@mrtr/protocol"
import type { ClientTransport, OutgoingRequest } from "../ClientTransport.ts"
import { type InputHandlerError, type RequestError, TransportError } from "../Errors.ts"
import { verdictOf } from "./eraProbe.ts"
import { exchange, type StreamNotification } from "./exchange.ts"
import type { Handlers } from "./inputHandlers.ts"
import {
  type InitializeResult,
  initializeParams,
  LEGACY_PROTOCOL_VERSION,
  legacyCapabilities,
  readInitializeResult
} from "./legacySession.ts"
import type { ServerRequest } from "./models.ts"
import { type Answered, answerServerRequest, type CallKeys, callKeys, isServerRequest } from "./serverRequests.ts"

/** Which revision the client speaks: detected (`"auto"`) or pinned. */
export type Protocol = "auto" | "2026-07-28" | "2025-11-25"

/** A 2025-11-25 session: the negotiated version, the `InitializeResult`, the capabilities declared. */
export interface LegacyConnection {
  readonly era: "2025-11-25"
  readonly protocolVersion: string
  readonly initialize: InitializeResult
  readonly capabilities: ClientCapabilities
}

/** The negotiated connection. */
export type Connection = { readonly era: "2026-07-28"; readonly protocolVersion: string } | LegacyConnection

/**
 * JSON-RPC ids come from one process-wide counter, so no two requests sent by
 * any clients of this process share an id (a manual-mode retry made through a
 * fresh client still gets a new id).
 */
let nextRequestId = 1

/** The most server requests one connection answers at a time (2025-11-25); more are refused with -32603. */
export const MAX_PENDING_SERVER_REQUESTS = 64

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** What `McpClient` gives the connection. */
export interface Deps {
  readonly transport: ClientTransport["Service"]
  readonly protocol: Protocol
  readonly probeTimeout: Duration.Input
  /** The idle bound of the requests the connection makes itself (`initialize`, `logging/setLevel`). */
  readonly requestTimeout: Duration.Duration
  readonly clientInfo: Implementation
  readonly logLevel: LoggingLevel | undefined
  readonly layerHandlers: Handlers
  readonly declared: (handlers: Handlers) => ClientCapabilities
  readonly modernMeta: (capabilities: ClientCapabilities, progressToken: ProgressToken | undefined) => Record<string, unknown>
  readonly publish: (notification: { readonly method: string; readonly params?: Readonly<Record<string, unknown>> }) => Effect.Effect<void>
  readonly scope: Scope.Scope
}

/** One request as `McpClient` asks for it. */
export interface SendOptions {
  readonly method: string
  /** The params, given the `_meta` to put among them (absent when there is none to send). */
  readonly params: (meta: Record<string, unknown> | undefined) => Record<string, unknown>
  readonly capabilities: ClientCapabilities
  readonly progressToken?: ProgressToken | undefined
  readonly tool?: Tool | undefined
  /** The tool or prompt name / resource URI of an MRTR call (`""` otherwise). */
  readonly target: string
  readonly handlers: Handlers
  /** Whether a failing input handler fails the request (MRTR calls) or only answers the server with an error. */
  readonly failOnHandlerError: boolean
  readonly onNotification: (notification: StreamNotification) => Effect.Effect<void>
  /** `McpClient`'s `requestTimeout` for this request (see `exchange.ts`). */
  readonly requestTimeout: Duration.Duration
  /** Told of each server request answered for this call (2025-11-25). */
  readonly onServerRequest?: ((request: ServerRequest) => Effect.Effect<void>) | undefined
}

interface ActiveCall {
  readonly keys: CallKeys
  readonly handlers: Handlers
  readonly failed: Deferred.Deferred<never, InputHandlerError>
  readonly failOnHandlerError: boolean
  readonly onServerRequest?: ((request: ServerRequest) => Effect.Effect<void>) | undefined
}

/** Tells the call's `onServerRequest` of an answered request. */
const report = (call: ActiveCall | undefined, answered: Answered) =>
  call?.onServerRequest === undefined || answered.answered === undefined ? Effect.void : call.onServerRequest({
    key: answered.answered.key,
    method: call.keys.method,
    target: call.keys.target,
    request: answered.answered.request,
    response: answered.answered.result
  })

/** Builds the connection state (nothing is sent until the first request). */
export const make = (deps: Deps) => {
  const { transport } = deps
  let connection: Connection | undefined
  let discovered: DiscoverResult | undefined
  const lock = Semaphore.makeUnsafe(1)
  const active = new Set<ActiveCall>()
  const connectionKeys = callKeys("", "")

  const legacyHeaders = (version: string): Record<string, string> =>
    transport.usesHeaders ? { "mcp-protocol-version": version } : {}

  const respond = (message: Parameters<ClientTransport["Service"]["notify"]>[0], headers: Record<string, string>) =>
    transport.notify(message, headers).pipe(
      Effect.catch((error) => Effect.logDebug("Could not answer the server's request", error.message))
    )

  // -- Answering the server's requests ------------------------------------------

  let pending = 0
  /**
   * `answerServerRequest`, at most `MAX_PENDING_SERVER_REQUESTS` at a time per
   * connection: past it a request is refused at once (-32603), so a server
   * flooding requests cannot make the client start handlers without bound.
   */
  const bounded = (...args: Parameters<typeof answerServerRequest>): Effect.Effect<Answered> =>
    Effect.suspend(() => {
      if (pending >= MAX_PENDING_SERVER_REQUESTS) {
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
      pending++
      return answerServerRequest(...args).pipe(Effect.ensuring(Effect.sync(() => void pending--)))
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
      const current = connection
      if (current === undefined || current.era !== "2025-11-25") {
        return respond(
          message.method === "ping"
            ? { jsonrpc: "2.0", id: message.id, result: {} }
            : { jsonrpc: "2.0", id: message.id, error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${message.method}` } },
          {}
        )
      }
      const call = active.size === 1 ? [...active][0] : undefined
      // answered in a fiber of its own: a person taking their time blocks neither
      // the other requests nor the notifications that arrive meanwhile
      return bounded(
        message,
        call?.handlers ?? deps.layerHandlers,
        current.capabilities,
        call?.keys ?? connectionKeys
      ).pipe(
        Effect.tap((answered) => respond(answered.response, legacyHeaders(current.protocolVersion))),
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

  // -- Establishing the connection ---------------------------------------------

  const modernExchange = (
    method: string,
    params: Record<string, unknown>,
    tool: Tool | undefined,
    onNotification: (notification: StreamNotification) => Effect.Effect<void>,
    idleTimeout: Duration.Duration | undefined
  ) => {
    const once = Effect.suspend(() => {
      const message: OutgoingRequest = { jsonrpc: "2.0", id: nextRequestId++, method, params }
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

  const ignoreNotification = () => Effect.void

  const handshake: Effect.Effect<LegacyConnection, RequestError> = Effect.gen(function*() {
    const capabilities = legacyCapabilities(
      deps.declared(deps.layerHandlers),
      Option.exists(deps.layerHandlers.roots, (roots) => roots.changes !== undefined)
    )
    const message: OutgoingRequest = {
      jsonrpc: "2.0",
      id: nextRequestId++,
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
    const headers = legacyHeaders(initialize.protocolVersion)
    yield* transport.notify({ jsonrpc: "2.0", method: "notifications/initialized" }, headers)
    connection = established
    if (transport.listen !== undefined) {
      yield* transport.listen(headers).pipe(
        Stream.runForEach(dispatch),
        Effect.catch((error) => Effect.logDebug("The GET stream ended", error.message)),
        Effect.forkIn(deps.scope)
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
      request.method === "ping"
        ? { jsonrpc: "2.0", id: request.id, result: {} }
        : { jsonrpc: "2.0", id: request.id, error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${request.method}` } },
      {}
    )

  /** `initialize` refused the way a modern-only server refuses it. */
  const refusedAsModern = (error: RequestError) =>
    error._tag === "McpError" && (
      error.code === ErrorCode.MethodNotFound ||
      // a modern-only server SHOULD name its versions in any error to initialize (-32022, or -32602 as in 2025-11-25)
      ((error.code === ErrorCode.UnsupportedProtocolVersion || error.code === ErrorCode.InvalidParams) &&
        isRecord(error.data) && Array.isArray(error.data.supported) && error.data.supported.includes(PROTOCOL_VERSION))
    )

  const modern: Connection = { era: "2026-07-28", protocolVersion: PROTOCOL_VERSION }

  const probe: Effect.Effect<Connection, RequestError> = Effect.gen(function*() {
    const outcome = yield* modernExchange(
      "server/discover",
      { _meta: deps.modernMeta(deps.declared(deps.layerHandlers), undefined) },
      undefined,
      ignoreNotification,
      undefined
    ).pipe(Effect.exit, Effect.timeoutOption(deps.probeTimeout))
    const verdict = yield* verdictOf(
      Option.getOrUndefined(outcome),
      transport.kind,
      new TransportError({ reason: `server/discover got no answer within ${Duration.format(Duration.fromInputUnsafe(deps.probeTimeout))}` })
    )
    switch (verdict._tag) {
      case "Modern":
        discovered = Option.getOrUndefined(verdict.discovered)
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
    connection !== undefined ? Effect.succeed(connection) : lock.withPermits(1)(
      Effect.suspend(() =>
        connection !== undefined ? Effect.succeed(connection) : establish.pipe(
          Effect.tap((established) => Effect.sync(() => void (connection = established)))
        )
      )
    )
  )

  // -- Sending in the negotiated era --------------------------------------------

  const legacyExchange = (
    current: LegacyConnection,
    options: SendOptions
  ): Effect.Effect<Record<string, unknown>, RequestError | InputHandlerError> =>
    Effect.gen(function*() {
      const meta = options.progressToken === undefined ? undefined : { progressToken: options.progressToken }
      const message: OutgoingRequest = {
        jsonrpc: "2.0",
        id: nextRequestId++,
        method: options.method,
        params: options.params(meta)
      }
      const headers = legacyHeaders(current.protocolVersion)
      const call: ActiveCall = {
        keys: callKeys(options.method, options.target),
        handlers: options.handlers,
        failed: yield* Deferred.make<never, InputHandlerError>(),
        failOnHandlerError: options.failOnHandlerError,
        onServerRequest: options.onServerRequest
      }
      const serve = (request: Record<string, unknown> & { readonly id: RequestId }) =>
        bounded(request, call.handlers, current.capabilities, call.keys).pipe(
          Effect.tap((answered) => respond(answered.response, headers)),
          Effect.tap((answered) => report(call, answered)),
          Effect.flatMap((answered) =>
            answered.failure !== undefined && call.failOnHandlerError ? Effect.fail(answered.failure) : Effect.void
          )
        )
      return yield* Effect.acquireUseRelease(
        Effect.sync(() => active.add(call)),
        () =>
          exchange(transport, message, headers, {
            onNotification: options.onNotification,
            serve,
            failed: call.failed,
            idleTimeout: options.requestTimeout,
            // stdio's transport cancels abandoned requests itself
            onAbandon: transport.kind === "stdio" ? undefined : respond({
              jsonrpc: "2.0",
              method: "notifications/cancelled",
              params: { requestId: message.id, reason: "The client abandoned the request" }
            }, headers)
          }),
        () => Effect.sync(() => active.delete(call))
      )
    })

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
              const renewed = yield* lock.withPermits(1)(Effect.suspend(() =>
                connection !== undefined && connection !== current && connection.era === "2025-11-25"
                  ? Effect.succeed(connection)
                  : handshake.pipe(Effect.tap((established) => Effect.sync(() => void (connection = established))))
              ))
              return yield* legacyExchange(renewed, options)
            }))
        ))

  /** The probe's `DiscoverResult`, once (so the first `discover()` after the probe sends nothing). */
  const takeDiscovered: Effect.Effect<Option.Option<DiscoverResult>> = Effect.sync(() => {
    const result = discovered
    discovered = undefined
    return Option.fromNullishOr(result)
  })

  /** Sends `notifications/roots/list_changed` (2025-11-25 sessions only). */
  const rootsChanged: Effect.Effect<void> = Effect.suspend(() => {
    const current = connection
    return current === undefined || current.era !== "2025-11-25"
      ? Effect.void
      : respond({ jsonrpc: "2.0", method: "notifications/roots/list_changed" }, legacyHeaders(current.protocolVersion))
  })

  return { connect, send, dispatch, takeDiscovered, rootsChanged }
}

/** The connection service built by `make`. */
export type Eras = ReturnType<typeof make>

export { LEGACY_PROTOCOL_VERSION }
