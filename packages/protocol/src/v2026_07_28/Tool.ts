/**
 * The `Tool` definition (a `tools/list` entry and the tools a sampling
 * request may offer): name, schemas, annotations. Apart from `Tools.ts` (the
 * methods), because sampling needs it and the methods need MRTR.
 * Source: MCP 2026-07-28, server/tools (Tool); schema `Tool`.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { Icon } from "../internal/base.ts"
import { MetaObject } from "./Content.ts"

/**
 * Untrusted hints describing a tool's behaviour:
 * `{ title?, readOnlyHint?, destructiveHint?, idempotentHint?, openWorldHint? }`.
 *
 * MCP 2026-07-28, schema `ToolAnnotations`.
 *
 * @category schemas
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
 * @category models
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
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type ToolInputSchema = typeof ToolInputSchema.Type

/**
 * A tool's `outputSchema`: any JSON Schema object, kept verbatim.
 *
 * MCP 2026-07-28, schema `Tool.outputSchema`.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type ToolOutputSchema = typeof ToolOutputSchema.Type

/**
 * A tool definition:
 * `{ name, title?, description?, icons?, inputSchema, outputSchema?, annotations?, _meta? }`.
 *
 * MCP 2026-07-28, schema `Tool`; server/tools.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type Tool = typeof Tool.Type
