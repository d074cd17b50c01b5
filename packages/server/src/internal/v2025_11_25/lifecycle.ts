/**
 * The lifecycle of a 2025-11-25 session, on the dispatcher's side:
 * `initialize` (version negotiation; a session, on HTTP with its
 * `Mcp-Session-Id` header, on stdio held by the connection, which ends it
 * when it closes), finding the session of a message (`sessionOf`), writing a
 * change of it to the shared directory (`shareChange`, for
 * `notifications/initialized`, `logging/setLevel`, subscriptions), and on HTTP
 * the session's `GET` (its stream, resumable with `Last-Event-ID`) and
 * `DELETE` (its end, fleet-wide).
 *
 * Gotchas: a session id is no credential (another principal's id, or an
 * ended session's: "unknown", which the dispatcher answers 404 -32001).
 * `initialize` answers its errors with HTTP 200 (bad params, declarations
 * past `MAX_DECLARATION_CHARS`), except a foreign `MCP-Protocol-Version`
 * header (400 -32020) and no room for a session (503 -32000); capabilities
 * that do not decode are taken as none. On a shared directory an HTTP
 * session exists once its record is written (a directory that cannot take
 * it: the session is removed again, 503 -32603), and a `DELETE` ends the
 * record before the session here. A second `initialize` in a session is
 * refused by the requests (`requests.ts`).
 * Source: MCP 2025-11-25, basic/lifecycle, basic/transports (session
 * management, listening for messages from the server, resumability and
 * redelivery); `docs/architecture.md` (the 2025-11-25 walk).
 */
import { ClientAddress } from "@mrtr/core"
import { Legacy } from "@mrtr/protocol"
import { McpError } from "@mrtr/protocol/ErrorCode"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import { ClientCapabilities } from "@mrtr/protocol/Schema"
import { Effect, Exit, Schema } from "effect"
import type { SessionDirectory, SessionDirectoryUnavailable } from "../../SessionDirectory.ts"
import type { Incoming, Reply } from "../../Transport.ts"
import { errorReply } from "../errors.ts"
import { type DispatcherState, result, SESSION_ERROR, SESSION_NOT_FOUND, sessionError } from "./context.ts"
import * as Fleet from "./fleet.ts"
import * as Session from "./session.ts"
import { getStream, RETRY_MS } from "./streams.ts"

const decodeCapabilities = Schema.decodeUnknownExit(ClientCapabilities)
const decodeInitialize = Schema.decodeUnknownExit(Legacy.InitializeRequestParams)

/** Most characters of JSON `initialize`'s `capabilities` and `clientInfo` may take (kept for the session's life). */
const MAX_DECLARATION_CHARS = 16_384

export const initialize = (
  { byConnection, capabilities, core, directory, shared, store, ttl }: DispatcherState,
  incoming: Incoming,
  id: RequestId,
  params: unknown
): Effect.Effect<Reply> =>
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
      Effect.flatMap(ClientAddress.currentGroup, (address) =>
        Effect.map(
          connection === undefined
            ? store.makeRoom(Session.shareOf(incoming.principal, address))
            : Effect.succeed(true),
          (room) => ({ room, address })
        )),
      ({ address, room }): Effect.Effect<Reply> => {
        if (!room) return Effect.succeed(sessionError(SESSION_ERROR, "Service unavailable: too many sessions", 503, id))
        const session = store.create({
          protocolVersion: Legacy.negotiate(decoded.value.protocolVersion),
          clientCapabilities: Exit.isSuccess(capabilitiesDeclared) ? capabilitiesDeclared.value : {},
          clientInfo: decoded.value.clientInfo,
          send: connection?.send,
          principal: incoming.principal,
          address,
          stored: true
        })
        if (connection !== undefined) {
          byConnection.set(connection, session)
          connection.onClose(Effect.suspend(() => {
            byConnection.delete(connection)
            return store.remove(session)
          }))
          connection.onInputEnd?.(Session.endInput(session))
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

/**
 * Finds the session of a message: by connection (stdio) or `Mcp-Session-Id`
 * (HTTP; with a shared directory, looked up there: see `fleet.ts`).
 */
export const sessionOf = (
  { byConnection, directory, shared, store }: DispatcherState,
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

/** Writes a change of an HTTP session to the shared directory, then answers `ok` (`full`: past the subscription bound). */
export const shareChange = (
  { directory, shared, ttl }: DispatcherState,
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

/** GET (the session's stream, or a resumption) and DELETE (the end of the session, fleet-wide). */
export const getOrDelete = (
  { directory, resumption, shared, store }: DispatcherState,
  incoming: Incoming,
  session: Session.Session
): Effect.Effect<Reply> => {
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
    Effect.flatMap((elsewhere) =>
      elsewhere === undefined ? getStream(session, lastEventId) : Effect.succeed(elsewhere)
    ),
    Effect.catch((error) => Effect.succeed(Fleet.unavailableReply(error, undefined)))
  )
}
