/**
 * The prompts of a form-mode elicitation at the terminal: what kind of
 * prompt each primitive field of `requestedSchema` gets (`fieldKind`), its
 * label, its choices, and the `effect/cli` `Prompt` that reads and checks it
 * (`fieldPrompt`, `formPrompt`). `TerminalUser` re-exports them.
 *
 * Gotchas: a prompt checks as the person types what it can (lengths in
 * UTF-16 code units, as the server counts them; email and URI shapes;
 * numbers and dates read strictly, never rolled over); the server checks
 * the rest and says why when it refuses. An optional field can be skipped,
 * a required one cannot. Every label is server text, `clean`ed to one safe
 * line. Dates are read and shown in local time.
 * Source: MCP 2026-07-28, client/elicitation (the requested schema's
 * primitive types).
 */
import type { ElicitRequestFormParams, PrimitiveSchemaDefinition } from "@mrtr/protocol/Schema"
import { Effect, Option } from "effect"
import { Prompt } from "effect/cli"
import { clean } from "../Report.ts"
import * as TypedText from "./typedText.ts"

/**
 * A value of a form field as sent in `ElicitResult.content`.
 *
 * @since 0.1.0
 */
export type FieldValue = string | number | boolean | ReadonlyArray<string>

/**
 * The `requestedSchema` of a form-mode elicitation.
 *
 * @since 0.1.0
 */
export type RequestedSchema = ElicitRequestFormParams["requestedSchema"]

/**
 * How a field is asked, decided by `fieldKind` from its schema:
 *
 * | schema | kind | prompt |
 * |---|---|---|
 * | `string` | `text` | `Prompt.Text` (`minLength` / `maxLength` checked) |
 * | `string` + `format: "email"` / `"uri"` | `email` / `uri` | `Prompt.Text`, checked |
 * | `string` + `format: "date"` / `"date-time"` | `date` / `date-time` | `Prompt.Text`: `YYYY-MM-DD` / `YYYY-MM-DD HH:mm` (local time, sent with its offset) or RFC 3339 |
 * | `integer` / `number` | `integer` / `number` | `Prompt.Text`, read strictly, `minimum` / `maximum` checked |
 * | `boolean` | `boolean` | `Prompt.Confirm` |
 * | `string` + `enum` / `oneOf` (+ legacy `enumNames`) | `select` | `Prompt.Select` (titles shown, values sent) |
 * | `array` of `enum` / `anyOf` | `multi-select` | `Prompt.MultiSelect` (`minItems` / `maxItems`) |
 *
 * Defaults are pre-filled (text typed in, choice pre-selected, number
 * and date typed in; a date field without one starts at today / now).
 * What is typed is sent as typed or refused with a message at the prompt:
 * `2.5` in an integer field, 2027-02-30 and other impossible days are
 * refused, never rounded or rolled over; the years 0000–9999 are kept.
 * Text lengths count UTF-16 code units, as the server's check does. Required fields must be answered (an empty text is
 * refused). Optional fields can be skipped: an empty text, a "(skip)"
 * choice, no choice ticked, or "no" to "Set …?" before a number or a date;
 * a skipped field is left out of the content.
 *
 * @since 0.1.0
 */
export type FieldKind =
  | "text"
  | "email"
  | "uri"
  | "date"
  | "date-time"
  | "integer"
  | "number"
  | "boolean"
  | "select"
  | "multi-select"

/**
 * The kind of prompt for a field schema (see `FieldKind`).
 *
 * @since 0.1.0
 */
export const fieldKind = (schema: PrimitiveSchemaDefinition): FieldKind => {
  if (schema.type === "array") return "multi-select"
  if (schema.type === "boolean") return "boolean"
  if (schema.type === "integer" || schema.type === "number") return schema.type
  if ("enum" in schema || "oneOf" in schema) return "select"
  switch ((schema as { readonly format?: string }).format) {
    case "email":
      return "email"
    case "uri":
      return "uri"
    case "date":
      return "date"
    case "date-time":
      return "date-time"
    default:
      return "text"
  }
}

/**
 * The choices of a single- or multi-select field: `{ title, value }` with
 * the display title (`oneOf` / `anyOf` titles, legacy `enumNames`) and the
 * value sent.
 *
 * @since 0.1.0
 */
export const choicesOf = (
  schema: PrimitiveSchemaDefinition
): ReadonlyArray<{ readonly title: string; readonly value: string }> => {
  if (schema.type === "array") {
    const items = schema.items
    return "anyOf" in items
      ? items.anyOf.map((option) => ({ title: clean(option.title), value: option.const }))
      : items.enum.map((value) => ({ title: clean(value), value }))
  }
  if ("oneOf" in schema) return schema.oneOf.map((option) => ({ title: clean(option.title), value: option.const }))
  if ("enum" in schema) {
    const names = "enumNames" in schema ? schema.enumNames : undefined
    return schema.enum.map((value, i) => ({ title: clean(names?.[i] ?? value), value }))
  }
  return []
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

const canParseUrl = (value: string): boolean => {
  try {
    new URL(value)
    return true
  } catch {
    return false
  }
}

/**
 * `YYYY-MM-DD` of a date, in local time (as the date prompt shows it), the
 * year written with 4 digits (0000–9999).
 *
 * @since 0.1.0
 */
export const formatDate = (date: Date): string => TypedText.formatLocalDate(date)

const check = <A>(read: TypedText.Read<A>): Effect.Effect<A, string> =>
  "error" in read ? Effect.fail(read.error) : Effect.succeed(read.value)

/**
 * The one-line label of a field: its title (or name), its description, and
 * hints (format, bounds, "optional").
 *
 * @since 0.1.0
 */
export const fieldLabel = (name: string, schema: PrimitiveSchemaDefinition, required: boolean): string => {
  const hints: Array<string> = []
  const kind = fieldKind(schema)
  if (kind === "email" || kind === "uri") hints.push(kind)
  if (kind === "date") hints.push("YYYY-MM-DD")
  if (kind === "date-time") hints.push("YYYY-MM-DD HH:mm, local time")
  const bounds = schema as { readonly minimum?: number; readonly maximum?: number }
  if ((kind === "integer" || kind === "number") && (bounds.minimum !== undefined || bounds.maximum !== undefined)) {
    const s = bounds
    hints.push(
      s.minimum !== undefined && s.maximum !== undefined
        ? `${s.minimum}–${s.maximum}`
        : s.minimum !== undefined
        ? `≥ ${s.minimum}`
        : `≤ ${s.maximum}`
    )
  }
  if (kind === "integer") hints.push("integer")
  if (kind === "multi-select") {
    const s = schema as { readonly minItems?: number; readonly maxItems?: number }
    hints.push(
      s.minItems !== undefined && s.maxItems !== undefined
        ? `pick ${s.minItems}–${s.maxItems}`
        : s.minItems !== undefined
        ? `pick at least ${s.minItems}`
        : s.maxItems !== undefined
        ? `pick at most ${s.maxItems}`
        : "space to tick"
    )
  }
  if (!required) hints.push("optional")
  const title = clean(schema.title ?? name)
  const description = schema.description === undefined ? "" : ` — ${clean(schema.description)}`
  return `${title}${description}${hints.length > 0 ? ` (${hints.join(", ")})` : ""}`
}

const SKIP_TITLE = "(skip)"

/** `Set <label>?` before a field that cannot be left empty in its own prompt. */
const gate = <A>(label: string, prompt: Prompt.Prompt<A>): Prompt.Prompt<Option.Option<A>> =>
  Prompt.Confirm({ message: `Set ${label}?`, initial: false }).pipe(
    Prompt.flatMap((set) => set ? prompt.pipe(Prompt.map(Option.some)) : Prompt.succeed(Option.none()))
  )

/**
 * The prompt for one field of a form: `Some(value)` when answered,
 * `None` when an optional field was skipped (see `FieldKind`).
 *
 * @since 0.1.0
 */
export const fieldPrompt = (
  name: string,
  schema: PrimitiveSchemaDefinition,
  required: boolean
): Prompt.Prompt<Option.Option<FieldValue>> => {
  const message = fieldLabel(name, schema, required)
  const kind = fieldKind(schema)
  switch (kind) {
    case "text":
    case "email":
    case "uri": {
      const s = schema as { readonly minLength?: number; readonly maxLength?: number; readonly default?: string }
      return Prompt.String({
        message,
        ...(s.default === undefined ? {} : { default: s.default }),
        validate: (value) => {
          if (value === "") return required ? Effect.fail("Required") : Effect.succeed(value)
          // lengths in UTF-16 code units, as the server's Effect Schema checks them
          const units = TypedText.hasAstral(value) ? " (UTF-16 code units: some characters count as 2)" : ""
          if (s.minLength !== undefined && value.length < s.minLength) {
            return Effect.fail(`At least ${s.minLength} character${s.minLength === 1 ? "" : "s"}${units}`)
          }
          if (s.maxLength !== undefined && value.length > s.maxLength) {
            return Effect.fail(`At most ${s.maxLength} characters${units}`)
          }
          if (kind === "email" && !EMAIL.test(value)) {
            return Effect.fail("Expected an email address, e.g. ada@example.com")
          }
          if (kind === "uri" && !canParseUrl(value)) return Effect.fail("Expected a URI, e.g. https://example.com/")
          return Effect.succeed(value)
        }
      }).pipe(Prompt.map((value) => value === "" ? Option.none() : Option.some(value)))
    }
    case "date":
    case "date-time": {
      // typed text, read strictly (internal/typedText.ts): never rolled over nor re-dated
      const withTime = kind === "date-time"
      const fallback = (schema as { readonly default?: string }).default
      const read = withTime ? TypedText.readDateTime : TypedText.readDate
      const now = new Date()
      const date: Prompt.Prompt<FieldValue> = Prompt.String({
        message,
        default: fallback ?? (withTime ? TypedText.formatLocalDateTime(now) : TypedText.formatLocalDate(now)),
        validate: (text) => check(read(text))
      })
      return required || fallback !== undefined
        ? date.pipe(Prompt.map(Option.some))
        : gate(clean(schema.title ?? name), date)
    }
    case "integer":
    case "number": {
      // typed text, read strictly: `2.5` in an integer field is refused, not read as 25
      const s = schema as { readonly minimum?: number; readonly maximum?: number; readonly default?: number }
      const read = kind === "integer" ? TypedText.readInteger : TypedText.readNumber
      const inBounds = (n: number): Effect.Effect<number, string> =>
        s.minimum !== undefined && n < s.minimum
          ? Effect.fail(`${n} must be greater than or equal to ${s.minimum}`)
          : s.maximum !== undefined && n > s.maximum
          ? Effect.fail(`${n} must be less than or equal to ${s.maximum}`)
          : Effect.succeed(n)
      const number: Prompt.Prompt<FieldValue> = Prompt.String({
        message,
        ...(s.default === undefined ? {} : { default: String(s.default) }),
        validate: (text) => check(read(text)).pipe(Effect.flatMap(inBounds), Effect.as(text.trim()))
      }).pipe(Prompt.map((text) => Number(text)))
      return required || s.default !== undefined
        ? number.pipe(Prompt.map(Option.some))
        : gate(clean(schema.title ?? name), number)
    }
    case "boolean": {
      const fallback = (schema as { readonly default?: boolean }).default
      if (required || fallback !== undefined) {
        return Prompt.Confirm({ message, initial: fallback ?? false }).pipe(Prompt.map((value) => Option.some(value)))
      }
      return Prompt.Select<Option.Option<FieldValue>>({
        message,
        choices: [
          { title: SKIP_TITLE, value: Option.none() },
          { title: "yes", value: Option.some(true) },
          { title: "no", value: Option.some(false) }
        ]
      })
    }
    case "select": {
      const fallback = (schema as { readonly default?: string }).default
      const choices = choicesOf(schema).map((choice) => ({
        title: choice.title,
        value: Option.some<FieldValue>(choice.value),
        ...(choice.title === choice.value ? {} : { description: clean(choice.value) }),
        ...(choice.value === fallback ? { selected: true } : {})
      }))
      const skip = { title: SKIP_TITLE, value: Option.none<FieldValue>() }
      return Prompt.Select({
        message,
        choices: required ? choices : fallback === undefined ? [skip, ...choices] : [...choices, skip]
      })
    }
    case "multi-select": {
      const s = schema as {
        readonly minItems?: number
        readonly maxItems?: number
        readonly default?: ReadonlyArray<string>
      }
      const fallback = new Set(s.default ?? [])
      const choices = choicesOf(schema).map((choice) => ({
        title: choice.title,
        value: choice.value,
        ...(choice.title === choice.value ? {} : { description: clean(choice.value) }),
        ...(fallback.has(choice.value) ? { selected: true } : {})
      }))
      const ask = (error: string | undefined): Prompt.Prompt<Option.Option<FieldValue>> =>
        Prompt.MultiSelect({
          message: error === undefined ? message : `${message} — ${error}`,
          choices,
          ...(required && s.minItems !== undefined ? { min: s.minItems } : {}),
          ...(s.maxItems === undefined ? {} : { max: s.maxItems })
        }).pipe(
          Prompt.flatMap((values): Prompt.Prompt<Option.Option<FieldValue>> => {
            if (values.length === 0 && !required) return Prompt.succeed(Option.none())
            // optional: none, or at least minItems
            if (s.minItems !== undefined && values.length < s.minItems) {
              return ask(`pick none or at least ${s.minItems}`)
            }
            return Prompt.succeed(Option.some(values))
          })
        )
      return ask(undefined)
    }
  }
}

/**
 * The prompts of a whole form, field by field in the order of
 * `requestedSchema.properties`; the answer is the `content` of an accepted
 * `ElicitResult` (skipped optional fields left out).
 *
 * @since 0.1.0
 */
export const formPrompt = (schema: RequestedSchema): Prompt.Prompt<Record<string, FieldValue>> => {
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties).reduce<Prompt.Prompt<Record<string, FieldValue>>>(
    (previous, [name, field]) =>
      previous.pipe(
        Prompt.flatMap((content) =>
          fieldPrompt(name, field, required.has(name)).pipe(
            Prompt.map((value) => Option.isSome(value) ? { ...content, [name]: value.value } : content)
          )
        )
      ),
    Prompt.succeed({})
  )
}
