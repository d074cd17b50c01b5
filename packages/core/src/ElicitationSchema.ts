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
import type { PrimitiveSchemaDefinition } from "@mrtr/protocol/Schema"
import { Result, Schema } from "effect"
import { freezeJson } from "./Canonical.ts"
import { InvalidElicitationSchema } from "./Errors.ts"
import * as formCheck from "./internal/formCheck.ts"
import { FORMATS } from "./internal/formCheck.ts"

/**
 * The `requestedSchema` of a form elicitation:
 * `{ type: "object", properties: { [name]: PrimitiveSchemaDefinition }, required?: string[] }`.
 *
 * @category models
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
 * @category models
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
 * @category models
 * @since 0.1.0
 */
export type FormSchemaInput<A> = Schema.Codec<A, any, never, never>

type Json = { readonly [key: string]: unknown }

const STRING_FORMATS = new Set(Object.keys(FORMATS))

/**
 * True when every string field of `content` that `requestedSchema` gives a
 * `format` (email, uri, date, date-time) has that format, as JSON Schema
 * 2020-12 defines it (checked with `ajv-formats`' full formats: real
 * calendar dates for every year from 0000, offsets up to ±23:59, ASCII
 * addresses). The Effect Schema behind a form may only annotate a format, so
 * accepted answers are checked against the `requestedSchema` the client was
 * shown as well.
 *
 * @category validation
 * @since 0.1.0
 */
export const formatsHold = (requestedSchema: RequestedSchema, content: unknown): boolean =>
  formCheck.formatsHold(requestedSchema, content)

/**
 * Why an accepted answer's `content` does not fit `requestedSchema`, in plain
 * words naming each refused field (its `title`, else its name) and the rule it
 * breaks: a required field missing, a value of the wrong type, a string too
 * short or too long, not of its format, not one of the choices, a number out
 * of bounds or not whole, a multi-select with unknown, too few or too many
 * choices, text that is not valid Unicode. `undefined` when every field fits.
 * The reason never quotes the answer.
 *
 * @category validation
 * @since 0.1.0
 */
export const refusal = (requestedSchema: RequestedSchema, content: unknown): string | undefined => {
  const found = formCheck.problems(requestedSchema, content)
  return found.length === 0 ? undefined : `${found.join("; ")}.`
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

const onlyKeys = (
  path: string,
  js: Json,
  allowed: ReadonlyArray<string>
): Result.Result<never, InvalidElicitationSchema> | undefined => {
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
  const base = {
    type: "array",
    ...pickAnnotations(js),
    ...bounds,
    ...(Array.isArray(js.default) ? { default: js.default } : {})
  }
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
  // Effect writes some checks (a second length bound, code point bounds) as
  // `allOf` members: fold them into the field, keeping the tightest bound.
  if (Array.isArray(js.allOf) && js.allOf.every(isObject)) {
    const { allOf, ...rest } = js
    const merged: Record<string, unknown> = { ...rest }
    for (const member of allOf as ReadonlyArray<Json>) {
      for (const [key, value] of Object.entries(member)) {
        const current = merged[key]
        merged[key] = typeof current === "number" && typeof value === "number"
          ? (key.startsWith("min")
            ? Math.max(current, value)
            : key.startsWith("max")
            ? Math.min(current, value)
            : value)
          : value
      }
    }
    return convertProperty(path, merged)
  }
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
      const checked = onlyKeys(path, js, [
        "type",
        "minLength",
        "maxLength",
        "format",
        "title",
        "description",
        "default"
      ])
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
      return fail(
        path,
        `${
          js.type === undefined ? "a schema without a primitive type" : `a value of type "${String(js.type)}"`
        } cannot be a form field; only strings, numbers, integers, booleans and enums are allowed`
      )
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
 * @category constructors
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
 * form is defined, not when a user first reaches it. `name` (e.g. the ask's
 * key) is written into the error's reason, next to the offending field.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeUnsafe = <A>(schema: FormSchemaInput<A>, name?: string): FormSchema<A> => {
  const result = make(schema)
  if (Result.isFailure(result)) {
    if (name === undefined) throw result.failure
    throw new InvalidElicitationSchema({
      path: result.failure.path,
      reason: `${result.failure.reason} (form "${name}")`
    })
  }
  return result.success
}

/**
 * The form schemas a tool, prompt or resource declares it asks, by form name
 * (usually the ask's key): Effect Schemas or ready `FormSchema`s.
 *
 * @category models
 * @since 0.1.0
 */
export type DeclaredForms = Readonly<Record<string, FormSchemaInput<any> | FormSchema<any>>>

/**
 * Checks every declared form of `owner` (e.g. `tool "book"`) against the
 * elicitation subset, and throws the first `InvalidElicitationSchema`, its
 * `path` the field and its reason naming the owner and the form, e.g.
 * `Invalid elicitation schema at "street": ... (tool "book", form "address")`.
 * For definitions (`Tool.make`, `Prompt.make`, `Resource.make`), so that a
 * form the spec does not allow is refused when defined, not when called.
 *
 * @category validation
 * @since 0.1.0
 */
export const checkForms = (owner: string, forms: DeclaredForms | undefined): void => {
  if (forms === undefined) return
  for (const [name, form] of Object.entries(forms)) {
    if ("requestedSchema" in form) continue
    const result = make(form)
    if (Result.isFailure(result)) {
      throw new InvalidElicitationSchema({
        path: result.failure.path,
        reason: `${result.failure.reason} (${owner}, form "${name}")`
      })
    }
  }
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
      for (const inner of check.checks) checks.push(inner)
      continue
    }
    const id = check.annotations?.representation?.id
    if (typeof id !== "string" || !ALLOWED_CHECKS.has(id)) {
      return typeof check.annotations?.expected === "string" ? check.annotations.expected : "a custom check"
    }
  }
  for (
    const child of [
      ...(node.propertySignatures ?? []).map((p) => p.type),
      ...(node.types ?? []),
      ...(node.elements ?? []),
      ...(node.rest ?? [])
    ]
  ) {
    const found = unsupportedCheck(child, seen)
    if (found !== undefined) return found
  }
  return undefined
}

// The bounds the decoder enforces on a field, from its checks (and those of
// union members, e.g. an optional field): Effect's JSON Schema generator drops
// some of them (the bounds of `Schema.Number`, whose JSON form is a union with
// the non-finite strings; a second `isMinLength`), so they are put back into
// the field's `requestedSchema` from the checks themselves.
interface Bounds {
  lowerLength?: number
  upperLength?: number
  minimum?: number
  maximum?: number
  integer?: boolean
  exclusive?: boolean
}

const enforcedBounds = (ast: unknown, bounds: Bounds = {}, seen = new Set<unknown>()): Bounds => {
  if (typeof ast !== "object" || ast === null || seen.has(ast)) return bounds
  seen.add(ast)
  const node = ast as { readonly checks?: ReadonlyArray<unknown>; readonly types?: ReadonlyArray<unknown> }
  const lower = (key: "lowerLength" | "minimum", value: unknown) => {
    if (typeof value === "number") bounds[key] = Math.max(bounds[key] ?? -Infinity, value)
  }
  const upper = (key: "upperLength" | "maximum", value: unknown) => {
    if (typeof value === "number") bounds[key] = Math.min(bounds[key] ?? Infinity, value)
  }
  const checks = [...(node.checks ?? [])]
  while (checks.length > 0) {
    const check = checks.pop() as {
      readonly checks?: ReadonlyArray<unknown>
      readonly annotations?: { readonly representation?: { readonly id?: unknown; readonly payload?: any } }
    }
    if (check.checks !== undefined) {
      for (const inner of check.checks) checks.push(inner)
      continue
    }
    const representation = check.annotations?.representation
    const payload = representation?.payload ?? {}
    switch (representation?.id) {
      case "effect/schema/isMinLength":
        lower("lowerLength", payload.minLength)
        break
      case "effect/schema/isMinCodePoints":
        lower("lowerLength", payload.minCodePoints)
        break
      case "effect/schema/isMaxLength":
        upper("upperLength", payload.maxLength)
        break
      case "effect/schema/isMaxCodePoints":
        upper("upperLength", payload.maxCodePoints)
        break
      case "effect/schema/isBetweenLength":
      case "effect/schema/isBetweenCodePoints":
        lower("lowerLength", payload.minimum)
        upper("upperLength", payload.maximum)
        break
      case "effect/schema/isBetween":
        if (payload.exclusiveMinimum === true || payload.exclusiveMaximum === true) bounds.exclusive = true
        lower("minimum", payload.minimum)
        upper("maximum", payload.maximum)
        break
      case "effect/schema/isGreaterThanOrEqualTo":
        lower("minimum", payload.minimum)
        break
      case "effect/schema/isLessThanOrEqualTo":
        upper("maximum", payload.maximum)
        break
      case "effect/schema/isInt":
        bounds.integer = true
        break
    }
  }
  for (const member of node.types ?? []) enforcedBounds(member, bounds, seen)
  return bounds
}

/** `field` with every bound of `bounds` written in, or a failure naming the bound it cannot carry. */
const withBounds = (
  path: string,
  field: PrimitiveSchemaDefinition,
  bounds: Bounds
): Result.Result<PrimitiveSchemaDefinition, InvalidElicitationSchema> => {
  const out = { ...field } as Record<string, unknown>
  const tighten = (key: string, value: number | undefined, pick: (a: number, b: number) => number) => {
    if (value === undefined || !Number.isFinite(value)) return
    out[key] = typeof out[key] === "number" ? pick(out[key] as number, value) : value
  }
  const isEnum = "enum" in out || "oneOf" in out
  const hasLength = bounds.lowerLength !== undefined || bounds.upperLength !== undefined
  const hasRange = bounds.minimum !== undefined || bounds.maximum !== undefined || bounds.integer === true
  if (bounds.exclusive === true) return fail(path, "exclusive bounds cannot be expressed in an elicitation form")
  if (out.type === "string" && !isEnum && !hasRange) {
    tighten("minLength", bounds.lowerLength, Math.max)
    tighten("maxLength", bounds.upperLength, Math.min)
  } else if (out.type === "array" && !hasRange) {
    tighten("minItems", bounds.lowerLength, Math.max)
    tighten("maxItems", bounds.upperLength, Math.min)
  } else if ((out.type === "number" || out.type === "integer") && !hasLength) {
    if (bounds.integer === true) out.type = "integer"
    tighten("minimum", bounds.minimum, Math.max)
    tighten("maximum", bounds.maximum, Math.min)
  } else if (hasLength || hasRange) {
    return fail(path, `the field's checks cannot be expressed for a ${isEnum ? "choice" : String(out.type)} field`)
  }
  return Result.succeed(out as PrimitiveSchemaDefinition)
}

const convert = <A>(schema: FormSchemaInput<A>): Result.Result<FormSchema<A>, InvalidElicitationSchema> => {
  const properties0 = (schema.ast as {
    readonly propertySignatures?: ReadonlyArray<{ readonly name: PropertyKey; readonly type: unknown }>
  })
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
  const properties: Record<string, PrimitiveSchemaDefinition> = Object.create(null)
  const bounds = new Map(properties0.map((p) => [String(p.name), enforcedBounds(p.type)]))
  for (const [name, js] of Object.entries(root.properties)) {
    const converted = convertProperty(name, js)
    if (Result.isFailure(converted)) return Result.fail(converted.failure)
    // Every check the decoder enforces appears in the requestedSchema, or the form is refused.
    const bounded = withBounds(name, converted.success, bounds.get(name) ?? {})
    if (Result.isFailure(bounded)) return Result.fail(bounded.failure)
    properties[name] = bounded.success
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
