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
import { ElicitationHandler, Errors, type InputContext, Refusal, RootsHandler, SamplingHandler } from "@mrtr/client"
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  Root
} from "@mrtr/protocol/Schema"
import { Duration, Effect, Layer, Queue, Semaphore, Terminal } from "effect"
import { Prompt } from "effect/cli"
import { spawn } from "node:child_process"
import { basename } from "node:path"
import { pathToFileURL } from "node:url"
import { formPrompt } from "./internal/formPrompt.ts"
import { clean, colorsFor, type Style, style, textOf } from "./Report.ts"

type Context = InputContext.InputContext

export {
  /**
   * @category models
   * @since 0.1.0
   */
  choicesOf,
  /**
   * @category models
   * @since 0.1.0
   */
  type FieldKind,
  /**
   * @category models
   * @since 0.1.0
   */
  fieldKind,
  /**
   * @category models
   * @since 0.1.0
   */
  fieldLabel,
  /**
   * @category models
   * @since 0.1.0
   */
  fieldPrompt,
  /**
   * @category models
   * @since 0.1.0
   */
  type FieldValue,
  /**
   * @category models
   * @since 0.1.0
   */
  formatDate,
  /**
   * @category models
   * @since 0.1.0
   */
  formPrompt,
  /**
   * @category models
   * @since 0.1.0
   */
  type RequestedSchema
} from "./internal/formPrompt.ts"

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
      `\n${s.bold(`┌ round ${context.round}`)} ${s.dim("·")} ${s.cyan(clean(context.key))} ${
        s.dim(`· ${kind} · ${context.method} ${clean(context.target)}`)
      }\n` +
        message.split("\n").map((line) => `${s.bold("│")} ${line}\n`).join("")
    ))

const note = (text: string) => Effect.flatMap(styled, (s) => display(`${s.dim(text)}\n`))

/**
 * How an `@mrtr/core` server starts the `message` of a form asked again
 * after a refused answer (`Elicitation.refusedPrefix`): the reason, a blank
 * line, then the form's own message.
 *
 * @category refusals
 * @since 0.1.0
 */
export const refusedPrefix = Refusal.refusedPrefix

/**
 * Splits a form's `message` into the reason a previous answer was refused
 * (when the message starts with {@link refusedPrefix}; its first paragraph)
 * and the form's own message (`@mrtr/client` `Refusal.split`).
 *
 * @category refusals
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
 * @category handlers
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
 * @category guards
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
 * @category handlers
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
 * @category handlers
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
 * @category handlers
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
 * @category constructors
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
 * @category constructors
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
      validate: (value) =>
        value.trim() === "" ? Effect.fail("Type a reply (Esc aborts the call)") : Effect.succeed(value)
    })
    return textReply(text, "human")
  }).pipe(
    Effect.catchTag("QuitError", () =>
      Effect.fail(
        new Errors.InputHandlerError({
          kind: "sampling",
          key: context.key,
          reason: "the sampling request was refused at the terminal"
        })
      )),
    exclusive
  )

/**
 * The working directory as a root: `{ uri: "file:///…", name: <its basename> }`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const workingDirectory = (): Root => {
  const cwd = process.cwd()
  return { uri: pathToFileURL(cwd).href, name: basename(cwd) || cwd }
}

/**
 * Options of the terminal user.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * Answers every sampling request with this text (model `"mrtr"`) instead of asking.
   *
   * @default undefined (the user is asked)
   */
  readonly samplingReply?: string | undefined
  /**
   * The roots to answer `roots/list` with.
   *
   * @default the working directory (`workingDirectory()`)
   */
  readonly roots?: ReadonlyArray<Root> | undefined
  /**
   * How an accepted URL is opened.
   *
   * @default openInBrowser
   */
  readonly openUrl?: ((url: string) => Effect.Effect<void>) | undefined
}

/**
 * The terminal user's handlers: `ElicitationHandler` (form and URL modes),
 * `SamplingHandler` and `RootsHandler`. Requires the prompts' environment
 * (`Terminal`, `FileSystem`, `Path`): provide `environment` for the real
 * terminal on stderr, or a scripted `Terminal` in tests.
 *
 * @category layers
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
 * @category constructors
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
 * @category layers
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
 * @category layers
 * @since 0.1.0
 */
export const layerNode = (options: Options = {}) => layer(options).pipe(Layer.provide(environment))

/**
 * Whether a person can be asked: stdin and stderr are both TTYs.
 *
 * @category guards
 * @since 0.1.0
 */
export const isInteractive = (): boolean => process.stdin.isTTY === true && process.stderr.isTTY === true
