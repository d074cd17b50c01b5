/**
 * Resources and templates: definitions, `resources/list`,
 * `resources/templates/list`, `resources/read` and their results.
 * Source: MCP 2026-07-28, server/resources.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { Icon } from "../internal/base.ts"
import { RequestMeta } from "../Meta.ts"
import { Annotations, MetaObject, ResourceContents, resourceDescriptorFields } from "./Content.ts"
import { Cursor } from "./Lifecycle.ts"
import { InputRequiredResult, inputResponseFields } from "./Mrtr.ts"
import { cacheableFields, resultFields } from "./Results.ts"

/**
 * A resource: `{ uri, name, title?, description?, mimeType?, size? (bytes), icons?, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `Resource`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Resource = Schema.Struct(resourceDescriptorFields)
/**
 * The decoded (`Type`) side of the `Resource` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type Resource = typeof Resource.Type

/**
 * A parameterised resource (RFC 6570 URI template):
 * `{ uriTemplate, name, title?, description?, mimeType?, icons?, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `ResourceTemplate`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResourceTemplate = Schema.Struct({
  uriTemplate: Schema.String,
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  mimeType: Schema.optionalKey(Schema.String),
  icons: Schema.optionalKey(Schema.Array(Icon)),
  annotations: Schema.optionalKey(Annotations),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `ResourceTemplate` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ResourceTemplate = typeof ResourceTemplate.Type

/**
 * Result of `resources/list` (cacheable): `{ resources, nextCursor?, ttlMs, cacheScope, resultType, _meta? }`.
 *
 * MCP 2026-07-28, schema `ListResourcesResult`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListResourcesResult = Schema.Struct({
  ...resultFields,
  ...cacheableFields,
  resources: Schema.Array(Resource),
  nextCursor: Schema.optionalKey(Cursor)
})
/**
 * The decoded (`Type`) side of the `ListResourcesResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ListResourcesResult = typeof ListResourcesResult.Type

/**
 * Result of `resources/templates/list` (cacheable):
 * `{ resourceTemplates, nextCursor?, ttlMs, cacheScope, resultType, _meta? }`.
 *
 * MCP 2026-07-28, schema `ListResourceTemplatesResult`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListResourceTemplatesResult = Schema.Struct({
  ...resultFields,
  ...cacheableFields,
  resourceTemplates: Schema.Array(ResourceTemplate),
  nextCursor: Schema.optionalKey(Cursor)
})
/**
 * The decoded (`Type`) side of the `ListResourceTemplatesResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ListResourceTemplatesResult = typeof ListResourceTemplatesResult.Type

/**
 * Params of `resources/read`: `{ _meta, uri, inputResponses?, requestState? }`.
 * An unknown resource is answered with -32602 (not -32002).
 *
 * MCP 2026-07-28, schema `ReadResourceRequestParams`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ReadResourceRequestParams = Schema.Struct({
  _meta: RequestMeta,
  uri: Schema.String,
  ...inputResponseFields
})
/**
 * The decoded (`Type`) side of the `ReadResourceRequestParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ReadResourceRequestParams = typeof ReadResourceRequestParams.Type

/**
 * Complete result of `resources/read` (cacheable):
 * `{ contents: (TextResourceContents | BlobResourceContents)[], ttlMs, cacheScope, resultType, _meta? }`.
 *
 * MCP 2026-07-28, schema `ReadResourceResult`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ReadResourceResult = Schema.Struct({
  ...resultFields,
  ...cacheableFields,
  contents: Schema.Array(ResourceContents)
})
/**
 * The decoded (`Type`) side of the `ReadResourceResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ReadResourceResult = typeof ReadResourceResult.Type

/**
 * What `resources/read` may return: `InputRequiredResult | ReadResourceResult`.
 *
 * MCP 2026-07-28, schema `ReadResourceResultResponse.result`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ReadResourceResultOrInputRequired = Schema.Union([InputRequiredResult, ReadResourceResult])
/**
 * The decoded (`Type`) side of the `ReadResourceResultOrInputRequired` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ReadResourceResultOrInputRequired = typeof ReadResourceResultOrInputRequired.Type
