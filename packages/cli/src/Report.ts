/**
 * Human-readable lines describing an MRTR conversation as it happens: the
 * input requests of a round (key, method, message), the answers sent back,
 * the size of the sealed `requestState`, and the final result. Shared by
 * the `mrtr` command (which writes them to stderr) and the demo.
 *
 * Pure functions from wire values to strings; colors are ANSI SGR codes,
 * only when asked for.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import type { McpClient, TaskDriver } from "@mrtr/client"
import { SafeText } from "@mrtr/protocol"
import type { InputRequest, InputResponse } from "@mrtr/protocol/Schema"

/**
 * Text styles; `plain` (no escapes) unless colors are enabled.
 *
 * @category models
 * @since 0.1.0
 */
export interface Style {
  readonly bold: (text: string) => string
  readonly dim: (text: string) => string
  readonly cyan: (text: string) => string
  readonly green: (text: string) => string
  readonly yellow: (text: string) => string
  readonly red: (text: string) => string
}

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`

/**
 * Styles with (`true`) or without (`false`) ANSI colors.
 *
 * @category formatting
 * @since 0.1.0
 */
export const style = (colors: boolean): Style =>
  colors
    ? {
      bold: sgr(1, 22),
      dim: sgr(2, 22),
      cyan: sgr(36, 39),
      green: sgr(32, 39),
      yellow: sgr(33, 39),
      red: sgr(31, 39)
    }
    : { bold: id, dim: id, cyan: id, green: id, yellow: id, red: id }

const id = (text: string) => text

/**
 * Whether a stream should get colors: a TTY, and `NO_COLOR` unset or empty.
 *
 * @category formatting
 * @since 0.1.0
 */
export const colorsFor = (stream: { readonly isTTY?: boolean | undefined }): boolean =>
  stream.isTTY === true && (process.env.NO_COLOR ?? "") === ""

/**
 * The size in bytes (UTF-8) of a `requestState` as it travels on the wire.
 *
 * @category formatting
 * @since 0.1.0
 */
export const byteSize = (text: string): number => Buffer.byteLength(text, "utf8")

/**
 * Server-provided text made safe to show at a terminal: on one line, every
 * control character (line breaks included, C0, DEL, C1), bidirectional
 * control, line separator and lone surrogate escaped visibly (`\n`,
 * `\u009b`, `\u202e`; see `SafeText.oneLine`), so it can neither pass for a
 * line of `mrtr`'s own nor send escape sequences. Everything the server
 * sends goes through it before display.
 *
 * @category formatting
 * @since 0.1.0
 */
export const clean = (text: string): string => SafeText.oneLine(text)

const truncate = (text: string, max: number): string => text.length <= max ? text : `${text.slice(0, max - 1)}…`

const quote = (text: string, max = 90) =>
  `"${truncate(clean(text.trim()).replace(/ {2,}/g, " "), max).replace(/"/g, "\\\"")}"`

/**
 * The text of sampling messages / results: text blocks joined, other blocks
 * as `[type]`.
 *
 * @category formatting
 * @since 0.1.0
 */
export const textOf = (content: unknown): string => {
  const blocks = Array.isArray(content) ? content : [content]
  return blocks
    .map((block) =>
      typeof block === "object" && block !== null && "type" in block
        ? block.type === "text" && "text" in block && typeof block.text === "string"
          ? block.text
          : `[${String(block.type)}]`
        : ""
    )
    .join(" ")
}

/**
 * One line for one input request: `method (mode)  "message"` (elicitation),
 * the last user message and `maxTokens` (sampling), or just `roots/list`.
 *
 * @category formatting
 * @since 0.1.0
 */
export const describeRequest = (request: InputRequest): string => {
  switch (request.method) {
    case "elicitation/create": {
      const params = request.params
      if (params.mode === "url") return `elicitation/create (url)  ${quote(params.message)}  ${clean(params.url)}`
      const fields = Object.keys(params.requestedSchema.properties).map(clean)
      return `elicitation/create (form: ${fields.join(", ")})  ${quote(params.message)}`
    }
    case "sampling/createMessage": {
      const last = request.params.messages[request.params.messages.length - 1]
      return `sampling/createMessage  ${
        quote(last === undefined ? "" : textOf(last.content))
      } (maxTokens ${request.params.maxTokens})`
    }
    case "roots/list":
      return "roots/list"
  }
}

/**
 * One line for one answer, read by the kind of question it answers:
 * `accept {content}` / `decline` / `cancel`, the sampled text and model, or
 * the root URIs.
 *
 * @category formatting
 * @since 0.1.0
 */
export const describeResponse = (request: InputRequest | undefined, response: InputResponse): string => {
  const value = response as Record<string, unknown>
  if (request?.method === "sampling/createMessage" || ("role" in value && "content" in value)) {
    return `${quote(textOf(value.content))} (model ${clean(String(value.model))})`
  }
  if (request?.method === "roots/list" || Array.isArray(value.roots)) {
    const roots = Array.isArray(value.roots) ? value.roots as ReadonlyArray<{ readonly uri?: unknown }> : []
    return roots.length === 0 ? "no roots" : roots.map((root) => clean(String(root.uri))).join(", ")
  }
  const action = String(value.action)
  return value.content === undefined
    ? action
    : `${clean(action)} ${truncate(SafeText.json(JSON.stringify(value.content)), 160)}`
}

const pad = (text: string, width: number) => text.length >= width ? text : text + " ".repeat(width - text.length)

/**
 * The lines describing one `input_required` round (from
 * `McpClient.CallOptions.onRound`):
 *
 * ```text
 * round 1  ← input_required: 1 input request, requestState 312 bytes
 *            details  elicitation/create (form: traveller, email)  "Who is travelling?"
 *          → answered
 *            details  accept {"traveller":"Ada",…}
 *          ↻ retrying tools/call plan_trip with the answers and the sealed requestState
 * ```
 *
 * @category formatting
 * @since 0.1.0
 */
export const roundLines = (round: McpClient.Round, s: Style = style(false)): ReadonlyArray<string> => {
  const keys = Object.keys(round.inputRequests)
  const width = Math.max(0, ...keys.map((key) => key.length)) + 2
  const state = round.requestState === undefined
    ? "no requestState"
    : `requestState ${byteSize(round.requestState)} bytes`
  const lines: Array<string> = []
  const label = pad(`round ${round.round}`, 9)
  lines.push(
    `${s.bold(label)}${s.yellow("← input_required")}: ${keys.length} input request${
      keys.length === 1 ? "" : "s"
    }, ${state}`
  )
  for (const key of keys) {
    lines.push(`           ${s.cyan(pad(clean(key), width))}${describeRequest(round.inputRequests[key]!)}`)
  }
  const responses = round.inputResponses ?? {}
  if (keys.length > 0) {
    lines.push(`         ${s.green("→ answered")}`)
    for (const key of Object.keys(responses)) {
      lines.push(
        `           ${s.cyan(pad(clean(key), width))}${describeResponse(round.inputRequests[key], responses[key]!)}`
      )
    }
  }
  const carrying = [
    ...(keys.length > 0 ? ["the answers"] : []),
    ...(round.requestState === undefined ? [] : ["the sealed requestState echoed byte for byte"])
  ]
  lines.push(
    `         ${
      s.dim(
        `↻ retrying ${round.method} ${clean(round.target)}${
          carrying.length > 0 ? ` with ${carrying.join(" and ")}` : ""
        }`
      )
    }`
  )
  return lines
}

/**
 * The stderr line for a status change of the task a `tools/call` became
 * (Tasks extension; `McpClient.CallOptions.onTaskStatus`):
 *
 * ```text
 * task 0b6e…  working
 * task 0b6e…  input_required  waiting for confirm, roots
 * task 0b6e…  completed  "All done"
 * ```
 *
 * The task id is shortened to 8 characters; everything quoted from the
 * server is escaped (`clean`).
 *
 * @category formatting
 * @since 0.1.0
 */
export const taskLine = (change: TaskDriver.TaskStatusChange, s: Style = style(false)): string => {
  const id = change.taskId.length > 9 ? `${change.taskId.slice(0, 8)}…` : change.taskId
  const colour = change.status === "completed"
    ? s.green
    : change.status === "failed" || change.status === "cancelled"
    ? s.red
    : s.yellow
  const waiting = change.waitingFor === undefined || change.waitingFor.length === 0
    ? ""
    : `  waiting for ${change.waitingFor.map((key) => clean(key)).join(", ")}`
  const message = change.statusMessage === undefined ? "" : `  "${clean(change.statusMessage)}"`
  return `${s.bold(`task ${clean(id)}`)}  ${colour(change.status)}${waiting}${message}`
}

/**
 * The lines describing one request a 2025-11-25 server sent in flight, once
 * answered (from `McpClient.CallOptions.onServerRequest`):
 *
 * ```text
 * in flight ← elicitation-1  elicitation/create (form: name)  "Your name?"
 *           → elicitation-1  accept {"name":"Ada"}
 * ```
 *
 * @category formatting
 * @since 0.1.0
 */
export const serverRequestLines = (
  request: McpClient.ServerRequest,
  s: Style = style(false)
): ReadonlyArray<string> => {
  const key = clean(request.key)
  return [
    `${s.bold("in flight")} ${s.yellow("←")} ${s.cyan(key)}  ${describeRequest(request.request)}`,
    `          ${s.green("→")} ${s.cyan(key)}  ${describeResponse(request.request, request.response)}`
  ]
}
