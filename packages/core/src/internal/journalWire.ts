/**
 * The journal as it travels sealed in a `requestState` (format `v2`): a
 * compact JSON form of `Journal.Journal`, and its exact decoder.
 *
 * ```text
 * { "n": round,                        integer >= 0
 *   "a"?: { key: [digest, content]     an accepted answer: { action: "accept", content }
 *         | [digest, response, 0] },   any other answer, verbatim
 *   "q"?: { key: digest },             the pending questions' digests
 *   "s"?: { name: encoded },           the steps
 *   "w"?: waited }                     integer >= 1
 * ```
 *
 * Empty records and `waited: 0` are left out. The long form spent about 30
 * bytes of JSON per answer on keys and on the `{"action":"accept","content":`
 * wrapper every accepted form answer repeats (40 bytes once base64url-encoded);
 * here an answer costs its key, its question digest (unchanged: 22 characters,
 * SHA-256/128) and its content. Nothing is compressed: compressing before
 * encrypting would let a client that chooses its answers learn, from the
 * state's length, something of the steps' results sealed beside them.
 *
 * Gotchas: an accepted answer comes back as `{ action, content }` in that key
 * order whatever its order on the wire (its decoders and digests do not look
 * at key order). Keys from the wire (`__proto__`, `toString`) stay plain keys:
 * the decoded records have no prototype. The decoder checks everything the
 * `Journal` schema checks, and refuses what this encoder never writes.
 */
import type * as Journal from "../Journal.ts"

type Answer = Journal.Journal["answers"][string]

const dictionary = <V>(): Record<string, V> => Object.create(null)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0

/** Whether `response` is exactly `{ action: "accept", content }` (two own keys, `content` present). */
const isPlainAccept = (response: unknown): response is { readonly action: "accept"; readonly content: unknown } => {
  if (!isRecord(response) || response.action !== "accept" || response.content === undefined) return false
  let keys = 0
  for (const key in response) {
    if (!Object.hasOwn(response, key)) return false
    if (key !== "action" && key !== "content") return false
    keys++
  }
  return keys === 2 && Object.getPrototypeOf(response) === Object.prototype
}

/** The compact form of `journal` (a JSON value; `JSON.stringify` it). */
export const encode = (journal: Journal.Journal): Record<string, unknown> => {
  const wire: Record<string, unknown> = { n: journal.round }
  const keys = Object.keys(journal.answers)
  if (keys.length > 0) {
    const answers: Record<string, unknown> = dictionary()
    for (const key of keys) {
      const answer = journal.answers[key]!
      answers[key] = isPlainAccept(answer.r) ? [answer.d, answer.r.content] : [answer.d, answer.r, 0]
    }
    wire.a = answers
  }
  if (Object.keys(journal.pending).length > 0) wire.q = journal.pending
  if (Object.keys(journal.steps).length > 0) wire.s = journal.steps
  if (journal.waited !== undefined && journal.waited > 0) wire.w = journal.waited
  return wire
}

/** The journal `value` (a parsed compact form) holds, or `undefined` when it is not one. */
export const decode = (value: unknown): Journal.Journal | undefined => {
  if (!isRecord(value)) return undefined
  let round: number | undefined
  let waited: number | undefined
  const answers = dictionary<Answer>()
  const pending = dictionary<string>()
  const steps = dictionary<unknown>()
  for (const field in value) {
    const v = value[field]
    switch (field) {
      case "n":
        if (!isCount(v)) return undefined
        round = v
        break
      case "w":
        if (!isCount(v) || v === 0) return undefined
        waited = v
        break
      case "a": {
        if (!isRecord(v)) return undefined
        for (const key in v) {
          const entry = v[key]
          if (!Array.isArray(entry) || typeof entry[0] !== "string") return undefined
          if (entry.length === 2) answers[key] = { d: entry[0], r: { action: "accept", content: entry[1] } }
          else if (entry.length === 3 && entry[2] === 0) answers[key] = { d: entry[0], r: entry[1] }
          else return undefined
        }
        break
      }
      case "q": {
        if (!isRecord(v)) return undefined
        for (const key in v) {
          const digest = v[key]
          if (typeof digest !== "string") return undefined
          pending[key] = digest
        }
        break
      }
      case "s": {
        if (!isRecord(v)) return undefined
        for (const key in v) steps[key] = v[key]
        break
      }
      default:
        return undefined
    }
  }
  if (round === undefined) return undefined
  return waited === undefined
    ? { v: 1, round, answers, steps, pending }
    : { v: 1, round, answers, steps, pending, waited }
}

/**
 * A payload already serialized: `json` is `JSON.stringify(value)`. The codec
 * of `RequestState` splices `json` into its plaintext instead of serializing
 * `value` again; any other codec serializes it through `toJSON`, to the same
 * JSON.
 */
export class EncodedJson {
  constructor(readonly value: unknown, readonly json: string) {}
  toJSON(): unknown {
    return this.value
  }
}
