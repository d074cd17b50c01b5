/**
 * `McpClient`: an MCP 2026-07-28 client as an Effect service.
 *
 * Every request is stateless: it carries `params._meta` with the protocol
 * version (`2026-07-28`), the client's capabilities and its `clientInfo`;
 * over Streamable HTTP also the standard headers (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`) and an `Mcp-Param-{Name}` header for every tool
 * argument whose `inputSchema` property carries `x-mcp-header` (learned from
 * `tools/list`, whose definitions are cached).
 *
 * `tools/call`, `prompts/get` and `resources/read` run the Multi Round-Trip
 * Request loop: when the server answers `input_required`, the client asks
 * the user-input services in context (`ElicitationHandler`,
 * `SamplingHandler`, `RootsHandler`) to answer every input request of the
 * round concurrently, and retries the original request with a new JSON-RPC
 * id, the original params, `inputResponses` under the same keys and the
 * `requestState` echoed byte for byte (omitted when the server gave none).
 * Rounds that carry only a `requestState` are spaced by a backoff schedule;
 * the loop stops after `maxRounds` requests. Without a handler for a
 * question the call fails with `InputRequiredError` (manual mode) and the
 * caller retries with `inputResponses` / `requestState` itself.
 *
 * The capabilities the client declares are derived from which handlers are
 * provided: nothing else has to be configured.
 *
 * Source: MCP 2026-07-28, basic (request `_meta`), basic/lifecycle
 * (`server/discover`), basic/patterns/mrtr, basic/transports/streamable-http,
 * server/tools, server/prompts, server/resources, server/utilities/completion.
 *
 * @since 0.1.0
 */
import { Context, Duration, Effect, Layer, Option, PubSub, Schedule, Schema, Stream } from "effect"
import {
  CallToolResult,
  type ClientCapabilities,
  CompleteResult,
  type CompleteRequestParams,
  CreateMessageResult,
  DiscoverResult,
  ElicitResult,
  ErrorCode,
  GetPromptResult,
  headerAnnotationError,
  headerAnnotations,
  type Implementation,
  InputRequest,
  type InputRequests,
  type InputResponse,
  type InputResponses,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListRootsResult,
  ListToolsResult,
  type LoggingLevel,
  makeRequestMeta,
  McpError,
  mergeCapabilities,
  missingCapabilities,
  type ProgressToken,
  PROTOCOL_VERSION,
  ReadResourceResult,
  type RequestId,
  requestHeaders,
  requiredCapabilities,
  type Tool
} from "@mrtr/protocol"
import { ClientTransport } from "./ClientTransport.ts"
import * as Elicitation from "./ElicitationHandler.ts"
import {
  InputHandlerError,
  InputRequiredError,
  InvalidToolDefinition,
  MaxRoundsExceeded,
  type McpClientError,
  RequestTimeout,
  type MrtrError,
  ProtocolViolation,
  type RequestError,
  TransportError
} from "./Errors.ts"
import type { InputContext } from "./InputContext.ts"
import * as TaskDriver from "./TaskDriver.ts"
import { RootsHandler } from "./RootsHandler.ts"
import * as Sampling from "./SamplingHandler.ts"

// =============================================================================
// Models
// =============================================================================

/**
 * A notification the server sent while answering a request (progress, log,
 * ...), or outside any request (stdio only).
 *
 * - `method`, `params`: as on the wire (e.g. `notifications/progress` with
 *   `{ progressToken, progress, total?, message? }`, `notifications/message`
 *   with `{ level, logger?, data }`).
 * - `request`: the request whose response stream carried it (its JSON-RPC
 *   `id` and `method`), absent for unsolicited notifications.
 *
 * MCP 2026-07-28, basic/transports; server/utilities/logging; basic/utilities/progress.
 *
 * @since 0.1.0
 */
export interface Notification {
  readonly method: string
  readonly params?: Readonly<Record<string, unknown>> | undefined
  readonly request?: { readonly id: RequestId; readonly method: string } | undefined
}

/**
 * Client options; all optional.
 *
 * - `clientInfo`: sent as `_meta["io.modelcontextprotocol/clientInfo"]`
 *   (default `{ name: "@mrtr/client", version: "0.1.0" }`).
 * - `maxRounds`: the most requests one `tools/call` / `prompts/get` /
 *   `resources/read` may send in its `input_required` loop, the first one
 *   included (default 10, at least 1). Past it: `MaxRoundsExceeded`. Rounds
 *   that only ask again URLs the user accepted (`ElicitationHandler.urlWait`)
 *   are not counted.
 * - `stateOnlyBackoff`: spaces consecutive rounds whose result carried only
 *   a `requestState` (nothing to answer), stepped once per such round and
 *   reset by a round with input requests. Default: exponential from 100 ms,
 *   doubling, capped at 5 s.
 * - `logLevel`: sent as `_meta["io.modelcontextprotocol/logLevel"]`; without
 *   it servers send no `notifications/message`.
 * - `onNotification`: called for every notification received (see also
 *   `McpClient.notifications` and the per-call option).
 * - `requestTimeout`: the longest wait for the next message of the answer to
 *   one request (its response, or a notification about it: each progress
 *   notification restarts the wait, so a long tool that reports progress is
 *   not cut off). Default `DEFAULT_REQUEST_TIMEOUT` (60 seconds);
 *   `"Infinity"` disables it. Past it the request is cancelled and the call
 *   fails with `RequestTimeout` (`bound: "request"`).
 * - `callTimeout`: the longest a whole call may take: every round of a
 *   `tools/call` / `prompts/get` / `resources/read`, the time its input
 *   handlers take to answer included. Default `DEFAULT_CALL_TIMEOUT` (10
 *   minutes); `"Infinity"` disables it. Past it: `RequestTimeout`
 *   (`bound: "call"`).
 * - `capabilities`: capabilities to declare in addition to the ones derived
 *   from the input handlers (merged with them): `experimental` /
 *   `extensions` entries, or e.g. `{ elicitation: {} }` to receive
 *   elicitation requests without a handler and answer them by hand (manual
 *   mode: the call fails with `InputRequiredError`).
 * - `tasks`: the Tasks extension (SEP-2663). `"auto"` declares it on every
 *   `tools/call` and drives a task result to its end (`TaskDriver.drive`:
 *   polls at the server's `pollIntervalMs`, answers its input with the same
 *   handlers, returns the final result; interrupting the call cancels the
 *   task); `"manual"` declares it and fails the call with
 *   `TaskDriver.TaskStarted` (drive it with `getTask` / `updateTask` /
 *   `cancelTask`). Absent: not declared.
 *
 * MCP 2026-07-28, basic (request `_meta`), basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export interface Options {
  readonly clientInfo?: Implementation | undefined
  readonly maxRounds?: number | undefined
  readonly stateOnlyBackoff?: Schedule.Schedule<unknown> | undefined
  readonly logLevel?: LoggingLevel | undefined
  readonly onNotification?: ((notification: Notification) => Effect.Effect<void>) | undefined
  readonly capabilities?: ClientCapabilities | undefined
  readonly tasks?: TaskDriver.TasksMode | undefined
  readonly requestTimeout?: Duration.Input | undefined
  readonly callTimeout?: Duration.Input | undefined
}

/**
 * Default `Options.requestTimeout`: 60 seconds without any message of a
 * request's answer.
 *
 * MCP 2026-07-28, basic/lifecycle (timeouts).
 *
 * @since 0.1.0
 */
export const DEFAULT_REQUEST_TIMEOUT: Duration.Duration = Duration.seconds(60)

/**
 * Default `Options.callTimeout`: 10 minutes for a whole call, answering time
 * included.
 *
 * MCP 2026-07-28, basic/lifecycle (timeouts).
 *
 * @since 0.1.0
 */
export const DEFAULT_CALL_TIMEOUT: Duration.Duration = Duration.minutes(10)

/**
 * Per-call options.
 *
 * - `onNotification`: called for each notification carried by this call's
 *   response streams (all rounds).
 * - `progressToken`: sent as `_meta.progressToken`, asking the server for
 *   `notifications/progress`.
 * - `maxRounds`: overrides the client's `maxRounds` for this call.
 * - `onRound`: called once per `input_required` round, after the round's
 *   answers are gathered and before the retry is sent (see `Round`); not
 *   called for the final, complete result, nor when the round cap or a
 *   missing handler ends the call first. The callback cannot fail
 *   (`Effect<void>`); a slow one delays the retry.
 * - `tasks`: overrides the client's `tasks` mode for this call.
 * - `onTaskStatus`: called once per status change of the task a `tools/call`
 *   became (Tasks extension), e.g. to show it to the user.
 * - `requestTimeout`, `callTimeout`: override the client's (see `Options`).
 *
 * MCP 2026-07-28, basic (request `_meta`), basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export interface CallOptions {
  readonly onNotification?: ((notification: Notification) => Effect.Effect<void>) | undefined
  readonly progressToken?: ProgressToken | undefined
  readonly maxRounds?: number | undefined
  readonly onRound?: ((round: Round) => Effect.Effect<void>) | undefined
  readonly tasks?: TaskDriver.TasksMode | undefined
  readonly onTaskStatus?: ((change: TaskDriver.TaskStatusChange) => Effect.Effect<void>) | undefined
  readonly requestTimeout?: Duration.Input | undefined
  readonly callTimeout?: Duration.Input | undefined
}

/**
 * One `input_required` round of a `tools/call` / `prompts/get` /
 * `resources/read`, as seen by `CallOptions.onRound`:
 *
 * - `round`: 1-based number of the exchange whose result asked
 *   (`InputContext.round` of its questions).
 * - `method`, `target`: the request being retried and its tool or prompt
 *   name, or resource URI.
 * - `inputRequests`: the questions of the round, by key (`{}` for a round
 *   that carried only a `requestState`).
 * - `requestState`: the opaque state echoed on the retry, when the server
 *   gave one (its size is what travels with the client).
 * - `inputResponses`: the answers gathered, by key, sent on the retry
 *   (absent for a state-only round).
 *
 * MCP 2026-07-28, basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export interface Round {
  readonly round: number
  readonly method: "tools/call" | "prompts/get" | "resources/read"
  readonly target: string
  readonly inputRequests: InputRequests
  readonly requestState?: string | undefined
  readonly inputResponses?: InputResponses | undefined
}

/**
 * The MRTR retry members a caller may pass to continue a conversation by
 * hand (manual mode): `inputResponses` (key → answer, keys from the
 * `InputRequiredError.inputRequests`) and `requestState` (exactly as
 * received in `InputRequiredError.requestState`). They are sent on the
 * first request of the call only; later rounds carry what the server asks.
 *
 * MCP 2026-07-28, schema `InputResponseRequestParams`.
 *
 * @since 0.1.0
 */
export interface RetryParams {
  readonly inputResponses?: InputResponses | undefined
  readonly requestState?: string | undefined
}

/**
 * Params of `callTool`: `{ name, arguments?, inputResponses?, requestState? }`.
 *
 * MCP 2026-07-28, schema `CallToolRequestParams`.
 *
 * @since 0.1.0
 */
export interface CallToolParams extends RetryParams {
  readonly name: string
  readonly arguments?: Readonly<Record<string, unknown>> | undefined
}

/**
 * Params of `getPrompt`: `{ name, arguments?, inputResponses?, requestState? }`.
 *
 * MCP 2026-07-28, schema `GetPromptRequestParams`.
 *
 * @since 0.1.0
 */
export interface GetPromptParams extends RetryParams {
  readonly name: string
  readonly arguments?: Readonly<Record<string, string>> | undefined
}

/**
 * Params of `readResource`: `{ uri, inputResponses?, requestState? }`.
 *
 * MCP 2026-07-28, schema `ReadResourceRequestParams`.
 *
 * @since 0.1.0
 */
export interface ReadResourceParams extends RetryParams {
  readonly uri: string
}

/**
 * Params of the list methods: `{ cursor? }` (an opaque pagination cursor
 * from a previous page's `nextCursor`).
 *
 * MCP 2026-07-28, schema `PaginatedRequestParams`.
 *
 * @since 0.1.0
 */
export interface ListParams {
  readonly cursor?: string | undefined
}

/**
 * Params of `complete`: `{ ref, argument: { name, value }, context? }`.
 *
 * MCP 2026-07-28, schema `CompleteRequestParams`.
 *
 * @since 0.1.0
 */
export type CompleteParams = Omit<CompleteRequestParams, "_meta">

/**
 * The client service.
 *
 * - `clientInfo`: the `Implementation` sent in every request's `_meta`.
 * - `clientCapabilities`: the capabilities the next request would declare,
 *   derived from the input handlers in context (call site first, then the
 *   ones the client Layer was built with).
 * - `discover()`: `server/discover` → `DiscoverResult`.
 * - `listTools({ cursor? })` → `ListToolsResult` (one page). Caches the tool
 *   definitions; over HTTP drops, and remembers, tools whose `x-mcp-header`
 *   annotations are invalid.
 * - `callTool({ name, arguments?, inputResponses?, requestState? })` →
 *   `CallToolResult` (tool errors are results with `isError: true`).
 * - `listPrompts`, `getPrompt({ name, arguments? })` → `GetPromptResult`.
 * - `listResources`, `listResourceTemplates`, `readResource({ uri })` →
 *   `ReadResourceResult`.
 * - `complete({ ref, argument })` → `CompleteResult`.
 * - `tool(name)`: the cached definition of a tool, if listed.
 * - `getTask(taskId)`, `updateTask(taskId, inputResponses)`,
 *   `cancelTask(taskId)`: the Tasks extension's methods, declaring it, for
 *   driving a task by hand (`tasks: "manual"`); the raw result
 *   (`DetailedTask` with `resultType`, or the empty ack). -32602 for an
 *   unknown or expired task.
 * - `notifications`: every notification received from now on.
 *
 * Failures: `RequestError` (`McpError` for a JSON-RPC error, e.g. -32602,
 * -32601, -32020, -32021, -32022; `TransportError`; `ProtocolViolation`) and,
 * for the MRTR methods, `InputRequiredError`, `MaxRoundsExceeded`,
 * `InputHandlerError`; `callTool` also `InvalidToolDefinition` and, with
 * `tasks`, `TaskDriver.TaskStarted` (manual) / `TaskDriver.TaskCancelled`
 * (a failed task fails with its `McpError`). A -32022
 * (UnsupportedProtocolVersion) whose `data.supported` lists `2026-07-28` is
 * retried once, with a new id, before it is reported.
 *
 * MCP 2026-07-28, basic/lifecycle, basic/patterns/mrtr, server/*.
 *
 * @since 0.1.0
 */
export class McpClient extends Context.Service<McpClient, {
  readonly clientInfo: Implementation
  readonly clientCapabilities: Effect.Effect<ClientCapabilities>
  readonly discover: (options?: CallOptions) => Effect.Effect<DiscoverResult, RequestError>
  readonly listTools: (params?: ListParams, options?: CallOptions) => Effect.Effect<ListToolsResult, RequestError>
  readonly callTool: (params: CallToolParams, options?: CallOptions) => Effect.Effect<CallToolResult, McpClientError>
  readonly listPrompts: (params?: ListParams, options?: CallOptions) => Effect.Effect<ListPromptsResult, RequestError>
  readonly getPrompt: (params: GetPromptParams, options?: CallOptions) => Effect.Effect<GetPromptResult, MrtrError>
  readonly listResources: (
    params?: ListParams,
    options?: CallOptions
  ) => Effect.Effect<ListResourcesResult, RequestError>
  readonly listResourceTemplates: (
    params?: ListParams,
    options?: CallOptions
  ) => Effect.Effect<ListResourceTemplatesResult, RequestError>
  readonly readResource: (
    params: ReadResourceParams,
    options?: CallOptions
  ) => Effect.Effect<ReadResourceResult, MrtrError>
  readonly complete: (params: CompleteParams, options?: CallOptions) => Effect.Effect<CompleteResult, RequestError>
  readonly tool: (name: string) => Effect.Effect<Option.Option<Tool>>
  readonly getTask: (taskId: string, options?: CallOptions) => Effect.Effect<Record<string, unknown>, RequestError>
  readonly updateTask: (
    taskId: string,
    inputResponses: InputResponses,
    options?: CallOptions
  ) => Effect.Effect<Record<string, unknown>, RequestError>
  readonly cancelTask: (taskId: string, options?: CallOptions) => Effect.Effect<Record<string, unknown>, RequestError>
  readonly notifications: Stream.Stream<Notification>
}>()("@mrtr/client/McpClient") {}

// =============================================================================
// Helpers
// =============================================================================

/**
 * JSON-RPC ids come from one process-wide counter, so no two requests sent by
 * any clients of this process share an id (a manual-mode retry made through a
 * fresh client still gets a new id).
 */
let nextRequestId = 1

const DEFAULT_CLIENT_INFO: Implementation = { name: "@mrtr/client", version: "0.1.0" }
const DEFAULT_MAX_ROUNDS = 10
const MAX_LIST_PAGES = 100

/**
 * The default backoff between state-only rounds: 100 ms, doubling, capped at
 * 5 seconds.
 *
 * MCP 2026-07-28, basic (request `_meta`), basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export const defaultStateOnlyBackoff: Schedule.Schedule<Duration.Duration> = Schedule.exponential("100 millis").pipe(
  Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, Duration.seconds(5))))
)

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const INPUT_METHODS = new Set(["elicitation/create", "sampling/createMessage", "roots/list"])
const decodeInputRequest = Schema.decodeUnknownEffect(InputRequest)

/**
 * Why a tool must not be called over Streamable HTTP, or `undefined` when
 * its `x-mcp-header` annotations are valid: the rules of `@mrtr/protocol`'s
 * `headerAnnotationError`, and additionally an annotation on a `number`
 * property is invalid (the spec allows only `string`, `integer` and
 * `boolean`; the official conformance suite's `http-invalid-tool-headers`
 * requires rejecting `number`).
 *
 * MCP 2026-07-28, basic/transports/streamable-http (schema extension); server/tools.
 *
 * @since 0.1.0
 */
export const toolHeaderError = (tool: Tool): string | undefined => {
  const error = headerAnnotationError(tool)
  if (error !== undefined) return error
  for (const { header, path } of headerAnnotations(tool)) {
    let schema: unknown = tool.inputSchema
    for (const key of path) {
      schema = isRecord(schema) && isRecord(schema.properties) && Object.hasOwn(schema.properties, key)
        ? schema.properties[key]
        : undefined
    }
    if (isRecord(schema) && schema.type === "number") {
      return `x-mcp-header '${header}' on '${path.join(".")}' annotates a number property (only string, integer and boolean are allowed)`
    }
  }
  return undefined
}

interface Handlers {
  readonly elicitation: Option.Option<Elicitation.ElicitationHandler["Service"]>
  readonly sampling: Option.Option<Sampling.SamplingHandler["Service"]>
  readonly roots: Option.Option<RootsHandler["Service"]>
}

const handlersInContext: Effect.Effect<Handlers> = Effect.all({
  elicitation: Effect.serviceOption(Elicitation.ElicitationHandler),
  sampling: Effect.serviceOption(Sampling.SamplingHandler),
  roots: Effect.serviceOption(RootsHandler)
})

/**
 * The capabilities declared for a set of input handlers: `elicitation`
 * (modes the handler implements), `sampling` (`tools` / `context` when
 * supported), `roots: {}`; merged (`mergeCapabilities`) with `extra`, the
 * explicitly configured capabilities. `{}` when there is neither.
 *
 * MCP 2026-07-28, basic (capabilities); client/elicitation, client/sampling, client/roots.
 *
 * @since 0.1.0
 */
export const capabilitiesOf = (
  handlers: {
    readonly elicitation?: Elicitation.ElicitationHandler["Service"] | undefined
    readonly sampling?: Sampling.SamplingHandler["Service"] | undefined
    readonly roots?: RootsHandler["Service"] | undefined
  },
  extra: ClientCapabilities = {}
): ClientCapabilities => {
  const elicitation = handlers.elicitation === undefined ? undefined : Elicitation.capability(handlers.elicitation)
  const derived: ClientCapabilities = {
    ...(handlers.roots === undefined ? {} : { roots: {} }),
    ...(handlers.sampling === undefined ? {} : { sampling: Sampling.capability(handlers.sampling) }),
    ...(elicitation === undefined ? {} : { elicitation })
  }
  return Object.keys(extra).length === 0 ? derived : mergeCapabilities(derived, extra)
}

type Outcome =
  | { readonly _tag: "Complete" }
  | { readonly _tag: "InputRequired"; readonly inputRequests: InputRequests; readonly requestState: string | undefined }

/**
 * Classifies a raw result of an MRTR method: complete (no `resultType`, or
 * `"complete"`), or `input_required` with validated input requests.
 */
const classify = (method: string, raw: Record<string, unknown>): Effect.Effect<Outcome, ProtocolViolation> =>
  Effect.gen(function*() {
    const violation = (reason: string) => new ProtocolViolation({ method, reason, result: raw })
    const resultType = raw.resultType
    if (resultType === undefined || resultType === "complete") return { _tag: "Complete" } as const
    if (typeof resultType !== "string") return yield* violation("resultType is not a string")
    if (resultType !== "input_required") return yield* violation(`unknown resultType '${resultType}'`)
    const { inputRequests, requestState } = raw
    if (inputRequests !== undefined && !isRecord(inputRequests)) {
      return yield* violation("inputRequests is not an object")
    }
    if (requestState !== undefined && typeof requestState !== "string") {
      return yield* violation("requestState is not a string")
    }
    const entries = Object.entries(inputRequests ?? {})
    if (entries.length === 0 && requestState === undefined) {
      return yield* violation("an input_required result must carry inputRequests or requestState")
    }
    // Null prototype: keys come from the server (`__proto__`, `toString` are keys like any other).
    const decoded: Record<string, InputRequest> = Object.create(null)
    for (const [key, request] of entries) {
      const requestMethod = isRecord(request) ? request.method : undefined
      if (typeof requestMethod !== "string" || !INPUT_METHODS.has(requestMethod)) {
        return yield* violation(`input request '${key}' has an unknown method '${String(requestMethod)}'`)
      }
      decoded[key] = yield* decodeInputRequest(request).pipe(
        Effect.mapError((issue) => violation(`input request '${key}' is malformed: ${issue.message}`))
      )
    }
    return { _tag: "InputRequired", inputRequests: decoded, requestState }
  })

const decodeWith = <A>(method: string, schema: Schema.Codec<A, any>) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (raw: Record<string, unknown>): Effect.Effect<A, ProtocolViolation> =>
    decode(raw).pipe(
      Effect.mapError((issue) =>
        new ProtocolViolation({ method, reason: `the result does not decode: ${issue.message}`, result: raw })
      )
    ) as Effect.Effect<A, ProtocolViolation>
}

const checkEncoded = <A>(schema: Schema.Codec<A, any>, kind: "elicitation" | "sampling" | "roots", key: string) => {
  const encode = Schema.encodeUnknownEffect(schema)
  return (value: unknown): Effect.Effect<InputResponse, InputHandlerError> =>
    encode(value).pipe(
      Effect.mapError((issue) =>
        new InputHandlerError({ kind, key, reason: `the handler's answer is not valid: ${issue.message}` })
      )
    ) as Effect.Effect<InputResponse, InputHandlerError>
}

// =============================================================================
// Constructor
// =============================================================================

/**
 * Builds the client over the `ClientTransport` in context (requires a
 * `Scope`, which owns the fiber forwarding the transport's unsolicited
 * notifications). Input handlers present in the construction context are
 * used for every call; handlers in a call's own context take precedence.
 * JSON-RPC ids come from a process-wide counter, so every request (and
 * every retry) gets a new id.
 *
 * MCP 2026-07-28, basic (request `_meta`), basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const transport = yield* ClientTransport
  const layerHandlers = yield* handlersInContext
  const clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO
  const defaultMaxRounds = Math.max(1, options.maxRounds ?? DEFAULT_MAX_ROUNDS)
  const backoff = options.stateOnlyBackoff ?? defaultStateOnlyBackoff
  const requestTimeout = Duration.fromInputUnsafe(options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
  const callTimeout = Duration.fromInputUnsafe(options.callTimeout ?? DEFAULT_CALL_TIMEOUT)

  /** `effect` bounded by the call's `callTimeout` (interrupted, then `RequestTimeout`). */
  const withCallTimeout = <A, E>(
    method: string,
    callOptions: CallOptions | undefined,
    effect: Effect.Effect<A, E>
  ): Effect.Effect<A, E | RequestTimeout> => {
    const bound = Duration.fromInputUnsafe(callOptions?.callTimeout ?? callTimeout)
    return Duration.isFinite(bound)
      ? Effect.timeoutOrElse(effect, {
        duration: bound,
        orElse: () => Effect.fail(new RequestTimeout({ method, bound: "call", millis: Duration.toMillis(bound) }))
      })
      : effect
  }
  const pubsub = yield* PubSub.unbounded<Notification>()
  const tools = new Map<string, Tool>()
  const rejected = new Map<string, string>()
  let listedTools = false

  const publish = (notification: Notification, callOptions: CallOptions | undefined) =>
    Effect.all([
      PubSub.publish(pubsub, notification),
      options.onNotification === undefined ? Effect.void : options.onNotification(notification),
      callOptions?.onNotification === undefined ? Effect.void : callOptions.onNotification(notification)
    ], { discard: true })

  yield* transport.notifications.pipe(
    Stream.runForEach((message) =>
      isRecord(message) && typeof message.method === "string"
        ? publish({ method: message.method, ...(isRecord(message.params) ? { params: message.params } : {}) }, undefined)
        : Effect.void
    ),
    Effect.forkScoped
  )

  const currentHandlers: Effect.Effect<Handlers> = Effect.map(handlersInContext, (call) => ({
    elicitation: Option.orElse(call.elicitation, () => layerHandlers.elicitation),
    sampling: Option.orElse(call.sampling, () => layerHandlers.sampling),
    roots: Option.orElse(call.roots, () => layerHandlers.roots)
  }))

  const declared = (handlers: Handlers): ClientCapabilities =>
    capabilitiesOf({
      elicitation: Option.getOrUndefined(handlers.elicitation),
      sampling: Option.getOrUndefined(handlers.sampling),
      roots: Option.getOrUndefined(handlers.roots)
    }, options.capabilities)

  const metaFor = (capabilities: ClientCapabilities, callOptions: CallOptions | undefined) =>
    makeRequestMeta({
      clientCapabilities: capabilities,
      clientInfo,
      logLevel: options.logLevel,
      progressToken: callOptions?.progressToken
    })

  // -- One request / response exchange ----------------------------------------

  const exchangeOnce = (
    method: string,
    params: Record<string, unknown>,
    tool: Tool | undefined,
    callOptions: CallOptions | undefined
  ): Effect.Effect<Record<string, unknown>, RequestError> =>
    Effect.gen(function*() {
      const id = nextRequestId++
      const message = { jsonrpc: "2.0" as const, id, method, params }
      const headers = transport.usesHeaders ? requestHeaders(message, tool) : {}
      const violation = (reason: string, result?: unknown) =>
        new ProtocolViolation({ method, reason, ...(result === undefined ? {} : { result }) })
      let response: Record<string, unknown> | undefined
      const idle = Duration.fromInputUnsafe(callOptions?.requestTimeout ?? requestTimeout)
      yield* transport.request(message, headers).pipe(
        Stream.timeoutOrElse({
          duration: idle,
          orElse: () => Stream.fail(new RequestTimeout({ method, bound: "request", millis: Duration.toMillis(idle) }))
        }),
        Stream.runForEachWhile((incoming): Effect.Effect<boolean, ProtocolViolation> => {
          if (!isRecord(incoming)) return Effect.succeed(true)
          if (typeof incoming.method === "string") {
            // Servers must not send requests in 2026-07-28; only notifications are surfaced.
            if ("id" in incoming) return Effect.succeed(true)
            return publish({
              method: incoming.method,
              ...(isRecord(incoming.params) ? { params: incoming.params } : {}),
              request: { id, method }
            }, callOptions).pipe(Effect.as(true))
          }
          if (!("result" in incoming) && !("error" in incoming)) return Effect.succeed(true)
          const uncorrelatedError = "error" in incoming && (incoming.id === undefined || incoming.id === null)
          if (incoming.id !== id && !uncorrelatedError) {
            return Effect.fail(violation(`response id ${JSON.stringify(incoming.id)} does not match request id ${id}`))
          }
          response = incoming
          return Effect.succeed(false)
        })
      )
      if (response === undefined) {
        return yield* new TransportError({ reason: `The transport ended without a response to ${method} (id ${id})` })
      }
      if ("error" in response) {
        const error = response.error
        if (!isRecord(error) || !Number.isInteger(error.code) || typeof error.message !== "string") {
          return yield* violation("malformed JSON-RPC error", response)
        }
        return yield* McpError.fromJsonRpc({
          code: error.code as number,
          message: error.message,
          ...("data" in error ? { data: error.data } : {})
        })
      }
      if (!isRecord(response.result)) return yield* violation("the result is not an object", response)
      return response.result
    })

  /**
   * One exchange; a -32022 (UnsupportedProtocolVersion) whose `data.supported`
   * lists the version we sent is retried once with a new id (a server may
   * reject a version it supports, e.g. during a rolling deploy).
   */
  const exchange = (
    method: string,
    params: Record<string, unknown>,
    tool: Tool | undefined,
    callOptions: CallOptions | undefined
  ) =>
    exchangeOnce(method, params, tool, callOptions).pipe(
      Effect.catchIf(
        (error): error is McpError =>
          error._tag === "McpError" && error.code === ErrorCode.UnsupportedProtocolVersion &&
          isRecord(error.data) && Array.isArray(error.data.supported) &&
          error.data.supported.includes(PROTOCOL_VERSION),
        () => exchangeOnce(method, params, tool, callOptions)
      )
    )

  // -- Plain requests -------------------------------------------------------

  const plain = <A>(method: string, schema: Schema.Codec<A, any>) => {
    const decode = decodeWith(method, schema)
    return (params: Record<string, unknown>, callOptions: CallOptions | undefined): Effect.Effect<A, RequestError> =>
      withCallTimeout(method, callOptions, Effect.gen(function*() {
        const handlers = yield* currentHandlers
        const raw = yield* exchange(method, { ...params, _meta: metaFor(declared(handlers), callOptions) }, undefined, callOptions)
        const resultType = raw.resultType
        if (resultType !== undefined && resultType !== "complete") {
          return yield* new ProtocolViolation({
            method,
            reason: resultType === "input_required"
              ? `${method} must not return input_required`
              : `unknown resultType '${String(resultType)}'`,
            result: raw
          })
        }
        return yield* decode(raw)
      }))
  }

  const listParams = (params: ListParams | undefined) => params?.cursor === undefined ? {} : { cursor: params.cursor }

  const discoverRequest = plain("server/discover", DiscoverResult)
  const listToolsRequest = plain("tools/list", ListToolsResult)
  const listPromptsRequest = plain("prompts/list", ListPromptsResult)
  const listResourcesRequest = plain("resources/list", ListResourcesResult)
  const listTemplatesRequest = plain("resources/templates/list", ListResourceTemplatesResult)
  const completeRequest = plain("completion/complete", CompleteResult)

  const listTools = (params?: ListParams, callOptions?: CallOptions) =>
    listToolsRequest(listParams(params), callOptions).pipe(
      Effect.flatMap((result) =>
        Effect.gen(function*() {
          listedTools = true
          const kept: Array<Tool> = []
          for (const tool of result.tools) {
            const reason = transport.usesHeaders ? toolHeaderError(tool) : undefined
            if (reason === undefined) {
              tools.set(tool.name, tool)
              rejected.delete(tool.name)
              kept.push(tool)
            } else {
              tools.delete(tool.name)
              rejected.set(tool.name, reason)
              yield* Effect.logWarning(`Excluding tool ${tool.name}: ${reason}`)
            }
          }
          return kept.length === result.tools.length ? result : { ...result, tools: kept }
        })
      )
    )

  const listAllTools = Effect.gen(function*() {
    let cursor: string | undefined
    const seen = new Set<string>()
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = yield* listTools(cursor === undefined ? undefined : { cursor })
      if (result.nextCursor === undefined || seen.has(result.nextCursor)) return
      seen.add(result.nextCursor)
      cursor = result.nextCursor
    }
  })

  // -- The input_required loop -------------------------------------------------

  const isAcceptedUrl = (
    acceptedUrls: Map<string, { readonly url: string; attempts: number }>,
    key: string,
    request: InputRequest
  ): boolean =>
    request.method === "elicitation/create" && request.params.mode === "url" &&
    acceptedUrls.get(key)?.url === request.params.url

  const answer = (
    key: string,
    request: InputRequest,
    handlers: Handlers,
    context: InputContext,
    acceptedUrls: Map<string, { readonly url: string; attempts: number }>
  ): Effect.Effect<InputResponse, InputHandlerError> => {
    switch (request.method) {
      case "elicitation/create": {
        const handler = Option.getOrUndefined(handlers.elicitation)
        const params = request.params
        let run: Effect.Effect<ElicitResult, InputHandlerError> | undefined
        if (params.mode === "url") {
          // Accepted before in this call and back unchanged: the server waits for the interaction.
          const accepted = acceptedUrls.get(key)
          const again = accepted !== undefined && isAcceptedUrl(acceptedUrls, key, request)
          if (again) accepted.attempts++
          const asked = again
            ? (handler?.urlWait ?? Elicitation.waitAndRetry)(params, { ...context, attempt: accepted.attempts })
            : handler?.url?.(params, context)
          run = asked?.pipe(
            // URL-mode acceptance carries no content.
            Effect.map((result): ElicitResult => {
              if (result.action !== "accept") return result
              if (!again) acceptedUrls.set(key, { url: params.url, attempts: 0 })
              return { action: "accept" }
            })
          )
        } else {
          run = handler?.form?.(params, context)
        }
        return run === undefined
          ? Effect.fail(new InputHandlerError({ kind: "elicitation", key, reason: "no handler for this mode" }))
          : Effect.flatMap(run, checkEncoded(ElicitResult, "elicitation", key))
      }
      case "sampling/createMessage": {
        const handler = Option.getOrUndefined(handlers.sampling)
        return handler === undefined
          ? Effect.fail(new InputHandlerError({ kind: "sampling", key, reason: "no sampling handler" }))
          : Effect.flatMap(handler.createMessage(request.params, context), checkEncoded(CreateMessageResult, "sampling", key))
      }
      case "roots/list": {
        const handler = Option.getOrUndefined(handlers.roots)
        return handler === undefined
          ? Effect.fail(new InputHandlerError({ kind: "roots", key, reason: "no roots handler" }))
          : Effect.flatMap(
            handler.listRoots(context),
            (roots) => checkEncoded(ListRootsResult, "roots", key)({ roots })
          )
      }
    }
  }

  const canAnswer = (request: InputRequest, handlers: Handlers, capabilities: ClientCapabilities): boolean => {
    if (missingCapabilities(requiredCapabilities(request), capabilities) !== undefined) return false
    switch (request.method) {
      case "elicitation/create": {
        const handler = Option.getOrUndefined(handlers.elicitation)
        return (request.params.mode === "url" ? handler?.url : handler?.form) !== undefined
      }
      case "sampling/createMessage":
        return Option.isSome(handlers.sampling)
      case "roots/list":
        return Option.isSome(handlers.roots)
    }
  }

  // -- Tasks (SEP-2663) ---------------------------------------------------------

  /** One task method (`tasks/get`, `tasks/update`, `tasks/cancel`), declaring the extension. */
  const taskRequest = (
    method: string,
    params: Record<string, unknown>,
    capabilities: ClientCapabilities,
    callOptions: CallOptions | undefined
  ) =>
    exchange(method, { ...params, _meta: metaFor(TaskDriver.declaring(capabilities), callOptions) }, undefined, callOptions)

  /** Answers a task's input requests with the handlers; `undefined` when one cannot be answered here. */
  const answerAll = (
    inputRequests: InputRequests,
    handlers: Handlers,
    capabilities: ClientCapabilities,
    target: string,
    round: number,
    acceptedUrls: Map<string, { readonly url: string; attempts: number }>
  ): Effect.Effect<InputResponses | undefined, InputHandlerError> => {
    const entries = Object.entries(inputRequests)
    if (entries.some(([, request]) => !canAnswer(request, handlers, capabilities))) return Effect.succeed(undefined)
    return Effect.map(
      Effect.forEach(entries, ([key, request]) =>
        Effect.map(
          answer(key, request, handlers, { key, method: "tools/call", target, round }, acceptedUrls),
          (response) => [key, response] as const
        ), { concurrency: "unbounded" }),
      (answers): InputResponses => Object.assign(Object.create(null), Object.fromEntries(answers))
    )
  }

  const taskMethod = (method: string) => (params: Record<string, unknown>, callOptions?: CallOptions) =>
    Effect.flatMap(currentHandlers, (handlers) => taskRequest(method, params, declared(handlers), callOptions))

  const mrtr = <A>(
    method: "tools/call" | "prompts/get" | "resources/read",
    target: string,
    base: Record<string, unknown>,
    retry: RetryParams,
    tool: Tool | undefined,
    decode: (raw: Record<string, unknown>) => Effect.Effect<A, ProtocolViolation>,
    callOptions: CallOptions | undefined
  ): Effect.Effect<A, MrtrError | TaskDriver.TaskStarted | TaskDriver.TaskCancelled> =>
    withCallTimeout(method, callOptions, Effect.gen(function*() {
      const handlers = yield* currentHandlers
      const tasksMode = method === "tools/call" ? callOptions?.tasks ?? options.tasks : undefined
      const capabilities = tasksMode === undefined ? declared(handlers) : TaskDriver.declaring(declared(handlers))
      const maxRounds = Math.max(1, callOptions?.maxRounds ?? defaultMaxRounds)
      let inputResponses = retry.inputResponses
      let requestState = retry.requestState
      let sleep: ((input: unknown) => Effect.Effect<unknown, unknown>) | undefined
      // URL elicitations the user accepted in this call, by key (see ElicitationHandler.urlWait).
      const acceptedUrls = new Map<string, { readonly url: string; attempts: number }>()
      let waited = 0
      for (let round = 1;; round++) {
        // Fresh params every round: the original request plus this round's
        // answers and state only, so nothing stale (or from another call) leaks.
        const params: Record<string, unknown> = {
          ...base,
          _meta: metaFor(capabilities, callOptions),
          ...(inputResponses === undefined ? {} : { inputResponses }),
          ...(requestState === undefined ? {} : { requestState })
        }
        const raw = yield* exchange(method, params, tool, callOptions)
        if (tasksMode !== undefined && raw.resultType === "task") {
          return yield* tasksMode === "manual"
            ? new TaskDriver.TaskStarted({ taskId: String(raw.taskId), task: raw })
            : TaskDriver.drive(raw, {
              request: (taskMethod, taskParams) => taskRequest(taskMethod, taskParams, capabilities, callOptions),
              answer: (inputRequests, taskRound) =>
                answerAll(inputRequests, handlers, capabilities, target, taskRound, acceptedUrls),
              onStatus: callOptions?.onTaskStatus
            }).pipe(Effect.flatMap(decode))
        }
        const outcome = yield* classify(method, raw)
        if (outcome._tag === "Complete") return yield* decode(raw)
        const entries = Object.entries(outcome.inputRequests)
        // A round that only asks again URLs the user accepted (the server waits for their pages) is a
        // wait, not a new question: it does not count toward maxRounds (callTimeout bounds it).
        if (entries.length > 0 && entries.every(([key, request]) => isAcceptedUrl(acceptedUrls, key, request))) waited++
        if (round - waited >= maxRounds) return yield* new MaxRoundsExceeded({ method, rounds: round, lastResult: raw })
        if (entries.length === 0) {
          // State-only round: nothing to answer, back off before retrying.
          sleep ??= yield* Schedule.toStepWithSleep(backoff)
          yield* Effect.ignore(sleep(undefined))
          inputResponses = undefined
        } else {
          sleep = undefined
          if (entries.some(([, request]) => !canAnswer(request, handlers, capabilities))) {
            return yield* new InputRequiredError({
              method,
              inputRequests: outcome.inputRequests,
              ...(outcome.requestState === undefined ? {} : { requestState: outcome.requestState }),
              result: raw,
              round
            })
          }
          const answers = yield* Effect.forEach(
            entries,
            ([key, request]) =>
              Effect.map(
                answer(key, request, handlers, { key, method, target, round }, acceptedUrls),
                (response) => [key, response] as const
              ),
            { concurrency: "unbounded" }
          )
          // Own data properties, whatever the keys (no `__proto__` setter runs).
          inputResponses = Object.assign(Object.create(null), Object.fromEntries(answers))
        }
        requestState = outcome.requestState
        if (callOptions?.onRound !== undefined) {
          yield* callOptions.onRound({
            round,
            method,
            target,
            inputRequests: outcome.inputRequests,
            ...(requestState === undefined ? {} : { requestState }),
            ...(inputResponses === undefined ? {} : { inputResponses })
          })
        }
      }
    }))

  // -- The service ------------------------------------------------------------

  const callToolDecode = decodeWith("tools/call", CallToolResult)
  const getPromptDecode = decodeWith("prompts/get", GetPromptResult)
  const readResourceDecode = decodeWith("resources/read", ReadResourceResult)

  const callTool = (params: CallToolParams, callOptions?: CallOptions): Effect.Effect<CallToolResult, McpClientError> =>
    Effect.gen(function*() {
      let tool: Tool | undefined
      if (transport.usesHeaders) {
        // Learn the tool's x-mcp-header annotations before the first call.
        if (!tools.has(params.name) && !rejected.has(params.name) && !listedTools) {
          yield* Effect.ignore(listAllTools)
        }
        const reason = rejected.get(params.name)
        if (reason !== undefined) return yield* new InvalidToolDefinition({ tool: params.name, reason })
        tool = tools.get(params.name)
      }
      return yield* mrtr(
        "tools/call",
        params.name,
        { name: params.name, ...(params.arguments === undefined ? {} : { arguments: params.arguments }) },
        params,
        tool,
        callToolDecode,
        callOptions
      )
    })

  return McpClient.of({
    clientInfo,
    clientCapabilities: Effect.map(currentHandlers, declared),
    discover: (callOptions) => discoverRequest({}, callOptions),
    listTools,
    callTool,
    listPrompts: (params, callOptions) => listPromptsRequest(listParams(params), callOptions),
    // Only a tools/call becomes a task: the other MRTR methods fail with MrtrError alone.
    getPrompt: (params, callOptions) =>
      mrtr(
        "prompts/get",
        params.name,
        { name: params.name, ...(params.arguments === undefined ? {} : { arguments: params.arguments }) },
        params,
        undefined,
        getPromptDecode,
        callOptions
      ) as Effect.Effect<GetPromptResult, MrtrError>,
    listResources: (params, callOptions) => listResourcesRequest(listParams(params), callOptions),
    listResourceTemplates: (params, callOptions) => listTemplatesRequest(listParams(params), callOptions),
    readResource: (params, callOptions) =>
      mrtr("resources/read", params.uri, { uri: params.uri }, params, undefined, readResourceDecode, callOptions) as Effect.Effect<
        ReadResourceResult,
        MrtrError
      >,
    complete: (params, callOptions) => completeRequest({ ...params }, callOptions),
    tool: (name) => Effect.sync(() => Option.fromNullishOr(tools.get(name))),
    getTask: (taskId, callOptions) => taskMethod("tasks/get")({ taskId }, callOptions),
    updateTask: (taskId, inputResponses, callOptions) => taskMethod("tasks/update")({ taskId, inputResponses }, callOptions),
    cancelTask: (taskId, callOptions) => taskMethod("tasks/cancel")({ taskId }, callOptions),
    notifications: Stream.fromPubSub(pubsub)
  })
})

/**
 * The client as a Layer over the `ClientTransport` in context. Input
 * handlers provided to this Layer (e.g. `Layer.provide(ScriptedUser.layer(...))`)
 * decide the declared capabilities of every request.
 *
 * @example
 * ```ts
 * const client = McpClient.layer({ clientInfo: { name: "app", version: "1.0.0" } }).pipe(
 *   Layer.provide(HttpTransport.layerNode({ url: "http://127.0.0.1:3000/mcp" })),
 *   Layer.provide(ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ ok: true })) }))
 * )
 * ```
 *
 * MCP 2026-07-28, basic (request `_meta`), basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<McpClient, never, ClientTransport> =>
  Layer.effect(McpClient, make(options))
