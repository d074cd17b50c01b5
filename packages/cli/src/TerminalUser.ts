/**
 * `TerminalUser`: the person at the terminal answers the server's input
 * requests. Layers providing the client's `ElicitationHandler`,
 * `SamplingHandler` and `RootsHandler`, built on `effect/cli`'s `Prompt`:
 *
 * - form-mode elicitation: the message, then "fill in / decline / cancel",
 *   then one prompt per field of `requestedSchema` (see `fieldPrompt` for
 *   the mapping); Esc or Ctrl+C answers `cancel`;
 * - URL-mode elicitation: the message and the URL, then "open / decline /
 *   cancel" (accepting opens the URL in the browser, best effort); when the
 *   server asks the same URL again (its page not completed yet), a wait with
 *   backoff, `r` to retry now, `c` to cancel (`urlWait`);
 * - sampling: the conversation the server wants completed, then the person
 *   types the model's reply (or a fixed `samplingReply` answers it);
 * - roots: a fixed list (by default the working directory).
 *
 * Prompts and notes go to the `Terminal` in context; `environment` provides
 * one that writes to **stderr** (Node's own writes to stdout, which the
 * `mrtr` command keeps for the JSON result).
 *
 * Source: MCP 2026-07-28, client/elicitation (form and URL modes, the
 * requested schema's primitive types), client/sampling, client/roots,
 * basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Duration, Effect, Layer, Option, Queue, Semaphore, Terminal } from "effect"
import { Prompt } from "effect/cli"
import { spawn } from "node:child_process"
import { basename } from "node:path"
import { pathToFileURL } from "node:url"
import { ElicitationHandler, Errors, type InputContext, Refusal, RootsHandler, SamplingHandler } from "@mrtr/client"
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  PrimitiveSchemaDefinition,
  Root
} from "@mrtr/protocol"
import * as TypedText from "./internal/typedText.ts"
import { clean, colorsFor, type Style, style, textOf } from "./Report.ts"

type Context = InputContext.InputContext

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
export const choicesOf = (schema: PrimitiveSchemaDefinition): ReadonlyArray<{ readonly title: string; readonly value: string }> => {
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
          if (kind === "email" && !EMAIL.test(value)) return Effect.fail("Expected an email address, e.g. ada@example.com")
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
      return required || fallback !== undefined ? date.pipe(Prompt.map(Option.some)) : gate(clean(schema.title ?? name), date)
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
      return required || s.default !== undefined ? number.pipe(Prompt.map(Option.some)) : gate(clean(schema.title ?? name), number)
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
      const s = schema as { readonly minItems?: number; readonly maxItems?: number; readonly default?: ReadonlyArray<string> }
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

// -----------------------------------------------------------------------------
// Handlers
// -----------------------------------------------------------------------------

/**
 * One conversation with the person at a time: the client answers the input
 * requests of a round concurrently, and two prompts drawn at once would
 * garble the terminal. (One terminal per process, so one lock.)
 */
const terminalLock = Semaphore.makeUnsafe(1)

const exclusive = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Semaphore.withPermit(terminalLock, effect)

const styled: Effect.Effect<Style> = Effect.map(Prompt.Theme, (theme) => style(theme.colors))

const display = (text: string): Effect.Effect<void, never, Terminal.Terminal> =>
  Effect.gen(function*() {
    const terminal = yield* Terminal.Terminal
    yield* Effect.orDie(terminal.display(text))
  })

/** The heading of a question; `message` must already be `clean`ed where it comes from the server. */
const header = (context: Context, kind: string, message: string) =>
  Effect.flatMap(styled, (s) =>
    display(
      `\n${s.bold(`┌ round ${context.round}`)} ${s.dim("·")} ${s.cyan(clean(context.key))} ${s.dim(`· ${kind} · ${context.method} ${clean(context.target)}`)}\n` +
        message.split("\n").map((line) => `${s.bold("│")} ${line}\n`).join("")
    ))

const note = (text: string) => Effect.flatMap(styled, (s) => display(`${s.dim(text)}\n`))

/**
 * How an `@mrtr/core` server starts the `message` of a form asked again
 * after a refused answer (`Elicitation.refusedPrefix`): the reason, a blank
 * line, then the form's own message.
 *
 * @since 0.1.0
 */
export const refusedPrefix = Refusal.refusedPrefix

/**
 * Splits a form's `message` into the reason a previous answer was refused
 * (when the message starts with {@link refusedPrefix}; its first paragraph)
 * and the form's own message (`@mrtr/client` `Refusal.split`).
 *
 * @since 0.1.0
 */
export const splitRefusal = Refusal.split

/**
 * Answers a form-mode elicitation at the terminal: shows the message (and,
 * above the form, why the previous answer was refused, when it was), asks
 * whether to fill in the form, decline or cancel, then asks every field
 * (`formPrompt`). Esc / Ctrl+C at any point answers `cancel`. One question
 * at a time: questions of the same round wait for the terminal in turn.
 *
 * @since 0.1.0
 */
export const form = (
  params: ElicitRequestFormParams,
  context: Context
): Effect.Effect<ElicitResult, never, Prompt.Environment> =>
  Effect.gen(function*() {
    const { message, reason } = splitRefusal(params.message)
    yield* header(context, "form", clean(message))
    if (reason !== undefined) {
      const s = yield* styled
      yield* display(`${s.bold("│")} ${s.yellow(`⚠ ${clean(reason)}`)}\n`)
    }
    const action = yield* Prompt.Select<ElicitResult["action"]>({
      message: "Answer?",
      choices: [
        { title: "Fill in the form", value: "accept", description: "accept: send the answers" },
        { title: "Decline", value: "decline", description: "decline: refuse explicitly" },
        { title: "Cancel", value: "cancel", description: "cancel: dismiss without choosing" }
      ]
    })
    if (action !== "accept") return { action }
    const content = yield* formPrompt(params.requestedSchema)
    return ElicitationHandler.accept(content as NonNullable<ElicitResult["content"]>)
  }).pipe(
    Effect.catchTag("QuitError", () => note("\n  (cancelled)").pipe(Effect.as(ElicitationHandler.cancel))),
    exclusive
  )

/**
 * True for the URLs the terminal user may open: absolute `http:` / `https:`
 * URLs. Anything else (`javascript:`, `file:`, application schemes, relative
 * or malformed URLs) is shown but never opened.
 *
 * @since 0.1.0
 */
export const isOpenable = (url: string): boolean => {
  try {
    const parsed = new URL(url)
    return parsed.protocol === "http:" || parsed.protocol === "https:"
  } catch {
    return false
  }
}

/**
 * Opens an `http:` / `https:` URL in the default browser, best effort
 * (`open` on macOS, the URL protocol handler on Windows, without a shell;
 * `xdg-open` elsewhere); does nothing for other URLs; never fails.
 *
 * @since 0.1.0
 */
export const openInBrowser = (url: string): Effect.Effect<void> =>
  Effect.sync(() => {
    if (!isOpenable(url)) return
    const href = new URL(url).href
    const [command, args] = process.platform === "darwin"
      ? ["open", [href]] as const
      : process.platform === "win32"
      ? ["rundll32", ["url.dll,FileProtocolHandler", href]] as const
      : ["xdg-open", [href]] as const
    try {
      const child = spawn(command, [...args], { detached: true, stdio: "ignore" })
      child.on("error", () => {})
      child.unref()
    } catch {
      // best effort
    }
  })

/**
 * Answers a URL-mode elicitation at the terminal: shows the message and the
 * URL and asks before opening it: open (`accept`, then `openUrl`), decline
 * or cancel. Esc / Ctrl+C answers `cancel`.
 *
 * @since 0.1.0
 */
export const url = (openUrl: (url: string) => Effect.Effect<void> = openInBrowser) =>
(
  params: ElicitRequestURLParams,
  context: Context
): Effect.Effect<ElicitResult, never, Prompt.Environment> =>
  Effect.gen(function*() {
    const s = yield* styled
    const openable = isOpenable(params.url)
    yield* header(context, "url", `${clean(params.message)}\n${s.bold("URL:")} ${s.cyan(clean(params.url))}`)
    if (!openable) yield* note("  This is not an http(s) URL: it will not be opened.")
    const action = yield* Prompt.Select<ElicitResult["action"]>({
      message: openable ? "Open this URL?" : "Answer?",
      choices: [
        ...(openable
          ? [{ title: "Open it", value: "accept" as const, description: "accept: open it in the browser and continue" }]
          : []),
        { title: "Decline", value: "decline", description: "decline: refuse explicitly" },
        { title: "Cancel", value: "cancel", description: "cancel: dismiss without choosing" }
      ]
    })
    if (action === "accept") {
      yield* openUrl(params.url)
      yield* note(`  opening ${clean(params.url)} (if no browser opens, visit it yourself)`)
    }
    return { action }
  }).pipe(
    Effect.catchTag("QuitError", () => note("\n  (cancelled)").pipe(Effect.as(ElicitationHandler.cancel))),
    exclusive
  )

/**
 * Waits for the user to complete a page in the browser, at the terminal: a
 * URL-mode elicitation they accepted came back unchanged (the server has not
 * seen the interaction completed yet, e.g. a secure elicitation's page). Shows
 * the wait and retries after `ElicitationHandler.urlBackoff` of the attempt
 * (1, 2, 4 ... 30 s), or at once on `r` (or Enter); `c`, Esc or Ctrl+C
 * answers `cancel`. Other keys are ignored.
 *
 * @since 0.1.0
 */
export const urlWait = (
  params: ElicitRequestURLParams,
  context: ElicitationHandler.UrlWaitContext
): Effect.Effect<ElicitResult, never, Prompt.Environment> =>
  Effect.gen(function*() {
    const s = yield* styled
    const wait = ElicitationHandler.urlBackoff(context.attempt)
    yield* display(
      `${s.dim(`  Waiting for you to complete the page at ${clean(params.url)}`)}\n` +
        `${s.dim(`  retrying in ${Duration.toSeconds(wait)} s · `)}${s.bold("r")}${s.dim(" retry now · ")}${
          s.bold("c")
        }${s.dim(" cancel")}\n`
    )
    const terminal = yield* Terminal.Terminal
    const key = Effect.scoped(Effect.flatMap(terminal.readInput, (queue) => {
      const next: Effect.Effect<"retry" | "cancel"> = Queue.take(queue).pipe(
        Effect.flatMap((input): Effect.Effect<"retry" | "cancel"> => {
          const name = input.key.name.toLowerCase()
          if (name === "r" || name === "return") return Effect.succeed("retry")
          if (name === "c" || name === "escape") return Effect.succeed("cancel")
          return Effect.suspend(() => next)
        }),
        // the input ended: a quit key (Esc, Ctrl+C, Ctrl+D)
        Effect.catch(() => Effect.succeed("cancel" as const))
      )
      return next
    }))
    const outcome = yield* Effect.raceFirst(Effect.as(Effect.sleep(wait), "retry" as const), key)
    if (outcome === "cancel") {
      yield* note("  (cancelled)")
      return ElicitationHandler.cancel
    }
    return ElicitationHandler.accept()
  }).pipe(exclusive)

/**
 * A sampled text reply: `{ role: "assistant", content: { type: "text", text }, model, stopReason: "endTurn" }`.
 *
 * @since 0.1.0
 */
export const textReply = (text: string, model: string): CreateMessageResult => ({
  role: "assistant",
  content: { type: "text", text },
  model,
  stopReason: "endTurn"
})

/**
 * Answers a sampling request at the terminal: shows the system prompt and
 * the messages, and the person types the model's reply (`model: "human"`).
 * Esc / Ctrl+C fails the call (`InputHandlerError`): a sampling request has
 * no "decline".
 *
 * @since 0.1.0
 */
export const createMessage = (
  params: CreateMessageRequestParams,
  context: Context
): Effect.Effect<CreateMessageResult, Errors.InputHandlerError, Prompt.Environment> =>
  Effect.gen(function*() {
    const s = yield* styled
    const lines = [
      s.dim(`The server asks a model to reply (at most ${params.maxTokens} tokens); you play the model.`),
      ...(params.systemPrompt === undefined ? [] : [`${s.bold("system:")} ${clean(params.systemPrompt)}`]),
      ...params.messages.map((message) => `${s.bold(`${clean(message.role)}:`)} ${clean(textOf(message.content))}`)
    ]
    yield* header(context, "sampling", lines.join("\n"))
    const text = yield* Prompt.String({
      message: "Reply as the model",
      validate: (value) => value.trim() === "" ? Effect.fail("Type a reply (Esc aborts the call)") : Effect.succeed(value)
    })
    return textReply(text, "human")
  }).pipe(
    Effect.catchTag("QuitError", () =>
      Effect.fail(
        new Errors.InputHandlerError({ kind: "sampling", key: context.key, reason: "the sampling request was refused at the terminal" })
      )),
    exclusive
  )

/**
 * The working directory as a root: `{ uri: "file:///…", name: <its basename> }`.
 *
 * @since 0.1.0
 */
export const workingDirectory = (): Root => {
  const cwd = process.cwd()
  return { uri: pathToFileURL(cwd).href, name: basename(cwd) || cwd }
}

/**
 * Options of the terminal user.
 *
 * - `samplingReply`: answer every sampling request with this text (model
 *   `"mrtr"`) instead of asking.
 * - `roots`: the roots to answer `roots/list` with (default: the working
 *   directory).
 * - `openUrl`: how an accepted URL is opened (default `openInBrowser`).
 *
 * @since 0.1.0
 */
export interface Options {
  readonly samplingReply?: string | undefined
  readonly roots?: ReadonlyArray<Root> | undefined
  readonly openUrl?: ((url: string) => Effect.Effect<void>) | undefined
}

/**
 * The terminal user's handlers: `ElicitationHandler` (form and URL modes),
 * `SamplingHandler` and `RootsHandler`. Requires the prompts' environment
 * (`Terminal`, `FileSystem`, `Path`): provide `environment` for the real
 * terminal on stderr, or a scripted `Terminal` in tests.
 *
 * @since 0.1.0
 */
export const layer = (
  options: Options = {}
): Layer.Layer<
  ElicitationHandler.ElicitationHandler | SamplingHandler.SamplingHandler | RootsHandler.RootsHandler,
  never,
  Prompt.Environment
> => {
  const reply = options.samplingReply
  return Layer.mergeAll(
    ElicitationHandler.layer({ form, url: url(options.openUrl), urlWait }),
    SamplingHandler.layer({
      createMessage: reply === undefined ? createMessage : () => Effect.succeed(textReply(reply, "mrtr"))
    }),
    RootsHandler.layerStatic(options.roots ?? [workingDirectory()])
  )
}

/**
 * A `Terminal` like Node's (`NodeTerminal.make`: key input from stdin,
 * raw mode while reading keys), except that `display` writes to
 * **stderr**, and `columns` / `rows` are stderr's.
 *
 * @since 0.1.0
 */
export const makeStderrTerminal = Effect.gen(function*() {
  const terminal = yield* NodeTerminal.make()
  const stderr = process.stderr
  return Terminal.make({
    ...terminal,
    columns: Effect.sync(() => stderr.columns ?? 0),
    rows: Effect.sync(() => stderr.rows ?? 0),
    display: (text) =>
      Effect.callback<void>((resume) => {
        stderr.write(text, () => resume(Effect.void))
      })
  })
})

/**
 * The prompts' environment on the real terminal: the stderr `Terminal`,
 * Node's `FileSystem` and `Path`, and a prompt theme colored when stderr is
 * a TTY (and `NO_COLOR` is unset).
 *
 * @since 0.1.0
 */
export const environment: Layer.Layer<Prompt.Environment> = Layer.mergeAll(
  Layer.effect(Terminal.Terminal, makeStderrTerminal),
  NodeFileSystem.layer,
  NodePath.layer,
  Layer.sync(Prompt.Theme, () => Prompt.makeTheme({ colors: colorsFor(process.stderr) }))
) as Layer.Layer<Prompt.Environment>

/**
 * `layer` on the real terminal (`environment`).
 *
 * @since 0.1.0
 */
export const layerNode = (options: Options = {}) => layer(options).pipe(Layer.provide(environment))

/**
 * Whether a person can be asked: stdin and stderr are both TTYs.
 *
 * @since 0.1.0
 */
export const isInteractive = (): boolean => process.stdin.isTTY === true && process.stderr.isTTY === true
