/**
 * Argument completion: references and `completion/complete`.
 * Source: MCP 2026-07-28, server/utilities/completion.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { RequestMeta } from "../Meta.ts"
import { resultFields } from "./Results.ts"

/**
 * Reference to a prompt for completion: `{ type: "ref/prompt", name, title? }`.
 *
 * MCP 2026-07-28, schema `PromptReference`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PromptReference = Schema.Struct({
  type: Schema.Literal("ref/prompt"),
  name: Schema.String,
  title: Schema.optionalKey(Schema.String)
})
/**
 * The decoded (`Type`) side of the `PromptReference` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type PromptReference = typeof PromptReference.Type

/**
 * Reference to a resource template for completion: `{ type: "ref/resource", uri }`.
 *
 * MCP 2026-07-28, schema `ResourceTemplateReference`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResourceTemplateReference = Schema.Struct({
  type: Schema.Literal("ref/resource"),
  uri: Schema.String
})
/**
 * The decoded (`Type`) side of the `ResourceTemplateReference` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ResourceTemplateReference = typeof ResourceTemplateReference.Type

/**
 * Params of `completion/complete`:
 * `{ _meta, ref, argument: { name, value }, context?: { arguments?: Record<string, string> } }`.
 *
 * MCP 2026-07-28, schema `CompleteRequestParams`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CompleteRequestParams = Schema.Struct({
  _meta: RequestMeta,
  ref: Schema.Union([PromptReference, ResourceTemplateReference]),
  argument: Schema.Struct({
    name: Schema.String,
    value: Schema.String
  }),
  context: Schema.optionalKey(Schema.Struct({
    arguments: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
  }))
})
/**
 * The decoded (`Type`) side of the `CompleteRequestParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CompleteRequestParams = typeof CompleteRequestParams.Type

/**
 * Result of `completion/complete`:
 * `{ resultType: "complete", completion: { values: string[] (≤ 100), total?: integer, hasMore? }, _meta? }`.
 *
 * MCP 2026-07-28, schema `CompleteResult`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CompleteResult = Schema.Struct({
  ...resultFields,
  completion: Schema.Struct({
    values: Schema.Array(Schema.String).check(Schema.isMaxLength(100)),
    total: Schema.optionalKey(Schema.Int),
    hasMore: Schema.optionalKey(Schema.Boolean)
  })
})
/**
 * The decoded (`Type`) side of the `CompleteResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CompleteResult = typeof CompleteResult.Type
