/**
 * 2025-11-25 sessions across the instances of a fleet (a shared
 * `SessionDirectory`, e.g. Redis): what the dispatcher does with a session
 * id, a leg's answer, a cancellation or a `Last-Event-ID` that belongs to
 * another instance.
 *
 * - Session ids: every message with an id is looked up in the directory
 *   (which refreshes its idle TTL); an instance that does not hold the
 *   session makes a local replica of the record and serves the message; a
 *   record that is gone (ended elsewhere, expired) ends the replica: 404
 *   -32001, as for a foreign principal's id.
 * - Answers: a leg id is `mrtr.<instance>.<n>`; an answer for a leg of
 *   another instance is sent to it (`Answer`), which resolves the leg only
 *   when it belongs to the same session (forged or unknown ids: ignored);
 *   the client gets 202 either way, also when the owner is gone.
 * - `notifications/cancelled` for a request not running here: to every
 *   instance (`Cancel`).
 * - A resumption GET whose `Last-Event-ID` names a POST stream of another
 *   instance: `resume.ts`.
 * - The directory unavailable: HTTP 503 with JSON-RPC -32603 (retry later),
 *   except an answer POSTed to the instance that holds its leg, which is
 *   settled there (`notifications.ts` `localAnswer`).
 * - The record lost while a request of this instance waits for an answer (a
 *   Redis that lost its keys): the request fails with -32603
 *   `session_lost` within `RECORD_CHECK_MS` (`requests.ts` `sessionLost`).
 * Source: MCP 2025-11-25, basic/transports (session management,
 * resumability and redelivery, multiple connections).
 */
import { ClientAddress } from "@mrtr/core"
import { ErrorCode, McpError } from "@mrtr/protocol/ErrorCode"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import type { LoggingLevel } from "@mrtr/protocol/Meta"
import { Deferred, Effect, Fiber, Metric } from "effect"
import * as Observability from "../../Observability.ts"
import type { Routed, SessionDirectory, SessionDirectoryUnavailable, SessionRecord } from "../../SessionDirectory.ts"
import type { Reply } from "../../Transport.ts"
import { errorReply } from "../errors.ts"
import * as Session from "./session.ts"

type Directory = SessionDirectory["Service"]

/** The shared record of a session. */
export const toRecord = (session: Session.Session): SessionRecord => ({
  id: session.id,
  principal: session.principal,
  protocolVersion: session.protocolVersion,
  clientCapabilities: session.clientCapabilities as Record<string, unknown>,
  clientInfo: session.clientInfo as Record<string, unknown> | undefined,
  initialized: session.initialized,
  logLevel: session.logLevel,
  subscriptions: Array.from(session.subscriptions)
})

/** Takes what may change from `record` into the replica `session`. */
export const apply = (session: Session.Session, record: SessionRecord): void => {
  session.initialized = record.initialized
  session.logLevel = record.logLevel as LoggingLevel | undefined
  session.subscriptions.clear()
  for (const uri of record.subscriptions) session.subscriptions.add(uri)
}

/** The instance a leg id names (`mrtr.<instance>.<n>`); undefined for any other id. */
export const legInstance = (id: unknown): string | undefined => {
  if (typeof id !== "string") return undefined
  const match = /^mrtr\.([0-9a-f]{1,32})\.\d{1,15}$/.exec(id)
  return match?.[1]
}

/** HTTP 503, JSON-RPC -32603: the directory cannot answer now. */
export const unavailableReply = (error: SessionDirectoryUnavailable, id: RequestId | undefined): Reply =>
  errorReply(
    id,
    new McpError({
      code: ErrorCode.InternalError,
      message: error.message,
      data: { reason: "session_directory_unavailable" }
    }),
    503
  )

const SESSION_ID = /^[\x21-\x7e]{1,128}$/

/**
 * The session of `id` for `principal` on a shared directory: the local
 * copy refreshed from the record, or a new replica; "unknown" for a record
 * that does not exist or belongs to another principal; "full" when this
 * instance has no room for one more replica.
 */
export const resolve = (
  store: Session.Store,
  directory: Directory,
  id: string,
  principal: string | undefined
): Effect.Effect<Session.Session | "unknown" | "full", SessionDirectoryUnavailable> =>
  // An id no instance would mint (visible ASCII, at most 128) costs no Redis round trip.
  !SESSION_ID.test(id) ?
    Effect.succeed("unknown" as const) :
    Effect.flatMap(
      directory.lookup(id, store.limits.idleTimeoutMs),
      (record): Effect.Effect<Session.Session | "unknown" | "full"> => {
        const local = store.get(id)
        if (record === undefined) {
          return local === undefined
            ? Effect.succeed("unknown" as const)
            : Effect.as(store.remove(local), "unknown" as const)
        }
        if (record.principal !== principal) return Effect.succeed("unknown" as const)
        if (local !== undefined && !local.ended) {
          apply(local, record)
          return Effect.succeed(local)
        }
        return Effect.flatMap(ClientAddress.currentGroup, (address) =>
          Effect.map(store.makeRoom(Session.shareOf(record.principal, address)), (room) =>
            room
              ? store.create({
                protocolVersion: record.protocolVersion,
                clientCapabilities: record.clientCapabilities,
                clientInfo: record.clientInfo as Session.Session["clientInfo"],
                principal: record.principal,
                address,
                stored: true,
                replica: {
                  id: record.id,
                  initialized: record.initialized,
                  logLevel: record.logLevel as LoggingLevel | undefined,
                  subscriptions: record.subscriptions
                }
              })
              : "full" as const))
      }
    )

/** Settles a leg of `session` held here with a posted answer; unknown ids are ignored. */
export const settleLeg = (
  session: Session.Session,
  id: RequestId,
  message: { readonly result?: unknown; readonly error?: unknown }
) =>
  Effect.suspend(() => {
    const leg = session.legs.get(id)
    if (leg === undefined) return Effect.void
    session.legs.delete(id)
    return Effect.asVoid(
      "error" in message && message.error !== undefined
        ? Deferred.fail(leg, new Session.LegRejected(message.error))
        : Deferred.succeed(leg, message.result)
    )
  })

/** Sends an answer for a leg of another instance to that instance (counted). */
export const forwardAnswer = (
  directory: Directory,
  session: Session.Session,
  owner: string,
  id: string,
  message: Record<string, unknown>
): Effect.Effect<void, SessionDirectoryUnavailable> =>
  Effect.flatMap(
    directory.send(owner, {
      _tag: "Answer",
      session: session.id,
      id,
      ...("error" in message ? { error: message.error } : { result: message.result })
    }),
    (delivered) =>
      Metric.update(
        Metric.withAttributes(Observability.legacyAnswersForwarded, {
          outcome: delivered ? "delivered" : "owner_gone"
        }),
        1
      )
  )

/**
 * What another instance sent: settles a leg, cancels a request, ends or
 * refreshes a replica; what belongs to a resumption goes to `resumption`
 * (`resume.ts`).
 */
export const receive =
  (store: Session.Store, resumption: (message: Routed) => Effect.Effect<void>) =>
  (message: Routed): Effect.Effect<void> =>
    Effect.suspend(() => {
      switch (message._tag) {
        case "Answer": {
          const session = store.get(message.session)
          return session === undefined ? Effect.void : settleLeg(session, message.id, message)
        }
        case "Cancel": {
          const fiber = store.get(message.session)?.inflight.get(message.requestId)
          return fiber === undefined ? Effect.void : Fiber.interrupt(fiber)
        }
        case "Ended": {
          const session = store.get(message.session)
          return session === undefined ? Effect.void : store.remove(session)
        }
        case "Updated": {
          const session = store.get(message.record.id)
          if (session !== undefined && session.principal === message.record.principal) apply(session, message.record)
          return Effect.void
        }
        default:
          return resumption(message)
      }
    })
