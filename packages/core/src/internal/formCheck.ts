/**
 * Checks an accepted form answer (`ElicitResult.content`) against the
 * `requestedSchema` the person was shown, and says in plain words what is
 * wrong with it: the reason shown when the form is asked again.
 *
 * The formats (email, uri, date, date-time) are those of JSON Schema 2020-12
 * as `ajv-formats` checks them (`fullFormats`: RFC 3339 dates and times with
 * real calendar and offset ranges, RFC 3986 URIs, ASCII addresses): a
 * well-kept validator rather than hand-written patterns. Lengths count
 * UTF-16 code units, as the Effect Schema decoder behind the form does
 * (`isMinLength` / `isMaxLength`), not JSON Schema's code points; a reason
 * about the length of a text with characters outside the BMP says so.
 * Gotcha: the reasons never quote the answer (it may hold anything, a lone
 * surrogate included); they name the field and the rule.
 * Source: MCP 2026-07-28, client/elicitation ("Requested Schema").
 */
import type { PrimitiveSchemaDefinition } from "@mrtr/protocol/Schema"
import { fullFormats } from "ajv-formats/dist/formats.js"

type FormatDefinition = RegExp | ((value: string) => boolean) | {
  readonly validate: RegExp | ((value: string) => boolean)
}

const checkOf = (definition: FormatDefinition): (value: string) => boolean => {
  const validate = typeof definition === "object" && "validate" in definition ? definition.validate : definition
  return validate instanceof RegExp ? (value) => validate.test(value) : validate
}

/** The string formats of the form subset, each with its check and how to say it. */
export const FORMATS: Readonly<Record<string, { readonly check: (value: string) => boolean; readonly words: string }>> =
  {
    email: {
      check: checkOf(fullFormats.email as FormatDefinition),
      words: "an email address (such as name@example.com)"
    },
    uri: {
      check: checkOf(fullFormats.uri as FormatDefinition),
      words: "an absolute URI (such as https://example.com/page)"
    },
    date: { check: checkOf(fullFormats.date as FormatDefinition), words: "a calendar date written YYYY-MM-DD" },
    "date-time": {
      check: checkOf(fullFormats["date-time"] as FormatDefinition),
      words: "a date and time such as 2026-07-28T09:30:00Z"
    }
  }

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

const astral = /[\ud800-\udbff][\udc00-\udfff]/

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

const choicesOf = (field: PrimitiveSchemaDefinition): ReadonlyArray<string> | undefined => {
  const f = field as {
    readonly enum?: ReadonlyArray<string>
    readonly oneOf?: ReadonlyArray<{ readonly const: string }>
  }
  return f.enum ?? f.oneOf?.map((o) => o.const)
}

const itemChoicesOf = (field: PrimitiveSchemaDefinition): ReadonlyArray<string> => {
  const items = (field as {
    readonly items?: {
      readonly enum?: ReadonlyArray<string>
      readonly anyOf?: ReadonlyArray<{ readonly const: string }>
    }
  }).items
  return items?.enum ?? items?.anyOf?.map((o) => o.const) ?? []
}

/** What is wrong with `value` as the answer of `field`, or `undefined` when it fits. */
const fieldProblem = (field: PrimitiveSchemaDefinition, value: unknown): string | undefined => {
  const f = field as {
    readonly type?: string
    readonly format?: string
    readonly minLength?: number
    readonly maxLength?: number
    readonly minimum?: number
    readonly maximum?: number
    readonly minItems?: number
    readonly maxItems?: number
  }
  if (typeof value === "string" && loneSurrogate.test(value)) return "holds text that is not valid Unicode"
  switch (f.type) {
    case "string": {
      if (typeof value !== "string") return "must be text"
      const choices = choicesOf(field)
      if (choices !== undefined) {
        return choices.includes(value) ? undefined : `must be one of: ${choices.join(", ")}`
      }
      // UTF-16 code units, as the decoder counts; said so when it differs from code points
      const units = astral.test(value) ? " (counted in UTF-16 code units: some characters count as 2)" : ""
      if (f.minLength !== undefined && value.length < f.minLength) {
        return `must be at least ${plural(f.minLength, "character", "characters")} long${units}`
      }
      if (f.maxLength !== undefined && value.length > f.maxLength) {
        return `must be at most ${plural(f.maxLength, "character", "characters")} long${units}`
      }
      const format = f.format === undefined ? undefined : FORMATS[f.format]
      if (format !== undefined && !format.check(value)) return `must be ${format.words}`
      return undefined
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number"
      if (f.type === "integer" && !Number.isInteger(value)) return "must be a whole number"
      if (f.minimum !== undefined && value < f.minimum) return `must be at least ${f.minimum}`
      if (f.maximum !== undefined && value > f.maximum) return `must be at most ${f.maximum}`
      return undefined
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be yes or no (true or false)"
    case "array": {
      const choices = itemChoicesOf(field)
      if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
        return `must be a list of choices among: ${choices.join(", ")}`
      }
      const unknown = value.find((item) => !choices.includes(item))
      if (unknown !== undefined) return `may only hold choices among: ${choices.join(", ")}`
      if (f.minItems !== undefined && value.length < f.minItems) {
        return `needs at least ${plural(f.minItems, "choice", "choices")}`
      }
      if (f.maxItems !== undefined && value.length > f.maxItems) {
        return `allows at most ${plural(f.maxItems, "choice", "choices")}`
      }
      return undefined
    }
    default:
      return undefined
  }
}

/** The form fields an answer is checked against (a `requestedSchema`'s own shape). */
export interface CheckedForm {
  readonly properties: Readonly<Record<string, PrimitiveSchemaDefinition>>
  readonly required?: ReadonlyArray<string>
}

/**
 * Every field of `content` that breaks the form, as `"name" <rule>` phrases
 * in the form's field order (required fields first missing, then wrong
 * values); empty when the answer fits. A `content` that is not an object
 * counts as one without fields.
 */
export const problems = (form: CheckedForm, content: unknown): ReadonlyArray<string> => {
  const answer = typeof content === "object" && content !== null && !Array.isArray(content)
    ? content as Record<string, unknown>
    : {}
  const required = new Set(form.required ?? [])
  const found: Array<string> = []
  for (const [name, field] of Object.entries(form.properties)) {
    const label = `"${(field as { readonly title?: string }).title ?? name}"`
    if (!Object.hasOwn(answer, name) || answer[name] === undefined) {
      if (required.has(name)) found.push(`${label} is required`)
      continue
    }
    const problem = fieldProblem(field, answer[name])
    if (problem !== undefined) found.push(`${label} ${problem}`)
  }
  return found
}

/** True when every string field with a `format` holds a value of that format (other checks aside). */
export const formatsHold = (form: CheckedForm, content: unknown): boolean => {
  if (typeof content !== "object" || content === null) return true
  for (const [name, field] of Object.entries(form.properties)) {
    const format = (field as { readonly format?: unknown }).format
    if (typeof format !== "string" || !Object.hasOwn(content, name)) continue
    const value = (content as Record<string, unknown>)[name]
    const known = FORMATS[format]
    if (typeof value === "string" && known !== undefined && !known.check(value)) return false
  }
  return true
}
