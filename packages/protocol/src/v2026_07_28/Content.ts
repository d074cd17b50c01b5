/**
 * Content blocks shared by tools, prompts, resources and sampling: text,
 * image, audio, resource links, embedded resources, tool use and tool result.
 * Source: MCP 2026-07-28, server/tools (content), server/resources, client/sampling.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { Icon, JsonObject } from "../internal/base.ts"

/**
 * Sender or recipient of a message: `"user"` or `"assistant"`.
 *
 * MCP 2026-07-28, schema `Role`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Role = Schema.Literals(["user", "assistant"])
/**
 * The decoded (`Type`) side of the `Role` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type Role = typeof Role.Type

/**
 * Client hints attached to content: `{ audience?: Role[], priority?: number
 * in [0, 1], lastModified?: ISO 8601 string }`.
 *
 * MCP 2026-07-28, schema `Annotations`.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type Annotations = typeof Annotations.Type

/** @internal shared by the other schema modules; not re-exported by `Schema.ts`. */
export const MetaObject = JsonObject

/**
 * Text content: `{ type: "text", text, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `TextContent`.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type TextContent = typeof TextContent.Type

/**
 * Image content: `{ type: "image", data: base64, mimeType, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `ImageContent`.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type ImageContent = typeof ImageContent.Type

/**
 * Audio content: `{ type: "audio", data: base64, mimeType, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `AudioContent`.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type AudioContent = typeof AudioContent.Type

/** @internal shared by the other schema modules; not re-exported by `Schema.ts`. */
export const resourceDescriptorFields = {
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
 * @category schemas
 * @since 0.1.0
 */
export const ResourceLink = Schema.Struct({
  type: Schema.Literal("resource_link"),
  ...resourceDescriptorFields
})
/**
 * The decoded (`Type`) side of the `ResourceLink` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ResourceLink = typeof ResourceLink.Type

/**
 * Text contents of a resource: `{ uri, text, mimeType?, _meta? }`.
 *
 * MCP 2026-07-28, schema `TextResourceContents`.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type TextResourceContents = typeof TextResourceContents.Type

/**
 * Binary contents of a resource: `{ uri, blob: base64, mimeType?, _meta? }`.
 *
 * MCP 2026-07-28, schema `BlobResourceContents`.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type BlobResourceContents = typeof BlobResourceContents.Type

/**
 * Either kind of resource contents (`TextResourceContents | BlobResourceContents`).
 * (The JSON schema's `ResourceContents` is their common base `{ uri, mimeType?, _meta? }`.)
 *
 * MCP 2026-07-28, schema `ReadResourceResult.contents` items.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResourceContents = Schema.Union([TextResourceContents, BlobResourceContents])
/**
 * The decoded (`Type`) side of the `ResourceContents` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ResourceContents = typeof ResourceContents.Type

/**
 * A resource embedded in content: `{ type: "resource", resource, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `EmbeddedResource`.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type EmbeddedResource = typeof EmbeddedResource.Type

/**
 * Content of tool results and prompt messages, discriminated by `type`:
 * `text`, `image`, `audio`, `resource_link` or `resource`.
 *
 * MCP 2026-07-28, schema `ContentBlock`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContentBlock = Schema.Union([TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource])
/**
 * The decoded (`Type`) side of the `ContentBlock` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ContentBlock = typeof ContentBlock.Type

/**
 * A tool call requested by a sampled model: `{ type: "tool_use", id, name, input: object, _meta? }`.
 *
 * MCP 2026-07-28, schema `ToolUseContent`; client/sampling (tools).
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type ToolUseContent = typeof ToolUseContent.Type

/**
 * The result of a tool call fed back into sampling:
 * `{ type: "tool_result", toolUseId, content: ContentBlock[], structuredContent?, isError?, _meta? }`.
 *
 * MCP 2026-07-28, schema `ToolResultContent`; client/sampling (tools).
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type ToolResultContent = typeof ToolResultContent.Type

/**
 * Content of a sampling message: text, image, audio, tool use or tool result.
 *
 * MCP 2026-07-28, schema `SamplingMessageContentBlock`.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type SamplingMessageContentBlock = typeof SamplingMessageContentBlock.Type
