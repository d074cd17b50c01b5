/**
 * Elicitation: the restricted JSON Schema of a form (flat primitives,
 * the five enum shapes), form and URL-mode params, `elicitation/create` as
 * an input request, and `ElicitResult`.
 * Gotcha: in 2026-07-28 a URL elicitation has no `elicitationId` (the
 * 2025-11-25 one, in `legacy/ServerRequests.ts`, does).
 * Source: MCP 2026-07-28, client/elicitation.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { Method } from "./Methods.ts"

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
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type StringSchema = typeof StringSchema.Type

/**
 * A numeric field of an elicitation form:
 * `{ type: "number"|"integer", title?, description?, minimum?, maximum?, default? }`.
 *
 * MCP 2026-07-28, schema `NumberSchema`; client/elicitation.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type NumberSchema = typeof NumberSchema.Type

/**
 * A boolean field of an elicitation form: `{ type: "boolean", title?, description?, default? }`.
 *
 * MCP 2026-07-28, schema `BooleanSchema`; client/elicitation.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type BooleanSchema = typeof BooleanSchema.Type

/**
 * Single-select enum without display titles:
 * `{ type: "string", enum: string[], title?, description?, default? }`.
 *
 * MCP 2026-07-28, schema `UntitledSingleSelectEnumSchema`.
 *
 * @category schemas
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
 * @category models
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
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type TitledSingleSelectEnumSchema = typeof TitledSingleSelectEnumSchema.Type

/**
 * Multi-select enum without display titles:
 * `{ type: "array", items: { type: "string", enum: string[] }, minItems?, maxItems?, title?, description?, default?: string[] }`.
 *
 * MCP 2026-07-28, schema `UntitledMultiSelectEnumSchema`.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type UntitledMultiSelectEnumSchema = typeof UntitledMultiSelectEnumSchema.Type

/**
 * Multi-select enum with display titles:
 * `{ type: "array", items: { anyOf: { const, title }[] }, minItems?, maxItems?, title?, description?, default?: string[] }`.
 *
 * MCP 2026-07-28, schema `TitledMultiSelectEnumSchema`.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type TitledMultiSelectEnumSchema = typeof TitledMultiSelectEnumSchema.Type

/**
 * Deprecated titled enum using the non-standard `enumNames`:
 * `{ type: "string", enum: string[], enumNames?: string[], title?, description?, default? }`.
 *
 * MCP 2026-07-28, schema `LegacyTitledEnumSchema`.
 *
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type LegacyTitledEnumSchema = typeof LegacyTitledEnumSchema.Type

/**
 * `UntitledSingleSelectEnumSchema | TitledSingleSelectEnumSchema`.
 *
 * MCP 2026-07-28, schema `SingleSelectEnumSchema`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SingleSelectEnumSchema = Schema.Union([TitledSingleSelectEnumSchema, UntitledSingleSelectEnumSchema])
/**
 * The decoded (`Type`) side of the `SingleSelectEnumSchema` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type SingleSelectEnumSchema = typeof SingleSelectEnumSchema.Type

/**
 * `UntitledMultiSelectEnumSchema | TitledMultiSelectEnumSchema`.
 *
 * MCP 2026-07-28, schema `MultiSelectEnumSchema`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const MultiSelectEnumSchema = Schema.Union([TitledMultiSelectEnumSchema, UntitledMultiSelectEnumSchema])
/**
 * The decoded (`Type`) side of the `MultiSelectEnumSchema` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type MultiSelectEnumSchema = typeof MultiSelectEnumSchema.Type

/**
 * Any enum field (single, multi, legacy).
 *
 * MCP 2026-07-28, schema `EnumSchema`.
 *
 * @category schemas
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
 * @category models
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
 * @category schemas
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
 * @category models
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
 * @category schemas
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
 * @category models
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
 * @category schemas
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
 * @category models
 * @since 0.1.0
 */
export type ElicitRequestURLParams = typeof ElicitRequestURLParams.Type

/**
 * `ElicitRequestFormParams | ElicitRequestURLParams`.
 *
 * MCP 2026-07-28, schema `ElicitRequestParams`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ElicitRequestParams = Schema.Union([ElicitRequestURLParams, ElicitRequestFormParams])
/**
 * The decoded (`Type`) side of the `ElicitRequestParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ElicitRequestParams = typeof ElicitRequestParams.Type

/**
 * An elicitation input request: `{ method: "elicitation/create", params }`
 * (a bare request object inside `InputRequests`, no `jsonrpc` / `id`).
 *
 * MCP 2026-07-28, schema `ElicitRequest`; basic/patterns/mrtr.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ElicitRequest = Schema.Struct({
  method: Schema.Literal(Method.elicitationCreate),
  params: ElicitRequestParams
})
/**
 * The decoded (`Type`) side of the `ElicitRequest` schema.
 *
 * @category models
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
 * @category schemas
 * @since 0.1.0
 */
export const ElicitValue = Schema.Union([Schema.String, Schema.Number, Schema.Boolean, Schema.Array(Schema.String)])
/**
 * The decoded (`Type`) side of the `ElicitValue` schema.
 *
 * @category models
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
 * @category schemas
 * @since 0.1.0
 */
export const ElicitResult = Schema.Struct({
  action: Schema.Literals(["accept", "decline", "cancel"]),
  content: Schema.optionalKey(Schema.Record(Schema.String, ElicitValue))
})
/**
 * The decoded (`Type`) side of the `ElicitResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ElicitResult = typeof ElicitResult.Type
