/**
 * `McpClient`: an MCP client as an Effect service, for 2026-07-28 servers
 * and, detected by default (`Options.protocol`), 2025-11-25 ones.
 *
 * On 2026-07-28 every request is stateless: it carries `params._meta` with the protocol
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
 * A 2025-11-25 server gets `initialize`, a session, and its in-flight
 * `elicitation/create` / `sampling/createMessage` / `roots/list` requests
 * answered by the same handlers (the era-specific code is in
 * `internal/eras.ts`; see the service's docs below).
 *
 * Source: MCP 2026-07-28, basic (request `_meta`), basic/lifecycle
 * (`server/discover`), basic/patterns/mrtr, basic/transports/streamable-http,
 * server/tools, server/prompts, server/resources, server/utilities/completion;
 * MCP 2025-11-25, basic/lifecycle, basic/transports, client/*.
 *
 * @since 0.1.0
 */
import { Context, Duration, Effect, Layer, Option, PubSub, Schedule, Schema, Stream } from "effect"
import { makeRequestMeta } from "@mrtr/protocol/Meta"
import {
  CallToolResult,
  type ClientCapabilities,
  CompleteResult,
  DiscoverResult,
  GetPromptResult,
  type Implementation,
  type InputResponses,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  ReadResourceResult,
  type Tool
} from "@mrtr/protocol/Schema"
import { ClientTransport } from "./ClientTransport.ts"
import type { McpClientError, MrtrError, RequestError } from "./Errors.ts"
import type * as Elicitation from "./ElicitationHandler.ts"
import type { RootsHandler } from "./RootsHandler.ts"
import type * as Sampling from "./SamplingHandler.ts"
import * as InputHandlers from "./internal/inputHandlers.ts"
import { callTimeoutWith } from "./internal/deadline.ts"
import * as Eras from "./internal/eras.ts"
import * as InputLoop from "./internal/inputLoop.ts"
import * as PlainRequests from "./internal/plainRequests.ts"
import * as ToolCatalog from "./internal/toolCatalog.ts"
import {
  type CallOptions,
  type CallToolParams,
  type CompleteParams,
  type Connection,
  DEFAULT_CALL_TIMEOUT,
  DEFAULT_REQUEST_TIMEOUT,
  type GetPromptParams,
  type ListParams,
  type Notification,
  type Options,
  type Protocol,
  type ReadResourceParams,
  type RetryParams,
  type Round,
  type ServerRequest
} from "./Models.ts"
import { toDiscoverResult } from "./internal/legacySession.ts"
import { decodeWith } from "./internal/results.ts"

// =============================================================================
// Models (Models.ts)
// =============================================================================

export type {
  /**
   * @category models
   * @since 0.1.0
   */
  CallOptions,
  /**
   * @category models
   * @since 0.1.0
   */
  CallToolParams,
  /**
   * @category models
   * @since 0.1.0
   */
  CompleteParams,
  /**
   * @category models
   * @since 0.1.0
   */
  Connection,
  /**
   * @category models
   * @since 0.1.0
   */
  GetPromptParams,
  /**
   * @category models
   * @since 0.1.0
   */
  ListParams,
  /**
   * @category models
   * @since 0.1.0
   */
  Notification,
  /**
   * @category models
   * @since 0.1.0
   */
  Options,
  /**
   * @category models
   * @since 0.1.0
   */
  Protocol,
  /**
   * @category models
   * @since 0.1.0
   */
  ReadResourceParams,
  /**
   * @category models
   * @since 0.1.0
   */
  RetryParams,
  /**
   * @category models
   * @since 0.1.0
   */
  Round,
  /**
   * @category models
   * @since 0.1.0
   */
  ServerRequest
}
export {
  /**
   * @category constants
   * @since 0.1.0
   */
  DEFAULT_CALL_TIMEOUT,
  /**
   * @category constants
   * @since 0.1.0
   */
  DEFAULT_REQUEST_TIMEOUT
}

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
 *   `CallToolResult` (tool errors are results with `isError: true`). Over
 *   2026-07-28 HTTP, a first call before any `listTools` lists the tools
 *   first (for their `x-mcp-header` annotations), within the call's
 *   `requestTimeout` and `callTimeout`; a listing that fails or times out is
 *   skipped and the call sent.
 * - `listPrompts`, `getPrompt({ name, arguments? })` → `GetPromptResult`.
 * - `listResources`, `listResourceTemplates`, `readResource({ uri })` →
 *   `ReadResourceResult`.
 * - `complete({ ref, argument })` → `CompleteResult`.
 * - `tool(name)`: the cached definition of a tool, if listed.
 * - `notifications`: every notification received from now on.
 * - `connection`: the era and version spoken (connects first when nothing
 *   was sent yet: the probe and, on 2025-11-25, `initialize`).
 *
 * On a 2025-11-25 server (see `Options.protocol`) the same methods work:
 * `discover()` answers from the `InitializeResult` (`supportedVersions` is
 * the negotiated version, nothing cacheable), results carry no
 * `resultType`, and the requests the server sends while serving a call are
 * answered with the input handlers, their keys derived as the server
 * derives them (`elicitation-1`, `sampling-1`, `roots-1`: per kind in
 * arrival order within the call). A handler failure fails the call with
 * `InputHandlerError` (the server is answered -32603); a request with no
 * handler is answered -32601 at once.
 *
 * Failures: `RequestError` (`McpError` for a JSON-RPC error, e.g. -32602,
 * -32601, -32020, -32021, -32022; `TransportError`; `ProtocolViolation`) and,
 * for the MRTR methods, `InputRequiredError`, `MaxRoundsExceeded`,
 * `InputHandlerError`; `callTool` also `InvalidToolDefinition`. A -32022
 * (UnsupportedProtocolVersion) whose `data.supported` lists `2026-07-28` is
 * retried once, with a new id, before it is reported.
 *
 * MCP 2026-07-28, basic/lifecycle, basic/patterns/mrtr, server/*.
 *
 * @category services
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
  readonly connection: Effect.Effect<Connection, RequestError>
}>()("@mrtr/client/McpClient") {}

// =============================================================================
// Helpers
// =============================================================================


const DEFAULT_CLIENT_INFO: Implementation = { name: "@mrtr/client", version: "0.1.0" }
const DEFAULT_MAX_ROUNDS = 10
const DEFAULT_PROBE_TIMEOUT = Duration.seconds(10)

/**
 * The default backoff between state-only rounds: 100 ms, doubling, capped at
 * 5 seconds.
 *
 * MCP 2026-07-28, basic (request `_meta`), basic/patterns/mrtr.
 *
 * @category utils
 * @since 0.1.0
 */
export const defaultStateOnlyBackoff: Schedule.Schedule<Duration.Duration> = Schedule.exponential("100 millis").pipe(
  Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, Duration.seconds(5))))
)

/**
 * The capabilities declared for a set of input handlers: `elicitation`
 * (modes the handler implements), `sampling` (`tools` / `context` when
 * supported), `roots: {}`; merged (`mergeCapabilities`) with `extra`, the
 * explicitly configured capabilities. `{}` when there is neither.
 *
 * MCP 2026-07-28, basic (capabilities); client/elicitation, client/sampling, client/roots.
 *
 * @category utils
 * @since 0.1.0
 */
export const capabilitiesOf: (
  handlers: {
    readonly elicitation?: Elicitation.ElicitationHandler["Service"] | undefined
    readonly sampling?: Sampling.SamplingHandler["Service"] | undefined
    readonly roots?: RootsHandler["Service"] | undefined
  },
  extra?: ClientCapabilities
) => ClientCapabilities = InputHandlers.capabilitiesOf

type Handlers = InputHandlers.Handlers
const handlersInContext = InputHandlers.handlersInContext



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
 * @category utils
 * @since 0.1.0
 */
export const toolHeaderError: (tool: Tool) => string | undefined = ToolCatalog.toolHeaderError

// A `maxRounds` that is no number (NaN, a string from untyped code) would turn the cap off: a defect, as a
// `callTimeout` that is no duration is.
const roundsCap = (maxRounds: number): number => {
  if (typeof maxRounds !== "number" || Number.isNaN(maxRounds)) {
    throw new RangeError(`McpClient: maxRounds must be a number (at least 1), got ${String(maxRounds)}`)
  }
  return Math.max(1, maxRounds)
}

// A `protocol` outside the three revisions (a typo, a string from untyped code) would silently mean "auto": a defect.
const PROTOCOLS: ReadonlySet<unknown> = new Set(["auto", "2026-07-28", "2025-11-25"])
const protocolOf = (protocol: Protocol): Protocol => {
  if (!PROTOCOLS.has(protocol)) {
    throw new RangeError(`McpClient: protocol must be "auto", "2026-07-28" or "2025-11-25", got ${JSON.stringify(protocol)}`)
  }
  return protocol
}

/** `McpClient.discover`: on 2025-11-25 from the `InitializeResult`, else the probe's result or `server/discover`. */
const discoverWith = (
  eras: Eras.Eras,
  discoverRequest: (params: Record<string, unknown>, callOptions: CallOptions | undefined) => Effect.Effect<DiscoverResult, RequestError>
) =>
(callOptions?: CallOptions): Effect.Effect<DiscoverResult, RequestError> =>
  eras.connect.pipe(
    Effect.flatMap((connection) =>
      connection.era === "2025-11-25"
        ? Effect.succeed(toDiscoverResult(connection.initialize))
        : eras.takeDiscovered.pipe(
          Effect.flatMap(Option.match({
            onNone: () => discoverRequest({}, callOptions),
            onSome: Effect.succeed
          }))
        )
    )
  )

/** `McpClient.connection`: the era's connection as the service shows it. */
const connectionOf = (connection: Eras.Connection): Connection =>
  connection.era === "2026-07-28" ? connection : {
    era: connection.era,
    protocolVersion: connection.protocolVersion,
    serverInfo: connection.initialize.serverInfo,
    capabilities: connection.initialize.capabilities,
    ...(connection.initialize.instructions === undefined ? {} : { instructions: connection.initialize.instructions })
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
 * every retry) gets a new id. One function per concept behind it: the
 * connection in the server's era (`internal/eras.ts`), the requests outside
 * the MRTR loop (`internal/plainRequests.ts`), the tool definitions
 * (`internal/toolCatalog.ts`), the `input_required` loop
 * (`internal/inputLoop.ts`), the time bounds (`internal/deadline.ts`).
 *
 * MCP 2026-07-28, basic (request `_meta`), basic/patterns/mrtr.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const transport = yield* ClientTransport
  const scope = yield* Effect.scope
  const layerHandlers = yield* handlersInContext
  const clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO
  const defaultMaxRounds = roundsCap(options.maxRounds ?? DEFAULT_MAX_ROUNDS)
  const requestTimeout = Duration.fromInputUnsafe(options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
  const withCallTimeout = callTimeoutWith(Duration.fromInputUnsafe(options.callTimeout ?? DEFAULT_CALL_TIMEOUT))
  const pubsub = yield* PubSub.unbounded<Notification>()

  const publish = (notification: Notification, callOptions: CallOptions | undefined) =>
    Effect.all([
      PubSub.publish(pubsub, notification),
      options.onNotification === undefined ? Effect.void : options.onNotification(notification),
      callOptions?.onNotification === undefined ? Effect.void : callOptions.onNotification(notification)
    ], { discard: true })

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

  // -- The connection, in the server's era (internal/eras.ts) ------------------

  const eras = Eras.make({
    transport,
    // `null` (a JSON config's) is no protocol either: only an absent one means "auto".
    protocol: protocolOf(options.protocol === undefined ? "auto" : options.protocol),
    probeTimeout: options.probeTimeout ?? DEFAULT_PROBE_TIMEOUT,
    requestTimeout,
    clientInfo,
    logLevel: options.logLevel,
    layerHandlers,
    declared,
    modernMeta: (capabilities, progressToken) =>
      makeRequestMeta({ clientCapabilities: capabilities, clientInfo, logLevel: options.logLevel, progressToken }),
    publish: (notification) => publish(notification, undefined),
    scope
  })

  yield* transport.notifications.pipe(Stream.runForEach(eras.dispatch), Effect.forkScoped)
  const rootsChanges = Option.getOrUndefined(layerHandlers.roots)?.changes
  if (rootsChanges !== undefined) {
    yield* rootsChanges.pipe(Stream.runForEach(() => eras.rootsChanged), Effect.forkScoped)
  }

  // -- Requests outside the loop (internal/plainRequests.ts), the tools (internal/toolCatalog.ts) --

  const requests: PlainRequests.RequestContext = {
    eras,
    currentHandlers,
    declared,
    onNotification: (callOptions) => (notification) => publish(notification, callOptions),
    requestTimeout: (callOptions) => Duration.fromInputUnsafe(callOptions?.requestTimeout ?? requestTimeout),
    withCallTimeout
  }
  const plain = <A>(method: string, schema: Schema.Codec<A, any>) => PlainRequests.plain(requests, method, schema)
  const catalog = ToolCatalog.make({ transport, eras, listPage: plain("tools/list", ListToolsResult), withCallTimeout })

  // -- The input_required loop (internal/inputLoop.ts) -------------------------

  const loop: InputLoop.LoopContext = {
    ...requests,
    taskRequest: (method, params, capabilities, handlers, callOptions) =>
      PlainRequests.taskRequest(requests, method, params, capabilities, handlers, callOptions),
    maxRounds: (callOptions) =>
      callOptions?.maxRounds === undefined ? defaultMaxRounds : roundsCap(callOptions.maxRounds),
    backoff: options.stateOnlyBackoff ?? defaultStateOnlyBackoff,
    tasks: options.tasks
  }
  const mrtr = <A>(
    context: InputLoop.LoopContext,
    method: "tools/call" | "prompts/get" | "resources/read",
    schema: Schema.Codec<A, any>
  ) => {
    const decode = decodeWith(method, schema)
    return (target: string, base: Record<string, unknown>, retry: RetryParams, tool: Tool | undefined, callOptions: CallOptions | undefined) =>
      InputLoop.run(context, method, target, base, retry, tool, decode, callOptions)
  }
  // A tools/call's callTimeout bounds the whole call (below): the connection and the listing before a first call
  // too, not only the loop, which then needs no bound of its own.
  const callToolRound = mrtr({ ...loop, withCallTimeout: (_method, _callOptions, effect) => effect }, "tools/call", CallToolResult)
  const getPromptRound = mrtr(loop, "prompts/get", GetPromptResult)
  const readResourceRound = mrtr(loop, "resources/read", ReadResourceResult)

  // -- The service ------------------------------------------------------------

  const listOf = <A>(method: string, schema: Schema.Codec<A, any>) => {
    const request = plain(method, schema)
    return (params?: ListParams, callOptions?: CallOptions) => request(PlainRequests.listParams(params), callOptions)
  }
  const named = (params: { readonly name: string; readonly arguments?: unknown }) =>
    ({ name: params.name, ...(params.arguments === undefined ? {} : { arguments: params.arguments }) })
  const completeRequest = plain("completion/complete", CompleteResult)

  return McpClient.of({
    clientInfo,
    clientCapabilities: Effect.map(currentHandlers, declared),
    discover: discoverWith(eras, plain("server/discover", DiscoverResult)),
    listTools: catalog.listTools,
    // The MRTR methods read their params when the call runs: params that are no object are a defect of the call,
    // not a throw, on every transport.
    callTool: (params, callOptions) =>
      withCallTimeout(
        "tools/call",
        callOptions,
        Effect.suspend(() =>
          catalog.withTool(params.name, callOptions, (tool) => callToolRound(params.name, named(params), params, tool, callOptions))
        )
      ),
    listPrompts: listOf("prompts/list", ListPromptsResult),
    // Only a tools/call becomes a task: the other MRTR methods fail with MrtrError alone.
    getPrompt: (params, callOptions) =>
      Effect.suspend(() => getPromptRound(params.name, named(params), params, undefined, callOptions)) as Effect.Effect<
        GetPromptResult,
        MrtrError
      >,
    listResources: listOf("resources/list", ListResourcesResult),
    listResourceTemplates: listOf("resources/templates/list", ListResourceTemplatesResult),
    readResource: (params, callOptions) =>
      Effect.suspend(() => readResourceRound(params.uri, { uri: params.uri }, params, undefined, callOptions)) as Effect.Effect<
        ReadResourceResult,
        MrtrError
      >,
    complete: (params, callOptions) => completeRequest({ ...params }, callOptions),
    tool: catalog.tool,
    getTask: (taskId, callOptions) => PlainRequests.taskMethod(requests, "tasks/get")({ taskId }, callOptions),
    updateTask: (taskId, inputResponses, callOptions) =>
      PlainRequests.taskMethod(requests, "tasks/update")({ taskId, inputResponses }, callOptions),
    cancelTask: (taskId, callOptions) => PlainRequests.taskMethod(requests, "tasks/cancel")({ taskId }, callOptions),
    notifications: Stream.fromPubSub(pubsub),
    connection: Effect.map(eras.connect, connectionOf)
  })
})

/**
 * The client as a Layer over the `ClientTransport` in context. Input
 * handlers provided to this Layer (e.g. `Layer.provide(ScriptedUser.layer(...))`)
 * decide the declared capabilities of every request.
 *
 * **Example** (A client over Streamable HTTP that answers forms, calling a tool)
 *
 * ```ts
 * import { ElicitationHandler, HttpTransport, McpClient } from "@mrtr/client"
 * import { Effect, Layer } from "effect"
 *
 * const client = McpClient.layer({ clientInfo: { name: "app", version: "1.0.0" } }).pipe(
 *   Layer.provide(HttpTransport.layerNode({ url: "http://127.0.0.1:3000/mcp" })),
 *   Layer.provide(ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ ok: true })) }))
 * )
 *
 * const program = Effect.gen(function*() {
 *   const mcp = yield* McpClient.McpClient
 *   const result = yield* mcp.callTool({ name: "greet", arguments: { greeting: "Hello" } })
 *   return result.content
 * }).pipe(Effect.provide(client))
 * ```
 *
 * MCP 2026-07-28, basic (request `_meta`), basic/patterns/mrtr.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<McpClient, never, ClientTransport> =>
  Layer.effect(McpClient, make(options))
