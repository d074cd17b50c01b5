/**
 * The flags of the `mrtr` command (effect/cli `Flag`s): the ones every
 * subcommand shares (`--http`, `--stdio`, `--protocol`, `--timeout`,
 * `--quiet`, the sign-in flags) and the answer flags of the commands that
 * run a Multi Round-Trip Request (`--answers`, `--root`, `--sampling-reply`,
 * `--max-rounds`).
 */
import type { Option } from "effect"
import { Flag } from "effect/cli"
import * as SignIn from "../SignIn.ts"

export const http = Flag.String("http").pipe(
  Flag.withMetavar("url"),
  Flag.withDescription("The server's Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp"),
  Flag.optional
)

export const stdio = Flag.String("stdio").pipe(
  Flag.withMetavar("command"),
  Flag.withDescription(
    "Spawn a stdio server with this command line, e.g. \"npx tsx server.ts\" (quoted as one argument)"
  ),
  Flag.optional
)

export const protocol = Flag.Literals("protocol", ["auto", "2026-07-28", "2025-11-25"]).pipe(
  Flag.withDescription(
    "The MCP revision to speak: auto (default: probe with server/discover, then 2026-07-28 or 2025-11-25 with initialize), " +
      "or pin one"
  ),
  Flag.withDefault("auto" as const)
)

/**
 * Default of `--timeout`: 600 seconds for a whole call, answering time
 * included.
 *
 * @since 0.1.0
 */
export const DEFAULT_TIMEOUT_SECONDS = 600

export const timeoutFlag = Flag.Int("timeout").pipe(
  Flag.withMetavar("seconds"),
  Flag.withDescription(
    `Give up when a call has not completed after this many seconds, answering time included (default ${DEFAULT_TIMEOUT_SECONDS}); ` +
      "a request also gives up after 60 seconds without any message from the server"
  ),
  Flag.withDefault(DEFAULT_TIMEOUT_SECONDS)
)

export const quietFlag = Flag.Boolean("quiet").pipe(
  Flag.withAlias("q"),
  Flag.withDescription("Do not print the rounds and progress to stderr"),
  Flag.withDefault(false)
)

export const clientId = Flag.String("client-id").pipe(
  Flag.withDescription("Sign in as this pre-registered OAuth client when the server asks for authorization"),
  Flag.optional
)

export const clientSecret = Flag.String("client-secret").pipe(
  Flag.withDescription("The pre-registered OAuth client's secret (with --client-id)"),
  Flag.optional
)

export const callbackPort = Flag.Int("callback-port").pipe(
  Flag.withDescription(
    `The loopback port the sign-in redirect comes back to (default ${SignIn.DEFAULT_CALLBACK_PORT})`
  ),
  Flag.optional
)

export const answerFlags = {
  answers: Flag.String("answers").pipe(
    Flag.withMetavar("file.json"),
    Flag.withDescription(
      "Answers by input-request key, instead of asking: { \"<key>\": <answer> } where an answer is an ElicitResult, " +
        "CreateMessageResult or ListRootsResult, or a shorthand: an object = an accepted form's content, " +
        "\"decline\" / \"cancel\", a string = a sampling reply, an array of URIs = roots"
    ),
    Flag.optional
  ),
  roots: Flag.String("root").pipe(
    Flag.withMetavar("uri"),
    Flag.withDescription("Answer roots/list with this root (repeatable; default: the working directory)"),
    Flag.atLeast(0)
  ),
  samplingReply: Flag.String("sampling-reply").pipe(
    Flag.withMetavar("text"),
    Flag.withDescription("Answer every sampling request with this text (default: ask at the terminal)"),
    Flag.optional
  ),
  maxRounds: Flag.Int("max-rounds").pipe(
    Flag.withDescription("The most requests one call may send, the first included (default 10)"),
    Flag.withDefault(10)
  )
}

export interface AnswerFlags {
  readonly answers: Option.Option<string>
  readonly roots: ReadonlyArray<string>
  readonly samplingReply: Option.Option<string>
  readonly maxRounds: number
}
