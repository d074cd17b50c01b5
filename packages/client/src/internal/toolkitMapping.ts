/**
 * The field mappings behind `McpToolkit`: an MCP tool definition to an
 * `effect/ai` dynamic tool (name, description, JSON Schema parameters,
 * annotations), a `CallToolResult` to what the model sees (`toModelOutput`),
 * and the check of `structuredContent` against the tool's `outputSchema`.
 *
 * Gotchas: model tool names are limited to `[a-zA-Z0-9_-]{1,64}` by most
 * providers, while MCP names may hold `.` and `/`: those characters become
 * `_`, and a name that still collides is skipped by the caller. The
 * `outputSchema` is the server's: compiled with `strict: false` (unknown
 * keywords are ignored, `$schema` dropped) and its compile failure is
 * reported as a failed check, never thrown.
 *
 * Source: MCP 2026-07-28, server/tools (tool definition, annotations,
 * structured content, output schema).
 */
import type { ContentBlock, Tool as McpTool, ToolAnnotations } from "@mrtr/protocol/Schema"
import { Ajv2020 } from "ajv/dist/2020.js"
import type { Schema } from "effect"
import { Context, JsonSchema, SchemaRepresentation } from "effect"
import { OpenAiStructuredOutput, Prompt, Tool } from "effect/ai"

const MODEL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** The model's name for a server tool: `prefix + name`, characters outside `[a-zA-Z0-9_-]` as `_`; `undefined` when too long or empty. */
export const modelName = (prefix: string, name: string): string | undefined => {
  const candidate = `${prefix}${name}`.replace(/[^a-zA-Z0-9_-]/g, "_")
  return MODEL_NAME.test(candidate) ? candidate : undefined
}

/**
 * Carries the MCP `title` and `annotations` hints to `effect/ai`'s tool annotations (only those the server set).
 * `strict`: whether the provider may hold the model to the parameters' schema (only for an imported schema, which
 * the provider rewrites to its strict subset).
 */
export const annotate = <T extends Tool.Any>(tool: T, definition: McpTool, strict: boolean): T => {
  const hints: ToolAnnotations = definition.annotations ?? {}
  let annotated: Tool.Any = strict ? tool : tool.annotate(Tool.Strict, false)
  const title = definition.title ?? hints.title
  if (title !== undefined) annotated = annotated.annotate(Tool.Title, title)
  if (hints.readOnlyHint !== undefined) annotated = annotated.annotate(Tool.Readonly, hints.readOnlyHint)
  if (hints.destructiveHint !== undefined) annotated = annotated.annotate(Tool.Destructive, hints.destructiveHint)
  if (hints.idempotentHint !== undefined) annotated = annotated.annotate(Tool.Idempotent, hints.idempotentHint)
  if (hints.openWorldHint !== undefined) annotated = annotated.annotate(Tool.OpenWorld, hints.openWorldHint)
  if (definition._meta !== undefined) {
    annotated = annotated.annotate(Tool.Meta, definition._meta as Record<string, unknown>)
  }
  return annotated as T
}

/** The MCP `ToolAnnotations` of an `effect/ai` tool: every hint (their defaults agree), the title when set. */
export const annotationsOf = (tool: Tool.Any): ToolAnnotations => {
  const title = Context.getOption(tool.annotations, Tool.Title)
  return {
    ...(title._tag === "Some" ? { title: title.value } : {}),
    readOnlyHint: Context.get(tool.annotations, Tool.Readonly),
    destructiveHint: Context.get(tool.annotations, Tool.Destructive),
    idempotentHint: Context.get(tool.annotations, Tool.Idempotent),
    openWorldHint: Context.get(tool.annotations, Tool.OpenWorld)
  }
}

const resourceText = (uri: string, mimeType: string | undefined, text: string): string =>
  `Resource ${uri}${mimeType === undefined ? "" : ` (${mimeType})`}:\n${text}`

const fileNameOf = (uri: string): string => {
  const last = uri.split(/[/\\]/).filter((s) => s.length > 0).pop()
  return last === undefined || last.length === 0 ? uri : last
}

/** One content block as the model sees it: text as text, images, audio and blobs as files, resources and links described. */
export const modelPartOf = (block: ContentBlock): Prompt.ToolModelOutputPart => {
  switch (block.type) {
    case "text":
      return Prompt.textPart({ text: block.text })
    case "image":
    case "audio":
      return Prompt.filePart({ mediaType: block.mimeType, data: block.data })
    case "resource": {
      const resource = block.resource
      return "text" in resource
        ? Prompt.textPart({ text: resourceText(resource.uri, resource.mimeType, resource.text) })
        : Prompt.filePart({
          mediaType: resource.mimeType ?? "application/octet-stream",
          fileName: fileNameOf(resource.uri),
          data: resource.blob
        })
    }
    case "resource_link":
      return Prompt.textPart({
        text: [
          `Resource link: ${block.name} <${block.uri}>`,
          ...(block.title === undefined ? [] : [`title: ${block.title}`]),
          ...(block.mimeType === undefined ? [] : [`type: ${block.mimeType}`]),
          ...(block.description === undefined ? [] : [`description: ${block.description}`])
        ].join("\n")
      })
  }
}

/**
 * What the model sees of a result: each content block, then `structuredContent` as JSON text unless a text block
 * already holds exactly that JSON (the spec asks servers to include it as text too).
 */
export const modelOutputOf = (
  result: { readonly content: ReadonlyArray<ContentBlock>; readonly structuredContent?: unknown }
): Array<Prompt.ToolModelOutputPart> => {
  const parts = result.content.map(modelPartOf)
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent)
    const repeated = result.content.some((block) => {
      if (block.type !== "text") return false
      try {
        return JSON.stringify(JSON.parse(block.text)) === json
      } catch {
        return false
      }
    })
    if (!repeated) parts.push(Prompt.textPart({ text: json }))
  }
  return parts
}

/** A checker of `structuredContent` against one tool's `outputSchema`: the reason it does not conform, or `undefined`. */
export type StructuredCheck = (structuredContent: unknown) => string | undefined

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false })

/** Compiles a tool's `outputSchema` once (a schema that does not compile rejects every result, with the reason). */
export const structuredCheckOf = (outputSchema: Readonly<Record<string, unknown>>): StructuredCheck => {
  const { $schema: _, ...schema } = outputSchema
  let validate: ReturnType<typeof ajv.compile>
  try {
    validate = ajv.compile(schema)
  } catch (error) {
    const reason = `the tool's outputSchema does not compile: ${error instanceof Error ? error.message : String(error)}`
    return () => reason
  }
  return (structuredContent) => {
    if (structuredContent === undefined) return "the tool declares an outputSchema but returned no structuredContent"
    if (validate(structuredContent)) return undefined
    const first = validate.errors?.[0]
    return `structuredContent does not match the tool's outputSchema: ${first?.instancePath || "/"} ${
      first?.message ?? "is invalid"
    }`
  }
}

// =============================================================================
// JSON Schema to Effect Schema
// =============================================================================

/**
 * A tool's JSON Schema imported as an Effect Schema (`Imported`), or kept as it is (`Raw`) with the reason the
 * import failed.
 */
export type Imported =
  | { readonly _tag: "Imported"; readonly schema: Schema.Codec<unknown, unknown> }
  | { readonly _tag: "Raw"; readonly reason: string }

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const reasonOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

/** A 2020-12 document of a tool's schema: `$schema` dropped, draft-07 `definitions` read as `$defs`. */
const documentOf = (json: Readonly<Record<string, unknown>>): JsonSchema.Document<"draft-2020-12"> => {
  const { $schema, ...schema } = json
  const draft07 = (typeof $schema === "string" && $schema.includes("draft-07")) ||
    (schema.definitions !== undefined && schema.$defs === undefined)
  return draft07 ? JsonSchema.fromSchemaDraft07(schema) : JsonSchema.fromSchemaDraft2020_12(schema)
}

/** Keywords the import rejects; a second attempt imports the schema without them (the server still checks them). */
const UNSUPPORTED = [
  "$dynamicRef",
  "$dynamicAnchor",
  "contains",
  "minContains",
  "maxContains",
  "dependentRequired",
  "dependentSchemas",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties"
]

const isPrimitive = (u: unknown) => u === null || ["string", "number", "boolean"].includes(typeof u)

const loosen = (node: JsonSchema.JsonSchema): JsonSchema.JsonSchema => {
  const out: JsonSchema.JsonSchema = {}
  for (const [key, value] of Object.entries(node)) {
    if (UNSUPPORTED.includes(key)) continue
    if (key === "not" && !(isRecord(value) && Object.keys(value).length === 0)) continue
    if (key === "const" && !isPrimitive(value)) continue
    if (key === "enum" && !(Array.isArray(value) && value.every(isPrimitive))) continue
    out[key] = value
  }
  return out
}

/**
 * An object that declares its properties but leaves `additionalProperties` open is offered closed: the model is told
 * to send the declared properties (providers' strict modes require every object closed).
 */
const closeDeclared = (node: JsonSchema.JsonSchema): JsonSchema.JsonSchema =>
  isRecord(node.properties) && Object.keys(node.properties).length > 0 && node.patternProperties === undefined &&
    (node.additionalProperties === undefined || node.additionalProperties === true)
    ? { ...node, additionalProperties: false }
    : node

/** A root `{ type: "object" }` without properties is a tool without parameters (as the SDKs write one). */
const closeRoot = (json: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> =>
  json.properties === undefined && json.patternProperties === undefined &&
    (json.additionalProperties === undefined || json.additionalProperties === true) &&
    (json.type === undefined || json.type === "object")
    ? { ...json, type: "object", properties: {}, additionalProperties: false }
    : json

const importWith = (
  json: Readonly<Record<string, unknown>>,
  onEnter: ((node: JsonSchema.JsonSchema) => JsonSchema.JsonSchema) | undefined
): Schema.Codec<unknown, unknown> =>
  SchemaRepresentation.fromJsonSchemaDocument(documentOf(json), {
    // A server's patterns are not run here (a pattern is code from the server): the server checks them.
    patterns: "ignore",
    ...(onEnter === undefined ? {} : { onEnter })
  }) as Schema.Codec<unknown, unknown>

/** Imports `json`, then without the keywords the import rejects; the first error when both fail. */
const importLoosely = (
  json: Readonly<Record<string, unknown>>,
  onEnter: (node: JsonSchema.JsonSchema) => JsonSchema.JsonSchema
): Imported => {
  try {
    return { _tag: "Imported", schema: importWith(json, onEnter) }
  } catch (first) {
    try {
      return { _tag: "Imported", schema: importWith(json, (node) => loosen(onEnter(node))) }
    } catch {
      return { _tag: "Raw", reason: reasonOf(first) }
    }
  }
}

/**
 * A tool's `inputSchema` as the Effect Schema of its parameters: the schema providers turn into their own JSON
 * Schema (with their strict-mode rewriting) and decode the model's arguments with. Kept `Raw` when it cannot be
 * imported, or when OpenAI's structured-output subset (the strictest common one) cannot express the import.
 */
export const parametersOf = (inputSchema: Readonly<Record<string, unknown>>): Imported => {
  const imported = importLoosely(closeRoot(inputSchema), closeDeclared)
  if (imported._tag === "Raw") return imported
  try {
    OpenAiStructuredOutput.toCodecOpenAI(imported.schema)
  } catch (error) {
    return { _tag: "Raw", reason: reasonOf(error) }
  }
  return imported
}

/** A tool's `outputSchema` as the Effect Schema of its `structuredContent` (objects left as open as they are). */
export const structuredOf = (outputSchema: Readonly<Record<string, unknown>>): Imported =>
  importLoosely(outputSchema, (node) => node)
