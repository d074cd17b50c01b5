/**
 * Where the `mrtr` command's server is and how its questions are answered:
 * the `--http` / `--stdio` target (checked into a `Target`), the transport
 * Layer for it (with the OAuth sign-in on HTTP), and the input handlers of a
 * run (answers file, flags, the person at the terminal).
 *
 * Gotcha: `--stdio` takes one quoted command line, split here with shell-like
 * quoting only (no variables, globs or pipes).
 */
import {
  type ClientTransport,
  type ElicitationHandler,
  type Errors,
  HttpTransport,
  type RootsHandler,
  type SamplingHandler,
  StdioTransport
} from "@mrtr/client"
import type { Root } from "@mrtr/protocol/Schema"
import { Effect, Layer, Option } from "effect"
import type { Prompt } from "effect/cli"
import * as AnswersFile from "../AnswersFile.ts"
import { UsageError } from "../Failure.ts"
import * as SignIn from "../SignIn.ts"
import * as TerminalUser from "../TerminalUser.ts"

/**
 * Splits a command line into words, honouring single and double quotes and
 * backslash escapes (no other shell syntax): `node "my server.js" --x` →
 * `["node", "my server.js", "--x"]`.
 *
 * @since 0.1.0
 */
export const splitCommandLine = (line: string): Array<string> => {
  const words: Array<string> = []
  let word = ""
  let started = false
  let quote: "'" | "\"" | undefined
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (quote !== undefined) {
      if (c === quote) quote = undefined
      else if (c === "\\" && quote === "\"" && i + 1 < line.length) word += line[++i]
      else word += c
    } else if (c === "'" || c === "\"") {
      quote = c
      started = true
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i]
      started = true
    } else if (/\s/.test(c)) {
      if (started) words.push(word)
      word = ""
      started = false
    } else {
      word += c
      started = true
    }
  }
  if (started) words.push(word)
  return words
}

/**
 * Where the server is: exactly one of `--http <url>` / `--stdio "<command>"`.
 *
 * @since 0.1.0
 */
export type Target =
  | { readonly _tag: "http"; readonly url: string }
  | { readonly _tag: "stdio"; readonly command: string; readonly args: ReadonlyArray<string> }

/**
 * Checks the transport flags: exactly one, a valid `http(s)` URL, a
 * non-empty command.
 *
 * @since 0.1.0
 */
export const target = (flags: {
  readonly http: Option.Option<string>
  readonly stdio: Option.Option<string>
}): Effect.Effect<Target, UsageError> => {
  if (Option.isSome(flags.http) && Option.isSome(flags.stdio)) {
    return Effect.fail(new UsageError({ reason: "give either --http <url> or --stdio \"<command>\", not both" }))
  }
  if (Option.isSome(flags.http)) {
    const url = flags.http.value
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {
      parsed = undefined
    }
    if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      return Effect.fail(new UsageError({ reason: `--http needs an http(s) URL, got '${url}'` }))
    }
    return Effect.succeed({ _tag: "http", url })
  }
  if (Option.isSome(flags.stdio)) {
    const [command, ...args] = splitCommandLine(flags.stdio.value)
    if (command === undefined) return Effect.fail(new UsageError({ reason: "--stdio needs a command line" }))
    return Effect.succeed({ _tag: "stdio", command, args })
  }
  return Effect.fail(new UsageError({ reason: "give the server: --http <url> or --stdio \"<command>\"" }))
}

/** The sign-in flags (shared by every subcommand). */
export interface SignInFlags {
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<string>
  readonly callbackPort: Option.Option<number>
}

/** The transport for a target: HTTP (keep-alive, with the OAuth sign-in) or a spawned stdio server. */
export const transportLayer = (
  t: Target,
  signIn: SignInFlags
): Layer.Layer<ClientTransport.ClientTransport, Errors.TransportError, Prompt.Environment> =>
  t._tag === "http"
    ? HttpTransport.layerNode({ url: t.url }).pipe(Layer.provide(SignIn.layer({
      clientId: Option.getOrUndefined(signIn.clientId),
      clientSecret: Option.getOrUndefined(signIn.clientSecret),
      callbackPort: Option.getOrUndefined(signIn.callbackPort),
      interactive: TerminalUser.isInteractive()
    })))
    : StdioTransport.layerNode({ command: t.command, args: t.args })

/** The target as the progress lines name it. */
export const describeTarget = (t: Target) => t._tag === "http" ? t.url : `stdio: ${[t.command, ...t.args].join(" ")}`

/**
 * The input handlers for a run: answers from the file by key first; then
 * `--root` (or the working directory) for roots and `--sampling-reply` for
 * sampling; then, in a terminal, the person (`TerminalUser`); otherwise the
 * question fails the call (`Unanswered`, exit 3). A file's answer the
 * server refuses (it asks the same key again) is not sent again: the person
 * answers in a terminal (shown the server's reason), otherwise the call
 * fails with `InputHandlerError` quoting the reason (exit 3). The prompts
 * use the `Terminal` in context (`services` provides the stderr one).
 *
 * @since 0.1.0
 */
export const handlersLayer = (options: {
  readonly answers: AnswersFile.Answers
  readonly roots: ReadonlyArray<Root>
  readonly samplingReply: string | undefined
  readonly interactive: boolean
}): Layer.Layer<
  ElicitationHandler.ElicitationHandler | SamplingHandler.SamplingHandler | RootsHandler.RootsHandler,
  never,
  Prompt.Environment
> => {
  const reply = options.samplingReply
  const fallback: AnswersFile.Fallback<Prompt.Environment> = {
    listRoots: () => Effect.succeed(options.roots),
    ...(reply === undefined ? {} : { createMessage: () => Effect.succeed(TerminalUser.textReply(reply, "mrtr")) }),
    ...(options.interactive
      ? {
        form: TerminalUser.form,
        url: TerminalUser.url(),
        ...(reply === undefined ? { createMessage: TerminalUser.createMessage } : {})
      }
      : {})
  }
  return AnswersFile.layer(options.answers, fallback)
}

/** `--root` URIs as roots; none given: the working directory. */
export const rootsFrom = (uris: ReadonlyArray<string>): ReadonlyArray<Root> =>
  uris.length === 0 ? [TerminalUser.workingDirectory()] : uris.map((uri) => ({ uri }))
