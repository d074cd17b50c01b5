/**
 * The `mrtr` command: an MCP 2026-07-28 client on the command line that
 * drives Multi Round-Trip Requests to completion.
 *
 * ```text
 * mrtr call       (--http <url> | --stdio "<command>") <tool> [<json arguments>]
 * mrtr get-prompt (--http <url> | --stdio "<command>") <name> [<json arguments>]
 * mrtr read       (--http <url> | --stdio "<command>") <uri>
 * mrtr discover   (--http <url> | --stdio "<command>")
 * mrtr logout     [--http <url>]
 * mrtr gateway    --config <mcpServers.json> [--transport http|stdio] [--port <n>] [--host <h>]
 * ```
 *
 * On HTTP, a server that answers `401` gets a sign-in (OAuth 2.1, see
 * `SignIn`): the browser opens (after asking), the redirect comes back to a
 * loopback listener, and the tokens are kept in a 0600 file under the
 * user's config directory; `--client-id` / `--client-secret` name a
 * pre-registered client, `mrtr logout` forgets the tokens.
 *
 * The result is printed to stdout as JSON; each round (input requests,
 * answers, `requestState` size), prompts and errors go to stderr. Answers
 * come from `--answers <file.json>` (see `AnswersFile`), `--root`,
 * `--sampling-reply`, and, in a terminal, from the person (`TerminalUser`).
 *
 * Exit codes: 0 success; 1 the tool reported an error (`isError: true`);
 * 2 usage (bad flags or arguments, unusable answers file); 3 protocol or
 * transport error, round cap, timeout (`--timeout`, default 600 seconds, or
 * 60 seconds without any message of an answer), or a question nobody could
 * answer; 70 internal error.
 *
 * Every string a server sent is shown on one line with its control and
 * bidirectional characters escaped visibly (`SafeText.oneLine`); the JSON
 * on stdout is exact JSON with those characters as `\uXXXX` escapes
 * (`SafeText.json`). Progress notifications appear on stderr while a call
 * runs. `--http`, `--stdio`, `--timeout` and `-q` are accepted by every
 * command, before or after its name.
 *
 * Built with `effect/cli` (`Command`, `Flag`, `Argument`; `Prompt` for the
 * interactive parts).
 *
 * @since 0.1.0
 */
import * as NodeChildProcessSpawner from "@effect/platform-node/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { Errors, McpClient } from "@mrtr/client"
import { SafeText } from "@mrtr/protocol"
import { Cause, Console, Context, Duration, Effect, Layer, Option, Predicate, References } from "effect"
import { Argument, CliOutput, Command } from "effect/cli"
import * as AnswersFile from "./AnswersFile.ts"
import { describeFailure, ExitCode, exitCodeOf, ToolReportedError, UsageError } from "./Failure.ts"
import { gateway } from "./GatewayCommand.ts"
import {
  type AnswerFlags,
  answerFlags,
  callbackPort,
  clientId,
  clientSecret,
  http,
  protocol,
  quietFlag,
  stdio,
  timeoutFlag
} from "./internal/flags.ts"
import { describeTarget, handlersLayer, rootsFrom, target, transportLayer } from "./internal/target.ts"
import { clean, colorsFor, roundLines, serverRequestLines, style, taskLine } from "./Report.ts"
import * as SignIn from "./SignIn.ts"
import * as TerminalUser from "./TerminalUser.ts"

/**
 * The version of the `mrtr` command.
 *
 * @category constants
 * @since 0.1.0
 */
export const VERSION = "0.1.0"

// -----------------------------------------------------------------------------
// Errors and exit codes (see Failure.ts)
// -----------------------------------------------------------------------------

export {
  /**
   * @category models
   * @since 0.1.0
   */
  describeFailure,
  /**
   * @category models
   * @since 0.1.0
   */
  ExitCode,
  /**
   * @category models
   * @since 0.1.0
   */
  exitCodeOf,
  /**
   * @category models
   * @since 0.1.0
   */
  type Failure,
  /**
   * @category models
   * @since 0.1.0
   */
  ToolReportedError,
  /**
   * @category models
   * @since 0.1.0
   */
  UsageError
} from "./Failure.ts"

// -----------------------------------------------------------------------------
// Target, transport and answers (internal/target.ts), flags (internal/flags.ts)
// -----------------------------------------------------------------------------

export {
  /**
   * @category models
   * @since 0.1.0
   */
  handlersLayer,
  /**
   * @category models
   * @since 0.1.0
   */
  splitCommandLine,
  /**
   * @category models
   * @since 0.1.0
   */
  type Target,
  /**
   * @category models
   * @since 0.1.0
   */
  target
} from "./internal/target.ts"

export {
  /**
   * @category constants
   * @since 0.1.0
   */
  DEFAULT_TIMEOUT_SECONDS
} from "./internal/flags.ts"

// -----------------------------------------------------------------------------
// Output
// -----------------------------------------------------------------------------

/**
 * Where results go: a function writing to stdout and completing once the
 * text is handed to the OS (so exiting right after loses nothing). A
 * reference, so tests running the command in-process can capture it.
 *
 * @category services
 * @since 0.1.0
 */
export const Stdout = Context.Reference<(text: string) => Effect.Effect<void>>("@mrtr/cli/Stdout", {
  defaultValue: () => (text) =>
    Effect.callback<void>((resume) => {
      process.stdout.write(text, () => resume(Effect.void))
    })
})

const printJson = (value: unknown) =>
  Effect.try({
    try: () => JSON.stringify(value, null, 2),
    // e.g. a result nested too deeply for the stack
    catch: () =>
      new Errors.ProtocolViolation({ method: "output", reason: "the server's result cannot be printed as JSON" })
  }).pipe(
    // exact JSON, with the characters a terminal would act on as \uXXXX escapes
    Effect.flatMap((json) => Effect.flatMap(Effect.service(Stdout), (write) => write(`${SafeText.json(json)}\n`)))
  )

const stderrStyle = () => style(colorsFor(process.stderr))

const info = (quiet: boolean, text: string) => quiet ? Effect.void : Console.error(text)

const parseJsonObject = (what: string, text: Option.Option<string>) =>
  Option.match(text, {
    onNone: () => Effect.succeed(undefined),
    onSome: (json) =>
      Effect.try({
        try: () => JSON.parse(json) as unknown,
        catch: (error) => new UsageError({ reason: `${what} are not valid JSON: ${(error as Error).message}` })
      }).pipe(
        Effect.filterOrFail(
          (value): value is Record<string, unknown> => Predicate.isObject(value) && !Array.isArray(value),
          () => new UsageError({ reason: `${what} must be a JSON object, e.g. '{"city":"Paris"}'` })
        )
      )
  })

// -----------------------------------------------------------------------------
// Commands
// -----------------------------------------------------------------------------

/**
 * The root command; `--http` / `--stdio`, `--protocol`, `--timeout` and
 * `--quiet` (`-q`) are shared by every subcommand (accepted before or after the
 * subcommand's name).
 *
 * @category commands
 * @since 0.1.0
 */
export const mrtr = Command.make("mrtr").pipe(
  Command.withSharedFlags({
    http,
    stdio,
    protocol,
    timeout: timeoutFlag,
    quiet: quietFlag,
    clientId,
    clientSecret,
    callbackPort
  }),
  Command.withDescription(
    "An MCP client (2026-07-28 and 2025-11-25) that drives Multi Round-Trip Requests: it answers each round of input requests " +
      "(forms, URLs, sampling, roots) from an answers file, flags, or you at the terminal, and retries until the result is complete. " +
      "The result goes to stdout as JSON; rounds and prompts go to stderr. " +
      "Exit codes: 0 success, 1 the tool reported an error, 2 usage, " +
      "3 protocol or transport error, round cap, timeout or a question nobody answered."
  )
)

/** `effect` limited to `--timeout` seconds (a `RequestTimeout` past it); `UsageError` for a value below 1. */
const withTimeout = <A, E, R>(
  method: string,
  seconds: number,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | Errors.RequestTimeout | UsageError, R> => {
  if (seconds < 1) return Effect.fail(new UsageError({ reason: "--timeout must be at least 1 second" }))
  return effect.pipe(
    Effect.timeoutOrElse({
      duration: Duration.seconds(seconds),
      orElse: () => Effect.fail(new Errors.RequestTimeout({ method, bound: "call", millis: seconds * 1000 }))
    })
  )
}

/** The client options of a run: `--timeout` is the whole-call bound, `--protocol` the revision. */
const clientOptions = (seconds: number, protocol: McpClient.Protocol): McpClient.Options => ({
  clientInfo: { name: "mrtr", version: VERSION },
  callTimeout: Duration.seconds(Math.max(1, seconds)),
  protocol
})

/**
 * One line for a `notifications/progress`: `… progress 1/2  "message"`
 * (server text on one line, escaped; see `SafeText`).
 *
 * @category commands
 * @since 0.1.0
 */
export const progressLine = (params: Readonly<Record<string, unknown>> | undefined): string => {
  const progress = params?.["progress"]
  const total = params?.["total"]
  const message = params?.["message"]
  const amount = typeof progress === "number" ? String(progress) : "?"
  return `         … progress ${amount}${typeof total === "number" ? `/${total}` : ""}` +
    (typeof message === "string" && message !== "" ? `  "${clean(message)}"` : "")
}

/** The progress token `mrtr` sends with every MRTR call, asking for `notifications/progress`. */
const PROGRESS_TOKEN = "mrtr"

/**
 * Runs one MRTR method (`call`) with the client built for the flags:
 * transport, handlers, round and progress reporting on stderr.
 */
const runMrtr = <A>(
  flags: AnswerFlags,
  describe: string,
  call: (
    client: McpClient.McpClient["Service"],
    options: McpClient.CallOptions
  ) => Effect.Effect<A, Errors.McpClientError>
) =>
  Effect.gen(function*() {
    const root = yield* mrtr
    const where = yield* target(root)
    if (flags.maxRounds < 1) return yield* new UsageError({ reason: "--max-rounds must be at least 1" })
    if (root.timeout < 1) return yield* new UsageError({ reason: "--timeout must be at least 1 second" })
    const answers = Option.isSome(flags.answers)
      ? yield* AnswersFile.load(flags.answers.value).pipe(Effect.provide(NodeFileSystem.layer))
      : {}
    const s = stderrStyle()
    let rounds = 0
    const quiet = root.quiet
    const options: McpClient.CallOptions = {
      maxRounds: flags.maxRounds,
      progressToken: PROGRESS_TOKEN,
      onNotification: (notification) =>
        quiet || notification.method !== "notifications/progress"
          ? Effect.void
          : Console.error(s.dim(progressLine(notification.params))),
      onRound: (round) =>
        Effect.suspend(() => {
          rounds = round.round
          return quiet ? Effect.void : Console.error(roundLines(round, s).join("\n"))
        }),
      // A tools/call the server makes a task (Tasks extension): driven to its end, its status changes shown.
      tasks: "auto",
      onTaskStatus: (change) => quiet ? Effect.void : Console.error(taskLine(change, s)),
      onServerRequest: (request) => quiet ? Effect.void : Console.error(serverRequestLines(request, s).join("\n"))
    }
    yield* info(quiet, s.dim(`→ ${clean(describe)}  (${clean(describeTarget(where))})`))
    const method = describe.split(" ", 1)[0]!
    const [result, connection] = yield* McpClient.McpClient.use((client) =>
      withTimeout(method, root.timeout, Effect.all([call(client, options), client.connection]))
    ).pipe(
      Effect.provide(
        McpClient.layer(clientOptions(root.timeout, root.protocol)).pipe(
          Layer.provide(transportLayer(where, root)),
          Layer.provide(handlersLayer({
            answers,
            roots: rootsFrom(flags.roots),
            samplingReply: Option.getOrUndefined(flags.samplingReply),
            interactive: TerminalUser.isInteractive()
          }))
        )
      )
    )
    yield* info(
      quiet,
      s.green(`✓ complete`) + s.dim(
        connection.era === "2025-11-25"
          ? ` over MCP ${connection.protocolVersion} (initialize; questions answered in flight)`
          : ` after ${rounds + 1} request${rounds === 0 ? "" : "s"} (${rounds} input round${
            rounds === 1 ? "" : "s"
          }, MCP ${connection.protocolVersion})`
      )
    )
    return result
  })

/**
 * `mrtr call <tool> [<json arguments>]`.
 *
 * @category commands
 * @since 0.1.0
 */
export const call = Command.make(
  "call",
  {
    tool: Argument.String("tool").pipe(Argument.withDescription("The tool's name")),
    arguments: Argument.String("json-arguments").pipe(
      Argument.withDescription("The tool's arguments as a JSON object, e.g. '{\"from\":\"Paris\",\"to\":\"Milan\"}'"),
      Argument.optional
    ),
    ...answerFlags
  },
  Effect.fnUntraced(function*(input) {
    const args = yield* parseJsonObject("the tool's arguments", input.arguments)
    const result = yield* runMrtr(
      input,
      `tools/call ${input.tool}${args === undefined ? "" : ` ${JSON.stringify(args)}`}`,
      (client, options) =>
        client.callTool({ name: input.tool, ...(args === undefined ? {} : { arguments: args }) }, options)
    )
    yield* printJson(result)
    if (result.isError === true) return yield* new ToolReportedError({ tool: input.tool })
  })
).pipe(
  Command.withDescription("Call a tool and drive every round of input requests to the final result"),
  Command.withExamples([
    {
      command: "mrtr call --http http://127.0.0.1:3000/mcp book_trip '{\"city\":\"Lisbon\"}'",
      description: "Call a tool (here examples/asking's), answering its questions at the terminal"
    },
    {
      command:
        "mrtr call --stdio \"npx tsx examples/asking/server.ts --stdio\" book_trip '{\"city\":\"Lisbon\"}' --answers examples/asking/answers.json",
      description: "The same over stdio, answering from a file (no terminal needed)"
    }
  ])
)

/**
 * `mrtr get-prompt <name> [<json arguments>]`.
 *
 * @category commands
 * @since 0.1.0
 */
export const getPrompt = Command.make(
  "get-prompt",
  {
    name: Argument.String("name").pipe(Argument.withDescription("The prompt's name")),
    arguments: Argument.String("json-arguments").pipe(
      Argument.withDescription("The prompt's arguments as a JSON object of strings, e.g. '{\"city\":\"Rome\"}'"),
      Argument.optional
    ),
    ...answerFlags
  },
  Effect.fnUntraced(function*(input) {
    const args = yield* parseJsonObject("the prompt's arguments", input.arguments)
    if (args !== undefined && Object.values(args).some((value) => typeof value !== "string")) {
      return yield* new UsageError({ reason: "prompt arguments are strings: give a JSON object of strings" })
    }
    const result = yield* runMrtr(
      input,
      `prompts/get ${input.name}${args === undefined ? "" : ` ${JSON.stringify(args)}`}`,
      (client, options) =>
        client.getPrompt(
          { name: input.name, ...(args === undefined ? {} : { arguments: args as Record<string, string> }) },
          options
        )
    )
    yield* printJson(result)
  })
).pipe(Command.withDescription("Get a prompt, driving every round of input requests"))

/**
 * `mrtr read <uri>`.
 *
 * @category commands
 * @since 0.1.0
 */
export const read = Command.make(
  "read",
  {
    uri: Argument.String("uri").pipe(Argument.withDescription("The resource's URI, e.g. weather://Rome/2026-08-01")),
    ...answerFlags
  },
  Effect.fnUntraced(function*(input) {
    const result = yield* runMrtr(
      input,
      `resources/read ${input.uri}`,
      (client, options) => client.readResource({ uri: input.uri }, options)
    )
    yield* printJson(result)
  })
).pipe(Command.withDescription("Read a resource (or a resource template's URI), driving every round of input requests"))

const allPages = <A>(
  list: (
    cursor: string | undefined
  ) => Effect.Effect<{ readonly nextCursor?: string | undefined } & A, Errors.RequestError>,
  items: (page: A) => ReadonlyArray<unknown>
) =>
  Effect.gen(function*() {
    const out: Array<unknown> = []
    let cursor: string | undefined
    for (let page = 0; page < 100; page++) {
      const result = yield* list(cursor)
      for (const item of items(result)) out.push(item)
      if (result.nextCursor === undefined || result.nextCursor === cursor) break
      cursor = result.nextCursor
    }
    return out
  })

/**
 * `mrtr discover`: `server/discover`, then the tools, prompts, resources and
 * resource templates the server advertises. The output starts with the era
 * spoken (`era`: `2026-07-28` or `2025-11-25`) and the negotiated
 * `protocolVersion`; against a 2025-11-25 server the rest comes from the
 * `InitializeResult` (`supportedVersions` is the negotiated version).
 *
 * @category commands
 * @since 0.1.0
 */
export const discover = Command.make(
  "discover",
  {},
  Effect.fnUntraced(function*() {
    const root = yield* mrtr
    const where = yield* target(root)
    yield* info(root.quiet, stderrStyle().dim(`→ server/discover  (${clean(describeTarget(where))})`))
    const result = yield* withTimeout(
      "server/discover",
      root.timeout,
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const discovered = yield* client.discover()
        const connection = yield* client.connection
        const capabilities = discovered.capabilities
        const page = (cursor: string | undefined) => cursor === undefined ? undefined : { cursor }
        return {
          era: connection.era,
          protocolVersion: connection.protocolVersion,
          ...discovered,
          ...(capabilities.tools === undefined
            ? {}
            : { tools: yield* allPages((c) => client.listTools(page(c)), (r) => r.tools) }),
          ...(capabilities.prompts === undefined
            ? {}
            : { prompts: yield* allPages((c) => client.listPrompts(page(c)), (r) => r.prompts) }),
          ...(capabilities.resources === undefined ? {} : {
            resources: yield* allPages((c) => client.listResources(page(c)), (r) => r.resources),
            resourceTemplates: yield* allPages((c) => client.listResourceTemplates(page(c)), (r) => r.resourceTemplates)
          })
        }
      })
    ).pipe(
      Effect.provide(
        McpClient.layer(clientOptions(root.timeout, root.protocol)).pipe(Layer.provide(transportLayer(where, root)))
      )
    )
    yield* printJson(result)
  })
).pipe(
  Command.withDescription(
    "server/discover, plus the tools, prompts, resources and resource templates the server lists"
  )
)

/**
 * `mrtr logout [--http <url>]`.
 *
 * @category commands
 * @since 0.1.0
 */
export const logout = Command.make(
  "logout",
  {},
  Effect.fnUntraced(function*() {
    const root = yield* mrtr
    const url = Option.getOrUndefined(root.http)
    yield* SignIn.logout(url)
    yield* Console.error(url === undefined ? "mrtr: signed out of every server" : `mrtr: signed out of ${clean(url)}`)
  })
).pipe(
  Command.withDescription(
    `Forget the sign-in tokens of --http <url>, or every token and client registration (kept in ${SignIn.tokenFile()})`
  )
)

/**
 * The whole command tree.
 *
 * @category commands
 * @since 0.1.0
 */
export const command = mrtr.pipe(Command.withSubcommands([call, getPrompt, read, discover, logout, gateway]))

const SUBCOMMANDS: ReadonlyArray<string> = [call.name, getPrompt.name, read.name, discover.name]

/**
 * Help and version to stdout when asked for (`--help`, `--version`);
 * everything else `effect/cli` prints (implicit help, parse errors) to
 * stderr, so stdout only ever carries what was asked for.
 *
 * @category commands
 * @since 0.1.0
 */
export const presenter = CliOutput.layerPresenter({
  present: (event) =>
    Effect.gen(function*() {
      const formatter = yield* CliOutput.Formatter
      switch (event._tag) {
        case "Help":
          return event.reason === "Requested"
            ? yield* Console.log(formatter.formatHelpDoc(event.helpDoc))
            : yield* Console.error(formatter.formatHelpDoc(event.helpDoc))
        case "InvalidInvocation":
          yield* Console.error(formatter.formatHelpDoc(event.helpDoc))
          return yield* Console.error(formatter.formatErrors(event.errors))
        case "Version":
          return yield* Console.log(formatter.formatVersion(event.name, event.version))
      }
    })
})

/**
 * The platform services `effect/cli` needs, with the stderr `Terminal`.
 *
 * @category commands
 * @since 0.1.0
 */
export const services = Layer.mergeAll(
  NodeChildProcessSpawner.layer,
  presenter
).pipe(
  Layer.provideMerge(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeStdio.layer, TerminalUser.environment))
)

/**
 * Runs `mrtr` with `args` (without the program name) and returns the exit
 * code; failures are described on stderr.
 *
 * @category commands
 * @since 0.1.0
 */
export const run = (args: ReadonlyArray<string>): Effect.Effect<number> =>
  Command.runWith(command, { version: VERSION })(args).pipe(
    Effect.as(ExitCode.success as number),
    Effect.catchCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.succeed(130)
      const error = Cause.squash(cause)
      const message = describeFailure(error, args.find((arg) => SUBCOMMANDS.includes(arg)))
      const code = Cause.hasFails(cause) ? exitCodeOf(error) : ExitCode.internal
      // messages may quote the server: each line is made safe, no control character reaches the terminal
      return (message === undefined ? Effect.void : Console.error(
        code === ExitCode.internal
          ? `${SafeText.lines(message)}\n${SafeText.lines(Cause.pretty(cause))}`
          : SafeText.lines(message)
      )).pipe(Effect.as(code))
    }),
    Effect.provide(services),
    // logs (e.g. the client's warnings) never go to stdout, which carries the result
    Effect.provideService(References.LogToStderr, true)
  )
