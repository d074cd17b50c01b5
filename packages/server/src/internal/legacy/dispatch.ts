/**
 * The 2025-11-25 dispatcher: answers the messages the era classifier
 * (`internal/era.ts`) routes to the legacy wire, against the registries and
 * the engine the 2026-07-28 dispatcher uses.
 *
 * - Lifecycle: `initialize` (version negotiation, a session; on HTTP its
 *   `Mcp-Session-Id` header), `notifications/initialized`, `ping`; on HTTP
 *   `GET` (the session's stream, resumable with `Last-Event-ID`) and
 *   `DELETE` (ends the session).
 * - Utilities: `logging/setLevel`, `resources/subscribe` / `unsubscribe`
 *   (`notifications/resources/updated`), list-changed notifications,
 *   `notifications/cancelled` (interrupts the request), progress and log
 *   notifications on the request's stream, `completion/complete`.
 * - `tools/call`, `prompts/get`, `resources/read`: the shim (`shim.ts`).
 * - Posted responses: the answers to the shim's server-to-client requests
 *   (unknown, late or duplicate ids are ignored).
 *
 * Encoding: legacy results carry no `resultType`, `ttlMs`, `cacheScope` or
 * 2026 `_meta` keys; a missing resource is -32002 with `data.uri`; an ask the
 * session's capabilities cannot answer (not caught by the handler) is -32600
 * with `data.requiredCapabilities`. JSON-RPC errors of requests travel with
 * HTTP 200 (legacy clients read them from the body); session errors are
 * 400 (-32000: bad version header; -32600: initialize twice), 404 (-32001: unknown
 * or ended session, or one another authenticated principal opened), 409 (a second GET stream) and 503 (no room for a session;
 * -32603: the shared session directory is unavailable).
 * Streams (a request's SSE stream, the GET stream, resumption): `streams.ts`. Fleets: with a shared
 * `SessionDirectory` any instance serves any session (`fleet.ts`) and resumes any stream (`resume.ts`).
 * Source: MCP 2025-11-25, basic/lifecycle, basic/transports, basic/utilities,
 * server/*; the spec digest legacy-2025-11-25.md A, B, D.
 */
import { Cause, Effect, Exit, Fiber, Option, Schema } from "effect"
import {
  ClientCapabilities,
  ErrorCode,
  type Implementation,
  Legacy,
  LoggingLevel,
  McpError,
  type RequestId
} from "@mrtr/protocol"
import { type Engine, MissingClientCapability } from "@mrtr/core"
import { McpRequest } from "../../RequestContext.ts"
import type { Incoming, Reply, WireMessage } from "../../Transport.ts"
import { MAX_PARAMS_DEPTH, nestedDeeperThan } from "../envelope.ts"
import { errorReply, isRecord, toMcpError, userSaidNo } from "../errors.ts"
import { isRequestId } from "../jsonRpc.ts"
import { type Registry, ResourceNotFound } from "../registry.ts"
import type { SessionDirectory, SessionDirectoryUnavailable } from "../../SessionDirectory.ts"
import * as Fleet from "./fleet.ts"
import * as Resume from "./resume.ts"
import * as Session from "./session.ts"
import { drive } from "./shim.ts"
import { getStream, RETRY_MS, streamed } from "./streams.ts"

/** What the legacy dispatcher shares with the server. */
export interface Core {
  readonly registry: Registry
  readonly engine: Engine.Services
  readonly info: Implementation
  readonly instructions: string | undefined
  readonly audience: string
  readonly limits: Session.Limits
  /** Where the sessions of the fleet are found (`SessionDirectory.local`: this process only). */
  readonly directory: SessionDirectory["Service"]
}

const decodeCapabilities = Schema.decodeUnknownExit(ClientCapabilities)
const decodeInitialize = Schema.decodeUnknownExit(Legacy.InitializeRequestParams)
const isLoggingLevel = Schema.is(LoggingLevel)

/** The legacy error codes of session management (TS SDK and conformance practice). */
const SESSION_ERROR = -32000
const SESSION_NOT_FOUND = -32001
const RESOURCE_NOT_FOUND = -32002

const sessionError = (code: number, message: string, httpStatus: number, id?: RequestId): Reply =>
  errorReply(id, new McpError({ code, message }), httpStatus)

const result = (id: RequestId, value: unknown, headers?: Record<string, string>): Reply => ({
  _tag: "Response",
  message: { jsonrpc: "2.0", id, result: value },
  httpStatus: 200,
  ...(headers === undefined ? {} : { headers })
})

const LEVELS = LoggingLevel.literals

/** Most resources one session may subscribe to (`resources/subscribe`). */
const MAX_SUBSCRIPTIONS = 1000

/** Longest URI a session may subscribe to, in characters. */
const MAX_SUBSCRIPTION_URI = 2048

/** Most characters all of a session's subscribed URIs may take together (the record every instance shares). */
const MAX_SUBSCRIPTIONS_CHARS = 65_536

/** How often (ms) a request waiting for the client's answers checks that its session is still in a shared directory (see `sessionLost`). */
const RECORD_CHECK_MS = 5_000

/** Most characters of JSON `initialize`'s `capabilities` and `clientInfo` may take (kept for the session's life). */
const MAX_DECLARATION_CHARS = 16_384

/** Builds the legacy dispatcher over `core`. */
export const make = (core: Core) => {
  const directory = core.directory
  const shared = directory.shared
  const store = Session.makeStore(core.limits, directory.instanceId)
  const ttl = core.limits.idleTimeoutMs
  /** Refreshes a shared session's idle TTL (best effort: the next message looks it up anyway). */
  const touch = (session: Session.Session | undefined) =>
    !shared || session === undefined || session.send !== undefined
      ? Effect.void
      : Effect.ignore(directory.lookup(session.id, ttl))
  /**
   * While a request's legs wait for the client's answers: fails with -32603
   * `session_lost` once the session's shared record is gone (checked every
   * `RECORD_CHECK_MS`, one lookup per waiting request; each also refreshes
   * the idle TTL, as any message of the session does). A directory that
   * cannot answer is no verdict: the legs wait on (`legTimeoutMs` still
   * bounds them; the failed lookups count as Redis errors).
   */
  const sessionLost = (session: Session.Session | undefined): Effect.Effect<never, McpError> | undefined =>
    !shared || session === undefined || session.send !== undefined ? undefined : Effect.gen(function*() {
      while (true) {
        yield* Effect.sleep(RECORD_CHECK_MS)
        const record = yield* directory.lookup(session.id, ttl).pipe(Effect.orElseSucceed(() => "unavailable" as const))
        if (record === undefined) {
          return yield* new McpError({
            code: ErrorCode.InternalError,
            message: "The session is gone from the fleet's session directory (ended, expired, or lost by it): initialize a new session",
            data: { reason: "session_lost" }
          })
        }
      }
    })
  const byConnection = new WeakMap<object, Session.Session>()
  const resumption = Resume.make(store, directory)

  const capabilities: Legacy.ServerCapabilities = {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    completions: {},
    logging: {}
  }

  const broadcast = (message: WireMessage, to: (session: Session.Session) => boolean = () => true) =>
    Effect.suspend(() =>
      Effect.forEach(
        Array.from(store.sessions.values()).filter(to),
        (session) => Session.sendOutside(session, message),
        { discard: true }
      )
    )

  /** `notifications/<kind>/list_changed` to every session. */
  const listChanged = (kind: string) => broadcast({ jsonrpc: "2.0", method: `notifications/${kind}/list_changed` })

  /** `notifications/resources/updated` to the sessions subscribed to `uri`. */
  const resourceUpdated = (uri: string) =>
    broadcast(
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } },
      (session) => session.subscriptions.has(uri)
    )

  // -- Errors -----------------------------------------------------------------

  const legacyError = (error: unknown, inSession: boolean): McpError | undefined => {
    if (error instanceof MissingClientCapability && !inSession) {
      // Outside any session no capability is known, and no request could reach the client anyway.
      return new McpError({
        code: ErrorCode.InvalidRequest,
        message: "This request needs input from the client, which a 2025-11-25 request outside any session cannot carry: initialize a session first",
        data: { reason: "input_undeliverable", requiredCapabilities: error.requiredCapabilities }
      })
    }
    if (error instanceof MissingClientCapability) {
      return new McpError({
        code: ErrorCode.InvalidRequest,
        message: `This request needs a client capability the session did not declare in initialize (${
          Object.keys(error.requiredCapabilities).join(", ")
        })`,
        data: { reason: "client_capability_missing", requiredCapabilities: error.requiredCapabilities }
      })
    }
    return toMcpError(error) ?? userSaidNo(error)
  }

  const respond = (
    id: RequestId,
    method: string,
    work: Effect.Effect<unknown, unknown>,
    inSession = true
  ): Effect.Effect<WireMessage> =>
    work.pipe(
      Effect.map((value): WireMessage => ({ jsonrpc: "2.0", id, result: value })),
      Effect.catchCause((cause): Effect.Effect<WireMessage> => {
        const failure = Cause.findErrorOption(cause)
        const known = Option.isSome(failure) ? legacyError(failure.value, inSession) : undefined
        if (known !== undefined) return Effect.succeed({ jsonrpc: "2.0", id, error: known.toJsonRpc() })
        return Effect.logError("Request failed", cause).pipe(
          Effect.annotateLogs({ method, era: "2025-11-25" }),
          Effect.as({ jsonrpc: "2.0", id, error: McpError.internalError().toJsonRpc() })
        )
      })
    )

  // -- Messages ---------------------------------------------------------------------

  const initialize = (incoming: Incoming, id: RequestId, params: unknown): Effect.Effect<Reply> =>
    Effect.suspend(() => {
      const decoded = decodeInitialize(params ?? {})
      if (Exit.isFailure(decoded)) {
        return Effect.succeed(errorReply(
          id,
          McpError.invalidParams("initialize needs protocolVersion, capabilities and clientInfo"),
          200
        ))
      }
      if (JSON.stringify([decoded.value.capabilities, decoded.value.clientInfo]).length > MAX_DECLARATION_CHARS) {
        return Effect.succeed(errorReply(
          id,
          McpError.invalidParams(
            `initialize's capabilities and clientInfo take more than ${MAX_DECLARATION_CHARS} characters of JSON`
          ),
          200
        ))
      }
      const connection = incoming.connection
      const header = incoming.headers?.("mcp-protocol-version")
      if (header !== undefined && !Legacy.VERSIONS.includes(header)) {
        return Effect.succeed(errorReply(
          id,
          McpError.headerMismatch(
            `initialize selects the 2025-11-25 lifecycle, but MCP-Protocol-Version is ${header}`
          )
        ))
      }
      const capabilitiesDeclared = decodeCapabilities(decoded.value.capabilities)
      return Effect.flatMap(
        connection === undefined ? store.makeRoom() : Effect.succeed(true),
        (room): Effect.Effect<Reply> => {
          if (!room) return Effect.succeed(sessionError(SESSION_ERROR, "Service unavailable: too many sessions", 503, id))
          const session = store.create({
            protocolVersion: Legacy.negotiate(decoded.value.protocolVersion),
            clientCapabilities: Exit.isSuccess(capabilitiesDeclared) ? capabilitiesDeclared.value : {},
            clientInfo: decoded.value.clientInfo,
            send: connection?.send,
            principal: incoming.principal,
            stored: true
          })
          if (connection !== undefined) {
            byConnection.set(connection, session)
            connection.onClose(Effect.suspend(() => {
              byConnection.delete(connection)
              return store.remove(session)
            }))
          }
          const value: Legacy.InitializeResult = {
            protocolVersion: session.protocolVersion,
            capabilities,
            serverInfo: core.info,
            ...(core.instructions === undefined ? {} : { instructions: core.instructions })
          }
          const reply = result(id, value, connection === undefined ? { "mcp-session-id": session.id } : undefined)
          if (!shared || connection !== undefined) return Effect.succeed(reply)
          return directory.create(Fleet.toRecord(session), ttl).pipe(
            Effect.as(reply),
            Effect.catch((error) => Effect.as(store.remove(session), Fleet.unavailableReply(error, id)))
          )
        }
      )
    })

  const call = (
    incoming: Incoming,
    session: Session.Session | undefined,
    id: RequestId,
    method: string,
    params: Record<string, unknown>
  ): Effect.Effect<Reply> => {
    const found = core.registry.call(method, params)
    if (found instanceof McpError) return Effect.succeed(errorReply(id, found, 200))
    if (found instanceof ResourceNotFound) {
      return Effect.succeed(errorReply(
        id,
        new McpError({ code: RESOURCE_NOT_FOUND, message: `Resource not found: ${found.uri}`, data: { uri: found.uri } }),
        200
      ))
    }
    const http = incoming.connection === undefined
    const canStream = incoming.canStream ?? true
    const meta = isRecord(params._meta) ? params._meta : {}
    const progressToken = typeof meta.progressToken === "string" || typeof meta.progressToken === "number"
      ? meta.progressToken
      : undefined
    return streamed(session, id, canStream, http, (emit, closeStream) =>
      respond(
        id,
        method,
        drive({
          engine: core.engine,
          audience: core.audience,
          principal: incoming.principal,
          session,
          canDeliver: canStream,
          emit,
          maxPendingLegs: core.limits.maxPendingLegs,
          legTimeoutMs: core.limits.legTimeoutMs,
          sessionLost: sessionLost(session)
        }, found).pipe(
          Effect.provideService(McpRequest, McpRequest.of({
            id,
            method,
            clientCapabilities: session?.clientCapabilities ?? {},
            clientInfo: session?.clientInfo,
            logLevel: session === undefined ? undefined : session.logLevel ?? "debug",
            progressToken,
            principal: incoming.principal,
            auth: incoming.auth,
            notify: emit,
            closeStream
          }))
        ) as Effect.Effect<Record<string, unknown>>,
        session !== undefined
      ), touch(session))
  }

  const request = (
    incoming: Incoming,
    session: Session.Session | undefined,
    id: RequestId,
    method: string,
    params: Record<string, unknown>
  ): Effect.Effect<Reply> => {
    switch (method) {
      case "initialize":
        return session === undefined
          ? initialize(incoming, id, params)
          : Effect.succeed(sessionError(ErrorCode.InvalidRequest, "Invalid Request: the session is already initialized", 400, id))
      case "ping":
        return Effect.succeed(result(id, {}))
      case "logging/setLevel": {
        if (!isLoggingLevel(params.level)) {
          return Effect.succeed(errorReply(id, McpError.invalidParams(`Invalid log level: one of ${LEVELS.join(", ")}`), 200))
        }
        if (session === undefined) return Effect.succeed(result(id, {}))
        session.logLevel = params.level
        return shareChange(session, { _tag: "LogLevel", level: params.level }, result(id, {}), id)
      }
      case "resources/subscribe":
      case "resources/unsubscribe": {
        if (typeof params.uri !== "string") {
          return Effect.succeed(errorReply(id, McpError.invalidParams(`${method} needs a string uri`), 200))
        }
        const full = errorReply(
          id,
          McpError.invalidParams(
            `A session may subscribe to at most ${MAX_SUBSCRIPTIONS} resources of ${MAX_SUBSCRIPTIONS_CHARS} characters together`
          ),
          200
        )
        if (method === "resources/subscribe" && params.uri.length > MAX_SUBSCRIPTION_URI) {
          return Effect.succeed(errorReply(
            id,
            McpError.invalidParams(`resources/subscribe takes URIs of at most ${MAX_SUBSCRIPTION_URI} characters`),
            200
          ))
        }
        if (session !== undefined) {
          if (method === "resources/unsubscribe") session.subscriptions.delete(params.uri)
          else if (!session.subscriptions.has(params.uri)) {
            let chars = params.uri.length
            for (const uri of session.subscriptions) chars += uri.length
            if (session.subscriptions.size >= MAX_SUBSCRIPTIONS || chars > MAX_SUBSCRIPTIONS_CHARS) {
              return Effect.succeed(full)
            }
            session.subscriptions.add(params.uri)
          }
          return shareChange(
            session,
            method === "resources/unsubscribe"
              ? { _tag: "Unsubscribe", uri: params.uri }
              : { _tag: "Subscribe", uri: params.uri, max: MAX_SUBSCRIPTIONS },
            result(id, {}),
            id,
            full
          )
        }
        return Effect.succeed(result(id, {}))
      }
      case "tools/list":
      case "prompts/list":
      case "resources/list":
      case "resources/templates/list":
        return Effect.map(respond(id, method, core.registry.listMethod(method, params)), (message) => reply(message))
      case "completion/complete":
        return Effect.map(respond(id, method, core.registry.complete(params)), (message) => reply(message))
      case "tools/call":
      case "prompts/get":
      case "resources/read":
        return call(incoming, session, id, method, params)
      default:
        return Effect.succeed(errorReply(id, McpError.methodNotFound(method), 200))
    }
  }

  const reply = (message: WireMessage): Reply => ({ _tag: "Response", message, httpStatus: 200 })

  /** Writes a change of an HTTP session to the shared directory, then answers `ok` (`full`: past the subscription bound). */
  const shareChange = (
    session: Session.Session,
    change: Parameters<SessionDirectory["Service"]["change"]>[1],
    ok: Reply,
    id: RequestId | undefined,
    full: Reply = ok
  ): Effect.Effect<Reply> =>
    !shared || session.send !== undefined ? Effect.succeed(ok) : directory.change(session.id, change, ttl).pipe(
      Effect.map((outcome) =>
        outcome === "full"
          ? full
          : outcome === undefined
          ? sessionError(SESSION_NOT_FOUND, "Session not found", 404, id)
          : ok
      ),
      Effect.catch((error) => Effect.succeed(Fleet.unavailableReply(error, id)))
    )

  const notification = (session: Session.Session | undefined, method: string, params: Record<string, unknown>) =>
    Effect.suspend((): Effect.Effect<Reply> => {
      const accepted: Reply = { _tag: "Accepted" }
      if (session === undefined) return Effect.succeed(accepted)
      if (method === "notifications/initialized" && !session.initialized) {
        session.initialized = true
        return shareChange(session, { _tag: "Initialized" }, accepted, undefined)
      }
      if (method === "notifications/cancelled" && isRequestId(params.requestId)) {
        const fiber = session.inflight.get(params.requestId)
        if (fiber !== undefined) return Effect.as(Fiber.interrupt(fiber), accepted)
        // Running on another instance, perhaps: every instance hears it, the one running it stops it.
        if (shared && session.send === undefined) {
          return directory.broadcast({
            _tag: "Cancel",
            session: session.id,
            requestId: params.requestId,
            reason: typeof params.reason === "string" ? params.reason.slice(0, 256) : "cancelled"
          }).pipe(
            Effect.as(accepted),
            Effect.catch((error) => Effect.succeed(Fleet.unavailableReply(error, undefined)))
          )
        }
      }
      return Effect.succeed(accepted)
    })

  /** A posted response: the answer to one of the shim's server-to-client requests. */
  const answer = (session: Session.Session | undefined, message: Record<string, unknown>): Effect.Effect<Reply> =>
    Effect.suspend((): Effect.Effect<Reply> => {
      const id = message.id
      const accepted: Reply = { _tag: "Accepted" }
      // Unknown, late or duplicate ids: ignored (the spec's "ignore unknown responses").
      if (session === undefined || !isRequestId(id)) return Effect.succeed(accepted)
      const owner = Fleet.legInstance(id)
      if (shared && owner !== undefined && owner !== directory.instanceId && session.send === undefined) {
        // A leg of a request running on another instance: its owner settles it (or ignores it).
        return Fleet.forwardAnswer(directory, session, owner, id as string, message).pipe(
          Effect.as(accepted),
          Effect.catch((error) => Effect.succeed(Fleet.unavailableReply(error, undefined)))
        )
      }
      return Effect.as(Fleet.settleLeg(session, id, message), accepted)
    })

  /**
   * Finds the session of a message: by connection (stdio) or `Mcp-Session-Id`
   * (HTTP; with a shared directory, looked up there: see `fleet.ts`).
   */
  const sessionOf = (
    incoming: Incoming
  ): Effect.Effect<Session.Session | undefined | "unknown" | "full", SessionDirectoryUnavailable> => {
    if (incoming.connection !== undefined) return Effect.succeed(byConnection.get(incoming.connection))
    const id = incoming.headers?.("mcp-session-id")
    if (id === undefined) return Effect.undefined
    if (shared) return Fleet.resolve(store, directory, id, incoming.principal)
    const session = store.get(id)
    // A session id is no credential: another principal presenting it finds no session.
    return Effect.succeed(
      session === undefined || session.ended || session.principal !== incoming.principal ? "unknown" : session
    )
  }

  const handle = (incoming: Incoming): Effect.Effect<Reply> =>
    Effect.andThen(store.sweep(Date.now()), Effect.suspend(() => dispatch(incoming)))

  const idOf = (incoming: Incoming) =>
    isRecord(incoming.message) && isRequestId(incoming.message.id) ? incoming.message.id : undefined

  /**
   * With the directory unreachable, an answer POSTed to the instance that holds its leg is still taken (202): the
   * session is held here for the same principal, and settling the leg needs nothing shared. `undefined` for anything
   * else, which waits for the directory (503).
   */
  const localAnswer = (incoming: Incoming): Effect.Effect<Reply> | undefined => {
    const message = incoming.message
    if (incoming.httpMethod !== undefined || incoming.connection !== undefined) return undefined
    if (!isRecord(message) || message.jsonrpc !== "2.0" || "method" in message || !isRequestId(message.id)) return undefined
    if (Fleet.legInstance(message.id) !== directory.instanceId) return undefined
    const id = incoming.headers?.("mcp-session-id")
    const session = id === undefined ? undefined : store.get(id)
    if (session === undefined || session.ended || session.principal !== incoming.principal || !session.legs.has(message.id)) {
      return undefined
    }
    return Effect.as(Fleet.settleLeg(session, message.id, message), { _tag: "Accepted" } as Reply)
  }

  const dispatch = (incoming: Incoming): Effect.Effect<Reply> =>
    sessionOf(incoming).pipe(
      Effect.matchEffect({
        onFailure: (error) => localAnswer(incoming) ?? Effect.succeed(Fleet.unavailableReply(error, idOf(incoming))),
        onSuccess: (session) =>
          session === "unknown"
            ? Effect.succeed(sessionError(SESSION_NOT_FOUND, "Session not found", 404, idOf(incoming)))
            : session === "full"
            ? Effect.succeed(sessionError(SESSION_ERROR, "Service unavailable: too many sessions", 503, idOf(incoming)))
            : dispatchIn(incoming, session)
      })
    )

  /** GET (the session's stream, or a resumption) and DELETE (the end of the session, fleet-wide). */
  const getOrDelete = (incoming: Incoming, session: Session.Session): Effect.Effect<Reply> => {
    if (incoming.httpMethod === "DELETE") {
      const ended = Effect.as(store.remove(session), { _tag: "Accepted", httpStatus: 200 } as Reply)
      return !shared ? ended : directory.remove(session.id).pipe(
        Effect.andThen(ended),
        Effect.catch((error) => Effect.succeed(Fleet.unavailableReply(error, undefined)))
      )
    }
    const lastEventId = incoming.headers?.("last-event-id")
    if (lastEventId === undefined) return getStream(session, undefined)
    return resumption.resumeElsewhere(session, lastEventId, RETRY_MS).pipe(
      Effect.flatMap((elsewhere) => elsewhere === undefined ? getStream(session, lastEventId) : Effect.succeed(elsewhere)),
      Effect.catch((error) => Effect.succeed(Fleet.unavailableReply(error, undefined)))
    )
  }

  /** The 400 for an `MCP-Protocol-Version` this wire does not speak (absent: the negotiated one is assumed). */
  const unsupportedVersion = (incoming: Incoming, id?: RequestId): Reply | undefined => {
    const version = incoming.headers?.("mcp-protocol-version")
    return version === undefined || Legacy.VERSIONS.includes(version)
      ? undefined
      : sessionError(SESSION_ERROR, `Bad Request: Unsupported protocol version: ${version}`, 400, id)
  }

  const dispatchIn = (incoming: Incoming, session: Session.Session | undefined): Effect.Effect<Reply> => {
    if (session !== undefined) session.lastActive = Date.now()
    if (incoming.httpMethod === "GET" || incoming.httpMethod === "DELETE") {
      if (session === undefined) return Effect.succeed(sessionError(SESSION_ERROR, "Bad Request: Mcp-Session-Id required", 400))
      const refused = unsupportedVersion(incoming)
      return refused === undefined ? getOrDelete(incoming, session) : Effect.succeed(refused)
    }
    const message = incoming.message
    if (!isRecord(message)) return Effect.succeed(errorReply(undefined, McpError.invalidRequest("A JSON-RPC message must be an object")))
    const id = isRequestId(message.id) ? message.id : undefined
    if (message.jsonrpc !== "2.0") return Effect.succeed(errorReply(id, McpError.invalidRequest("jsonrpc must be \"2.0\"")))
    if (typeof message.method !== "string") return answer(session, message)
    const refused = message.method === "initialize" ? undefined : unsupportedVersion(incoming, id)
    if (refused !== undefined) return Effect.succeed(refused)
    const params = message.params === undefined ? {} : message.params
    if (!isRecord(params)) return Effect.succeed(errorReply(id, McpError.invalidParams("params must be an object"), 200))
    if (nestedDeeperThan(params, MAX_PARAMS_DEPTH)) {
      return Effect.succeed(
        errorReply(id, McpError.invalidParams(`params are nested more than ${MAX_PARAMS_DEPTH} levels deep`), 200)
      )
    }
    if (!("id" in message)) return notification(session, message.method, params)
    if (id === undefined) return Effect.succeed(errorReply(undefined, McpError.invalidRequest("id must be a string or an integer")))
    return request(incoming, session, id, message.method, params)
  }

  /** Hears the other instances of the fleet (a shared directory), for the current scope. */
  const listen = directory.listen(Fleet.receive(store, resumption.receive))

  return { handle, listChanged, resourceUpdated, store, listen }
}

/** The legacy dispatcher. */
export type Dispatcher = ReturnType<typeof make>
