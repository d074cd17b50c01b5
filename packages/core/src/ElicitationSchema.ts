/**
 * From an Effect Schema to an elicitation form's `requestedSchema`.
 *
 * A form elicitation asks the client to render a flat form. Its
 * `requestedSchema` is a restricted JSON Schema: an object whose top-level
 * properties are primitives (strings with formats and length bounds,
 * numbers/integers with bounds, booleans, single- and multi-select enums with
 * or without titles), nothing nested. This module generates that schema from
 * the same Effect Schema that decodes the answer, and rejects any schema that
 * falls outside the subset when the form is defined.
 * Source: MCP 2026-07-28, client/elicitation ("Requested Schema").
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"
import type { PrimitiveSchemaDefinition } from "@mrtr/protocol"
import { freezeJson } from "./Canonical.ts"
import { InvalidElicitationSchema } from "./Errors.ts"

/**
 * The `requestedSchema` of a form elicitation:
 * `{ type: "object", properties: { [name]: PrimitiveSchemaDefinition }, required?: string[] }`.
 *
 * @since 0.1.0
 */
export interface RequestedSchema {
  readonly type: "object"
  readonly properties: Readonly<Record<string, PrimitiveSchemaDefinition>>
  readonly required?: ReadonlyArray<string>
}

/**
 * An Effect Schema accepted by a form elicitation, paired with the
 * `requestedSchema` generated from it. Build one with {@link make}.
 *
 * `schema` decodes the accepted `ElicitResult.content`; its decoded type `A`
 * is what the ask returns.
 *
 * @since 0.1.0
 */
export interface FormSchema<A> {
  readonly schema: Schema.Decoder<A>
  readonly requestedSchema: RequestedSchema
}

/**
 * The schemas a form elicitation accepts: any Effect Schema without
 * requirements whose JSON form is a flat object of primitives.
 *
 * @since 0.1.0
 */
export type FormSchemaInput<A> = Schema.Codec<A, any, never, never>

type Json = { readonly [key: string]: unknown }

const STRING_FORMATS = new Set(["email", "uri", "date", "date-time"])

const isCalendarDate = (year: number, month: number, day: number): boolean => {
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

// JSON Schema 2020-12 formats (RFC 3339 full-date / date-time, RFC 3986 URI,
// an address with one "@" and no spaces), checked as JSON Schema validators do.
const FORMAT_CHECKS: Readonly<Record<string, (value: string) => boolean>> = {
  email: (value) => /^[^\s@]+@[^\s@]+$/.test(value),
  uri: (value) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) && URL.canParse(value),
  date: (value) => {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
    return match !== null && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))
  },
  "date-time": (value) => {
    const match = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.exec(value)
    return match !== null && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3])) &&
      Number(match[4]) < 24 && Number(match[5]) < 60 && Number(match[6]) < 61
  }
}

/**
 * True when every string field of `content` that `requestedSchema` gives a
 * `format` (email, uri, date, date-time) has that format. The Effect Schema
 * behind a form may only annotate a format, so accepted answers are checked
 * against the `requestedSchema` the client was shown as well.
 *
 * @since 0.1.0
 */
export const formatsHold = (requestedSchema: RequestedSchema, content: unknown): boolean => {
  if (typeof content !== "object" || content === null) return true
  for (const [name, field] of Object.entries(requestedSchema.properties)) {
    const format = (field as { readonly format?: unknown }).format
    if (typeof format !== "string" || !Object.hasOwn(content, name)) continue
    const value = (content as Record<string, unknown>)[name]
    const check = FORMAT_CHECKS[format]
    if (typeof value === "string" && check !== undefined && !check(value)) return false
  }
  return true
}
const ANNOTATIONS = ["title", "description"] as const

const fail = <A = never>(path: string, reason: string): Result.Result<A, InvalidElicitationSchema> =>
  Result.fail(new InvalidElicitationSchema({ path, reason }))

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const pickAnnotations = (js: Json): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const key of ANNOTATIONS) if (typeof js[key] === "string") out[key] = js[key]
  return out
}

const onlyKeys = (path: string, js: Json, allowed: ReadonlyArray<string>): Result.Result<never, InvalidElicitationSchema> | undefined => {
  for (const key of Object.keys(js)) {
    if (!allowed.includes(key)) {
      return fail(path, `the constraint "${key}" cannot be expressed in an elicitation form`)
    }
  }
  return undefined
}

const isTitledOption = (u: unknown): u is { type: "string"; enum: [string]; title: string } =>
  isObject(u) && u.type === "string" && Array.isArray(u.enum) && u.enum.length === 1 &&
  typeof u.enum[0] === "string" && typeof u.title === "string"

const isStringEnum = (u: unknown): u is { type: "string"; enum: Array<string> } =>
  isObject(u) && u.type === "string" && Array.isArray(u.enum) && u.enum.every((v) => typeof v === "string")

// Effect's JSON form of `Schema.Number` admits "Infinity" | "-Infinity" | "NaN" strings;
// an elicitation answer is plain JSON, so that branch is dropped.
const isNonFiniteBranch = (u: unknown): boolean =>
  isObject(u) && u.type === "string" && Array.isArray(u.enum) &&
  u.enum.every((v) => v === "Infinity" || v === "-Infinity" || v === "NaN")

const convertItems = (
  path: string,
  js: Json
): Result.Result<PrimitiveSchemaDefinition, InvalidElicitationSchema> => {
  const items = js.items
  const bounds: Record<string, unknown> = {}
  for (const key of ["minItems", "maxItems"] as const) if (typeof js[key] === "number") bounds[key] = js[key]
  const checked = onlyKeys(path, js, ["type", "items", "minItems", "maxItems", "title", "description", "default"])
  if (checked !== undefined) return checked
  const base = { type: "array", ...pickAnnotations(js), ...bounds, ...(Array.isArray(js.default) ? { default: js.default } : {}) }
  if (isStringEnum(items)) {
    return Result.succeed({ ...base, items: { type: "string", enum: items.enum } } as PrimitiveSchemaDefinition)
  }
  if (isObject(items) && Array.isArray(items.anyOf) && items.anyOf.every(isTitledOption)) {
    return Result.succeed({
      ...base,
      items: { anyOf: items.anyOf.map((o) => ({ const: o.enum[0], title: o.title })) }
    } as PrimitiveSchemaDefinition)
  }
  if (isObject(items) && Array.isArray(items.anyOf) && items.anyOf.every(isStringEnum)) {
    return Result.succeed({
      ...base,
      items: { type: "string", enum: items.anyOf.flatMap((o) => o.enum) }
    } as PrimitiveSchemaDefinition)
  }
  return fail(path, "arrays must be multi-select enums of string literals")
}

const convertProperty = (
  path: string,
  js: unknown
): Result.Result<PrimitiveSchemaDefinition, InvalidElicitationSchema> => {
  if (!isObject(js)) return fail(path, "not a JSON Schema object")
  if (js.$ref !== undefined) {
    return fail(path, "named or recursive schemas are not allowed; inline a primitive schema")
  }
  const annotations = pickAnnotations(js)
  if (Array.isArray(js.anyOf) || Array.isArray(js.oneOf)) {
    const branches = (js.anyOf ?? js.oneOf) as Array<unknown>
    const finite = branches.filter((b) => !isNonFiniteBranch(b))
    if (finite.length === 1 && finite.length < branches.length) {
      return convertProperty(path, { ...finite[0] as Json, ...annotations })
    }
    if (branches.every(isTitledOption)) {
      return Result.succeed({
        type: "string",
        ...annotations,
        oneOf: branches.map((o) => ({ const: o.enum[0], title: o.title })),
        ...(typeof js.default === "string" ? { default: js.default } : {})
      } as PrimitiveSchemaDefinition)
    }
    if (branches.every(isStringEnum)) {
      return Result.succeed({
        type: "string",
        ...annotations,
        enum: branches.flatMap((o) => o.enum),
        ...(typeof js.default === "string" ? { default: js.default } : {})
      } as PrimitiveSchemaDefinition)
    }
    return fail(path, "unions must be enums of string literals")
  }
  switch (js.type) {
    case "string": {
      if (Array.isArray(js.enum)) {
        const checked = onlyKeys(path, js, ["type", "enum", "title", "description", "default"])
        if (checked !== undefined) return checked
        if (!js.enum.every((v) => typeof v === "string")) return fail(path, "enum values must be strings")
        return Result.succeed({ ...js } as PrimitiveSchemaDefinition)
      }
      const checked = onlyKeys(path, js, ["type", "minLength", "maxLength", "format", "title", "description", "default"])
      if (checked !== undefined) return checked
      if (js.format !== undefined && !STRING_FORMATS.has(js.format as string)) {
        return fail(path, `the string format "${String(js.format)}" is not one of email, uri, date, date-time`)
      }
      return Result.succeed({ ...js } as PrimitiveSchemaDefinition)
    }
    case "number":
    case "integer": {
      const checked = onlyKeys(path, js, ["type", "minimum", "maximum", "title", "description", "default"])
      if (checked !== undefined) return checked
      return Result.succeed({ ...js } as PrimitiveSchemaDefinition)
    }
    case "boolean": {
      const checked = onlyKeys(path, js, ["type", "title", "description", "default"])
      if (checked !== undefined) return checked
      return Result.succeed({ ...js } as PrimitiveSchemaDefinition)
    }
    case "array":
      return convertItems(path, js)
    default:
      return fail(path, `a ${js.type === undefined ? "schema without a primitive type" : `"${String(js.type)}"`} cannot be a form field; only strings, numbers, integers, booleans and enums are allowed`)
  }
}

const cache = new WeakMap<object, Result.Result<FormSchema<any>, InvalidElicitationSchema>>()

/**
 * Checks an Effect Schema against the elicitation subset and generates its
 * `requestedSchema`. Results are cached per schema object; the
 * `requestedSchema` is deep-frozen (`Canonical.freezeJson`), as it is shared.
 *
 * Fails with `InvalidElicitationSchema` (naming the offending property) for a
 * non-object schema, nested objects, records, tuples, unions other than string
 * enums, string formats other than email/uri/date/date-time, patterns,
 * exclusive bounds, or schemas that need services.
 *
 * @since 0.1.0
 */
export const make = <A>(schema: FormSchemaInput<A>): Result.Result<FormSchema<A>, InvalidElicitationSchema> => {
  const cached = cache.get(schema)
  if (cached !== undefined) return cached
  const result = convert(schema)
  cache.set(schema, result)
  return result
}

/**
 * Like {@link make}, but throws the `InvalidElicitationSchema` at once: use it
 * at module level so that a schema outside the subset is rejected when the
 * form is defined, not when a user first reaches it.
 *
 * @since 0.1.0
 */
export const makeUnsafe = <A>(schema: FormSchemaInput<A>): FormSchema<A> => {
  const result = make(schema)
  if (Result.isFailure(result)) throw result.failure
  return result.success
}

// The checks a form field may carry: those the requestedSchema expresses
// (length and numeric bounds, integers, finiteness). Any other check (a
// pattern, a custom filter, ...) would be enforced on the answer without the
// client knowing it, so the form is rejected.
const ALLOWED_CHECKS = new Set([
  "effect/schema/isMinLength",
  "effect/schema/isMaxLength",
  "effect/schema/isBetweenLength",
  "effect/schema/isMinCodePoints",
  "effect/schema/isMaxCodePoints",
  "effect/schema/isBetweenCodePoints",
  "effect/schema/isBetween",
  "effect/schema/isGreaterThanOrEqualTo",
  "effect/schema/isLessThanOrEqualTo",
  "effect/schema/isInt",
  "effect/schema/isFinite"
])

const unsupportedCheck = (ast: unknown, seen = new Set<unknown>()): string | undefined => {
  if (typeof ast !== "object" || ast === null || seen.has(ast)) return undefined
  seen.add(ast)
  const node = ast as {
    readonly checks?: ReadonlyArray<unknown>
    readonly propertySignatures?: ReadonlyArray<{ readonly type: unknown }>
    readonly types?: ReadonlyArray<unknown>
    readonly elements?: ReadonlyArray<unknown>
    readonly rest?: ReadonlyArray<unknown>
  }
  const checks = [...(node.checks ?? [])]
  while (checks.length > 0) {
    const check = checks.pop() as {
      readonly checks?: ReadonlyArray<unknown>
      readonly annotations?: { readonly representation?: { readonly id?: unknown }; readonly expected?: unknown }
    }
    if (check.checks !== undefined) {
      checks.push(...check.checks)
      continue
    }
    const id = check.annotations?.representation?.id
    if (typeof id !== "string" || !ALLOWED_CHECKS.has(id)) {
      return typeof check.annotations?.expected === "string" ? check.annotations.expected : "a custom check"
    }
  }
  for (const child of [
    ...(node.propertySignatures ?? []).map((p) => p.type),
    ...(node.types ?? []),
    ...(node.elements ?? []),
    ...(node.rest ?? [])
  ]) {
    const found = unsupportedCheck(child, seen)
    if (found !== undefined) return found
  }
  return undefined
}

const convert = <A>(schema: FormSchemaInput<A>): Result.Result<FormSchema<A>, InvalidElicitationSchema> => {
  const properties0 = (schema.ast as { readonly propertySignatures?: ReadonlyArray<{ readonly name: PropertyKey; readonly type: unknown }> })
    .propertySignatures ?? []
  for (const property of properties0) {
    const check = unsupportedCheck(property.type)
    if (check !== undefined) {
      return fail(String(property.name), `the check "${check}" cannot be expressed in an elicitation form`)
    }
  }
  let document: { readonly schema: unknown; readonly definitions: Readonly<Record<string, unknown>> }
  try {
    document = Schema.toJsonSchemaDocument(schema) as any
  } catch (cause) {
    return fail("", `no JSON Schema can be generated: ${String(cause)}`)
  }
  const root = document.schema
  if (!isObject(root) || root.type !== "object" || !isObject(root.properties)) {
    return fail("", "a form must be a Schema.Struct of primitive fields")
  }
  if (root.patternProperties !== undefined || isObject(root.additionalProperties)) {
    return fail("", "records and index signatures cannot be form fields")
  }
  const properties: Record<string, PrimitiveSchemaDefinition> = {}
  for (const [name, js] of Object.entries(root.properties)) {
    const converted = convertProperty(name, js)
    if (Result.isFailure(converted)) return Result.fail(converted.failure)
    properties[name] = converted.success
  }
  const required = Array.isArray(root.required) ? (root.required as Array<string>) : []
  // The requestedSchema as the client receives it (a JSON copy: the JSON Schema
  // generator hands annotation values, a `default` array say, through by
  // reference, and those stay the user's), deep-frozen: it is cached per schema
  // and shared by every ask of the form, and its digest is then found by identity.
  let requestedSchema: RequestedSchema
  try {
    requestedSchema = JSON.parse(JSON.stringify({
      type: "object",
      properties,
      ...(required.length > 0 ? { required } : {})
    }))
  } catch (cause) {
    return fail("", `the requestedSchema is not JSON: ${String(cause)}`)
  }
  return Result.succeed({ schema, requestedSchema: freezeJson(requestedSchema) })
}
