/**
 * JSON-RPC 2.0 envelopes as used by MCP revision 2026-07-28.
 *
 * Every MCP message on the wire is one of four JSON-RPC shapes: a request
 * (`id` + `method`), a notification (`method`, no `id`), a successful
 * response (`id` + `result`) or an error response (`error`, `id` optional).
 * This module defines Effect Schemas for those envelopes, mirroring
 * `JSONRPCRequest`, `JSONRPCNotification`, `JSONRPCResultResponse`,
 * `JSONRPCErrorResponse` and `JSONRPCMessage` of `schema-2026-07-28.json`,
 * plus two small helpers that build encoded response objects.
 *
 * The envelopes are method-agnostic: `params` and `result` are plain JSON
 * objects. Method-specific payloads live in `Schema.ts`.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"

/**
 * The JSON-RPC version literal, always `"2.0"`.
 *
 * @category constants
 * @since 0.1.0
 */
export const JSONRPC_VERSION = "2.0" as const

/**
 * A JSON-RPC request identifier: a string or an integer.
 *
 * The 2026-07-28 JSON schema (`RequestId`) allows `string | integer`, so
 * fractional numbers are rejected on decode.
 *
 * MCP 2026-07-28, basic (JSON-RPC messages).
 *
 * @category schemas
 * @since 0.1.0
 */
export const RequestId = Schema.Union([Schema.String, Schema.Int])
/**
 * The decoded (`Type`) side of the `RequestId` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type RequestId = typeof RequestId.Type

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

/**
 * A JSON-RPC request: `{ jsonrpc: "2.0", id, method, params? }`.
 *
 * `params`, when present, is a JSON object (MCP never uses positional
 * params). In MCP 2026-07-28 every request carries `params._meta`; that rule
 * is enforced by the method-specific params schemas, not here.
 *
 * MCP 2026-07-28, schema `JSONRPCRequest`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonRpcRequest = Schema.Struct({
  jsonrpc: Schema.Literal(JSONRPC_VERSION),
  id: RequestId,
  method: Schema.String,
  params: Schema.optionalKey(JsonObject)
})
/**
 * The decoded (`Type`) side of the `JsonRpcRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type JsonRpcRequest = typeof JsonRpcRequest.Type

/**
 * A JSON-RPC notification: `{ jsonrpc: "2.0", method, params? }`.
 *
 * An `id` key is rejected so that a malformed request (for example one with a
 * fractional `id`) is never mistaken for a notification.
 *
 * MCP 2026-07-28, schema `JSONRPCNotification`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonRpcNotification = Schema.Struct({
  jsonrpc: Schema.Literal(JSONRPC_VERSION),
  id: Schema.optionalKey(Schema.Never),
  method: Schema.String,
  params: Schema.optionalKey(JsonObject)
})
/**
 * The decoded (`Type`) side of the `JsonRpcNotification` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type JsonRpcNotification = typeof JsonRpcNotification.Type

/**
 * A successful JSON-RPC response: `{ jsonrpc: "2.0", id, result }`.
 *
 * `result` is any JSON object; in MCP 2026-07-28 it is a `Result` and so
 * carries `resultType` (checked by the method-specific result schemas).
 *
 * MCP 2026-07-28, schema `JSONRPCResultResponse`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonRpcSuccess = Schema.Struct({
  jsonrpc: Schema.Literal(JSONRPC_VERSION),
  id: RequestId,
  result: JsonObject
})
/**
 * The decoded (`Type`) side of the `JsonRpcSuccess` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type JsonRpcSuccess = typeof JsonRpcSuccess.Type

/**
 * The `error` member of a JSON-RPC error response: `{ code, message, data? }`.
 * `code` is an integer (see `ErrorCode.ts` for the codes MCP defines).
 *
 * MCP 2026-07-28, schema `Error`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonRpcErrorObject = Schema.Struct({
  code: Schema.Int,
  message: Schema.String,
  data: Schema.optionalKey(Schema.Unknown)
})
/**
 * The decoded (`Type`) side of the `JsonRpcErrorObject` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type JsonRpcErrorObject = typeof JsonRpcErrorObject.Type

/**
 * A JSON-RPC error response: `{ jsonrpc: "2.0", id?, error }`.
 *
 * The 2026-07-28 schema makes `id` optional: it is omitted when the request
 * id could not be determined (parse errors, invalid requests, transport-level
 * rejections). For compatibility with plain JSON-RPC 2.0 peers, an `id: null`
 * is accepted on decode and turned into an absent `id`; encoding never writes
 * `null`.
 *
 * MCP 2026-07-28, schema `JSONRPCErrorResponse`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonRpcErrorResponse = Schema.Struct({
  jsonrpc: Schema.Literal(JSONRPC_VERSION),
  id: Schema.optionalKey(Schema.NullOr(RequestId)).pipe(
    Schema.decodeTo(Schema.optionalKey(RequestId), {
      decode: SchemaGetter.transformOptional(Option.filter((id): id is RequestId => id !== null)),
      encode: SchemaGetter.passthrough()
    })
  ),
  error: JsonRpcErrorObject
})
/**
 * The decoded (`Type`) side of the `JsonRpcErrorResponse` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type JsonRpcErrorResponse = typeof JsonRpcErrorResponse.Type

/**
 * A JSON-RPC response: success or error.
 *
 * MCP 2026-07-28, schema `JSONRPCResponse`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonRpcResponse = Schema.Union([JsonRpcSuccess, JsonRpcErrorResponse])
/**
 * The decoded (`Type`) side of the `JsonRpcResponse` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type JsonRpcResponse = typeof JsonRpcResponse.Type

/**
 * Any JSON-RPC message: request, notification, success or error response.
 * Decoding tries the members in that order.
 *
 * MCP 2026-07-28, schema `JSONRPCMessage`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonRpcMessage = Schema.Union([JsonRpcRequest, JsonRpcNotification, JsonRpcSuccess, JsonRpcErrorResponse])
/**
 * The decoded (`Type`) side of the `JsonRpcMessage` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type JsonRpcMessage = typeof JsonRpcMessage.Type

/**
 * Builds an encoded successful response `{ jsonrpc: "2.0", id, result }`.
 * The result object is included as given (it is expected to be already
 * encoded, e.g. with `Schema.encodeSync(CallToolResult)`).
 *
 * MCP 2026-07-28, schema `JSONRPCResultResponse`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const success = <R extends object>(
  id: RequestId,
  result: R
): { readonly jsonrpc: "2.0"; readonly id: RequestId; readonly result: R } => ({
  jsonrpc: JSONRPC_VERSION,
  id,
  result
})

/**
 * Builds an encoded error response `{ jsonrpc: "2.0", id?, error }`.
 *
 * `id` is omitted when `undefined` (or `null`) is passed, as the 2026-07-28
 * schema requires for errors that cannot be tied to a request. `error` is
 * either a plain `{ code, message, data? }` object or anything with a
 * `toJsonRpc()` method (such as `McpError`).
 *
 * MCP 2026-07-28, schema `JSONRPCErrorResponse`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const failure = (
  id: RequestId | null | undefined,
  error: JsonRpcErrorObject | { readonly toJsonRpc: () => JsonRpcErrorObject }
): JsonRpcErrorResponse => {
  const body: JsonRpcErrorObject = "toJsonRpc" in error ? error.toJsonRpc() : error
  const errorObject: JsonRpcErrorObject = body.data === undefined ?
    { code: body.code, message: body.message } :
    { code: body.code, message: body.message, data: body.data }
  return id === undefined || id === null ?
    { jsonrpc: JSONRPC_VERSION, error: errorObject } :
    { jsonrpc: JSONRPC_VERSION, id, error: errorObject }
}

/**
 * True for a decoded request (a `method` and an `id`).
 *
 * @category guards
 * @since 0.1.0
 */
export const isRequest = (message: JsonRpcMessage): message is JsonRpcRequest =>
  "method" in message && "id" in message && message.id !== undefined

/**
 * True for a decoded notification (a `method` and no `id`).
 *
 * @category guards
 * @since 0.1.0
 */
export const isNotification = (message: JsonRpcMessage): message is JsonRpcNotification =>
  "method" in message && !("id" in message && message.id !== undefined)

/**
 * True for a decoded success or error response.
 *
 * @category guards
 * @since 0.1.0
 */
export const isResponse = (message: JsonRpcMessage): message is JsonRpcResponse => !("method" in message)
