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
 * answered by the same handlers (each revision's code is one `Era`,
 * `internal/v2026_07_28/era.ts` and `internal/v2025_11_25/era.ts`; see the
 * service's docs below).
 *
 * Source: MCP 2026-07-28, basic (request `_meta`), basic/lifecycle
 * (`server/discover`), basic/patterns/mrtr, basic/transports/streamable-http,
 * server/tools, server/prompts, server/resources, server/utilities/completion;
 * MCP 2025-11-25, basic/lifecycle, basic/transports, client/*.
 *
 * @since 0.1.0
 */
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
  type SubscriptionFilter,
  type Tool
} from "@mrtr/protocol/Schema"
import type { Schema } from "effect"
import { Context, Duration, Effect, Layer, Option, PubSub, Schedule, Stream } from "effect"
import { ClientTransport } from "./ClientTransport.ts"
import type * as Elicitation from "./ElicitationHandler.ts"
import type { McpClientError, MrtrError, RequestError } from "./Errors.ts"
import { callTimeoutWith } from "./internal/deadline.ts"
import type { CallContext } from "./internal/era.ts"
import * as EraSelection from "./internal/eraSelection.ts"
import * as InputHandlers from "./internal/inputHandlers.ts"
import * as InputLoop from "./internal/inputLoop.ts"
import * as PlainRequests from "./internal/plainRequests.ts"
import { decodeWith } from "./internal/results.ts"
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
import type { RootsHandler } from "./RootsHandler.ts"
import type * as Sampling from "./SamplingHandler.ts"
import * as TaskDriver from "./TaskDriver.ts"

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
 * - `listen(filter)`: the notifications `filter` asks for (`toolsListChanged`,
 *   `promptsListChanged`, `resourcesListChanged`, `resourceSubscriptions`).
 *   On 2026-07-28 a `subscriptions/listen` request whose stream is this one
 *   (first `notifications/subscriptions/acknowledged`; it ends when the
 *   server ends the subscription, fails with the server's error, e.g.
 *   -32601 from a server without subscriptions); on 2025-11-25 the
 *   session's notifications of those kinds, from `notifications` (a
 *   resource's updates only after `resources/subscribe`; no
 *   acknowledgement).
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
  readonly listen: (filter: SubscriptionFilter) => Stream.Stream<Notification, RequestError>
  readonly connection: Effect.Effect<Connection, RequestError>
}>()("@mrtr/client/McpClient") {}

// =============================================================================
// Helpers
// =============================================================================

/** Whether a 2025-11-25 notification is of a kind `filter` asks for. */
const asked = (filter: SubscriptionFilter, notification: Notification): boolean => {
  switch (notification.method) {
    case "notifications/tools/list_changed":
      return filter.toolsListChanged === true
    case "notifications/prompts/list_changed":
      return filter.promptsListChanged === true
    case "notifications/resources/list_changed":
      return filter.resourcesListChanged === true
    case "notifications/resources/updated":
      return filter.resourceSubscriptions?.includes(String(notification.params?.uri)) === true
    default:
      return false
  }
}

const DEFAULT_CLIENT_INFO: Implementation = { name: "@mrtr/client", version: "0.1.0" }
const DEFAULT_MAX_ROUNDS = 10
const DEFAULT_PROBE_TIMEOUT = Duration.seconds(10)

/**
 * The default backoff between state-only rounds: 100 ms, doubling, capped at
 * 5 seconds.
 *
 * MCP 2026-07-28, basic (request `_meta`), basic/patterns/mrtr.
 *
 * @category constants
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
 * @category capabilities
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
 * @category validation
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
    throw new RangeError(
      `McpClient: protocol must be "auto", "2026-07-28" or "2025-11-25", got ${JSON.stringify(protocol)}`
    )
  }
  return protocol
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
 * every retry) gets a new id. Every request goes through the connection's
 * `Era` (`internal/era.ts`), selected on first use
 * (`internal/eraSelection.ts`); the MRTR methods run the `input_required`
 * loop (`internal/inputLoop.ts`), the others are one request each
 * (`internal/plainRequests.ts`); the tool definitions are kept by
 * `internal/toolCatalog.ts`, the time bounds by `internal/deadline.ts`.
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
  const backoff = options.stateOnlyBackoff ?? defaultStateOnlyBackoff
  const pubsub = yield* PubSub.unbounded<Notification>()

  const publish = (notification: Notification, callOptions: CallOptions | undefined) =>
    Effect.all([
      PubSub.publish(pubsub, notification),
      options.onNotification === undefined ? Effect.void : options.onNotification(notification),
      callOptions?.onNotification === undefined ? Effect.void : callOptions.onNotification(notification)
    ], { discard: true })

  const declared = (handlers: Handlers): ClientCapabilities =>
    capabilitiesOf({
      elicitation: Option.getOrUndefined(handlers.elicitation),
      sampling: Option.getOrUndefined(handlers.sampling),
      roots: Option.getOrUndefined(handlers.roots)
    }, options.capabilities)

  /** The input handlers of a call: its own context's first, then the ones the client Layer was built with. */
  const currentHandlers: Effect.Effect<Handlers> = Effect.map(handlersInContext, (call) => ({
    elicitation: Option.orElse(call.elicitation, () => layerHandlers.elicitation),
    sampling: Option.orElse(call.sampling, () => layerHandlers.sampling),
    roots: Option.orElse(call.roots, () => layerHandlers.roots)
  }))

  // -- The connection's era (internal/eraSelection.ts) --------------------------

  const selection = EraSelection.make(
    {
      transport,
      clientInfo,
      logLevel: options.logLevel,
      requestTimeout,
      layerHandlers,
      declared,
      publish: (notification) => publish(notification, undefined),
      scope
    },
    // `null` (a JSON config's) is no protocol either: only an absent one means "auto".
    protocolOf(options.protocol === undefined ? "auto" : options.protocol),
    options.probeTimeout ?? DEFAULT_PROBE_TIMEOUT
  )

  yield* transport.notifications.pipe(Stream.runForEach(selection.dispatch), Effect.forkScoped)
  const rootsChanges = Option.getOrUndefined(layerHandlers.roots)?.changes
  if (rootsChanges !== undefined) {
    yield* rootsChanges.pipe(Stream.runForEach(() => selection.rootsChanged), Effect.forkScoped)
  }

  // -- One call's context (internal/era.ts: CallContext) -------------------------

  /** How one call is made, from the handlers in context and its `CallOptions`; `tasks` declares the extension. */
  const callContext = (
    callOptions: CallOptions | undefined,
    mrtr: { readonly tasks: boolean } | undefined
  ): Effect.Effect<CallContext> =>
    Effect.map(currentHandlers, (handlers): CallContext => ({
      handlers,
      capabilities: mrtr?.tasks === true ? TaskDriver.declaring(declared(handlers)) : declared(handlers),
      progressToken: callOptions?.progressToken,
      requestTimeout: Duration.fromInputUnsafe(callOptions?.requestTimeout ?? requestTimeout),
      onNotification: (notification) => publish(notification, callOptions),
      onServerRequest: mrtr === undefined ? undefined : callOptions?.onServerRequest,
      failOnHandlerError: mrtr !== undefined
    }))

  // -- Requests outside the loop (internal/plainRequests.ts), the tools (internal/toolCatalog.ts) --

  /** `method` with `params`, its complete result decoded with `schema`, within the call's `callTimeout`. */
  const plain = <A>(method: string, schema: Schema.Codec<A, any>) => {
    const decode = decodeWith(method, schema)
    return (params: Record<string, unknown>, callOptions: CallOptions | undefined): Effect.Effect<A, RequestError> =>
      withCallTimeout(
        method,
        callOptions,
        Effect.gen(function*() {
          const era = yield* selection.era
          const call = yield* callContext(callOptions, undefined)
          const raw = yield* PlainRequests.send(era, call, method, params)
          return yield* PlainRequests.complete(method, raw, decode)
        })
      )
  }
  const listOf = <A>(method: string, schema: Schema.Codec<A, any>) => {
    const request = plain(method, schema)
    return (params?: ListParams, callOptions?: CallOptions) => request(PlainRequests.listParams(params), callOptions)
  }
  /** A task method, declaring the extension, bounded by its `requestTimeout` alone; the raw result. */
  const taskMethod = (method: string, params: Record<string, unknown>, callOptions: CallOptions | undefined) =>
    Effect.gen(function*() {
      const era = yield* selection.era
      const call = yield* callContext(callOptions, undefined)
      return yield* PlainRequests.send(
        era,
        { ...call, capabilities: TaskDriver.declaring(call.capabilities) },
        method,
        params
      )
    })
  const discoverRequest = plain("server/discover", DiscoverResult)
  const completeRequest = plain("completion/complete", CompleteResult)
  const catalog = ToolCatalog.make({
    transport,
    era: selection.era,
    listPage: plain("tools/list", ListToolsResult),
    withCallTimeout
  })

  // -- The input_required loop (internal/inputLoop.ts) -------------------------

  /** One MRTR call: the era, the call's context and the loop's settings, then the loop. */
  const mrtr = Effect.fnUntraced(function*<A>(
    request: InputLoop.MrtrRequest<A>,
    callOptions: CallOptions | undefined
  ) {
    const tasks = request.method === "tools/call" ? callOptions?.tasks ?? options.tasks : undefined
    const era = yield* selection.era
    const call = yield* callContext(callOptions, { tasks: tasks !== undefined })
    return yield* InputLoop.run(era, call, request, {
      maxRounds: callOptions?.maxRounds === undefined ? defaultMaxRounds : roundsCap(callOptions.maxRounds),
      backoff,
      tasks,
      onRound: callOptions?.onRound,
      onTaskStatus: callOptions?.onTaskStatus
    })
  })
  const decodeCallTool = decodeWith("tools/call", CallToolResult)
  const decodeGetPrompt = decodeWith("prompts/get", GetPromptResult)
  const decodeReadResource = decodeWith("resources/read", ReadResourceResult)
  const named = (params: { readonly name: string; readonly arguments?: unknown }) => ({
    name: params.name,
    ...(params.arguments === undefined ? {} : { arguments: params.arguments })
  })

  /**
   * `McpClient.callTool`: within its `callTimeout` (the connection and the listing before a first call too), the
   * tool's definition (2026-07-28 over HTTP), then the loop.
   */
  const callTool = (params: CallToolParams, callOptions: CallOptions | undefined) =>
    withCallTimeout(
      "tools/call",
      callOptions,
      // The MRTR methods read their params when the call runs: params that are no object are a defect of the
      // call, not a throw, on every transport.
      Effect.suspend(() =>
        catalog.withTool(params.name, callOptions, (tool) =>
          mrtr({
            method: "tools/call",
            target: params.name,
            params: named(params),
            retry: params,
            tool,
            decode: decodeCallTool
          }, callOptions))
      )
    )

  // -- The service ------------------------------------------------------------

  return McpClient.of({
    clientInfo,
    clientCapabilities: Effect.map(currentHandlers, declared),
    // on 2025-11-25 from the `InitializeResult`, else the probe's result or `server/discover`
    discover: (callOptions) =>
      Effect.flatMap(
        selection.era,
        (era) =>
          Effect.flatMap(era.discovered, (known) =>
            Option.isSome(known) ? Effect.succeed(known.value) : discoverRequest({}, callOptions))
      ),
    listTools: catalog.listTools,
    callTool,
    listPrompts: listOf("prompts/list", ListPromptsResult),
    // Only a tools/call becomes a task: the other MRTR methods fail with MrtrError alone.
    getPrompt: (params, callOptions) =>
      withCallTimeout(
        "prompts/get",
        callOptions,
        Effect.suspend(() =>
          mrtr({
            method: "prompts/get",
            target: params.name,
            params: named(params),
            retry: params,
            tool: undefined,
            decode: decodeGetPrompt
          }, callOptions)
        )
      ) as Effect.Effect<GetPromptResult, MrtrError>,
    listResources: listOf("resources/list", ListResourcesResult),
    listResourceTemplates: listOf("resources/templates/list", ListResourceTemplatesResult),
    readResource: (params, callOptions) =>
      withCallTimeout(
        "resources/read",
        callOptions,
        Effect.suspend(() =>
          mrtr({
            method: "resources/read",
            target: params.uri,
            params: { uri: params.uri },
            retry: params,
            tool: undefined,
            decode: decodeReadResource
          }, callOptions)
        )
      ) as Effect.Effect<ReadResourceResult, MrtrError>,
    complete: (params, callOptions) => completeRequest({ ...params }, callOptions),
    tool: catalog.tool,
    getTask: (taskId, callOptions) => taskMethod("tasks/get", { taskId }, callOptions),
    updateTask: (taskId, inputResponses, callOptions) =>
      taskMethod("tasks/update", { taskId, inputResponses }, callOptions),
    cancelTask: (taskId, callOptions) => taskMethod("tasks/cancel", { taskId }, callOptions),
    notifications: Stream.fromPubSub(pubsub),
    listen: (filter) =>
      Stream.unwrap(Effect.gen(function*() {
        const era = yield* selection.era
        if (era.listen !== undefined) {
          const capabilities = declared(yield* currentHandlers)
          return era.listen(filter, capabilities) as Stream.Stream<Notification, RequestError>
        }
        return Stream.filter(Stream.fromPubSub(pubsub), (notification) => asked(filter, notification))
      })),
    connection: Effect.map(selection.era, (era) => era.connection)
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
