/**
 * Client requests as full JSON-RPC envelopes, and their union `ClientRequest`.
 * Source: MCP 2026-07-28, schema `ClientRequest`.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { RequestId } from "../JsonRpc.ts"
import { CompleteRequestParams } from "./Completion.ts"
import { PaginatedRequestParams, RequestParams } from "./Lifecycle.ts"
import { Method } from "./Methods.ts"
import { jsonrpc } from "./Notifications.ts"
import { GetPromptRequestParams } from "./Prompts.ts"
import { ReadResourceRequestParams } from "./Resources.ts"
import { SubscriptionsListenRequestParams } from "./Subscriptions.ts"
import { CallToolRequestParams } from "./Tools.ts"

const request = <M extends string, P extends Schema.Top>(method: M, params: P) =>
  Schema.Struct({
    jsonrpc,
    id: RequestId,
    method: Schema.Literal(method),
    params
  })

/**
 * `{ jsonrpc, id, method: "server/discover", params: { _meta } }`.
 *
 * MCP 2026-07-28, schema `DiscoverRequest`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const DiscoverRequest = request(Method.discover, RequestParams)
/**
 * The decoded (`Type`) side of the `DiscoverRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type DiscoverRequest = typeof DiscoverRequest.Type

/**
 * `{ jsonrpc, id, method: "tools/list", params: PaginatedRequestParams }`.
 *
 * MCP 2026-07-28, schema `ListToolsRequest`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListToolsRequest = request(Method.toolsList, PaginatedRequestParams)
/**
 * The decoded (`Type`) side of the `ListToolsRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ListToolsRequest = typeof ListToolsRequest.Type

/**
 * `{ jsonrpc, id, method: "tools/call", params: CallToolRequestParams }`.
 *
 * MCP 2026-07-28, schema `CallToolRequest`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CallToolRequest = request(Method.toolsCall, CallToolRequestParams)
/**
 * The decoded (`Type`) side of the `CallToolRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CallToolRequest = typeof CallToolRequest.Type

/**
 * `{ jsonrpc, id, method: "prompts/list", params: PaginatedRequestParams }`.
 *
 * MCP 2026-07-28, schema `ListPromptsRequest`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListPromptsRequest = request(Method.promptsList, PaginatedRequestParams)
/**
 * The decoded (`Type`) side of the `ListPromptsRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ListPromptsRequest = typeof ListPromptsRequest.Type

/**
 * `{ jsonrpc, id, method: "prompts/get", params: GetPromptRequestParams }`.
 *
 * MCP 2026-07-28, schema `GetPromptRequest`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const GetPromptRequest = request(Method.promptsGet, GetPromptRequestParams)
/**
 * The decoded (`Type`) side of the `GetPromptRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type GetPromptRequest = typeof GetPromptRequest.Type

/**
 * `{ jsonrpc, id, method: "resources/list", params: PaginatedRequestParams }`.
 *
 * MCP 2026-07-28, schema `ListResourcesRequest`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListResourcesRequest = request(Method.resourcesList, PaginatedRequestParams)
/**
 * The decoded (`Type`) side of the `ListResourcesRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ListResourcesRequest = typeof ListResourcesRequest.Type

/**
 * `{ jsonrpc, id, method: "resources/templates/list", params: PaginatedRequestParams }`.
 *
 * MCP 2026-07-28, schema `ListResourceTemplatesRequest`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListResourceTemplatesRequest = request(Method.resourcesTemplatesList, PaginatedRequestParams)
/**
 * The decoded (`Type`) side of the `ListResourceTemplatesRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ListResourceTemplatesRequest = typeof ListResourceTemplatesRequest.Type

/**
 * `{ jsonrpc, id, method: "resources/read", params: ReadResourceRequestParams }`.
 *
 * MCP 2026-07-28, schema `ReadResourceRequest`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ReadResourceRequest = request(Method.resourcesRead, ReadResourceRequestParams)
/**
 * The decoded (`Type`) side of the `ReadResourceRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ReadResourceRequest = typeof ReadResourceRequest.Type

/**
 * `{ jsonrpc, id, method: "completion/complete", params: CompleteRequestParams }`.
 *
 * MCP 2026-07-28, schema `CompleteRequest`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CompleteRequest = request(Method.completionComplete, CompleteRequestParams)
/**
 * The decoded (`Type`) side of the `CompleteRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CompleteRequest = typeof CompleteRequest.Type

/**
 * `{ jsonrpc, id, method: "subscriptions/listen", params: SubscriptionsListenRequestParams }`.
 *
 * MCP 2026-07-28, schema `SubscriptionsListenRequest`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SubscriptionsListenRequest = request(Method.subscriptionsListen, SubscriptionsListenRequestParams)
/**
 * The decoded (`Type`) side of the `SubscriptionsListenRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type SubscriptionsListenRequest = typeof SubscriptionsListenRequest.Type

/**
 * Any request a 2026-07-28 client sends (discriminated by `method`).
 *
 * MCP 2026-07-28, schema `ClientRequest`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ClientRequest = Schema.Union([
  DiscoverRequest,
  ListResourcesRequest,
  ListResourceTemplatesRequest,
  ReadResourceRequest,
  SubscriptionsListenRequest,
  ListPromptsRequest,
  GetPromptRequest,
  ListToolsRequest,
  CallToolRequest,
  CompleteRequest
])
/**
 * The decoded (`Type`) side of the `ClientRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ClientRequest = typeof ClientRequest.Type
