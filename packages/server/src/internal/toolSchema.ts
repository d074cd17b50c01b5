/**
 * The JSON Schemas of a tool's definition, generated from Effect Schemas: a closed `inputSchema` (keys a struct does
 * not declare are refused, as its arguments' decoding refuses them) and an open `outputSchema`. Shared by `Tool.make`
 * and the tools of a served `effect/ai` Toolkit (`AiToolkit`), so both describe and decode their arguments alike.
 */
import { Schema } from "effect"

export const includeAnnotationKey = (key: string) => key.startsWith("x-mcp-")

/**
 * How a tool's arguments meet its parameters: a key a (closed) struct does not declare is refused, not dropped, so
 * the `inputSchema` says `additionalProperties: false` and means it (what OpenAI's strict mode needs to register a
 * tool as strict), and a misspelt optional argument is an error the caller sees rather than an argument ignored.
 * The same option generates the schema and decodes the arguments, as Effect's docs ask; an index signature
 * (`Schema.Record`, `StructWithRest`) still admits the keys it models.
 */
export const onExcessProperty = "error" as const

/** `Schema.Struct({})`: Effect renders and decodes it as "any non-nullish value" (no excess-property check either). */
export const isEmptyStruct = (schema: Schema.Top): boolean => {
  const ast = schema.ast as {
    readonly _tag: string
    readonly propertySignatures?: ReadonlyArray<unknown>
    readonly indexSignatures?: ReadonlyArray<unknown>
  }
  return ast._tag === "Objects" && ast.propertySignatures?.length === 0 && (ast.indexSignatures?.length ?? 0) === 0
}

export const objectSchema = (schema: Schema.Top, what: string, closed: boolean) => {
  // The spec wants an object.
  if (isEmptyStruct(schema)) {
    return closed ? { type: "object", properties: {}, additionalProperties: false } : { type: "object", properties: {} }
  }
  const document = Schema.toJsonSchemaDocument(
    schema,
    closed ? { includeAnnotationKey, onExcessProperty } : { includeAnnotationKey }
  )
  const root = document.schema as Record<string, unknown>
  if (root.type !== "object") throw new Error(`The ${what} of a tool must be an object schema (a Schema.Struct)`)
  const definitions = document.definitions as Record<string, unknown>
  return Object.keys(definitions).length === 0 ? root : { ...root, $defs: definitions }
}
