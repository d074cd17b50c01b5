/**
 * Server-to-client requests as they travel on the MCP 2025-11-25 wire:
 * `elicitation/create`, `sampling/createMessage` and `roots/list` as real
 * JSON-RPC requests (with an `id`, answered by a JSON-RPC response), where
 * 2026-07-28 carries the same `{ method, params }` inside `inputRequests`.
 *
 * What differs from the 2026-07-28 input requests:
 * - a URL-mode elicitation carries a required `elicitationId` (removed in
 *   2026-07-28, where `requestState` correlates);
 * - each request has its own JSON-RPC `id`; its answer is a JSON-RPC
 *   response whose `result` is the `ElicitResult` / `CreateMessageResult` /
 *   `ListRootsResult`, the same shapes as an `inputResponses` entry.
 * Source: MCP 2025-11-25, client/elicitation, client/sampling, client/roots;
 * schema-2025-11-25.json `ElicitRequest`, `CreateMessageRequest`, `ListRootsRequest`.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { JSONRPC_VERSION, RequestId } from "../JsonRpc.ts"
import { ElicitRequestFormParams } from "../v2026_07_28/Elicitation.ts"
import type { InputRequest } from "../v2026_07_28/Mrtr.ts"
import { ListRootsRequest as ModernListRootsRequest } from "../v2026_07_28/Roots.ts"
import { CreateMessageRequestParams } from "../v2026_07_28/Sampling.ts"

/**
 * URL-mode elicitation params on the legacy wire:
 * `{ mode: "url", message, url, elicitationId }` (all required).
 *
 * Source: schema-2025-11-25.json `ElicitRequestURLParams`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ElicitRequestURLParams = Schema.Struct({
  _meta: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  mode: Schema.Literal("url"),
  message: Schema.String,
  url: Schema.String,
  elicitationId: Schema.String
})
/**
 * The decoded (`Type`) side of the legacy `ElicitRequestURLParams` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type ElicitRequestURLParams = typeof ElicitRequestURLParams.Type

/**
 * `elicitation/create` as a JSON-RPC request (server → client).
 *
 * @category schemas
 * @since 0.2.0
 */
export const ElicitRequest = Schema.Struct({
  jsonrpc: Schema.Literal(JSONRPC_VERSION),
  id: RequestId,
  method: Schema.Literal("elicitation/create"),
  params: Schema.Union([ElicitRequestURLParams, ElicitRequestFormParams])
})
/**
 * The decoded (`Type`) side of the legacy `ElicitRequest` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type ElicitRequest = typeof ElicitRequest.Type

/**
 * `sampling/createMessage` as a JSON-RPC request (server → client).
 *
 * @category schemas
 * @since 0.2.0
 */
export const CreateMessageRequest = Schema.Struct({
  jsonrpc: Schema.Literal(JSONRPC_VERSION),
  id: RequestId,
  method: Schema.Literal("sampling/createMessage"),
  params: CreateMessageRequestParams
})
/**
 * The decoded (`Type`) side of the legacy `CreateMessageRequest` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type CreateMessageRequest = typeof CreateMessageRequest.Type

/**
 * `roots/list` as a JSON-RPC request (server → client).
 *
 * @category schemas
 * @since 0.2.0
 */
export const ListRootsRequest = Schema.Struct({
  jsonrpc: Schema.Literal(JSONRPC_VERSION),
  id: RequestId,
  method: Schema.Literal("roots/list"),
  params: Schema.optionalKey(ModernListRootsRequest.fields.params)
})
/**
 * The decoded (`Type`) side of the legacy `ListRootsRequest` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type ListRootsRequest = typeof ListRootsRequest.Type

/**
 * Any server-to-client request of the legacy wire (besides `ping`).
 *
 * @category schemas
 * @since 0.2.0
 */
export const ServerRequest = Schema.Union([ElicitRequest, CreateMessageRequest, ListRootsRequest])
/**
 * The decoded (`Type`) side of the `ServerRequest` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type ServerRequest = typeof ServerRequest.Type

/**
 * Turns a 2026-07-28 input request into the legacy JSON-RPC request that
 * carries it: adds `jsonrpc` and `id`, and an `elicitationId` to a URL-mode
 * elicitation (the caller's, e.g. a UUID, unique within the server).
 *
 * @category constructors
 * @since 0.2.0
 */
export const fromInputRequest = (
  input: InputRequest,
  id: RequestId,
  elicitationId?: string | undefined
): { readonly jsonrpc: "2.0"; readonly id: RequestId; readonly method: string; readonly params?: unknown } => {
  const params = input.params as Record<string, unknown> | undefined
  if (input.method === "elicitation/create" && params?.mode === "url" && elicitationId !== undefined) {
    return { jsonrpc: JSONRPC_VERSION, id, method: input.method, params: { ...params, elicitationId } }
  }
  return params === undefined
    ? { jsonrpc: JSONRPC_VERSION, id, method: input.method }
    : { jsonrpc: JSONRPC_VERSION, id, method: input.method, params }
}
