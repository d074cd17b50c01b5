/**
 * Sampling: `sampling/createMessage` as an input request, its messages,
 * model preferences, tool choice, and `CreateMessageResult`.
 * Source: MCP 2026-07-28, client/sampling (deprecated by SEP-2577, still defined).
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { JsonObject } from "../internal/base.ts"
import { MetaObject, Role, SamplingMessageContentBlock } from "./Content.ts"
import { Method } from "./Methods.ts"
import { Tool } from "./Tool.ts"

/**
 * A message in a sampling conversation:
 * `{ role, content: SamplingMessageContentBlock | SamplingMessageContentBlock[], _meta? }`.
 *
 * MCP 2026-07-28, schema `SamplingMessage`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SamplingMessage = Schema.Struct({
  role: Role,
  content: Schema.Union([SamplingMessageContentBlock, Schema.Array(SamplingMessageContentBlock)]),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `SamplingMessage` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type SamplingMessage = typeof SamplingMessage.Type

/**
 * A model name hint: `{ name? }` (substring match).
 *
 * MCP 2026-07-28, schema `ModelHint`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ModelHint = Schema.Struct({
  name: Schema.optionalKey(Schema.String)
})
/**
 * The decoded (`Type`) side of the `ModelHint` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ModelHint = typeof ModelHint.Type

const Priority = Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 }))

/**
 * Model selection preferences:
 * `{ hints?, costPriority?, speedPriority?, intelligencePriority? }` (priorities in [0, 1]).
 *
 * MCP 2026-07-28, schema `ModelPreferences`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ModelPreferences = Schema.Struct({
  hints: Schema.optionalKey(Schema.Array(ModelHint)),
  costPriority: Schema.optionalKey(Priority),
  speedPriority: Schema.optionalKey(Priority),
  intelligencePriority: Schema.optionalKey(Priority)
})
/**
 * The decoded (`Type`) side of the `ModelPreferences` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ModelPreferences = typeof ModelPreferences.Type

/**
 * Tool choice for sampling: `{ mode?: "auto"|"required"|"none" }`.
 *
 * MCP 2026-07-28, schema `ToolChoice`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolChoice = Schema.Struct({
  mode: Schema.optionalKey(Schema.Literals(["auto", "required", "none"]))
})
/**
 * The decoded (`Type`) side of the `ToolChoice` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ToolChoice = typeof ToolChoice.Type

/**
 * Sampling params:
 * `{ messages, maxTokens: integer, modelPreferences?, systemPrompt?, includeContext?: "none"|"thisServer"|"allServers", temperature?, stopSequences?, metadata?, tools?, toolChoice? }`.
 * `tools`/`toolChoice` need capability `sampling.tools`; `includeContext`
 * other than `"none"` needs `sampling.context`.
 *
 * MCP 2026-07-28, schema `CreateMessageRequestParams`; client/sampling.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CreateMessageRequestParams = Schema.Struct({
  messages: Schema.Array(SamplingMessage),
  modelPreferences: Schema.optionalKey(ModelPreferences),
  systemPrompt: Schema.optionalKey(Schema.String),
  includeContext: Schema.optionalKey(Schema.Literals(["none", "thisServer", "allServers"])),
  temperature: Schema.optionalKey(Schema.Number),
  maxTokens: Schema.Int,
  stopSequences: Schema.optionalKey(Schema.Array(Schema.String)),
  metadata: Schema.optionalKey(JsonObject),
  tools: Schema.optionalKey(Schema.Array(Tool)),
  toolChoice: Schema.optionalKey(ToolChoice)
})
/**
 * The decoded (`Type`) side of the `CreateMessageRequestParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CreateMessageRequestParams = typeof CreateMessageRequestParams.Type

/**
 * A sampling input request: `{ method: "sampling/createMessage", params }`.
 *
 * MCP 2026-07-28, schema `CreateMessageRequest`; basic/patterns/mrtr.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CreateMessageRequest = Schema.Struct({
  method: Schema.Literal(Method.samplingCreateMessage),
  params: CreateMessageRequestParams
})
/**
 * The decoded (`Type`) side of the `CreateMessageRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CreateMessageRequest = typeof CreateMessageRequest.Type

/**
 * The client's sampled message:
 * `{ role, content: SamplingMessageContentBlock | SamplingMessageContentBlock[], model, stopReason?, _meta? }`.
 * Standard `stopReason` values: `endTurn`, `stopSequence`, `maxTokens`,
 * `toolUse` (open string).
 *
 * MCP 2026-07-28, schema `CreateMessageResult`; client/sampling.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CreateMessageResult = Schema.Struct({
  role: Role,
  content: Schema.Union([SamplingMessageContentBlock, Schema.Array(SamplingMessageContentBlock)]),
  model: Schema.String,
  stopReason: Schema.optionalKey(Schema.String),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `CreateMessageResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CreateMessageResult = typeof CreateMessageResult.Type
