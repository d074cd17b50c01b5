/**
 * Tool execution errors: what a tool's own typed failure becomes in its
 * `CallToolResult` (`isError: true`), so that the model reads what failed.
 *
 * By default the text is the error's `message`; a failure without one (a
 * `Schema.TaggedError` or `Data.TaggedError` with fields only, a plain
 * object, a string) is described by its `_tag` and its fields as JSON,
 * e.g. `NotFound {"id":42}`: never an empty text. Every such failure is
 * also logged (warning level, with the tool's name) and reported, as a
 * `Cause`, to the fiber's `ErrorReporter`s (`effect/ErrorReporter`, e.g. an
 * error tracker's; none by default).
 *
 * To choose the result yourself, give the tool an `onError` (see
 * `Tool.Options`): it receives the handler's failure and returns what any
 * handler may return (a string, content blocks, or a `CallToolResult`);
 * `isError: true` is set unless the result says otherwise.
 *
 * Gotchas: failures the protocol answers itself never reach `onError` or
 * this text: bad arguments (-32602), a missing client capability (-32021),
 * an `McpError` the handler fails with (its own JSON-RPC error), the round
 * limit. Whatever the text holds goes to the client: do not put secrets in
 * an error's fields.
 *
 * Source: MCP 2026-07-28, server/tools (error handling: tool execution errors).
 *
 * @since 0.1.0
 */

const MAX_TEXT = 2_000

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null

const NOT_FIELDS = new Set(["_tag", "message", "stack", "cause", "name"])

/** `JSON.stringify` that never throws (cycles, bigints): `undefined` when it cannot. */
const safeJson = (value: unknown): string | undefined => {
  try {
    return JSON.stringify(value, (_key, v) => typeof v === "bigint" ? v.toString() : v)
  } catch {
    return undefined
  }
}

const truncate = (text: string): string => text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`

/**
 * A one-paragraph description of a tool's failure, never empty: its
 * `message` when it has a non-empty one; else its `_tag` (or constructor
 * name) followed by its own fields as JSON (`NotFound {"id":42}`); a string
 * as itself; anything else as JSON or `String(error)`. At most 2,000
 * characters.
 *
 * Source: MCP 2026-07-28, server/tools (tool execution errors).
 *
 * @category formatting
 * @since 0.1.0
 */
export const describe = (error: unknown): string => {
  if (typeof error === "string") return truncate(error === "" ? "The tool failed" : error)
  if (!isRecord(error)) return truncate(error === undefined ? "The tool failed" : String(error))
  const message = error["message"]
  if (typeof message === "string" && message.trim() !== "") return truncate(message)
  const tag = typeof error["_tag"] === "string"
    ? error["_tag"]
    : error.constructor !== undefined && error.constructor !== Object && typeof error.constructor.name === "string"
    ? error.constructor.name
    : undefined
  const fields: Record<string, unknown> = {}
  for (const key of Object.keys(error)) {
    if (!NOT_FIELDS.has(key)) fields[key] = error[key]
  }
  const json = Object.keys(fields).length === 0 ? undefined : safeJson(fields)
  const text = [tag, json].filter((part) => part !== undefined && part !== "").join(" ")
  return truncate(text === "" ? (safeJson(error) ?? "The tool failed") : text)
}
