/**
 * What a person types in a number or date field of a terminal form, read
 * strictly: the value sent is exactly what was typed, or the text is
 * refused with a message at the prompt. Never "corrected" (`effect/cli`'s
 * own `Prompt.Int` drops a typed `.` so `2.5` becomes `25`, `Prompt.Number`
 * rounds, and `Prompt.Date` rolls 2027-02-30 over to 2027-03-02 through the
 * `Date` setters; `new Date(y, m, d)` maps the years 0–99 to 19xx).
 *
 * - integers: `[+-]digits`, a safe integer; numbers: a decimal with an
 *   optional exponent, finite;
 * - dates: `YYYY-MM-DD`, a real calendar day of the years 0000–9999, checked
 *   with `ajv-formats`' full `date` format (as the server checks it);
 * - date-times: `YYYY-MM-DD HH:mm` in the local time zone, sent as RFC 3339
 *   with the local offset (`2026-08-01T10:30:00+02:00`: the wall time the
 *   person typed, every year 0000–9999 writable), or a full RFC 3339
 *   date-time, sent as typed (checked with the full `date-time` format).
 *
 * Gotcha: a local time that does not exist (skipped by a daylight saving
 * change) is refused rather than moved.
 *
 * Source: MCP 2026-07-28, client/elicitation ("Requested Schema": number,
 * integer, string formats date / date-time, JSON Schema 2020-12 formats).
 */
import { fullFormats } from "ajv-formats/dist/formats.js"

type FormatDefinition = RegExp | ((value: string) => boolean) | {
  readonly validate: RegExp | ((value: string) => boolean)
}

const checkOf = (definition: FormatDefinition): (value: string) => boolean => {
  const validate = typeof definition === "object" && "validate" in definition ? definition.validate : definition
  return validate instanceof RegExp ? (value) => validate.test(value) : validate
}

const isDate = checkOf(fullFormats.date as FormatDefinition)
const isDateTime = checkOf(fullFormats["date-time"] as FormatDefinition)

/** The value read from a typed text, or the message shown at the prompt. */
export type Read<A> = { readonly value: A } | { readonly error: string }

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** `YYYY-MM-DD` of a `Date` in local time, the year written with 4 digits (0000–9999). */
export const formatLocalDate = (date: Date): string =>
  `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`

/** `YYYY-MM-DD HH:mm` of a `Date` in local time (what the date-time prompt starts with). */
export const formatLocalDateTime = (date: Date): string =>
  `${formatLocalDate(date)} ${pad(date.getHours())}:${pad(date.getMinutes())}`

const INTEGER = /^[+-]?\d+$/
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/

/** An integer as typed: digits with an optional sign; `2.5`, `1e3`, `12abc` are refused. */
export const readInteger = (text: string): Read<number> => {
  const trimmed = text.trim()
  if (!INTEGER.test(trimmed)) {
    return { error: NUMBER.test(trimmed) ? "Expected a whole number (integer), e.g. 3" : "Expected an integer, e.g. 3" }
  }
  const value = Number(trimmed)
  return Number.isSafeInteger(value) ? { value } : { error: "Too large to be sent exactly" }
}

/** A number as typed: a decimal, optionally with an exponent (`2.5`, `-0.75`, `1e3`); finite. */
export const readNumber = (text: string): Read<number> => {
  const trimmed = text.trim()
  if (!NUMBER.test(trimmed)) return { error: "Expected a number, e.g. 2.5" }
  const value = Number(trimmed)
  return Number.isFinite(value) ? { value } : { error: "Too large for a number" }
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/

/** A calendar date `YYYY-MM-DD` (0000–9999), sent as typed; an impossible day is refused. */
export const readDate = (text: string): Read<string> => {
  const trimmed = text.trim()
  const day = DAY.exec(trimmed)
  if (day === null) return { error: "Expected a date written YYYY-MM-DD, e.g. 2026-08-01" }
  if (!isDate(trimmed)) return { error: `There is no day ${trimmed} in the calendar` }
  return { value: trimmed }
}

const LOCAL = /^(\d{4}-\d{2}-\d{2})[ Tt](\d{2}):(\d{2})$/

const offsetOf = (date: Date): string => {
  const minutes = -Math.round(date.getTimezoneOffset())
  if (minutes === 0) return "Z"
  const abs = Math.abs(minutes)
  return `${minutes < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

/**
 * A date and time: `YYYY-MM-DD HH:mm` in the local time zone (sent as
 * `YYYY-MM-DDTHH:mm:00±hh:mm`), or a full RFC 3339 date-time (sent as typed).
 */
export const readDateTime = (text: string): Read<string> => {
  const trimmed = text.trim()
  const local = LOCAL.exec(trimmed)
  if (local === null) {
    if (isDateTime(trimmed)) return { value: trimmed }
    return { error: "Expected a date and time written YYYY-MM-DD HH:mm, e.g. 2026-08-01 09:30" }
  }
  const day = readDate(local[1]!)
  if ("error" in day) return day
  const [year, month, date] = day.value.split("-").map(Number) as [number, number, number]
  const hours = Number(local[2])
  const minutes = Number(local[3])
  if (hours > 23 || minutes > 59) return { error: `There is no time ${local[2]}:${local[3]} in a day` }
  const at = new Date(0)
  at.setFullYear(year, month - 1, date)
  at.setHours(hours, minutes, 0, 0)
  if (at.getFullYear() !== year || at.getMonth() !== month - 1 || at.getDate() !== date || at.getHours() !== hours) {
    return { error: `${trimmed} does not exist in this time zone (a daylight saving change skips it)` }
  }
  return { value: `${day.value}T${local[2]}:${local[3]}:00${offsetOf(at)}` }
}

/** True when `text` holds a character outside the Basic Multilingual Plane (it counts as 2 UTF-16 code units). */
export const hasAstral = (text: string): boolean => /[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(text)
