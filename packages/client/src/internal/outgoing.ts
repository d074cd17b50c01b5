/**
 * What both eras write and read outside a request's own exchange: the
 * process-wide JSON-RPC id counter, a message sent without waiting for an
 * answer (`respond`), the answer to a server request no handler serves
 * (`ping` answered, anything else -32601), and the routing of a message
 * that arrived outside any request's stream (`dispatchWith`).
 *
 * Gotchas:
 * - Only the id counter is module-wide, on purpose: ids are unique across
 *   every client of the process (a manual-mode retry made through a fresh
 *   client still gets a new id).
 * - `respond` never fails: a message the server cannot be given is logged
 *   (debug) and dropped.
 *
 * Source: MCP 2026-07-28, basic (JSON-RPC request ids), basic/utilities/ping.
 */
import { ErrorCode } from "@mrtr/protocol/ErrorCode"
import { type RequestId } from "@mrtr/protocol/JsonRpc"
import { Effect } from "effect"
import type { ClientTransport } from "../ClientTransport.ts"

let nextRequestId = 1

/** The next JSON-RPC id of this process. */
export const takeRequestId = (): number => nextRequestId++

/** Whether `u` is a JSON object (not `null`, not an array). */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const isRequestId = (u: unknown): u is RequestId =>
  typeof u === "string" || (typeof u === "number" && Number.isInteger(u))

/** Is this incoming JSON-RPC message a request (a `method` and an `id`)? */
export const isServerRequest = (message: unknown): message is Record<string, unknown> & { readonly id: RequestId } =>
  isRecord(message) && typeof message.method === "string" && "id" in message && isRequestId(message.id)

/** Sends `message` (an answer or a notification) outside any exchange; a failure is logged (debug), never raised. */
export const respond = (
  transport: ClientTransport["Service"],
  message: Parameters<ClientTransport["Service"]["notify"]>[0],
  headers: Readonly<Record<string, string>>
): Effect.Effect<void> =>
  transport.notify(message, headers).pipe(
    Effect.catch((error) => Effect.logDebug("Could not answer the server's request", error.message))
  )

/** Answers a server request no input handler serves: `ping` with `{}`, anything else with -32601. */
export const pingOnly = (
  transport: ClientTransport["Service"],
  request: Record<string, unknown> & { readonly id: RequestId }
): Effect.Effect<void> =>
  respond(
    transport,
    request.method === "ping"
      ? { jsonrpc: "2.0", id: request.id, result: {} }
      : {
        jsonrpc: "2.0",
        id: request.id,
        error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${String(request.method)}` }
      },
    {}
  )

/**
 * Routes a message that arrived outside any request's stream: a
 * notification to `publish`, a request to `serve`; anything else (a stray
 * response, a message without a method) is dropped.
 */
export const dispatchWith = (
  message: unknown,
  publish: (
    notification: { readonly method: string; readonly params?: Readonly<Record<string, unknown>> }
  ) => Effect.Effect<void>,
  serve: (request: Record<string, unknown> & { readonly id: RequestId }) => Effect.Effect<void>
): Effect.Effect<void> => {
  if (!isRecord(message) || typeof message.method !== "string") return Effect.void
  if (isServerRequest(message)) return serve(message)
  if ("id" in message) return Effect.void
  return publish({ method: message.method, ...(isRecord(message.params) ? { params: message.params } : {}) })
}
