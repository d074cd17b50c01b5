/**
 * The 2025-11-25 dispatcher: answers the messages the era classifier
 * (`internal/era.ts`) routes to the legacy wire, against the registries and
 * the engine the 2026-07-28 dispatcher uses. A message goes `handle` (sweeps
 * idle sessions) → `dispatch` (finds its session) → `dispatchIn` (checks
 * the envelope and the `MCP-Protocol-Version` header) → the module of its
 * concept; the state they share is one `DispatcherState` (`context.ts`), built once
 * in `make`.
 *
 * - Lifecycle (`lifecycle.ts`): `initialize` (version negotiation, a
 *   session; on HTTP its `Mcp-Session-Id` header), `notifications/initialized`
 *   (`notifications.ts`), `ping` (`requests.ts`); on HTTP `GET` (the
 *   session's stream, resumable with `Last-Event-ID`) and `DELETE` (ends the
 *   session); finding the session of a message.
 * - Utilities: `logging/setLevel`, `resources/subscribe` / `unsubscribe`
 *   (`requests.ts`), `notifications/resources/updated` and list-changed
 *   notifications (`broadcast.ts`), `notifications/cancelled` (interrupts the
 *   request; `notifications.ts`), progress and log notifications on the
 *   request's stream, `completion/complete` (`requests.ts`).
 * - `tools/call`, `prompts/get`, `resources/read`: the shim (`shim.ts`), run
 *   by `requests.ts`.
 * - Posted responses (`notifications.ts`): the answers to the shim's
 *   server-to-client requests (unknown, late or duplicate ids are ignored).
 *
 * Encoding: legacy results carry no `resultType`, `ttlMs`, `cacheScope` or
 * 2026 `_meta` keys; a missing resource is -32002 with `data.uri`; an ask the
 * session's capabilities cannot answer (not caught by the handler) is, for a
 * `tools/call` in a session, the tool's result with `isError: true`
 * (`requests.ts: respond`), and for prompts, resources and requests outside a
 * session -32600 with `data.reason` and `data.requiredCapabilities`
 * (`errors.ts`). JSON-RPC errors of requests travel with
 * HTTP 200 (legacy clients read them from the body); session errors are
 * 400 (-32000: bad version header; -32600: initialize twice), 404 (-32001: unknown
 * or ended session, or one another authenticated principal opened), 409 (a second GET stream) and 503 (no room for a session;
 * -32603: the shared session directory is unavailable); their codes and
 * replies: `context.ts`.
 * Streams (a request's SSE stream, the GET stream, resumption): `streams.ts`. Fleets: with a shared
 * `SessionDirectory` any instance serves any session (`fleet.ts`) and resumes any stream (`resume.ts`).
 * Source: MCP 2025-11-25, basic/lifecycle, basic/transports, basic/utilities,
 * server/*; `docs/architecture-2025.md` (the 2025-11-25 walk).
 */
import { Legacy } from "@mrtr/protocol"
import { McpError } from "@mrtr/protocol/ErrorCode"
import { type RequestId } from "@mrtr/protocol/JsonRpc"
import { Effect, type Scope } from "effect"
import type { Incoming, Reply } from "../../Transport.ts"
import { MAX_PARAMS_DEPTH, nestedDeeperThan } from "../envelope.ts"
import { errorReply, isRecord } from "../errors.ts"
import { isRequestId } from "../jsonRpc.ts"
import * as Broadcast from "./broadcast.ts"
import { type Core, type DispatcherState, SESSION_ERROR, SESSION_NOT_FOUND, sessionError } from "./context.ts"
import * as Fleet from "./fleet.ts"
import { getOrDelete, sessionOf } from "./lifecycle.ts"
import { answer, localAnswer, notification } from "./notifications.ts"
import { request } from "./requests.ts"
import * as Resume from "./resume.ts"
import * as Session from "./session.ts"

/** The 2025-11-25 dispatcher of one server. */
export interface Dispatcher {
  /** Answers one message the era classifier routed to the 2025-11-25 wire. */
  readonly handle: (incoming: Incoming) => Effect.Effect<Reply>
  /** Tells every session a registry changed (`notifications/{tools,prompts,resources}/list_changed`). */
  readonly listChanged: (kind: string) => Effect.Effect<void>
  /** Tells the sessions subscribed to `uri` (`notifications/resources/updated`). */
  readonly resourceUpdated: (uri: string) => Effect.Effect<void>
  /** The sessions of this instance. */
  readonly store: Session.Store
  /** Receives what other instances of a fleet route here (the shared directory's messages), for the scope's life. */
  readonly listen: Effect.Effect<void, never, Scope.Scope>
}

/** Builds the legacy dispatcher over `core`. */
export const make = (core: Core): Dispatcher => {
  const directory = core.directory
  const shared = directory.shared
  const store = Session.makeStore(core.limits, directory.instanceId)
  const ttl = core.limits.idleTimeoutMs
  const byConnection = new WeakMap<object, Session.Session>()
  const resumption = Resume.make(store, directory)

  const capabilities: Legacy.ServerCapabilities = {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    completions: {},
    logging: {}
  }

  /** The state of this dispatcher, handed to each of its pieces. */
  const ctx: DispatcherState = { core, directory, shared, store, ttl, byConnection, resumption, capabilities }

  // What the sessions hear at once (`broadcast.ts`).
  const listChanged = (kind: string) => Broadcast.listChanged(ctx, kind)
  const resourceUpdated = (uri: string) => Broadcast.resourceUpdated(ctx, uri)

  const handle = (incoming: Incoming): Effect.Effect<Reply> =>
    Effect.andThen(store.sweep(Date.now()), Effect.suspend(() => dispatch(ctx, incoming)))

  /** Hears the other instances of the fleet (a shared directory), for the current scope. */
  const listen = directory.listen(Fleet.receive(store, resumption.receive))

  return { handle, listChanged, resourceUpdated, store, listen }
}

const idOf = (incoming: Incoming) =>
  isRecord(incoming.message) && isRequestId(incoming.message.id) ? incoming.message.id : undefined

const dispatch = (ctx: DispatcherState, incoming: Incoming): Effect.Effect<Reply> =>
  sessionOf(ctx, incoming).pipe(
    Effect.matchEffect({
      onFailure: (error) => localAnswer(ctx, incoming) ?? Effect.succeed(Fleet.unavailableReply(error, idOf(incoming))),
      onSuccess: (session) =>
        session === "unknown"
          ? Effect.succeed(sessionError(SESSION_NOT_FOUND, "Session not found", 404, idOf(incoming)))
          : session === "full"
          ? Effect.succeed(sessionError(SESSION_ERROR, "Service unavailable: too many sessions", 503, idOf(incoming)))
          : dispatchIn(ctx, incoming, session)
    })
  )

/** The 400 for an `MCP-Protocol-Version` this wire does not speak (absent: the negotiated one is assumed). */
const unsupportedVersion = (incoming: Incoming, id?: RequestId): Reply | undefined => {
  const version = incoming.headers?.("mcp-protocol-version")
  return version === undefined || Legacy.VERSIONS.includes(version)
    ? undefined
    : sessionError(SESSION_ERROR, `Bad Request: Unsupported protocol version: ${version}`, 400, id)
}

const dispatchIn = (
  ctx: DispatcherState,
  incoming: Incoming,
  session: Session.Session | undefined
): Effect.Effect<Reply> => {
  if (session !== undefined) session.lastActive = Date.now()
  if (incoming.httpMethod === "GET" || incoming.httpMethod === "DELETE") {
    if (session === undefined) {
      return Effect.succeed(sessionError(SESSION_ERROR, "Bad Request: Mcp-Session-Id required", 400))
    }
    const refused = unsupportedVersion(incoming)
    return refused === undefined ? getOrDelete(ctx, incoming, session) : Effect.succeed(refused)
  }
  const message = incoming.message
  if (!isRecord(message)) {
    return Effect.succeed(errorReply(undefined, McpError.invalidRequest("A JSON-RPC message must be an object")))
  }
  const id = isRequestId(message.id) ? message.id : undefined
  if (message.jsonrpc !== "2.0") {
    return Effect.succeed(errorReply(id, McpError.invalidRequest("jsonrpc must be \"2.0\"")))
  }
  if (typeof message.method !== "string") return answer(ctx, session, message)
  const refused = message.method === "initialize" ? undefined : unsupportedVersion(incoming, id)
  if (refused !== undefined) return Effect.succeed(refused)
  const params = message.params === undefined ? {} : message.params
  if (!isRecord(params)) return Effect.succeed(errorReply(id, McpError.invalidParams("params must be an object"), 200))
  if (nestedDeeperThan(params, MAX_PARAMS_DEPTH)) {
    return Effect.succeed(
      errorReply(id, McpError.invalidParams(`params are nested more than ${MAX_PARAMS_DEPTH} levels deep`), 200)
    )
  }
  if (!("id" in message)) return notification(ctx, session, message.method, params)
  if (id === undefined) {
    return Effect.succeed(errorReply(undefined, McpError.invalidRequest("id must be a string or an integer")))
  }
  return request(ctx, incoming, session, id, message.method, params)
}
