/**
 * The 2026-07-28 lifecycle: common request params (`_meta` claims, cursor),
 * `ServerCapabilities` and `server/discover`'s `DiscoverResult`.
 * Gotcha: the 2025-11-25 lifecycle (`initialize`, sessions) is in `legacy/Lifecycle.ts`.
 * Source: MCP 2026-07-28, basic/lifecycle (SEP-2575), basic/versioning.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { JsonObject } from "../internal/base.ts"
import { RequestMeta } from "../Meta.ts"
import { cacheableFields, resultFields } from "./Results.ts"

/**
 * Params of a request that has no other members: `{ _meta }` (e.g. `server/discover`).
 *
 * MCP 2026-07-28, schema `RequestParams`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const RequestParams = Schema.Struct({
  _meta: RequestMeta
})
/**
 * The decoded (`Type`) side of the `RequestParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type RequestParams = typeof RequestParams.Type

/**
 * Opaque pagination cursor.
 *
 * MCP 2026-07-28, schema `Cursor`; server/utilities/pagination.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Cursor = Schema.String
/**
 * The decoded (`Type`) side of the `Cursor` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type Cursor = typeof Cursor.Type

/**
 * Params of the list requests: `{ _meta, cursor? }`.
 *
 * MCP 2026-07-28, schema `PaginatedRequestParams`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PaginatedRequestParams = Schema.Struct({
  _meta: RequestMeta,
  cursor: Schema.optionalKey(Cursor)
})
/**
 * The decoded (`Type`) side of the `PaginatedRequestParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type PaginatedRequestParams = typeof PaginatedRequestParams.Type

// =============================================================================
// server/discover
// =============================================================================

/**
 * Capabilities a server advertises in `DiscoverResult`:
 * `{ experimental?, logging?, completions?, prompts?: { listChanged? }, resources?: { subscribe?, listChanged? }, tools?: { listChanged? }, extensions? }`.
 *
 * MCP 2026-07-28, schema `ServerCapabilities`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ServerCapabilities = Schema.Struct({
  experimental: Schema.optionalKey(Schema.Record(Schema.String, JsonObject)),
  logging: Schema.optionalKey(JsonObject),
  completions: Schema.optionalKey(JsonObject),
  prompts: Schema.optionalKey(Schema.Struct({
    listChanged: Schema.optionalKey(Schema.Boolean)
  })),
  resources: Schema.optionalKey(Schema.Struct({
    subscribe: Schema.optionalKey(Schema.Boolean),
    listChanged: Schema.optionalKey(Schema.Boolean)
  })),
  tools: Schema.optionalKey(Schema.Struct({
    listChanged: Schema.optionalKey(Schema.Boolean)
  })),
  extensions: Schema.optionalKey(Schema.Record(Schema.String, JsonObject))
})
/**
 * The decoded (`Type`) side of the `ServerCapabilities` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ServerCapabilities = typeof ServerCapabilities.Type

/**
 * Result of `server/discover` (a cacheable result):
 * `{ resultType: "complete", supportedVersions: string[], capabilities, instructions?, ttlMs, cacheScope, _meta? }`.
 * The server's `Implementation` goes in `_meta["io.modelcontextprotocol/serverInfo"]`
 * (there is no top-level `serverInfo`).
 *
 * MCP 2026-07-28, schema `DiscoverResult`; basic/lifecycle (SEP-2575).
 *
 * @category schemas
 * @since 0.1.0
 */
export const DiscoverResult = Schema.Struct({
  ...resultFields,
  ...cacheableFields,
  supportedVersions: Schema.Array(Schema.String),
  capabilities: ServerCapabilities,
  instructions: Schema.optionalKey(Schema.String)
})
/**
 * The decoded (`Type`) side of the `DiscoverResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type DiscoverResult = typeof DiscoverResult.Type
