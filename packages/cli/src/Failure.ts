/**
 * The failures of `mrtr` and what they become: the exit code (`exitCodeOf`)
 * and the message on stderr (`describeFailure`). Every part of a message
 * quoted from a server is made safe first (`SafeText`): one line, controls
 * escaped; the line structure is `mrtr`'s own.
 *
 * Exit codes: 0 success; 1 the tool reported an error (`isError: true`);
 * 2 usage (bad flags or arguments, unusable answers file); 3 protocol or
 * transport error, round cap, timeout, or a question nobody could answer;
 * 70 internal error.
 *
 * @since 0.1.0
 */
import type { Errors } from "@mrtr/client"
import { SafeText } from "@mrtr/protocol"
import type { InputRequest } from "@mrtr/protocol/Schema"
import { Predicate, Schema } from "effect"
import { CliError } from "effect/cli"
import * as AnswersFile from "./AnswersFile.ts"
import { clean, describeRequest } from "./Report.ts"

/**
 * A usage error found after parsing: both or neither of `--http` /
 * `--stdio`, JSON arguments that are not a JSON object, a bad URL. Exit 2.
 *
 * @category errors
 * @since 0.1.0
 */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/**
 * The tool answered with `isError: true` (the result was printed). Exit 1.
 *
 * @category errors
 * @since 0.1.0
 */
export class ToolReportedError extends Schema.TaggedError<ToolReportedError>()("ToolReportedError", {
  tool: Schema.String
}) {
  override get message(): string {
    return `the tool ${this.tool} reported an error (isError: true)`
  }
}

/**
 * The exit codes of `mrtr`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ExitCode = {
  success: 0,
  toolError: 1,
  usage: 2,
  protocol: 3,
  internal: 70
} as const

/**
 * Every failure a `mrtr` command can end with.
 *
 * @category models
 * @since 0.1.0
 */
export type Failure =
  | CliError.CliError
  | UsageError
  | ToolReportedError
  | AnswersFile.AnswersFileError
  | Errors.McpClientError

const hasTag = (u: unknown): u is { readonly _tag: string } => Predicate.isObject(u) && Predicate.hasProperty(u, "_tag")

/**
 * The exit code for a failure: 1 tool error; 2 usage (CLI parse errors,
 * `UsageError`, an unusable answers file, also when found while answering);
 * 3 protocol (`McpError`, `TransportError`, `ProtocolViolation`,
 * `RequestTimeout`, `MaxRoundsExceeded`, `InputRequiredError`,
 * `InvalidToolDefinition`, `TaskStarted`, `TaskCancelled`, and a
 * failing input handler, e.g. a question nobody could answer); 70 anything
 * else.
 *
 * @category errors
 * @since 0.1.0
 */
export const exitCodeOf = (error: unknown): number => {
  if (CliError.isCliError(error)) return ExitCode.usage
  if (!hasTag(error)) return ExitCode.internal
  switch (error._tag) {
    case "ToolReportedError":
      return ExitCode.toolError
    case "UsageError":
    case "AnswersFileError":
      return ExitCode.usage
    case "InputHandlerError":
      return (error as Errors.InputHandlerError).cause instanceof AnswersFile.AnswersFileError
        ? ExitCode.usage
        : ExitCode.protocol
    case "McpError":
    case "TransportError":
    case "ProtocolViolation":
    case "RequestTimeout":
    case "MaxRoundsExceeded":
    case "InputRequiredError":
    case "InvalidToolDefinition":
    case "TaskStarted":
    case "TaskCancelled":
      return ExitCode.protocol
    default:
      return ExitCode.internal
  }
}

const indent = (text: string, by = "  ") => text.split("\n").map((line) => by + line).join("\n")

/**
 * The message printed to stderr for a failure (nothing for CLI parse
 * errors, which `effect/cli` already presented). `command` names the
 * subcommand that ran, for the usage hint (`Run 'mrtr call --help'`). Every
 * part quoted from the server is on one line with its controls escaped
 * (`SafeText`); the lines are `mrtr`'s own.
 *
 * @category errors
 * @since 0.1.0
 */
export const describeFailure = (error: unknown, command?: string): string | undefined => {
  if (CliError.isCliError(error)) return undefined
  if (!hasTag(error)) return `mrtr: internal error: ${clean(String(error))}`
  const e = error as Failure
  const json = (value: unknown, space?: number) => SafeText.json(JSON.stringify(value, null, space))
  switch (e._tag) {
    case "ToolReportedError":
      return `mrtr: ${clean(e.message)}`
    case "UsageError":
      return `mrtr: ${clean(e.reason)}\nRun 'mrtr ${command ?? "<command>"} --help' for usage.`
    case "AnswersFileError":
      return `mrtr: the answers file cannot be used: ${clean(e.message)}`
    case "McpError":
      return `mrtr: the server answered with JSON-RPC error ${e.code}: ${clean(e.message)}` +
        (e.data === undefined ? "" : `\n${indent(json(e.data))}`)
    case "TransportError":
      return `mrtr: transport error: ${clean(e.message)}` +
        (e.stderr === undefined
          ? ""
          : `\nThe server's last lines on stderr:\n${
            e.stderr.split("\n").map((line) => `  │ ${clean(line)}`).join("\n")
          }`)
    case "ProtocolViolation":
      return `mrtr: the server broke the protocol: ${clean(e.message)}`
    case "RequestTimeout":
      return e.bound === "call"
        ? `mrtr: timeout: ${clean(e.method)} did not complete within ${
          Math.round(e.millis / 1000)
        } seconds (raise it with --timeout)`
        : `mrtr: timeout: ${clean(e.message)}`
    case "MaxRoundsExceeded":
      return `mrtr: ${
        clean(e.method)
      } still asked for input after ${e.rounds} requests (the cap; raise it with --max-rounds)`
    case "InputRequiredError":
      return `mrtr: ${clean(e.message)}\n` +
        Object.entries(e.inputRequests).map(([key, request]) => `  ${clean(key)}  ${describeRequest(request)}`).join(
          "\n"
        )
    case "InvalidToolDefinition":
      return `mrtr: ${clean(e.message)}`
    case "TaskStarted":
      return `mrtr: ${clean(e.message)}`
    case "TaskCancelled":
      return `mrtr: ${clean(e.message)}`
    case "InputHandlerError": {
      const cause = e.cause
      if (cause instanceof AnswersFile.AnswersFileError) {
        return `mrtr: the answers file cannot be used: ${clean(cause.message)}`
      }
      if (cause instanceof AnswersFile.Unanswered) {
        const request = cause.request as InputRequest
        const key = clean(cause.key)
        return [
          `mrtr: the server asked '${key}' and there is nobody to answer:`,
          `  ${key}  ${describeRequest(request)}`,
          `There is no answer for '${key}' in --answers and stdin is not a terminal to ask.`,
          `Answer it in an answers file (--answers answers.json), e.g.:`,
          indent(json({ [cause.key]: AnswersFile.template(request) }, 2))
        ].join("\n")
      }
      return `mrtr: could not answer the server: ${clean(e.message)}`
    }
  }
}
