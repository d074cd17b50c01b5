/**
 * Roots: `roots/list` as an input request and `ListRootsResult`.
 * Source: MCP 2026-07-28, client/roots (deprecated by SEP-2577, still defined).
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { MetaObject } from "./Content.ts"
import { Method } from "./Methods.ts"

/**
 * A root the client exposes: `{ uri (file://), name?, _meta? }`.
 *
 * MCP 2026-07-28, schema `Root`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Root = Schema.Struct({
  uri: Schema.String,
  name: Schema.optionalKey(Schema.String),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `Root` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type Root = typeof Root.Type

/**
 * A roots input request: `{ method: "roots/list", params?: { _meta? } }`.
 *
 * MCP 2026-07-28, schema `ListRootsRequest`; basic/patterns/mrtr.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListRootsRequest = Schema.Struct({
  method: Schema.Literal(Method.rootsList),
  params: Schema.optionalKey(Schema.Struct({
    _meta: Schema.optionalKey(MetaObject)
  }))
})
/**
 * The decoded (`Type`) side of the `ListRootsRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ListRootsRequest = typeof ListRootsRequest.Type

/**
 * The client's roots: `{ roots: Root[] }`.
 *
 * MCP 2026-07-28, schema `ListRootsResult`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListRootsResult = Schema.Struct({
  roots: Schema.Array(Root)
})
/**
 * The decoded (`Type`) side of the `ListRootsResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ListRootsResult = typeof ListRootsResult.Type
