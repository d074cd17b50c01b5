/**
 * Prompts: definitions, `prompts/list`, `prompts/get` and their results.
 * Source: MCP 2026-07-28, server/prompts.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { Icon } from "../internal/base.ts"
import { RequestMeta } from "../Meta.ts"
import { ContentBlock, MetaObject, Role } from "./Content.ts"
import { Cursor } from "./Lifecycle.ts"
import { InputRequiredResult, inputResponseFields } from "./Mrtr.ts"
import { cacheableFields, resultFields } from "./Results.ts"

/**
 * An argument a prompt accepts: `{ name, title?, description?, required? }`.
 *
 * MCP 2026-07-28, schema `PromptArgument`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PromptArgument = Schema.Struct({
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  required: Schema.optionalKey(Schema.Boolean)
})
/**
 * The decoded (`Type`) side of the `PromptArgument` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type PromptArgument = typeof PromptArgument.Type

/**
 * A prompt template: `{ name, title?, description?, arguments?, icons?, _meta? }`.
 *
 * MCP 2026-07-28, schema `Prompt`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Prompt = Schema.Struct({
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  arguments: Schema.optionalKey(Schema.Array(PromptArgument)),
  icons: Schema.optionalKey(Schema.Array(Icon)),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `Prompt` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type Prompt = typeof Prompt.Type

/**
 * A message of a prompt: `{ role, content: ContentBlock }`.
 *
 * MCP 2026-07-28, schema `PromptMessage`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PromptMessage = Schema.Struct({
  role: Role,
  content: ContentBlock
})
/**
 * The decoded (`Type`) side of the `PromptMessage` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type PromptMessage = typeof PromptMessage.Type

/**
 * Result of `prompts/list` (cacheable): `{ prompts, nextCursor?, ttlMs, cacheScope, resultType, _meta? }`.
 *
 * MCP 2026-07-28, schema `ListPromptsResult`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListPromptsResult = Schema.Struct({
  ...resultFields,
  ...cacheableFields,
  prompts: Schema.Array(Prompt),
  nextCursor: Schema.optionalKey(Cursor)
})
/**
 * The decoded (`Type`) side of the `ListPromptsResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ListPromptsResult = typeof ListPromptsResult.Type

/**
 * Params of `prompts/get`: `{ _meta, name, arguments?: Record<string, string>, inputResponses?, requestState? }`.
 *
 * MCP 2026-07-28, schema `GetPromptRequestParams`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const GetPromptRequestParams = Schema.Struct({
  _meta: RequestMeta,
  name: Schema.String,
  arguments: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  ...inputResponseFields
})
/**
 * The decoded (`Type`) side of the `GetPromptRequestParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type GetPromptRequestParams = typeof GetPromptRequestParams.Type

/**
 * Complete result of `prompts/get`: `{ resultType: "complete", messages, description?, _meta? }`.
 *
 * MCP 2026-07-28, schema `GetPromptResult`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const GetPromptResult = Schema.Struct({
  ...resultFields,
  description: Schema.optionalKey(Schema.String),
  messages: Schema.Array(PromptMessage)
})
/**
 * The decoded (`Type`) side of the `GetPromptResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type GetPromptResult = typeof GetPromptResult.Type

/**
 * What `prompts/get` may return: `InputRequiredResult | GetPromptResult`.
 *
 * MCP 2026-07-28, schema `GetPromptResultResponse.result`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const GetPromptResultOrInputRequired = Schema.Union([InputRequiredResult, GetPromptResult])
/**
 * The decoded (`Type`) side of the `GetPromptResultOrInputRequired` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type GetPromptResultOrInputRequired = typeof GetPromptResultOrInputRequired.Type
