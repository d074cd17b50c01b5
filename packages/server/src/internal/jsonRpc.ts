/**
 * JSON-RPC helpers shared by the dispatcher and the transports: reading an
 * untrusted message's id, and writing an error response without the
 * dispatcher (parse errors, oversized bodies, transport failures).
 * Source: MCP 2026-07-28, basic (JSON-RPC messages); JSON-RPC 2.0 §5.1.
 */
import { ErrorCode } from "@mrtr/protocol/ErrorCode"
import { failure, type RequestId } from "@mrtr/protocol/JsonRpc"

export { ErrorCode }
export type { RequestId }

/** A plain JSON object (not an array, not null). */
export const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** A usable request id: a string, or an integer that survives JSON (|n| < 2^53). */
export const isRequestId = (u: unknown): u is RequestId =>
  typeof u === "string" || (typeof u === "number" && Number.isSafeInteger(u))

/** The `id` of a JSON-RPC request (a message with `method` and `id`). */
export const requestIdOf = (message: unknown): RequestId | undefined =>
  isObject(message) && typeof message["method"] === "string" && isRequestId(message["id"])
    ? message["id"]
    : undefined

/** An error response as JSON text; no `id` member when the id is unknown. */
export const errorJson = (code: number, message: string, id?: RequestId): string =>
  JSON.stringify(failure(id, { code, message }))
