/**
 * The decoder of `ElicitResult` (a client's answer to an elicitation) that
 * the engine runs on every answer, replayed or new, on every round: an exact
 * check of the common case (an `action` of the three; `content` absent or a
 * plain record of elicitation values: strings, finite numbers, booleans,
 * string arrays) that builds what the schema's decoder builds
 * (`{ action, content? }`, the record copied), and the schema's decoder itself
 * for everything else, so both always agree (the test compares them).
 *
 * Gotcha: the fast path reads only own keys; anything unusual (a prototype
 * other than `Object.prototype` or none, a `__proto__` key, a non-finite
 * number, an array hole) goes to the schema.
 */
import { ElicitResult, type ElicitValue } from "@mrtr/protocol/Schema"
import { Option, Schema } from "effect"

const decodeWithSchema = Schema.decodeUnknownOption(ElicitResult)

const isElicitValue = (value: unknown): boolean => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true
    case "number":
      return Number.isFinite(value)
    default: {
      if (!Array.isArray(value)) return false
      for (let i = 0; i < value.length; i++) if (typeof value[i] !== "string") return false
      return true
    }
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** `response` decoded as an `ElicitResult`, `None` when it is not one. */
export const decode = (response: unknown): Option.Option<ElicitResult> => {
  if (!isPlainObject(response)) return decodeWithSchema(response)
  const action = response.action
  if (action !== "accept" && action !== "decline" && action !== "cancel") return decodeWithSchema(response)
  if (!Object.hasOwn(response, "content")) return Option.some({ action })
  const content = response.content
  if (!isPlainObject(content)) return decodeWithSchema(response)
  const copy: Record<string, ElicitValue> = {}
  for (const key in content) {
    if (!Object.hasOwn(content, key)) continue
    const value = content[key]
    if (key === "__proto__" || !isElicitValue(value)) return decodeWithSchema(response)
    copy[key] = value as ElicitValue
  }
  return Option.some({ action, content: copy })
}

/** The schema's decoder alone (what `decode` must agree with). */
export const decodeSchema = decodeWithSchema
