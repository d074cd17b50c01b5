/**
 * Effect Schemas for the messages of MCP revision 2026-07-28, including the
 * Multi Round-Trip Requests (MRTR) types.
 *
 * Field names and optionality follow `schema-2026-07-28.json`. Each schema
 * decodes the wire (JSON) form into a typed value and encodes it back; the
 * TypeScript type of every schema is exported under the same name
 * (`export type Tool = typeof Tool.Type`).
 *
 * Conventions:
 *
 * - Every server `Result` has a `resultType` and an optional `_meta`
 *   (`ResultMeta`). Complete results use the literal `"complete"`; decoding a
 *   result without `resultType` (a pre-2026 server) yields `"complete"`, as
 *   the spec requires of clients. Encoding always writes it.
 * - Cacheable results (`DiscoverResult`, the four list results,
 *   `ReadResourceResult`) carry `ttlMs` (integer milliseconds, ≥ 0) and
 *   `cacheScope` (`"public" | "private"`). On decode a missing or negative
 *   `ttlMs` becomes `0` and a missing `cacheScope` becomes `"private"`.
 * - `InputRequiredResult` (`resultType: "input_required"`) may be returned by
 *   `tools/call`, `prompts/get` and `resources/read` only.
 * - Unknown object members are dropped on decode, except inside `_meta`,
 *   tool `arguments`, `inputSchema`/`outputSchema`, `structuredContent` and
 *   other free-form JSON objects, which are kept verbatim.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import { ClientCapabilities, Icon, Implementation, JsonObject, ProgressToken } from "./internal/base.ts"
import { JSONRPC_VERSION, RequestId } from "./JsonRpc.ts"
import { LoggingLevel, NotificationMeta, RequestMeta, ResultMeta } from "./Meta.ts"

export {
  /**
   * Capabilities a client declares per request (see `internal/base.ts`).
   *
   * MCP 2026-07-28, schema `ClientCapabilities`.
   *
   * @since 0.1.0
   */
  ClientCapabilities,
  /**
   * An icon `{ src, mimeType?, sizes?, theme? }`.
   *
   * MCP 2026-07-28, schema `Icon`.
   *
   * @since 0.1.0
   */
  Icon,
  /**
   * `{ name, version, title?, description?, icons?, websiteUrl? }`.
   *
   * MCP 2026-07-28, schema `Implementation`.
   *
   * @since 0.1.0
   */
  Implementation,
  /**
   * A free-form JSON object (`JSONObject` / `MetaObject`).
   *
   * @since 0.1.0
   */
  JsonObject,
  /**
   * `string | integer` token for `notifications/progress`.
   *
   * MCP 2026-07-28, schema `ProgressToken`.
   *
   * @since 0.1.0
   */
  ProgressToken
}

// =============================================================================
// Methods
// =============================================================================

/**
 * Method names of MCP 2026-07-28.
 *
 * MCP 2026-07-28, schema `ClientRequest` / `ServerNotification` / `InputRequest`.
 *
 * @since 0.1.0
 */
export const Method = {
  discover: "server/discover",
  toolsList: "tools/list",
  toolsCall: "tools/call",
  promptsList: "prompts/list",
  promptsGet: "prompts/get",
  resourcesList: "resources/list",
  resourcesTemplatesList: "resources/templates/list",
  resourcesRead: "resources/read",
  completionComplete: "completion/complete",
  subscriptionsListen: "subscriptions/listen",
  elicitationCreate: "elicitation/create",
  samplingCreateMessage: "sampling/createMessage",
  rootsList: "roots/list",
  notificationsCancelled: "notifications/cancelled",
  notificationsProgress: "notifications/progress",
  notificationsMessage: "notifications/message",
  notificationsToolsListChanged: "notifications/tools/list_changed",
  notificationsPromptsListChanged: "notifications/prompts/list_changed",
  notificationsResourcesListChanged: "notifications/resources/list_changed",
  notificationsResourcesUpdated: "notifications/resources/updated",
  notificationsSubscriptionsAcknowledged: "notifications/subscriptions/acknowledged"
} as const

/**
 * The only requests that may be answered with an `InputRequiredResult`.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (supported requests).
 *
 * @since 0.1.0
 */
export const INPUT_REQUIRED_METHODS: ReadonlyArray<string> = [Method.toolsCall, Method.promptsGet, Method.resourcesRead]

/**
 * Requests whose complete results are `CacheableResult`s (`ttlMs`, `cacheScope`).
 *
 * MCP 2026-07-28, schema `CacheableResult` (SEP-2549).
 *
 * @since 0.1.0
 */
export const CACHEABLE_METHODS: ReadonlyArray<string> = [
  Method.discover,
  Method.toolsList,
  Method.promptsList,
  Method.resourcesList,
  Method.resourcesTemplatesList,
  Method.resourcesRead
]

/**
 * Methods of earlier revisions that 2026-07-28 removed; a server answers them
 * with -32601 (HTTP 404).
 *
 * MCP 2026-07-28, changelog / basic/lifecycle (SEP-2575).
 *
 * @since 0.1.0
 */
export const REMOVED_METHODS: ReadonlyArray<string> = [
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
  "notifications/initialized",
  "notifications/roots/list_changed",
  "notifications/elicitation/complete"
]

// =============================================================================
// Results
// =============================================================================

/**
 * `resultType` of a result: `"complete"`, `"input_required"` or an
 * extension-defined string.
 *
 * MCP 2026-07-28, schema `ResultType`.
 *
 * @since 0.1.0
 */
export const ResultType = Schema.String
/**
 * The decoded (`Type`) side of the `ResultType` schema.
 *
 * @since 0.1.0
 */
export type ResultType = typeof ResultType.Type

const CompleteResultType = Schema.Literal("complete").pipe(
  Schema.withDecodingDefaultKey(Effect.succeed("complete" as const))
)

const resultFields = {
  resultType: CompleteResultType,
  _meta: Schema.optionalKey(ResultMeta)
}

/**
 * Any result: `{ resultType, _meta?, ...rest }`. Use it when the method is
 * not known; a missing `resultType` decodes as `"complete"`.
 *
 * MCP 2026-07-28, schema `Result`.
 *
 * @since 0.1.0
 */
export const Result = Schema.StructWithRest(
  Schema.Struct({
    resultType: ResultType.pipe(Schema.withDecodingDefaultKey(Effect.succeed("complete"))),
    _meta: Schema.optionalKey(ResultMeta)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
/**
 * The decoded (`Type`) side of the `Result` schema.
 *
 * @since 0.1.0
 */
export type Result = typeof Result.Type

/**
 * A complete result with no other members: `{ resultType: "complete", _meta? }`.
 *
 * MCP 2026-07-28, schema `EmptyResult`.
 *
 * @since 0.1.0
 */
export const EmptyResult = Schema.Struct(resultFields)
/**
 * The decoded (`Type`) side of the `EmptyResult` schema.
 *
 * @since 0.1.0
 */
export type EmptyResult = typeof EmptyResult.Type

/**
 * Cache scope of a cacheable result, analogous to HTTP `Cache-Control`:
 * `"public"` (no user-specific data, shareable across authorization
 * contexts) or `"private"` (reusable only within the same authorization
 * context).
 *
 * MCP 2026-07-28, schema `CacheableResult.cacheScope` (SEP-2549).
 *
 * @since 0.1.0
 */
export const CacheScope = Schema.Literals(["public", "private"])
/**
 * The decoded (`Type`) side of the `CacheScope` schema.
 *
 * @since 0.1.0
 */
export type CacheScope = typeof CacheScope.Type

/**
 * Cache lifetime in milliseconds: an integer ≥ 0 (`0` = immediately stale).
 *
 * MCP 2026-07-28, schema `CacheableResult.ttlMs` (SEP-2549).
 *
 * @since 0.1.0
 */
export const TtlMs = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
/**
 * The decoded (`Type`) side of the `TtlMs` schema.
 *
 * @since 0.1.0
 */
export type TtlMs = typeof TtlMs.Type

const cacheableFields = {
  ttlMs: Schema.Number.pipe(
    Schema.decodeTo(TtlMs, {
      decode: SchemaGetter.transform((n: number) => (n < 0 ? 0 : n)),
      encode: SchemaGetter.passthrough()
    }),
    Schema.withDecodingDefaultKey(Effect.succeed(0))
  ),
  cacheScope: CacheScope.pipe(Schema.withDecodingDefaultKey(Effect.succeed("private" as const)))
}

// =============================================================================
// Content
// =============================================================================

/**
 * Sender or recipient of a message: `"user"` or `"assistant"`.
 *
 * MCP 2026-07-28, schema `Role`.
 *
 * @since 0.1.0
 */
export const Role = Schema.Literals(["user", "assistant"])
/**
 * The decoded (`Type`) side of the `Role` schema.
 *
 * @since 0.1.0
 */
export type Role = typeof Role.Type

/**
 * Client hints attached to content: `{ audience?: Role[], priority?: number
 * in [0, 1], lastModified?: ISO 8601 string }`.
 *
 * MCP 2026-07-28, schema `Annotations`.
 *
 * @since 0.1.0
 */
export const Annotations = Schema.Struct({
  audience: Schema.optionalKey(Schema.Array(Role)),
  priority: Schema.optionalKey(Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 }))),
  lastModified: Schema.optionalKey(Schema.String)
})
/**
 * The decoded (`Type`) side of the `Annotations` schema.
 *
 * @since 0.1.0
 */
export type Annotations = typeof Annotations.Type

const MetaObject = JsonObject

/**
 * Text content: `{ type: "text", text, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `TextContent`.
 *
 * @since 0.1.0
 */
export const TextContent = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  annotations: Schema.optionalKey(Annotations),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `TextContent` schema.
 *
 * @since 0.1.0
 */
export type TextContent = typeof TextContent.Type

/**
 * Image content: `{ type: "image", data: base64, mimeType, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `ImageContent`.
 *
 * @since 0.1.0
 */
export const ImageContent = Schema.Struct({
  type: Schema.Literal("image"),
  data: Schema.String,
  mimeType: Schema.String,
  annotations: Schema.optionalKey(Annotations),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `ImageContent` schema.
 *
 * @since 0.1.0
 */
export type ImageContent = typeof ImageContent.Type

/**
 * Audio content: `{ type: "audio", data: base64, mimeType, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `AudioContent`.
 *
 * @since 0.1.0
 */
export const AudioContent = Schema.Struct({
  type: Schema.Literal("audio"),
  data: Schema.String,
  mimeType: Schema.String,
  annotations: Schema.optionalKey(Annotations),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `AudioContent` schema.
 *
 * @since 0.1.0
 */
export type AudioContent = typeof AudioContent.Type

const resourceDescriptorFields = {
  uri: Schema.String,
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  mimeType: Schema.optionalKey(Schema.String),
  size: Schema.optionalKey(Schema.Int),
  icons: Schema.optionalKey(Schema.Array(Icon)),
  annotations: Schema.optionalKey(Annotations),
  _meta: Schema.optionalKey(MetaObject)
}

/**
 * A link to a resource the server can read:
 * `{ type: "resource_link", uri, name, title?, description?, mimeType?, size? (bytes), icons?, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `ResourceLink`.
 *
 * @since 0.1.0
 */
export const ResourceLink = Schema.Struct({
  type: Schema.Literal("resource_link"),
  ...resourceDescriptorFields
})
/**
 * The decoded (`Type`) side of the `ResourceLink` schema.
 *
 * @since 0.1.0
 */
export type ResourceLink = typeof ResourceLink.Type

/**
 * Text contents of a resource: `{ uri, text, mimeType?, _meta? }`.
 *
 * MCP 2026-07-28, schema `TextResourceContents`.
 *
 * @since 0.1.0
 */
export const TextResourceContents = Schema.Struct({
  uri: Schema.String,
  mimeType: Schema.optionalKey(Schema.String),
  text: Schema.String,
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `TextResourceContents` schema.
 *
 * @since 0.1.0
 */
export type TextResourceContents = typeof TextResourceContents.Type

/**
 * Binary contents of a resource: `{ uri, blob: base64, mimeType?, _meta? }`.
 *
 * MCP 2026-07-28, schema `BlobResourceContents`.
 *
 * @since 0.1.0
 */
export const BlobResourceContents = Schema.Struct({
  uri: Schema.String,
  mimeType: Schema.optionalKey(Schema.String),
  blob: Schema.String,
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `BlobResourceContents` schema.
 *
 * @since 0.1.0
 */
export type BlobResourceContents = typeof BlobResourceContents.Type

/**
 * Either kind of resource contents (`TextResourceContents | BlobResourceContents`).
 * (The JSON schema's `ResourceContents` is their common base `{ uri, mimeType?, _meta? }`.)
 *
 * MCP 2026-07-28, schema `ReadResourceResult.contents` items.
 *
 * @since 0.1.0
 */
export const ResourceContents = Schema.Union([TextResourceContents, BlobResourceContents])
/**
 * The decoded (`Type`) side of the `ResourceContents` schema.
 *
 * @since 0.1.0
 */
export type ResourceContents = typeof ResourceContents.Type

/**
 * A resource embedded in content: `{ type: "resource", resource, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `EmbeddedResource`.
 *
 * @since 0.1.0
 */
export const EmbeddedResource = Schema.Struct({
  type: Schema.Literal("resource"),
  resource: ResourceContents,
  annotations: Schema.optionalKey(Annotations),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `EmbeddedResource` schema.
 *
 * @since 0.1.0
 */
export type EmbeddedResource = typeof EmbeddedResource.Type

/**
 * Content of tool results and prompt messages, discriminated by `type`:
 * `text`, `image`, `audio`, `resource_link` or `resource`.
 *
 * MCP 2026-07-28, schema `ContentBlock`.
 *
 * @since 0.1.0
 */
export const ContentBlock = Schema.Union([TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource])
/**
 * The decoded (`Type`) side of the `ContentBlock` schema.
 *
 * @since 0.1.0
 */
export type ContentBlock = typeof ContentBlock.Type

/**
 * A tool call requested by a sampled model: `{ type: "tool_use", id, name, input: object, _meta? }`.
 *
 * MCP 2026-07-28, schema `ToolUseContent`; client/sampling (tools).
 *
 * @since 0.1.0
 */
export const ToolUseContent = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: JsonObject,
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `ToolUseContent` schema.
 *
 * @since 0.1.0
 */
export type ToolUseContent = typeof ToolUseContent.Type

/**
 * The result of a tool call fed back into sampling:
 * `{ type: "tool_result", toolUseId, content: ContentBlock[], structuredContent?, isError?, _meta? }`.
 *
 * MCP 2026-07-28, schema `ToolResultContent`; client/sampling (tools).
 *
 * @since 0.1.0
 */
export const ToolResultContent = Schema.Struct({
  type: Schema.Literal("tool_result"),
  toolUseId: Schema.String,
  content: Schema.Array(ContentBlock),
  structuredContent: Schema.optionalKey(Schema.Unknown),
  isError: Schema.optionalKey(Schema.Boolean),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `ToolResultContent` schema.
 *
 * @since 0.1.0
 */
export type ToolResultContent = typeof ToolResultContent.Type

/**
 * Content of a sampling message: text, image, audio, tool use or tool result.
 *
 * MCP 2026-07-28, schema `SamplingMessageContentBlock`.
 *
 * @since 0.1.0
 */
export const SamplingMessageContentBlock = Schema.Union([
  TextContent,
  ImageContent,
  AudioContent,
  ToolUseContent,
  ToolResultContent
])
/**
 * The decoded (`Type`) side of the `SamplingMessageContentBlock` schema.
 *
 * @since 0.1.0
 */
export type SamplingMessageContentBlock = typeof SamplingMessageContentBlock.Type

// =============================================================================
// Tools
// =============================================================================

/**
 * Untrusted hints describing a tool's behaviour:
 * `{ title?, readOnlyHint?, destructiveHint?, idempotentHint?, openWorldHint? }`.
 *
 * MCP 2026-07-28, schema `ToolAnnotations`.
 *
 * @since 0.1.0
 */
export const ToolAnnotations = Schema.Struct({
  title: Schema.optionalKey(Schema.String),
  readOnlyHint: Schema.optionalKey(Schema.Boolean),
  destructiveHint: Schema.optionalKey(Schema.Boolean),
  idempotentHint: Schema.optionalKey(Schema.Boolean),
  openWorldHint: Schema.optionalKey(Schema.Boolean)
})
/**
 * The decoded (`Type`) side of the `ToolAnnotations` schema.
 *
 * @since 0.1.0
 */
export type ToolAnnotations = typeof ToolAnnotations.Type

/**
 * A tool's `inputSchema`: a JSON Schema (2020-12 by default) object whose
 * root `type` is `"object"`. Every other keyword is kept verbatim (including
 * `x-mcp-header` annotations, see `Headers.ts`).
 *
 * MCP 2026-07-28, schema `Tool.inputSchema`; server/tools.
 *
 * @since 0.1.0
 */
export const ToolInputSchema = Schema.StructWithRest(
  Schema.Struct({
    type: Schema.Literal("object"),
    $schema: Schema.optionalKey(Schema.String)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
/**
 * The decoded (`Type`) side of the `ToolInputSchema` schema.
 *
 * @since 0.1.0
 */
export type ToolInputSchema = typeof ToolInputSchema.Type

/**
 * A tool's `outputSchema`: any JSON Schema object, kept verbatim.
 *
 * MCP 2026-07-28, schema `Tool.outputSchema`.
 *
 * @since 0.1.0
 */
export const ToolOutputSchema = Schema.StructWithRest(
  Schema.Struct({
    $schema: Schema.optionalKey(Schema.String)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
/**
 * The decoded (`Type`) side of the `ToolOutputSchema` schema.
 *
 * @since 0.1.0
 */
export type ToolOutputSchema = typeof ToolOutputSchema.Type

/**
 * A tool definition:
 * `{ name, title?, description?, icons?, inputSchema, outputSchema?, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `Tool`; server/tools.
 *
 * @since 0.1.0
 */
export const Tool = Schema.Struct({
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  icons: Schema.optionalKey(Schema.Array(Icon)),
  inputSchema: ToolInputSchema,
  outputSchema: Schema.optionalKey(ToolOutputSchema),
  annotations: Schema.optionalKey(ToolAnnotations),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * The decoded (`Type`) side of the `Tool` schema.
 *
 * @since 0.1.0
 */
export type Tool = typeof Tool.Type

// =============================================================================
// Elicitation (client/elicitation)
// =============================================================================

const titleDescription = {
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String)
}

/**
 * A string field of an elicitation form:
 * `{ type: "string", title?, description?, minLength?, maxLength?, format?: "email"|"uri"|"date"|"date-time", default? }`.
 *
 * MCP 2026-07-28, schema `StringSchema`; client/elicitation.
 *
 * @since 0.1.0
 */
export const StringSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...titleDescription,
  minLength: Schema.optionalKey(Schema.Int),
  maxLength: Schema.optionalKey(Schema.Int),
  format: Schema.optionalKey(Schema.Literals(["email", "uri", "date", "date-time"])),
  default: Schema.optionalKey(Schema.String)
})
/**
 * The decoded (`Type`) side of the `StringSchema` schema.
 *
 * @since 0.1.0
 */
export type StringSchema = typeof StringSchema.Type

/**
 * A numeric field of an elicitation form:
 * `{ type: "number"|"integer", title?, description?, minimum?, maximum?, default? }`.
 *
 * MCP 2026-07-28, schema `NumberSchema`; client/elicitation.
 *
 * @since 0.1.0
 */
export const NumberSchema = Schema.Struct({
  type: Schema.Literals(["number", "integer"]),
  ...titleDescription,
  minimum: Schema.optionalKey(Schema.Number),
  maximum: Schema.optionalKey(Schema.Number),
  default: Schema.optionalKey(Schema.Number)
})
/**
 * The decoded (`Type`) side of the `NumberSchema` schema.
 *
 * @since 0.1.0
 */
export type NumberSchema = typeof NumberSchema.Type

/**
 * A boolean field of an elicitation form: `{ type: "boolean", title?, description?, default? }`.
 *
 * MCP 2026-07-28, schema `BooleanSchema`; client/elicitation.
 *
 * @since 0.1.0
 */
export const BooleanSchema = Schema.Struct({
  type: Schema.Literal("boolean"),
  ...titleDescription,
  default: Schema.optionalKey(Schema.Boolean)
})
/**
 * The decoded (`Type`) side of the `BooleanSchema` schema.
 *
 * @since 0.1.0
 */
export type BooleanSchema = typeof BooleanSchema.Type

/**
 * Single-select enum without display titles:
 * `{ type: "string", enum: string[], title?, description?, default? }`.
 *
 * MCP 2026-07-28, schema `UntitledSingleSelectEnumSchema`.
 *
 * @since 0.1.0
 */
export const UntitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...titleDescription,
  enum: Schema.Array(Schema.String),
  default: Schema.optionalKey(Schema.String)
})
/**
 * The decoded (`Type`) side of the `UntitledSingleSelectEnumSchema` schema.
 *
 * @since 0.1.0
 */
export type UntitledSingleSelectEnumSchema = typeof UntitledSingleSelectEnumSchema.Type

const TitledOption = Schema.Struct({ const: Schema.String, title: Schema.String })

/**
 * Single-select enum with display titles:
 * `{ type: "string", oneOf: { const, title }[], title?, description?, default? }`.
 *
 * MCP 2026-07-28, schema `TitledSingleSelectEnumSchema`.
 *
 * @since 0.1.0
 */
export const TitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...titleDescription,
  oneOf: Schema.Array(TitledOption),
  default: Schema.optionalKey(Schema.String)
})
/**
 * The decoded (`Type`) side of the `TitledSingleSelectEnumSchema` schema.
 *
 * @since 0.1.0
 */
export type TitledSingleSelectEnumSchema = typeof TitledSingleSelectEnumSchema.Type

/**
 * Multi-select enum without display titles:
 * `{ type: "array", items: { type: "string", enum: string[] }, minItems?, maxItems?, title?, description?, default?: string[] }`.
 *
 * MCP 2026-07-28, schema `UntitledMultiSelectEnumSchema`.
 *
 * @since 0.1.0
 */
export const UntitledMultiSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("array"),
  ...titleDescription,
  minItems: Schema.optionalKey(Schema.Int),
  maxItems: Schema.optionalKey(Schema.Int),
  items: Schema.Struct({
    type: Schema.Literal("string"),
    enum: Schema.Array(Schema.String)
  }),
  default: Schema.optionalKey(Schema.Array(Schema.String))
})
/**
 * The decoded (`Type`) side of the `UntitledMultiSelectEnumSchema` schema.
 *
 * @since 0.1.0
 */
export type UntitledMultiSelectEnumSchema = typeof UntitledMultiSelectEnumSchema.Type

/**
 * Multi-select enum with display titles:
 * `{ type: "array", items: { anyOf: { const, title }[] }, minItems?, maxItems?, title?, description?, default?: string[] }`.
 *
 * MCP 2026-07-28, schema `TitledMultiSelectEnumSchema`.
 *
 * @since 0.1.0
 */
export const TitledMultiSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("array"),
  ...titleDescription,
  minItems: Schema.optionalKey(Schema.Int),
  maxItems: Schema.optionalKey(Schema.Int),
  items: Schema.Struct({
    anyOf: Schema.Array(TitledOption)
  }),
  default: Schema.optionalKey(Schema.Array(Schema.String))
})
/**
 * The decoded (`Type`) side of the `TitledMultiSelectEnumSchema` schema.
 *
 * @since 0.1.0
 */
export type TitledMultiSelectEnumSchema = typeof TitledMultiSelectEnumSchema.Type

/**
 * Deprecated titled enum using the non-standard `enumNames`:
 * `{ type: "string", enum: string[], enumNames?: string[], title?, description?, default? }`.
 *
 * MCP 2026-07-28, schema `LegacyTitledEnumSchema`.
 *
 * @since 0.1.0
 */
export const LegacyTitledEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...titleDescription,
  enum: Schema.Array(Schema.String),
  enumNames: Schema.optionalKey(Schema.Array(Schema.String)),
  default: Schema.optionalKey(Schema.String)
})
/**
 * The decoded (`Type`) side of the `LegacyTitledEnumSchema` schema.
 *
 * @since 0.1.0
 */
export type LegacyTitledEnumSchema = typeof LegacyTitledEnumSchema.Type

/**
 * `UntitledSingleSelectEnumSchema | TitledSingleSelectEnumSchema`.
 *
 * MCP 2026-07-28, schema `SingleSelectEnumSchema`.
 *
 * @since 0.1.0
 */
export const SingleSelectEnumSchema = Schema.Union([TitledSingleSelectEnumSchema, UntitledSingleSelectEnumSchema])
/**
 * The decoded (`Type`) side of the `SingleSelectEnumSchema` schema.
 *
 * @since 0.1.0
 */
export type SingleSelectEnumSchema = typeof SingleSelectEnumSchema.Type

/**
 * `UntitledMultiSelectEnumSchema | TitledMultiSelectEnumSchema`.
 *
 * MCP 2026-07-28, schema `MultiSelectEnumSchema`.
 *
 * @since 0.1.0
 */
export const MultiSelectEnumSchema = Schema.Union([TitledMultiSelectEnumSchema, UntitledMultiSelectEnumSchema])
/**
 * The decoded (`Type`) side of the `MultiSelectEnumSchema` schema.
 *
 * @since 0.1.0
 */
export type MultiSelectEnumSchema = typeof MultiSelectEnumSchema.Type

/**
 * Any enum field (single, multi, legacy).
 *
 * MCP 2026-07-28, schema `EnumSchema`.
 *
 * @since 0.1.0
 */
export const EnumSchema = Schema.Union([
  TitledSingleSelectEnumSchema,
  LegacyTitledEnumSchema,
  UntitledSingleSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  UntitledMultiSelectEnumSchema
])
/**
 * The decoded (`Type`) side of the `EnumSchema` schema.
 *
 * @since 0.1.0
 */
export type EnumSchema = typeof EnumSchema.Type

/**
 * A field of an elicitation form (only flat primitive fields are allowed).
 * Decoding tries the enum shapes before `StringSchema` so that `enum` /
 * `oneOf` members are not dropped.
 *
 * MCP 2026-07-28, schema `PrimitiveSchemaDefinition`; client/elicitation.
 *
 * @since 0.1.0
 */
export const PrimitiveSchemaDefinition = Schema.Union([
  TitledSingleSelectEnumSchema,
  LegacyTitledEnumSchema,
  UntitledSingleSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  UntitledMultiSelectEnumSchema,
  StringSchema,
  NumberSchema,
  BooleanSchema
])
/**
 * The decoded (`Type`) side of the `PrimitiveSchemaDefinition` schema.
 *
 * @since 0.1.0
 */
export type PrimitiveSchemaDefinition = typeof PrimitiveSchemaDefinition.Type

/**
 * Form-mode elicitation params:
 * `{ mode?: "form", message, requestedSchema: { $schema?, type: "object", properties: Record<string, PrimitiveSchemaDefinition>, required?: string[] } }`.
 * A missing `mode` means form. Needs client capability `elicitation`.
 *
 * MCP 2026-07-28, schema `ElicitRequestFormParams`; client/elicitation.
 *
 * @since 0.1.0
 */
export const ElicitRequestFormParams = Schema.Struct({
  mode: Schema.optionalKey(Schema.Literal("form")),
  message: Schema.String,
  requestedSchema: Schema.Struct({
    $schema: Schema.optionalKey(Schema.String),
    type: Schema.Literal("object"),
    properties: Schema.Record(Schema.String, PrimitiveSchemaDefinition),
    required: Schema.optionalKey(Schema.Array(Schema.String))
  })
})
/**
 * The decoded (`Type`) side of the `ElicitRequestFormParams` schema.
 *
 * @since 0.1.0
 */
export type ElicitRequestFormParams = typeof ElicitRequestFormParams.Type

/**
 * URL-mode elicitation params: `{ mode: "url", message, url }`. The user is
 * sent to `url` out of band; correlation uses `requestState` (there is no
 * `elicitationId` in 2026-07-28). Needs client capability `elicitation.url`.
 *
 * MCP 2026-07-28, schema `ElicitRequestURLParams`; client/elicitation.
 *
 * @since 0.1.0
 */
export const ElicitRequestURLParams = Schema.Struct({
  mode: Schema.Literal("url"),
  message: Schema.String,
  url: Schema.String
})
/**
 * The decoded (`Type`) side of the `ElicitRequestURLParams` schema.
 *
 * @since 0.1.0
 */
export type ElicitRequestURLParams = typeof ElicitRequestURLParams.Type

/**
 * `ElicitRequestFormParams | ElicitRequestURLParams`.
 *
 * MCP 2026-07-28, schema `ElicitRequestParams`.
 *
 * @since 0.1.0
 */
export const ElicitRequestParams = Schema.Union([ElicitRequestURLParams, ElicitRequestFormParams])
/**
 * The decoded (`Type`) side of the `ElicitRequestParams` schema.
 *
 * @since 0.1.0
 */
export type ElicitRequestParams = typeof ElicitRequestParams.Type

/**
 * An elicitation input request: `{ method: "elicitation/create", params }`
 * (a bare request object inside `InputRequests`, no `jsonrpc` / `id`).
 *
 * MCP 2026-07-28, schema `ElicitRequest`; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export const ElicitRequest = Schema.Struct({
  method: Schema.Literal(Method.elicitationCreate),
  params: ElicitRequestParams
})
/**
 * The decoded (`Type`) side of the `ElicitRequest` schema.
 *
 * @since 0.1.0
 */
export type ElicitRequest = typeof ElicitRequest.Type

/**
 * A value the user entered in an elicitation form: string, number, boolean or
 * string array (multi-select). (The JSON schema says `integer`; fractional
 * numbers from `NumberSchema` fields of type `"number"` are accepted here.)
 *
 * MCP 2026-07-28, schema `ElicitResult.content`.
 *
 * @since 0.1.0
 */
export const ElicitValue = Schema.Union([Schema.String, Schema.Number, Schema.Boolean, Schema.Array(Schema.String)])
/**
 * The decoded (`Type`) side of the `ElicitValue` schema.
 *
 * @since 0.1.0
 */
export type ElicitValue = typeof ElicitValue.Type

/**
 * The client's answer to an elicitation:
 * `{ action: "accept"|"decline"|"cancel", content?: Record<string, ElicitValue> }`.
 * `content` is present only for `accept` in form mode.
 *
 * MCP 2026-07-28, schema `ElicitResult`; client/elicitation.
 *
 * @since 0.1.0
 */
export const ElicitResult = Schema.Struct({
  action: Schema.Literals(["accept", "decline", "cancel"]),
  content: Schema.optionalKey(Schema.Record(Schema.String, ElicitValue))
})
/**
 * The decoded (`Type`) side of the `ElicitResult` schema.
 *
 * @since 0.1.0
 */
export type ElicitResult = typeof ElicitResult.Type

// =============================================================================
// Sampling (client/sampling, deprecated by SEP-2577)
// =============================================================================

/**
 * A message in a sampling conversation:
 * `{ role, content: SamplingMessageContentBlock | SamplingMessageContentBlock[], _meta? }`.
 *
 * MCP 2026-07-28, schema `SamplingMessage`.
 *
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
 * @since 0.1.0
 */
export type SamplingMessage = typeof SamplingMessage.Type

/**
 * A model name hint: `{ name? }` (substring match).
 *
 * MCP 2026-07-28, schema `ModelHint`.
 *
 * @since 0.1.0
 */
export const ModelHint = Schema.Struct({
  name: Schema.optionalKey(Schema.String)
})
/**
 * The decoded (`Type`) side of the `ModelHint` schema.
 *
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
 * @since 0.1.0
 */
export type ModelPreferences = typeof ModelPreferences.Type

/**
 * Tool choice for sampling: `{ mode?: "auto"|"required"|"none" }`.
 *
 * MCP 2026-07-28, schema `ToolChoice`.
 *
 * @since 0.1.0
 */
export const ToolChoice = Schema.Struct({
  mode: Schema.optionalKey(Schema.Literals(["auto", "required", "none"]))
})
/**
 * The decoded (`Type`) side of the `ToolChoice` schema.
 *
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
 * @since 0.1.0
 */
export type CreateMessageRequestParams = typeof CreateMessageRequestParams.Type

/**
 * A sampling input request: `{ method: "sampling/createMessage", params }`.
 *
 * MCP 2026-07-28, schema `CreateMessageRequest`; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export const CreateMessageRequest = Schema.Struct({
  method: Schema.Literal(Method.samplingCreateMessage),
  params: CreateMessageRequestParams
})
/**
 * The decoded (`Type`) side of the `CreateMessageRequest` schema.
 *
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
 * @since 0.1.0
 */
export type CreateMessageResult = typeof CreateMessageResult.Type

// =============================================================================
// Roots (client/roots, deprecated by SEP-2577)
// =============================================================================

/**
 * A root the client exposes: `{ uri (file://), name?, _meta? }`.
 *
 * MCP 2026-07-28, schema `Root`.
 *
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
 * @since 0.1.0
 */
export type Root = typeof Root.Type

/**
 * A roots input request: `{ method: "roots/list", params?: { _meta? } }`.
 *
 * MCP 2026-07-28, schema `ListRootsRequest`; basic/patterns/mrtr.
 *
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
 * @since 0.1.0
 */
export type ListRootsRequest = typeof ListRootsRequest.Type

/**
 * The client's roots: `{ roots: Root[] }`.
 *
 * MCP 2026-07-28, schema `ListRootsResult`.
 *
 * @since 0.1.0
 */
export const ListRootsResult = Schema.Struct({
  roots: Schema.Array(Root)
})
/**
 * The decoded (`Type`) side of the `ListRootsResult` schema.
 *
 * @since 0.1.0
 */
export type ListRootsResult = typeof ListRootsResult.Type

// =============================================================================
// MRTR (basic/patterns/mrtr, SEP-2322)
// =============================================================================

/**
 * One server→client request embedded in an `InputRequiredResult`:
 * `ElicitRequest | CreateMessageRequest | ListRootsRequest` (discriminated by
 * `method`).
 *
 * MCP 2026-07-28, schema `InputRequest`; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export const InputRequest = Schema.Union([ElicitRequest, CreateMessageRequest, ListRootsRequest])
/**
 * The decoded (`Type`) side of the `InputRequest` schema.
 *
 * @since 0.1.0
 */
export type InputRequest = typeof InputRequest.Type

/**
 * Server-chosen key → `InputRequest`. Keys are unique within one request.
 *
 * MCP 2026-07-28, schema `InputRequests`; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export const InputRequests = Schema.Record(Schema.String, InputRequest)
/**
 * The decoded (`Type`) side of the `InputRequests` schema.
 *
 * @since 0.1.0
 */
export type InputRequests = typeof InputRequests.Type

/**
 * The client's answer to one `InputRequest`:
 * `ElicitResult | CreateMessageResult | ListRootsResult`.
 *
 * MCP 2026-07-28, schema `InputResponse`; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export const InputResponse = Schema.Union([ElicitResult, CreateMessageResult, ListRootsResult])
/**
 * The decoded (`Type`) side of the `InputResponse` schema.
 *
 * @since 0.1.0
 */
export type InputResponse = typeof InputResponse.Type

/**
 * Key (from `InputRequests`) → `InputResponse`.
 *
 * MCP 2026-07-28, schema `InputResponses`; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export const InputResponses = Schema.Record(Schema.String, InputResponse)
/**
 * The decoded (`Type`) side of the `InputResponses` schema.
 *
 * @since 0.1.0
 */
export type InputResponses = typeof InputResponses.Type

const inputResponseFields = {
  inputResponses: Schema.optionalKey(InputResponses),
  requestState: Schema.optionalKey(Schema.String)
}

/**
 * The MRTR retry members every retryable request's params may carry:
 * `{ _meta, inputResponses?, requestState? }`. `requestState` must be echoed
 * byte-for-byte from the `InputRequiredResult`, and omitted if there was none.
 *
 * MCP 2026-07-28, schema `InputResponseRequestParams`; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export const InputResponseRequestParams = Schema.Struct({
  _meta: RequestMeta,
  ...inputResponseFields
})
/**
 * The decoded (`Type`) side of the `InputResponseRequestParams` schema.
 *
 * @since 0.1.0
 */
export type InputResponseRequestParams = typeof InputResponseRequestParams.Type

const hasInputRequests = (inputRequests: InputRequests | undefined): boolean =>
  inputRequests !== undefined && Object.keys(inputRequests).length > 0

const INPUT_REQUIRED_MESSAGE =
  "InputRequiredResult must include a non-empty inputRequests or a requestState (at least one of the two)"

/**
 * An interim result asking the client for input before it retries the
 * original request with a new JSON-RPC id:
 * `{ resultType: "input_required", inputRequests?, requestState?, _meta? }`.
 *
 * Decoding and encoding check that at least one of `inputRequests` and
 * `requestState` is present (the spec text requires it; the JSON schema
 * does not). `makeInputRequiredResult` is stricter and also refuses an empty
 * `inputRequests` without `requestState`. Only `tools/call`, `prompts/get`
 * and `resources/read` may return it, and it is never cached.
 *
 * MCP 2026-07-28, schema `InputRequiredResult`; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export const InputRequiredResult = Schema.Struct({
  resultType: Schema.Literal("input_required"),
  inputRequests: Schema.optionalKey(InputRequests),
  requestState: Schema.optionalKey(Schema.String),
  _meta: Schema.optionalKey(ResultMeta)
}).check(
  Schema.makeFilter(
    (r) =>
      r.inputRequests !== undefined || r.requestState !== undefined ?
        undefined :
        "InputRequiredResult must include at least one of inputRequests or requestState",
    { title: "InputRequiredResult.atLeastOne" }
  )
)
/**
 * The decoded (`Type`) side of the `InputRequiredResult` schema.
 *
 * @since 0.1.0
 */
export type InputRequiredResult = typeof InputRequiredResult.Type

/**
 * Arguments of `makeInputRequiredResult`: `inputRequests`, `requestState`, or
 * both (the type rules out passing neither).
 *
 * @since 0.1.0
 */
export type InputRequiredResultFields =
  | {
    readonly inputRequests: InputRequests
    readonly requestState?: string | undefined
    readonly _meta?: ResultMeta | undefined
  }
  | {
    readonly inputRequests?: InputRequests | undefined
    readonly requestState: string
    readonly _meta?: ResultMeta | undefined
  }

/**
 * Builds an `InputRequiredResult` (`resultType: "input_required"`).
 *
 * Throws a `TypeError` when `inputRequests` is empty (or absent) and
 * `requestState` is absent: such a result would ask the client for nothing.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (server requirements).
 *
 * @since 0.1.0
 */
export const makeInputRequiredResult = (fields: InputRequiredResultFields): InputRequiredResult => {
  const { _meta, inputRequests, requestState } = fields
  if (!hasInputRequests(inputRequests) && requestState === undefined) {
    throw new TypeError(INPUT_REQUIRED_MESSAGE)
  }
  // Built in place: spreading conditional parts is slow on a hot path.
  const result: { -readonly [K in keyof InputRequiredResult]: InputRequiredResult[K] } = { resultType: "input_required" }
  if (inputRequests !== undefined) result.inputRequests = inputRequests
  if (requestState !== undefined) result.requestState = requestState
  if (_meta !== undefined) result._meta = _meta
  return result
}

/**
 * True if a decoded result object is an `InputRequiredResult`
 * (`resultType === "input_required"`).
 *
 * @since 0.1.0
 */
export const isInputRequiredResult = (result: { readonly resultType?: string | undefined }): boolean =>
  result.resultType === "input_required"

// =============================================================================
// Common request params
// =============================================================================

/**
 * Params of a request that has no other members: `{ _meta }` (e.g. `server/discover`).
 *
 * MCP 2026-07-28, schema `RequestParams`.
 *
 * @since 0.1.0
 */
export const RequestParams = Schema.Struct({
  _meta: RequestMeta
})
/**
 * The decoded (`Type`) side of the `RequestParams` schema.
 *
 * @since 0.1.0
 */
export type RequestParams = typeof RequestParams.Type

/**
 * Opaque pagination cursor.
 *
 * MCP 2026-07-28, schema `Cursor`; server/utilities/pagination.
 *
 * @since 0.1.0
 */
export const Cursor = Schema.String
/**
 * The decoded (`Type`) side of the `Cursor` schema.
 *
 * @since 0.1.0
 */
export type Cursor = typeof Cursor.Type

/**
 * Params of the list requests: `{ _meta, cursor? }`.
 *
 * MCP 2026-07-28, schema `PaginatedRequestParams`.
 *
 * @since 0.1.0
 */
export const PaginatedRequestParams = Schema.Struct({
  _meta: RequestMeta,
  cursor: Schema.optionalKey(Cursor)
})
/**
 * The decoded (`Type`) side of the `PaginatedRequestParams` schema.
 *
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
 * @since 0.1.0
 */
export type DiscoverResult = typeof DiscoverResult.Type

// =============================================================================
// Tools (server/tools)
// =============================================================================

/**
 * Result of `tools/list` (cacheable): `{ tools, nextCursor?, ttlMs, cacheScope, resultType, _meta? }`.
 *
 * MCP 2026-07-28, schema `ListToolsResult`.
 *
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
 * @since 0.1.0
 */
export type ListToolsResult = typeof ListToolsResult.Type

/**
 * Params of `tools/call`: `{ _meta, name, arguments?, inputResponses?, requestState? }`.
 *
 * MCP 2026-07-28, schema `CallToolRequestParams`; server/tools.
 *
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
 * @since 0.1.0
 */
export type CallToolResult = typeof CallToolResult.Type

/**
 * What `tools/call` may return: `InputRequiredResult | CallToolResult`.
 *
 * MCP 2026-07-28, schema `CallToolResultResponse.result`.
 *
 * @since 0.1.0
 */
export const CallToolResultOrInputRequired = Schema.Union([InputRequiredResult, CallToolResult])
/**
 * The decoded (`Type`) side of the `CallToolResultOrInputRequired` schema.
 *
 * @since 0.1.0
 */
export type CallToolResultOrInputRequired = typeof CallToolResultOrInputRequired.Type

// =============================================================================
// Prompts (server/prompts)
// =============================================================================

/**
 * An argument a prompt accepts: `{ name, title?, description?, required? }`.
 *
 * MCP 2026-07-28, schema `PromptArgument`.
 *
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
 * @since 0.1.0
 */
export type PromptArgument = typeof PromptArgument.Type

/**
 * A prompt template: `{ name, title?, description?, arguments?, icons?, _meta? }`.
 *
 * MCP 2026-07-28, schema `Prompt`.
 *
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
 * @since 0.1.0
 */
export type Prompt = typeof Prompt.Type

/**
 * A message of a prompt: `{ role, content: ContentBlock }`.
 *
 * MCP 2026-07-28, schema `PromptMessage`.
 *
 * @since 0.1.0
 */
export const PromptMessage = Schema.Struct({
  role: Role,
  content: ContentBlock
})
/**
 * The decoded (`Type`) side of the `PromptMessage` schema.
 *
 * @since 0.1.0
 */
export type PromptMessage = typeof PromptMessage.Type

/**
 * Result of `prompts/list` (cacheable): `{ prompts, nextCursor?, ttlMs, cacheScope, resultType, _meta? }`.
 *
 * MCP 2026-07-28, schema `ListPromptsResult`.
 *
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
 * @since 0.1.0
 */
export type ListPromptsResult = typeof ListPromptsResult.Type

/**
 * Params of `prompts/get`: `{ _meta, name, arguments?: Record<string, string>, inputResponses?, requestState? }`.
 *
 * MCP 2026-07-28, schema `GetPromptRequestParams`.
 *
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
 * @since 0.1.0
 */
export type GetPromptRequestParams = typeof GetPromptRequestParams.Type

/**
 * Complete result of `prompts/get`: `{ resultType: "complete", messages, description?, _meta? }`.
 *
 * MCP 2026-07-28, schema `GetPromptResult`.
 *
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
 * @since 0.1.0
 */
export type GetPromptResult = typeof GetPromptResult.Type

/**
 * What `prompts/get` may return: `InputRequiredResult | GetPromptResult`.
 *
 * MCP 2026-07-28, schema `GetPromptResultResponse.result`.
 *
 * @since 0.1.0
 */
export const GetPromptResultOrInputRequired = Schema.Union([InputRequiredResult, GetPromptResult])
/**
 * The decoded (`Type`) side of the `GetPromptResultOrInputRequired` schema.
 *
 * @since 0.1.0
 */
export type GetPromptResultOrInputRequired = typeof GetPromptResultOrInputRequired.Type

// =============================================================================
// Resources (server/resources)
// =============================================================================

/**
 * A resource: `{ uri, name, title?, description?, mimeType?, size? (bytes), icons?, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `Resource`.
 *
 * @since 0.1.0
 */
export const Resource = Schema.Struct(resourceDescriptorFields)
/**
 * The decoded (`Type`) side of the `Resource` schema.
 *
 * @since 0.1.0
 */
export type Resource = typeof Resource.Type

/**
 * A parameterised resource (RFC 6570 URI template):
 * `{ uriTemplate, name, title?, description?, mimeType?, icons?, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `ResourceTemplate`.
 *
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
 * @since 0.1.0
 */
export type ResourceTemplate = typeof ResourceTemplate.Type

/**
 * Result of `resources/list` (cacheable): `{ resources, nextCursor?, ttlMs, cacheScope, resultType, _meta? }`.
 *
 * MCP 2026-07-28, schema `ListResourcesResult`.
 *
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
 * @since 0.1.0
 */
export type ListResourcesResult = typeof ListResourcesResult.Type

/**
 * Result of `resources/templates/list` (cacheable):
 * `{ resourceTemplates, nextCursor?, ttlMs, cacheScope, resultType, _meta? }`.
 *
 * MCP 2026-07-28, schema `ListResourceTemplatesResult`.
 *
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
 * @since 0.1.0
 */
export type ListResourceTemplatesResult = typeof ListResourceTemplatesResult.Type

/**
 * Params of `resources/read`: `{ _meta, uri, inputResponses?, requestState? }`.
 * An unknown resource is answered with -32602 (not -32002).
 *
 * MCP 2026-07-28, schema `ReadResourceRequestParams`.
 *
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
 * @since 0.1.0
 */
export type ReadResourceRequestParams = typeof ReadResourceRequestParams.Type

/**
 * Complete result of `resources/read` (cacheable):
 * `{ contents: (TextResourceContents | BlobResourceContents)[], ttlMs, cacheScope, resultType, _meta? }`.
 *
 * MCP 2026-07-28, schema `ReadResourceResult`.
 *
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
 * @since 0.1.0
 */
export type ReadResourceResult = typeof ReadResourceResult.Type

/**
 * What `resources/read` may return: `InputRequiredResult | ReadResourceResult`.
 *
 * MCP 2026-07-28, schema `ReadResourceResultResponse.result`.
 *
 * @since 0.1.0
 */
export const ReadResourceResultOrInputRequired = Schema.Union([InputRequiredResult, ReadResourceResult])
/**
 * The decoded (`Type`) side of the `ReadResourceResultOrInputRequired` schema.
 *
 * @since 0.1.0
 */
export type ReadResourceResultOrInputRequired = typeof ReadResourceResultOrInputRequired.Type

// =============================================================================
// Completion (server/utilities/completion)
// =============================================================================

/**
 * Reference to a prompt for completion: `{ type: "ref/prompt", name, title? }`.
 *
 * MCP 2026-07-28, schema `PromptReference`.
 *
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
 * @since 0.1.0
 */
export type PromptReference = typeof PromptReference.Type

/**
 * Reference to a resource template for completion: `{ type: "ref/resource", uri }`.
 *
 * MCP 2026-07-28, schema `ResourceTemplateReference`.
 *
 * @since 0.1.0
 */
export const ResourceTemplateReference = Schema.Struct({
  type: Schema.Literal("ref/resource"),
  uri: Schema.String
})
/**
 * The decoded (`Type`) side of the `ResourceTemplateReference` schema.
 *
 * @since 0.1.0
 */
export type ResourceTemplateReference = typeof ResourceTemplateReference.Type

/**
 * Params of `completion/complete`:
 * `{ _meta, ref, argument: { name, value }, context?: { arguments?: Record<string, string> } }`.
 *
 * MCP 2026-07-28, schema `CompleteRequestParams`.
 *
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
 * @since 0.1.0
 */
export type CompleteRequestParams = typeof CompleteRequestParams.Type

/**
 * Result of `completion/complete`:
 * `{ resultType: "complete", completion: { values: string[] (≤ 100), total?: integer, hasMore? }, _meta? }`.
 *
 * MCP 2026-07-28, schema `CompleteResult`.
 *
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
 * @since 0.1.0
 */
export type CompleteResult = typeof CompleteResult.Type

// =============================================================================
// Subscriptions (basic/patterns/subscriptions)
// =============================================================================

/**
 * Notification types a client opts in to on a `subscriptions/listen` stream:
 * `{ toolsListChanged?, promptsListChanged?, resourcesListChanged?, resourceSubscriptions?: string[] (URIs) }`.
 * The server MUST NOT send types that were not requested.
 *
 * MCP 2026-07-28, schema `SubscriptionFilter`.
 *
 * @since 0.1.0
 */
export const SubscriptionFilter = Schema.Struct({
  toolsListChanged: Schema.optionalKey(Schema.Boolean),
  promptsListChanged: Schema.optionalKey(Schema.Boolean),
  resourcesListChanged: Schema.optionalKey(Schema.Boolean),
  resourceSubscriptions: Schema.optionalKey(Schema.Array(Schema.String))
})
/**
 * The decoded (`Type`) side of the `SubscriptionFilter` schema.
 *
 * @since 0.1.0
 */
export type SubscriptionFilter = typeof SubscriptionFilter.Type

/**
 * Params of `subscriptions/listen`: `{ _meta, notifications: SubscriptionFilter }`.
 * The response is a long-lived SSE stream that starts with
 * `notifications/subscriptions/acknowledged`.
 *
 * MCP 2026-07-28, schema `SubscriptionsListenRequestParams`.
 *
 * @since 0.1.0
 */
export const SubscriptionsListenRequestParams = Schema.Struct({
  _meta: RequestMeta,
  notifications: SubscriptionFilter
})
/**
 * The decoded (`Type`) side of the `SubscriptionsListenRequestParams` schema.
 *
 * @since 0.1.0
 */
export type SubscriptionsListenRequestParams = typeof SubscriptionsListenRequestParams.Type

/**
 * `_meta` of a `SubscriptionsListenResult`:
 * `{ "io.modelcontextprotocol/subscriptionId": RequestId (required), "io.modelcontextprotocol/serverInfo"?, ... }`.
 *
 * MCP 2026-07-28, schema `SubscriptionsListenResultMetaObject`.
 *
 * @since 0.1.0
 */
export const SubscriptionsListenResultMeta = Schema.StructWithRest(
  Schema.Struct({
    "io.modelcontextprotocol/subscriptionId": RequestId,
    "io.modelcontextprotocol/serverInfo": Schema.optionalKey(Implementation)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
/**
 * The decoded (`Type`) side of the `SubscriptionsListenResultMeta` schema.
 *
 * @since 0.1.0
 */
export type SubscriptionsListenResultMeta = typeof SubscriptionsListenResultMeta.Type

/**
 * Result of `subscriptions/listen`, sent only when the server ends the
 * subscription gracefully: `{ resultType: "complete", _meta: SubscriptionsListenResultMeta }`.
 *
 * MCP 2026-07-28, schema `SubscriptionsListenResult`.
 *
 * @since 0.1.0
 */
export const SubscriptionsListenResult = Schema.Struct({
  resultType: CompleteResultType,
  _meta: SubscriptionsListenResultMeta
})
/**
 * The decoded (`Type`) side of the `SubscriptionsListenResult` schema.
 *
 * @since 0.1.0
 */
export type SubscriptionsListenResult = typeof SubscriptionsListenResult.Type

// =============================================================================
// Notifications
// =============================================================================

/**
 * Params of a notification with no other members: `{ _meta? }`.
 *
 * MCP 2026-07-28, schema `NotificationParams`.
 *
 * @since 0.1.0
 */
export const NotificationParams = Schema.Struct({
  _meta: Schema.optionalKey(NotificationMeta)
})
/**
 * The decoded (`Type`) side of the `NotificationParams` schema.
 *
 * @since 0.1.0
 */
export type NotificationParams = typeof NotificationParams.Type

/**
 * Params of `notifications/subscriptions/acknowledged`, the first message on a
 * listen stream: `{ notifications: SubscriptionFilter (what the server will send), _meta? }`.
 *
 * MCP 2026-07-28, schema `SubscriptionsAcknowledgedNotificationParams`.
 *
 * @since 0.1.0
 */
export const SubscriptionsAcknowledgedNotificationParams = Schema.Struct({
  notifications: SubscriptionFilter,
  _meta: Schema.optionalKey(NotificationMeta)
})
/**
 * The decoded (`Type`) side of the `SubscriptionsAcknowledgedNotificationParams` schema.
 *
 * @since 0.1.0
 */
export type SubscriptionsAcknowledgedNotificationParams = typeof SubscriptionsAcknowledgedNotificationParams.Type

/**
 * Params of `notifications/message` (deprecated logging, SEP-2577):
 * `{ level: LoggingLevel, logger?, data: unknown (required, any JSON), _meta? }`.
 * Sent only when the request set `io.modelcontextprotocol/logLevel`.
 *
 * MCP 2026-07-28, schema `LoggingMessageNotificationParams`.
 *
 * @since 0.1.0
 */
export const LoggingMessageNotificationParams = Schema.Struct({
  level: LoggingLevel,
  logger: Schema.optionalKey(Schema.String),
  data: Schema.Unknown,
  _meta: Schema.optionalKey(NotificationMeta)
})
/**
 * The decoded (`Type`) side of the `LoggingMessageNotificationParams` schema.
 *
 * @since 0.1.0
 */
export type LoggingMessageNotificationParams = typeof LoggingMessageNotificationParams.Type

/**
 * Params of `notifications/progress`:
 * `{ progressToken, progress: number (increasing), total?, message?, _meta? }`.
 *
 * MCP 2026-07-28, schema `ProgressNotificationParams`; basic/patterns/progress.
 *
 * @since 0.1.0
 */
export const ProgressNotificationParams = Schema.Struct({
  progressToken: ProgressToken,
  progress: Schema.Number,
  total: Schema.optionalKey(Schema.Number),
  message: Schema.optionalKey(Schema.String),
  _meta: Schema.optionalKey(NotificationMeta)
})
/**
 * The decoded (`Type`) side of the `ProgressNotificationParams` schema.
 *
 * @since 0.1.0
 */
export type ProgressNotificationParams = typeof ProgressNotificationParams.Type

/**
 * Params of `notifications/cancelled` (stdio only; on HTTP closing the stream
 * cancels): `{ requestId, reason?, _meta? }`.
 *
 * MCP 2026-07-28, schema `CancelledNotificationParams`; basic/patterns/cancellation.
 *
 * @since 0.1.0
 */
export const CancelledNotificationParams = Schema.Struct({
  requestId: RequestId,
  reason: Schema.optionalKey(Schema.String),
  _meta: Schema.optionalKey(NotificationMeta)
})
/**
 * The decoded (`Type`) side of the `CancelledNotificationParams` schema.
 *
 * @since 0.1.0
 */
export type CancelledNotificationParams = typeof CancelledNotificationParams.Type

/**
 * Params of `notifications/resources/updated`: `{ uri, _meta? }`.
 *
 * MCP 2026-07-28, schema `ResourceUpdatedNotificationParams`.
 *
 * @since 0.1.0
 */
export const ResourceUpdatedNotificationParams = Schema.Struct({
  uri: Schema.String,
  _meta: Schema.optionalKey(NotificationMeta)
})
/**
 * The decoded (`Type`) side of the `ResourceUpdatedNotificationParams` schema.
 *
 * @since 0.1.0
 */
export type ResourceUpdatedNotificationParams = typeof ResourceUpdatedNotificationParams.Type

const jsonrpc = Schema.Literal(JSONRPC_VERSION)

/**
 * `{ jsonrpc: "2.0", method: "notifications/tools/list_changed", params? }`,
 * delivered only on `subscriptions/listen` streams that asked for `toolsListChanged`.
 *
 * MCP 2026-07-28, schema `ToolListChangedNotification`.
 *
 * @since 0.1.0
 */
export const ToolListChangedNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsToolsListChanged),
  params: Schema.optionalKey(NotificationParams)
})
/**
 * The decoded (`Type`) side of the `ToolListChangedNotification` schema.
 *
 * @since 0.1.0
 */
export type ToolListChangedNotification = typeof ToolListChangedNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/prompts/list_changed", params? }`.
 *
 * MCP 2026-07-28, schema `PromptListChangedNotification`.
 *
 * @since 0.1.0
 */
export const PromptListChangedNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsPromptsListChanged),
  params: Schema.optionalKey(NotificationParams)
})
/**
 * The decoded (`Type`) side of the `PromptListChangedNotification` schema.
 *
 * @since 0.1.0
 */
export type PromptListChangedNotification = typeof PromptListChangedNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/resources/list_changed", params? }`.
 *
 * MCP 2026-07-28, schema `ResourceListChangedNotification`.
 *
 * @since 0.1.0
 */
export const ResourceListChangedNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsResourcesListChanged),
  params: Schema.optionalKey(NotificationParams)
})
/**
 * The decoded (`Type`) side of the `ResourceListChangedNotification` schema.
 *
 * @since 0.1.0
 */
export type ResourceListChangedNotification = typeof ResourceListChangedNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri, _meta? } }`.
 *
 * MCP 2026-07-28, schema `ResourceUpdatedNotification`.
 *
 * @since 0.1.0
 */
export const ResourceUpdatedNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsResourcesUpdated),
  params: ResourceUpdatedNotificationParams
})
/**
 * The decoded (`Type`) side of the `ResourceUpdatedNotification` schema.
 *
 * @since 0.1.0
 */
export type ResourceUpdatedNotification = typeof ResourceUpdatedNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params }`.
 *
 * MCP 2026-07-28, schema `SubscriptionsAcknowledgedNotification`.
 *
 * @since 0.1.0
 */
export const SubscriptionsAcknowledgedNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsSubscriptionsAcknowledged),
  params: SubscriptionsAcknowledgedNotificationParams
})
/**
 * The decoded (`Type`) side of the `SubscriptionsAcknowledgedNotification` schema.
 *
 * @since 0.1.0
 */
export type SubscriptionsAcknowledgedNotification = typeof SubscriptionsAcknowledgedNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/message", params }`.
 *
 * MCP 2026-07-28, schema `LoggingMessageNotification`.
 *
 * @since 0.1.0
 */
export const LoggingMessageNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsMessage),
  params: LoggingMessageNotificationParams
})
/**
 * The decoded (`Type`) side of the `LoggingMessageNotification` schema.
 *
 * @since 0.1.0
 */
export type LoggingMessageNotification = typeof LoggingMessageNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/progress", params }`.
 *
 * MCP 2026-07-28, schema `ProgressNotification`.
 *
 * @since 0.1.0
 */
export const ProgressNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsProgress),
  params: ProgressNotificationParams
})
/**
 * The decoded (`Type`) side of the `ProgressNotification` schema.
 *
 * @since 0.1.0
 */
export type ProgressNotification = typeof ProgressNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/cancelled", params }`.
 *
 * MCP 2026-07-28, schema `CancelledNotification`.
 *
 * @since 0.1.0
 */
export const CancelledNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsCancelled),
  params: CancelledNotificationParams
})
/**
 * The decoded (`Type`) side of the `CancelledNotification` schema.
 *
 * @since 0.1.0
 */
export type CancelledNotification = typeof CancelledNotification.Type

/**
 * Any notification a 2026-07-28 server sends.
 *
 * MCP 2026-07-28, schema `ServerNotification`.
 *
 * @since 0.1.0
 */
export const ServerNotification = Schema.Union([
  CancelledNotification,
  ProgressNotification,
  ResourceListChangedNotification,
  SubscriptionsAcknowledgedNotification,
  ResourceUpdatedNotification,
  PromptListChangedNotification,
  ToolListChangedNotification,
  LoggingMessageNotification
])
/**
 * The decoded (`Type`) side of the `ServerNotification` schema.
 *
 * @since 0.1.0
 */
export type ServerNotification = typeof ServerNotification.Type

// =============================================================================
// Client requests (full JSON-RPC envelopes)
// =============================================================================

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
 * @since 0.1.0
 */
export const DiscoverRequest = request(Method.discover, RequestParams)
/**
 * The decoded (`Type`) side of the `DiscoverRequest` schema.
 *
 * @since 0.1.0
 */
export type DiscoverRequest = typeof DiscoverRequest.Type

/**
 * `{ jsonrpc, id, method: "tools/list", params: PaginatedRequestParams }`.
 *
 * MCP 2026-07-28, schema `ListToolsRequest`.
 *
 * @since 0.1.0
 */
export const ListToolsRequest = request(Method.toolsList, PaginatedRequestParams)
/**
 * The decoded (`Type`) side of the `ListToolsRequest` schema.
 *
 * @since 0.1.0
 */
export type ListToolsRequest = typeof ListToolsRequest.Type

/**
 * `{ jsonrpc, id, method: "tools/call", params: CallToolRequestParams }`.
 *
 * MCP 2026-07-28, schema `CallToolRequest`.
 *
 * @since 0.1.0
 */
export const CallToolRequest = request(Method.toolsCall, CallToolRequestParams)
/**
 * The decoded (`Type`) side of the `CallToolRequest` schema.
 *
 * @since 0.1.0
 */
export type CallToolRequest = typeof CallToolRequest.Type

/**
 * `{ jsonrpc, id, method: "prompts/list", params: PaginatedRequestParams }`.
 *
 * MCP 2026-07-28, schema `ListPromptsRequest`.
 *
 * @since 0.1.0
 */
export const ListPromptsRequest = request(Method.promptsList, PaginatedRequestParams)
/**
 * The decoded (`Type`) side of the `ListPromptsRequest` schema.
 *
 * @since 0.1.0
 */
export type ListPromptsRequest = typeof ListPromptsRequest.Type

/**
 * `{ jsonrpc, id, method: "prompts/get", params: GetPromptRequestParams }`.
 *
 * MCP 2026-07-28, schema `GetPromptRequest`.
 *
 * @since 0.1.0
 */
export const GetPromptRequest = request(Method.promptsGet, GetPromptRequestParams)
/**
 * The decoded (`Type`) side of the `GetPromptRequest` schema.
 *
 * @since 0.1.0
 */
export type GetPromptRequest = typeof GetPromptRequest.Type

/**
 * `{ jsonrpc, id, method: "resources/list", params: PaginatedRequestParams }`.
 *
 * MCP 2026-07-28, schema `ListResourcesRequest`.
 *
 * @since 0.1.0
 */
export const ListResourcesRequest = request(Method.resourcesList, PaginatedRequestParams)
/**
 * The decoded (`Type`) side of the `ListResourcesRequest` schema.
 *
 * @since 0.1.0
 */
export type ListResourcesRequest = typeof ListResourcesRequest.Type

/**
 * `{ jsonrpc, id, method: "resources/templates/list", params: PaginatedRequestParams }`.
 *
 * MCP 2026-07-28, schema `ListResourceTemplatesRequest`.
 *
 * @since 0.1.0
 */
export const ListResourceTemplatesRequest = request(Method.resourcesTemplatesList, PaginatedRequestParams)
/**
 * The decoded (`Type`) side of the `ListResourceTemplatesRequest` schema.
 *
 * @since 0.1.0
 */
export type ListResourceTemplatesRequest = typeof ListResourceTemplatesRequest.Type

/**
 * `{ jsonrpc, id, method: "resources/read", params: ReadResourceRequestParams }`.
 *
 * MCP 2026-07-28, schema `ReadResourceRequest`.
 *
 * @since 0.1.0
 */
export const ReadResourceRequest = request(Method.resourcesRead, ReadResourceRequestParams)
/**
 * The decoded (`Type`) side of the `ReadResourceRequest` schema.
 *
 * @since 0.1.0
 */
export type ReadResourceRequest = typeof ReadResourceRequest.Type

/**
 * `{ jsonrpc, id, method: "completion/complete", params: CompleteRequestParams }`.
 *
 * MCP 2026-07-28, schema `CompleteRequest`.
 *
 * @since 0.1.0
 */
export const CompleteRequest = request(Method.completionComplete, CompleteRequestParams)
/**
 * The decoded (`Type`) side of the `CompleteRequest` schema.
 *
 * @since 0.1.0
 */
export type CompleteRequest = typeof CompleteRequest.Type

/**
 * `{ jsonrpc, id, method: "subscriptions/listen", params: SubscriptionsListenRequestParams }`.
 *
 * MCP 2026-07-28, schema `SubscriptionsListenRequest`.
 *
 * @since 0.1.0
 */
export const SubscriptionsListenRequest = request(Method.subscriptionsListen, SubscriptionsListenRequestParams)
/**
 * The decoded (`Type`) side of the `SubscriptionsListenRequest` schema.
 *
 * @since 0.1.0
 */
export type SubscriptionsListenRequest = typeof SubscriptionsListenRequest.Type

/**
 * Any request a 2026-07-28 client sends (discriminated by `method`).
 *
 * MCP 2026-07-28, schema `ClientRequest`.
 *
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
 * @since 0.1.0
 */
export type ClientRequest = typeof ClientRequest.Type
