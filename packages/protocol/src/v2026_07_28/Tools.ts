/**
 * The `tools/list` and `tools/call` messages (the `Tool` definition is in `Tool.ts`).
 * Source: MCP 2026-07-28, server/tools.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { JsonObject } from "../internal/base.ts"
import { RequestMeta } from "../Meta.ts"
import { ContentBlock } from "./Content.ts"
import { Cursor } from "./Lifecycle.ts"
import { InputRequiredResult, inputResponseFields } from "./Mrtr.ts"
import { cacheableFields, resultFields } from "./Results.ts"
import { Tool } from "./Tool.ts"

/**
 * Result of `tools/list` (cacheable): `{ tools, nextCursor?, ttlMs, cacheScope, resultType, _meta? }`.
 *
 * MCP 2026-07-28, schema `ListToolsResult`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListToolsResult = Schema.Struct({
  ...resultFields,
  ...cacheableFields,
  tools: Schema.Array(Tool),
  nextCursor: Schema.optionalKey(Cursor)
})
/**
 * The decoded (`Type`) side of the `ListToolsResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ListToolsResult = typeof ListToolsResult.Type

/**
 * Params of `tools/call`: `{ _meta, name, arguments?, inputResponses?, requestState? }`.
 *
 * MCP 2026-07-28, schema `CallToolRequestParams`; server/tools.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CallToolRequestParams = Schema.Struct({
  _meta: RequestMeta,
  name: Schema.String,
  arguments: Schema.optionalKey(JsonObject),
  ...inputResponseFields
})
/**
 * The decoded (`Type`) side of the `CallToolRequestParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CallToolRequestParams = typeof CallToolRequestParams.Type

/**
 * Complete result of `tools/call`:
 * `{ resultType: "complete", content: ContentBlock[], structuredContent?, isError?, _meta? }`.
 * Tool execution errors are reported with `isError: true`, not as JSON-RPC errors.
 *
 * MCP 2026-07-28, schema `CallToolResult`; server/tools.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CallToolResult = Schema.Struct({
  ...resultFields,
  content: Schema.Array(ContentBlock),
  structuredContent: Schema.optionalKey(Schema.Unknown),
  isError: Schema.optionalKey(Schema.Boolean)
})
/**
 * The decoded (`Type`) side of the `CallToolResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CallToolResult = typeof CallToolResult.Type

/**
 * What `tools/call` may return: `InputRequiredResult | CallToolResult`.
 *
 * MCP 2026-07-28, schema `CallToolResultResponse.result`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CallToolResultOrInputRequired = Schema.Union([InputRequiredResult, CallToolResult])
/**
 * The decoded (`Type`) side of the `CallToolResultOrInputRequired` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CallToolResultOrInputRequired = typeof CallToolResultOrInputRequired.Type
