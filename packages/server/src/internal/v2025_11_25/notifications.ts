/**
 * What a 2025-11-25 client sends that asks for no answer: its notifications
 * (`notifications/initialized`, written to the session's shared record;
 * `notifications/cancelled`, which interrupts the request it names) and its
 * posted responses, the answers to the shim's server-to-client requests
 * (settled here, or sent to the instance that holds the leg: `fleet.ts`).
 * Each is accepted (202, but see below): unknown, late or duplicate ids are
 * ignored, as are the notifications the server does not act on.
 *
 * A posted response must be one: `{ jsonrpc: "2.0", id, result: object }` or
 * `{ jsonrpc: "2.0", id?, error: { code: integer, message: string, data? } }`,
 * never both, and no `method`; anything else is refused with 400 -32600 (the Streamable HTTP
 * transport's "cannot accept the input"), without an id, and the leg it names
 * stays pending (a well-formed answer may still come; else `inputTimeout`).
 *
 * Gotchas: outside any session everything is accepted and nothing happens.
 * A cancellation for a request not running here goes, on a shared
 * directory, to every instance (its reason cut to 256 characters). The
 * directory failing answers 503 -32603 (`notifications/initialized` whose
 * record is gone: 404 -32001), except an answer POSTed to the instance that
 * holds its leg, which is settled without it (`localAnswer`, tried by the
 * dispatcher when the directory cannot be reached).
 * Source: MCP 2025-11-25, basic/lifecycle (initialization),
 * basic/utilities/cancellation, basic/transports (sending messages to the
 * server, multiple connections).
 */
import { McpError } from "@mrtr/protocol/ErrorCode"
import { JsonRpcErrorResponse, JsonRpcSuccess } from "@mrtr/protocol/JsonRpc"
import { Effect, Fiber, Result, Schema } from "effect"
import type { Incoming, Reply } from "../../Transport.ts"
import { errorReply, isRecord } from "../errors.ts"
import { isRequestId } from "../jsonRpc.ts"
import type { DispatcherState } from "./context.ts"
import * as Fleet from "./fleet.ts"
import { shareChange } from "./lifecycle.ts"
import type * as Session from "./session.ts"

export const notification = (
  ctx: DispatcherState,
  session: Session.Session | undefined,
  method: string,
  params: Record<string, unknown>
) =>
  Effect.suspend((): Effect.Effect<Reply> => {
    const accepted: Reply = { _tag: "Accepted" }
    if (session === undefined) return Effect.succeed(accepted)
    if (method === "notifications/initialized" && !session.initialized) {
      session.initialized = true
      return shareChange(ctx, session, { _tag: "Initialized" }, accepted, undefined)
    }
    if (method === "notifications/cancelled" && isRequestId(params.requestId)) {
      const fiber = session.inflight.get(params.requestId)
      if (fiber !== undefined) return Effect.as(Fiber.interrupt(fiber), accepted)
      // Running on another instance, perhaps: every instance hears it, the one running it stops it.
      if (ctx.shared && session.send === undefined) {
        return ctx.directory.broadcast({
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

// The member of the protocol's `JsonRpcResponse` union the message claims to be (it has exactly one of the two keys).
const decodeSuccess = Schema.decodeUnknownResult(JsonRpcSuccess)
const decodeError = Schema.decodeUnknownResult(JsonRpcErrorResponse)

/**
 * Why `message` (no string `method`) is no JSON-RPC response: a `method` of
 * another type, both or neither of `result` and `error`, or a member of the
 * wrong shape (the protocol's `JsonRpcResponse` schema); `undefined` for a
 * response.
 */
const responseProblem = (message: Record<string, unknown>): string | undefined => {
  // Routed here for want of a string `method`: one that is there, of another type, makes it no response.
  if (Object.hasOwn(message, "method")) return "Invalid Request: method must be a string"
  const hasResult = Object.hasOwn(message, "result")
  if (hasResult === Object.hasOwn(message, "error")) {
    return "Invalid Request: a response carries exactly one of result and error"
  }
  const wellFormed = hasResult ? Result.isSuccess(decodeSuccess(message)) : Result.isSuccess(decodeError(message))
  if (wellFormed) return undefined
  if (hasResult) {
    return isRecord(message.result)
      ? "Invalid Request: a response's id must be a string or an integer"
      : "Invalid Request: a response's result must be an object"
  }
  return "Invalid Request: a response's error must be { code: integer, message: string, data? } (and its id, if any, a string or an integer)"
}

/** The 400 for a posted response of the wrong shape (see the module header). */
const refused = (problem: string): Reply => errorReply(undefined, McpError.invalidRequest(problem), 400)

/** A posted response: the answer to one of the shim's server-to-client requests. */
export const answer = (
  { directory, shared }: DispatcherState,
  session: Session.Session | undefined,
  message: Record<string, unknown>
): Effect.Effect<Reply> =>
  Effect.suspend((): Effect.Effect<Reply> => {
    const id = message.id
    const accepted: Reply = { _tag: "Accepted" }
    const problem = responseProblem(message)
    if (problem !== undefined) return Effect.succeed(refused(problem))
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
 * With the directory unreachable, an answer POSTed to the instance that holds its leg is still taken (202): the
 * session is held here for the same principal, and settling the leg needs nothing shared. `undefined` for anything
 * else, which waits for the directory (503).
 */
export const localAnswer = (
  { directory, store }: DispatcherState,
  incoming: Incoming
): Effect.Effect<Reply> | undefined => {
  const message = incoming.message
  if (incoming.httpMethod !== undefined || incoming.connection !== undefined) return undefined
  if (!isRecord(message) || message.jsonrpc !== "2.0" || "method" in message || !isRequestId(message.id)) {
    return undefined
  }
  if (Fleet.legInstance(message.id) !== directory.instanceId) return undefined
  const id = incoming.headers?.("mcp-session-id")
  const session = id === undefined ? undefined : store.get(id)
  if (
    session === undefined || session.ended || session.principal !== incoming.principal || !session.legs.has(message.id)
  ) {
    return undefined
  }
  const problem = responseProblem(message)
  if (problem !== undefined) return Effect.succeed(refused(problem))
  return Effect.as(Fleet.settleLeg(session, message.id, message), { _tag: "Accepted" } as Reply)
}
