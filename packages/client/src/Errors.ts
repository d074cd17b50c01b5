/**
 * The typed failures of `@mrtr/client`.
 *
 * A request to an MCP server ends in one of these, never in an untyped
 * defect:
 *
 * - `McpError` (re-exported from `@mrtr/protocol`): the server answered with
 *   a JSON-RPC error `{ code, message, data? }` (e.g. -32602 InvalidParams,
 *   -32601 MethodNotFound, -32020 HeaderMismatch, -32021
 *   MissingRequiredClientCapability, -32022 UnsupportedProtocolVersion).
 * - `TransportError`: the message could not be delivered or no response came
 *   back (connection refused, HTTP status without a JSON-RPC body, process
 *   exited, stream ended early).
 * - `ProtocolViolation`: the server answered something the 2026-07-28 wire
 *   does not allow (unknown `resultType`, an `input_required` result with
 *   neither `inputRequests` nor `requestState`, an input request of an
 *   unknown method, a result that does not decode).
 * - `InputRequiredError`: manual mode; the server needs input the client has
 *   no handler for. Carries what the caller needs to answer and retry.
 * - `MaxRoundsExceeded`: the `input_required` loop hit its round cap.
 * - `InputHandlerError`: a user-supplied input handler failed.
 * - `InvalidToolDefinition`: the tool was excluded because its
 *   `x-mcp-header` annotations are invalid.
 *
 * Source: MCP 2026-07-28, basic (error codes), basic/patterns/mrtr,
 * basic/transports/streamable-http.
 *
 * @since 0.1.0
 */
import { McpError } from "@mrtr/protocol/ErrorCode"
import { InputRequests } from "@mrtr/protocol/Schema"
import { Schema } from "effect"

export {
  /**
   * A JSON-RPC error answered by the server: `{ code: integer, message, data? }`
   * (`_tag: "McpError"`). See `@mrtr/protocol` `ErrorCode` for the codes MCP
   * defines.
   *
   * MCP 2026-07-28, basic (error codes); schema `Error`.
   *
   * @category models
   * @since 0.1.0
   */
  McpError
}

/**
 * The message could not be exchanged with the server: `reason` says what
 * went wrong, `status` is the HTTP status when the server answered with one
 * but not with a JSON-RPC message, `cause` the underlying failure, `stderr`
 * (stdio) the last lines the server process wrote to its stderr before it
 * went away (its own words on why: a stack trace, `MODULE_NOT_FOUND`; server
 * text, escape it before printing it to a terminal).
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @category errors
 * @since 0.1.0
 */
export class TransportError extends Schema.TaggedError<TransportError>()("TransportError", {
  reason: Schema.String,
  status: Schema.optionalKey(Schema.Int),
  stderr: Schema.optionalKey(Schema.String),
  cause: Schema.optionalKey(Schema.Defect())
}) {
  override get message(): string {
    return this.status === undefined ? this.reason : `${this.reason} (HTTP ${this.status})`
  }
}

/**
 * The server broke the 2026-07-28 wire rules: `method` is the request that
 * received the offending answer, `reason` a human-readable explanation and
 * `result` the raw result (or response) as received. Never retried: a
 * misbehaving server ends the call instead of looping.
 *
 * Raised for: an unknown `resultType` (clients must treat it as invalid), an
 * `input_required` result with neither a non-empty `inputRequests` nor a
 * `requestState`, an input request whose `method` is not
 * `elicitation/create` / `sampling/createMessage` / `roots/list` (or whose
 * params do not decode), and a complete result that does not decode with the
 * method's result schema.
 *
 * MCP 2026-07-28, basic (Result.resultType), basic/patterns/mrtr.
 *
 * @category errors
 * @since 0.1.0
 */
export class ProtocolViolation extends Schema.TaggedError<ProtocolViolation>()("ProtocolViolation", {
  method: Schema.String,
  reason: Schema.String,
  result: Schema.optionalKey(Schema.Unknown)
}) {
  override get message(): string {
    return `${this.method}: ${this.reason}`
  }
}

/**
 * Manual mode: the server answered `input_required` with input requests the
 * client has no handler for (no `ElicitationHandler` / `SamplingHandler` /
 * `RootsHandler` in context, or one that does not cover the request, e.g. a
 * URL-mode elicitation for a form-only handler).
 *
 * - `method`: `tools/call`, `prompts/get` or `resources/read`.
 * - `inputRequests`: every input request of the round, by key (decoded).
 * - `requestState`: the opaque state to echo, when the server gave one.
 * - `result`: the raw `InputRequiredResult` as received.
 * - `round`: 1-based number of the exchange that returned it.
 *
 * To continue, call the same method again with the same params plus
 * `inputResponses` (one answer per key) and `requestState` (exactly as
 * received), e.g. `callTool({ name, arguments, inputResponses, requestState })`.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (client requirements).
 *
 * @category errors
 * @since 0.1.0
 */
export class InputRequiredError extends Schema.TaggedError<InputRequiredError>()("InputRequiredError", {
  method: Schema.String,
  inputRequests: InputRequests,
  requestState: Schema.optionalKey(Schema.String),
  result: Schema.Unknown,
  round: Schema.Int
}) {
  override get message(): string {
    return `${this.method} needs input the client cannot provide: ${Object.keys(this.inputRequests).join(", ")}`
  }
}

/**
 * The automatic `input_required` loop reached its cap: `rounds` requests were
 * sent (the cap, `maxRounds`, default 10) and the last answer, `lastResult`
 * (raw), still asked for input.
 *
 * MCP 2026-07-28, basic/patterns/mrtr.
 *
 * @category errors
 * @since 0.1.0
 */
export class MaxRoundsExceeded extends Schema.TaggedError<MaxRoundsExceeded>()("MaxRoundsExceeded", {
  method: Schema.String,
  rounds: Schema.Int,
  lastResult: Schema.Unknown
}) {
  override get message(): string {
    return `${this.method} still required input after ${this.rounds} rounds`
  }
}

/**
 * A user-supplied input handler (elicitation, sampling or roots) failed.
 * `key` is the input request's key and `kind` its kind, when known.
 * Handlers fail with this to abort the whole call; to refuse one question,
 * answer it instead (`{ action: "decline" }` / `{ action: "cancel" }`).
 *
 * MCP 2026-07-28, basic/patterns/mrtr; basic (error codes).
 *
 * @category errors
 * @since 0.1.0
 */
export class InputHandlerError extends Schema.TaggedError<InputHandlerError>()("InputHandlerError", {
  kind: Schema.optionalKey(Schema.Literals(["elicitation", "sampling", "roots"])),
  key: Schema.optionalKey(Schema.String),
  reason: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {
  override get message(): string {
    return this.key === undefined ? this.reason : `${this.reason} (input request '${this.key}')`
  }
}

/**
 * The tool was excluded from `tools/list` because its `inputSchema` carries
 * invalid `x-mcp-header` annotations (`reason`); a client MUST NOT call it
 * over Streamable HTTP. Raised by `callTool` without sending anything.
 *
 * MCP 2026-07-28, basic/transports/streamable-http (schema extension); server/tools.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidToolDefinition extends Schema.TaggedError<InvalidToolDefinition>()("InvalidToolDefinition", {
  tool: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Tool ${this.tool} is invalid: ${this.reason}`
  }
}

/**
 * A time bound of `McpClient` ran out:
 *
 * - `bound: "request"`: no message of the answer to one request (its
 *   response, or a notification about it such as progress) arrived within
 *   `requestTimeout` (an SSE stream that stays silent, a body that trickles);
 * - `bound: "call"`: the whole call (every round, the time spent answering
 *   included) did not complete within `callTimeout`.
 *
 * `method` is the request's method, `millis` the bound in milliseconds. The
 * request is cancelled (its HTTP response closed, or `notifications/cancelled`
 * on stdio).
 *
 * MCP 2026-07-28, basic/utilities/cancellation; basic/lifecycle (timeouts).
 *
 * @category errors
 * @since 0.1.0
 */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", {
  method: Schema.String,
  bound: Schema.Literals(["request", "call"]),
  millis: Schema.Number
}) {
  override get message(): string {
    const seconds = `${Math.round(this.millis / 100) / 10} seconds`
    return this.bound === "request"
      ? `${this.method}: no answer from the server within ${seconds} (requestTimeout)`
      : `${this.method} did not complete within ${seconds} (callTimeout)`
  }
}

/**
 * What a plain (non-MRTR) request can fail with: a JSON-RPC error, a
 * transport failure, a protocol violation or a time bound (`RequestTimeout`).
 *
 * MCP 2026-07-28, basic/patterns/mrtr; basic (error codes).
 *
 * @category models
 * @since 0.1.0
 */
export type RequestError = McpError | TransportError | ProtocolViolation | RequestTimeout

/**
 * What `tools/call`, `prompts/get` and `resources/read` can fail with:
 * `RequestError` plus the MRTR loop's `InputRequiredError`,
 * `MaxRoundsExceeded` and `InputHandlerError`.
 *
 * MCP 2026-07-28, basic/patterns/mrtr; basic (error codes).
 *
 * @category models
 * @since 0.1.0
 */
export type MrtrError = RequestError | InputRequiredError | MaxRoundsExceeded | InputHandlerError

/**
 * Tasks extension (SEP-2663), manual mode (`tasks: "manual"`): the server made the `tools/call` a task;
 * `task` is the raw `CreateTaskResult` (`taskId`, `status`, `pollIntervalMs`,
 * `ttlMs`...). Drive it with `McpClient.getTask`, `updateTask`, `cancelTask`.
 *
 * @category errors
 * @since 0.1.0
 */
export class TaskStarted extends Schema.TaggedError<TaskStarted>()("TaskStarted", {
  taskId: Schema.String,
  task: Schema.Unknown
}) {
  override get message(): string {
    return `tools/call became task ${this.taskId}`
  }
}

/**
 * The task ended `cancelled` (by this client, another one, or the server).
 *
 * @category errors
 * @since 0.1.0
 */
export class TaskCancelled extends Schema.TaggedError<TaskCancelled>()("TaskCancelled", {
  taskId: Schema.String,
  statusMessage: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    return `Task ${this.taskId} was cancelled${this.statusMessage === undefined ? "" : `: ${this.statusMessage}`}`
  }
}

/**
 * Every typed failure of `McpClient`: the MRTR ones, `InvalidToolDefinition`,
 * and the Tasks extension's `TaskStarted` (manual mode) and `TaskCancelled`
 * (from `TaskDriver`).
 *
 * MCP 2026-07-28, basic/patterns/mrtr; basic (error codes); SEP-2663.
 *
 * @category models
 * @since 0.1.0
 */
export type McpClientError = MrtrError | InvalidToolDefinition | TaskStarted | TaskCancelled
