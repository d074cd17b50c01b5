/**
 * The MCP 2026-07-28 server: registries of tools, prompts, resources and
 * resource templates, and the dispatcher that answers one JSON-RPC message.
 *
 * The dispatcher validates the envelope, the per-request `_meta`
 * (protocolVersion, clientCapabilities) and, on HTTP, the standard headers;
 * routes by method; runs `tools/call`, `prompts/get` and `resources/read`
 * through the MRTR engine (so their handlers may ask); and stamps every
 * result with `resultType`, `_meta["io.modelcontextprotocol/serverInfo"]` and,
 * on cacheable complete results, `ttlMs`/`cacheScope`. Every failure becomes
 * the spec's JSON-RPC error with its HTTP status. The server keeps no
 * per-conversation memory: a suspended handler travels in the sealed
 * `requestState`.
 *
 * A server is a Layer (`McpServer.layer`); tools, prompts and resources are
 * registered by Layers too (`McpServer.tools`, `McpServer.prompts`,
 * `McpServer.resources`), so an app composes a server from several modules.
 * Source: MCP 2026-07-28, basic/lifecycle, basic/transports, server/*,
 * basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { type InvalidOption, RequestState } from "@mrtr/core"
import type { Engine } from "@mrtr/core/engine"
import { McpError } from "@mrtr/protocol/ErrorCode"
import { MetaKey, PROTOCOL_VERSION } from "@mrtr/protocol/Meta"
import type { Implementation, ServerCapabilities } from "@mrtr/protocol/Schema"
import { TASKS_EXTENSION } from "@mrtr/protocol/Tasks"
import { type Config, Context, type Duration, Effect, Layer, Option, Scheduler, Scope } from "effect"
import { Digest } from "effect/crypto"
import * as Envelope from "./internal/envelope.ts"
import * as Era from "./internal/era.ts"
import { errorReply, isRecord } from "./internal/errors.ts"
import * as FleetBus from "./internal/fleetBus.ts"
import * as Listen from "./internal/listen.ts"
import * as MrtrCall from "./internal/mrtrCall.ts"
import * as Owners from "./internal/owners.ts"
import * as Registry from "./internal/registry.ts"
import * as ModernReply from "./internal/reply.ts"
import * as Results from "./internal/results.ts"
import * as ServerConfig from "./internal/serverConfig.ts"
import * as ServerOptions from "./internal/serverOptions.ts"
import { makeTasks, type TaskOptions } from "./internal/tasks.ts"
import * as TaskSources from "./internal/taskSources.ts"
import * as Legacy from "./internal/v2025_11_25/dispatch.ts"
import { McpHandler } from "./McpHandler.ts"
import * as Mount from "./Mount.ts"
import { NotificationBus } from "./NotificationBus.ts"
import type { Prompt } from "./Prompt.ts"
import type { McpRequest } from "./RequestContext.ts"
import type { Resource } from "./Resource.ts"
import { makeLocal as makeLocalDirectory, SessionDirectory } from "./SessionDirectory.ts"
import type { TaskSource } from "./TaskSource.ts"
import * as TaskStore from "./TaskStore.ts"
import type { Tool } from "./Tool.ts"
import type { Incoming, Reply } from "./Transport.ts"

/**
 * The protocol revisions this server answers on the stateless wire.
 *
 * @category constants
 * @since 0.1.0
 */
export const SUPPORTED_VERSIONS: ReadonlyArray<string> = [PROTOCOL_VERSION]

/**
 * Server options. Everything but `name` and `version` has a default.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The server's name, shown to clients (`server/discover`, `serverInfo`). */
  readonly name: string
  /** The server's version, shown to clients with its name. */
  readonly version: string
  /**
   * A title for people, shown to clients (`server/discover`).
   *
   * @default undefined (none sent)
   */
  readonly title?: string | undefined
  /**
   * Instructions for the client's model, shown to clients (`server/discover`).
   *
   * @default undefined (none sent)
   */
  readonly instructions?: string | undefined
  /**
   * The identity sealed states are bound to; instances sharing a key ring must share it.
   *
   * @default the server's `name`
   */
  readonly audience?: string | undefined
  /**
   * `ttlMs` (milliseconds, ≥ 0) and `cacheScope` stamped on complete results of `server/discover`, the list methods and
   * `resources/read`. The default makes clients revalidate.
   *
   * @default { ttlMs: 0, cacheScope: "private" }
   */
  readonly cache?: { readonly ttlMs: number; readonly cacheScope: "public" | "private" } | undefined
  /**
   * The most rounds of one MRTR conversation; on a 2025-11-25 session, the most rounds the legacy shim runs for one
   * request.
   *
   * @default 16
   */
  readonly maxRounds?: number | undefined
  /**
   * The largest journal of one MRTR conversation (the answers and step results its `requestState` carries), in bytes.
   *
   * @default 32_768 (32 KiB)
   */
  readonly maxJournalBytes?: number | undefined
  /**
   * The 2025-11-25 wire on the same endpoint (see {@link LegacyOptions}); `false` serves 2026-07-28 only.
   *
   * @default {} (on, with the defaults of `LegacyOptions`)
   */
  readonly legacy?: LegacyOptions | false | undefined
  /**
   * Defaults of the tasks this server creates (Tasks extension, SEP-2663, 2026-07-28 only): `ttlMs` (milliseconds from
   * creation, `null` = unlimited; default 300_000), `pollIntervalMs` (default 1_000), `leaseMs` (how long a running
   * task's owner holds it without renewal, default 15_000) and `heartbeatMs` (its renewal, default `leaseMs / 3`):
   * past the lease of a crashed owner, any instance resumes the task.
   *
   * @default { ttlMs: 300_000, pollIntervalMs: 1_000, leaseMs: 15_000, heartbeatMs: 5_000 }
   */
  readonly tasks?: TaskOptions | undefined
}

/**
 * Bounds of the 2025-11-25 wire (sessions created by `initialize`).
 *
 * A principal (or address) at its cap makes room by ending its own least
 * recently active session (a session with an open GET stream too), and gets
 * HTTP 503 when every one of its sessions has a request in progress; with
 * `maxSessions` reached, the share holding the most sessions gives one up
 * (idle ones first), so a share never ends a session of a smaller one.
 *
 * By default sessions live in this process: behind a load balancer,
 * 2025-11-25 clients then need session affinity (the 2026-07-28 wire never
 * does); a request reaching another instance gets 404 and the client must
 * `initialize` again. With a shared `SessionDirectory` (the Redis one of
 * `Redis.layerFleet`, given as `shared`) no affinity is needed:
 * any instance serves any session, answers to server-to-client requests are
 * routed to the instance running the request, and `DELETE` ends the session
 * everywhere; `maxSessions` then bounds each instance's sessions and
 * replicas, and `sessionIdleTimeout` is the shared record's Redis TTL. See
 * `SessionDirectory.ts` for what still lives in one process.
 *
 * Source: MCP 2025-11-25, basic/lifecycle, basic/transports (session management).
 *
 * @category models
 * @since 0.2.0
 */
export interface LegacyOptions {
  /** Most 2025-11-25 sessions of this instance at once (see above). @default 1000 */
  readonly maxSessions?: number | undefined
  /**
   * Most sessions of one principal, or of one client address (`ClientAddress`)
   * for sessions without a principal; at most `maxSessions`. @default 100
   */
  readonly maxSessionsPerPrincipal?: number | undefined
  /** A session without any message for this long ends; its id then answers 404 (-32001). @default "30 minutes" */
  readonly sessionIdleTimeout?: Duration.Input | undefined
  /**
   * Most unanswered server-to-client requests per session; past it a request needing input fails at once (-32600,
   * `data.reason: "too_many_pending_inputs"`).
   *
   * @default 64
   */
  readonly maxPendingInputs?: number | undefined
  /**
   * How long one server-to-client request (an elicitation, a sampling, a roots listing) may wait for its answer; then
   * it is cancelled and the request fails (-32603, `data.reason: "input_timeout"`).
   *
   * @default "5 minutes"
   */
  readonly inputTimeout?: Duration.Input | undefined
}

/**
 * Which registry changed: sent to `subscriptions/listen` streams as
 * `notifications/<kind>/list_changed` when the client opted in.
 *
 * @category models
 * @since 0.1.0
 */
export type ListChanged = Registry.ListChanged

type AnyTool = Tool<any, never>
type AnyPrompt = Prompt<any, never>
type AnyResource = Resource<any, never>

/**
 * The server service: its identity, its registries (which may change at
 * run time; each change is announced to `subscriptions/listen` streams), and
 * `handle`, the dispatcher the transports call.
 *
 * @category services
 * @since 0.1.0
 */
export class McpServer extends Context.Service<
  McpServer,
  Mount.Registrar & {
    readonly info: Implementation
    readonly handle: (incoming: Incoming) => Effect.Effect<Reply>
    /** The scopes the target of a `tools/call` / `prompts/get` / `resources/read` declared (else none). */
    readonly requiredScopes: (message: unknown) => ReadonlyArray<string>
    /**
     * How many 2025-11-25 sessions are open (HTTP and stdio), for metrics: it
     * returns to 0 once every session has ended (DELETE, idle timeout,
     * eviction, the end of a stdio connection). With a shared
     * `SessionDirectory`, the sessions and replicas this instance holds.
     * @since 0.2.0
     */
    readonly legacySessions: Effect.Effect<number>
    /**
     * Registers (or replaces) the source `name` of tasks run elsewhere: a
     * `tools/call` handler's `TaskSource.created(name, task)` becomes this
     * server's `CreateTaskResult` under a sealed id, and `tasks/get`,
     * `tasks/update`, `tasks/cancel` for that id go to `source` (see
     * `TaskSource`).
     * @since 0.5.0
     */
    readonly addTaskSource: (name: string, source: TaskSource) => Effect.Effect<void>
    /**
     * Unregisters the source `name`: its tasks' ids are then unknown tasks (-32602).
     * @since 0.5.0
     */
    readonly removeTaskSource: (name: string) => Effect.Effect<void>
  }
>()("@mrtr/server/McpServer") {}

/**
 * How deeply `params` may nest (objects and arrays). Deeper messages are
 * refused with -32602 before any handler, digest or decoder recurses into them.
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_PARAMS_DEPTH = Envelope.MAX_PARAMS_DEPTH

type Parsed = Envelope.Parsed

/**
 * Builds the server service. Requires the `RequestStateCodec` (the key
 * ring), a `Digest`, the {@link SharedServices} but the `ReplayGuard`, and a
 * `Scope` its tasks run in; {@link layer} provides them. Fails with
 * `InvalidOption` for an option out of range.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const legacyLimits = yield* ServerOptions.check(options)
  const codec = yield* RequestState.RequestStateCodec
  const digest = yield* Digest.Digest
  const info: Implementation = {
    name: options.name,
    version: options.version,
    ...(options.title === undefined ? {} : { title: options.title })
  }
  const audience = options.audience ?? options.name
  const cache = options.cache ?? Results.NOT_CACHEABLE
  const engine: Engine.Services = {
    codec,
    digest,
    limits: {
      maxRounds: options.maxRounds ?? 16,
      maxJournalBytes: options.maxJournalBytes ?? 32 * 1024
    }
  }
  const registry = yield* Registry.make
  const { changes, tools } = registry

  const capabilities = (): ServerCapabilities => ({
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { listChanged: true },
    completions: {},
    logging: {},
    extensions: { [TASKS_EXTENSION]: {} }
  })

  // The `_meta` every result carries, built once (results are serialized, never mutated).
  const serverMeta: Readonly<Record<string, unknown>> = Object.freeze({ [MetaKey.serverInfo]: info })
  const encoding: Results.Encoding = { cache, serverMeta }

  const bus = yield* NotificationBus
  const tasks = yield* makeTasks({
    store: yield* TaskStore.TaskStore,
    scope: yield* Effect.scope,
    engine,
    audience,
    encoding,
    options: options.tasks ?? {},
    handlerFor: (name, args) => {
      const call = registry.call("tools/call", { name, arguments: args })
      return call instanceof McpError || call instanceof Registry.ResourceNotFound ? undefined : call.handler
    }
  }, bus.publish)

  const taskSources = TaskSources.make(codec, audience, encoding)
  const mrtrServer: MrtrCall.MrtrServer = { engine, registry, audience, encoding, tasks, taskSources }

  /** A method answered at once (no handler that asks): its result, encoded. */
  const complete =
    (parsed: Parsed, principal: string | undefined) => (result: Record<string, unknown>): Record<string, unknown> =>
      Results.encodeResult(encoding, "2026-07-28", parsed.method, result, true, principal)

  // -- Route: the method's result (MRTR methods through the engine: internal/mrtrCall.ts) --

  const route = (
    parsed: Parsed,
    principal: string | undefined
  ): Effect.Effect<Record<string, unknown>, unknown, McpRequest> => {
    const params = parsed.params
    switch (parsed.method) {
      case "server/discover":
        return Effect.succeed(
          complete(parsed, principal)({
            supportedVersions: SUPPORTED_VERSIONS,
            capabilities: capabilities(),
            ...(options.instructions === undefined ? {} : { instructions: options.instructions })
          })
        )
      case "tools/list":
      case "prompts/list":
      case "resources/list":
      case "resources/templates/list":
        return Effect.map(registry.listMethod(parsed.method, params, principal), complete(parsed, principal))
      case "tools/call":
      case "prompts/get":
      case "resources/read":
        return MrtrCall.call(mrtrServer, parsed, principal)
      case "completion/complete":
        return Effect.map(registry.complete(params), complete(parsed, principal))
      case "tasks/get":
      case "tasks/update":
      case "tasks/cancel":
        return Effect.map(
          // a task of a source (run elsewhere, `TaskSource.ts`), else one of this server's
          (taskSources.owns(params) ? taskSources.dispatch : tasks.dispatch)(
            parsed.method,
            params,
            parsed.clientCapabilities,
            principal
          ),
          complete(parsed, principal)
        )
      default:
        return Effect.fail(McpError.methodNotFound(parsed.method))
    }
  }

  // The 2025-11-25 sessions: this process only (`SessionDirectory.local`), or the fleet's (Redis).
  const directory = yield* SessionDirectory
  const legacy = legacyLimits === undefined ? undefined : Legacy.make({
    directory,
    registry,
    engine,
    info,
    instructions: options.instructions,
    audience,
    limits: legacyLimits
  })
  if (legacy !== undefined) registry.listeners.add(legacy.listChanged)
  if (legacy !== undefined) yield* legacy.listen
  // This instance's list changes go out on the bus; what other instances publish reaches its listeners.
  const deliverLocally = (uri: string) => legacy === undefined ? Effect.void : legacy.resourceUpdated(uri)
  yield* FleetBus.connect(bus, {
    listeners: registry.listeners,
    changes,
    legacy,
    deliverTask: tasks.deliverRemote
  })

  /** The definition of a tool, for the header checks of `Mcp-Param-*` (`envelope.ts`). */
  const toolDefinition = (name: string) => tools.get(name)?.definition

  /**
   * The server path (`docs/architecture.md`): classify the era (`era.ts`),
   * parse (`envelope.ts`), route (above), drive (`mrtrCall.ts`), encode
   * (`results.ts`), and the reply the transport writes (`reply.ts`).
   */
  const handle = (incoming: Incoming): Effect.Effect<Reply> => {
    if (legacy !== undefined && Era.classify(incoming) === "legacy") return legacy.handle(incoming)
    if (incoming.httpMethod === "GET" || incoming.httpMethod === "DELETE") {
      return Effect.succeed({ _tag: "Accepted", httpStatus: 405 })
    }
    const parsed = Envelope.parse(incoming, toolDefinition, SUPPORTED_VERSIONS)
    if ("_tag" in parsed) return Effect.succeed(parsed)
    if (parsed.method === "subscriptions/listen") {
      // The stream is the whole answer: a reply that cannot stream could never end.
      return Effect.succeed(
        incoming.canStream === false
          ? errorReply(
            parsed.id,
            McpError.invalidRequest("subscriptions/listen answers with a stream: send Accept: text/event-stream"),
            406
          )
          : Listen.listen(parsed, changes, incoming.principal, tasks.notifications)
      )
    }
    const response = Results.toResponse(parsed.id, route(parsed, incoming.principal), {
      era: "2026-07-28",
      annotations: { method: parsed.method }
    })
    return ModernReply.reply(parsed, incoming, response)
  }

  const NO_SCOPES: ReadonlyArray<string> = []
  const requiredScopes = (message: unknown): ReadonlyArray<string> => {
    if (!isRecord(message) || !isRecord(message.params)) return NO_SCOPES
    const params = message.params
    switch (message.method) {
      case "tools/call":
        return (typeof params.name === "string" ? registry.tools.get(params.name)?.scopes : undefined) ?? NO_SCOPES
      case "prompts/get":
        return (typeof params.name === "string" ? registry.prompts.get(params.name)?.scopes : undefined) ?? NO_SCOPES
      case "resources/read":
        return (typeof params.uri === "string" ? registry.findResource(params.uri)?.resource.scopes : undefined) ??
          NO_SCOPES
      default:
        return NO_SCOPES
    }
  }

  return McpServer.of({
    info,
    requiredScopes,
    addTool: registry.addTool,
    removeTool: registry.removeTool,
    addPrompt: registry.addPrompt,
    removePrompt: registry.removePrompt,
    addResource: registry.addResource,
    removeResource: registry.removeResource,
    handle,
    resourceUpdated: (uri) => Effect.andThen(deliverLocally(uri), bus.publish({ _tag: "ResourceUpdated", uri })),
    legacySessions: Effect.sync(() => legacy === undefined ? 0 : legacy.store.sessions.size),
    addTaskSource: taskSources.add,
    removeTaskSource: taskSources.remove
  })
})

/**
 * The services the instances of a fleet share, each with a single-instance
 * default ({@link layerLocal}) and a fleet implementation (`Redis.layerFleet`):
 * the `ReplayGuard` single use redeems through, the `TaskStore`, the
 * `NotificationBus` (resource updates, list changes and task status changes
 * heard by every instance) and the `SessionDirectory` of 2025-11-25 sessions.
 *
 * @since 0.4.0
 * @category models
 */
export type SharedServices = RequestState.ReplayGuard | TaskStore.TaskStore | NotificationBus | SessionDirectory

/**
 * The {@link SharedServices} of a single instance, fresh for each call: an
 * in-memory `ReplayGuard` and `TaskStore` (bounded, see their `layerMemory`),
 * a `NotificationBus` that publishes nowhere, the sessions of this process.
 * What {@link layer} uses unless `shared` says otherwise.
 *
 * @since 0.4.0
 * @category layers
 */
export const layerLocal = (): Layer.Layer<SharedServices> =>
  Layer.mergeAll(
    Layer.effect(RequestState.ReplayGuard, RequestState.ReplayGuard.makeMemory()),
    TaskStore.layerMemory(),
    NotificationBus.local,
    Layer.sync(SessionDirectory, makeLocalDirectory)
  )

/**
 * Options of {@link layer}: the server's {@link Options}, and what it runs on.
 *
 * @since 0.4.0
 * @category models
 */
export interface LayerOptions<E = never, ES = never> extends Options {
  /**
   * How `requestState` is sealed: codec options (see
   * `RequestState.RequestStateCodecOptions`, e.g.
   * `{ keyRing: RequestState.KeyRing.fromBytes([{ bytes }]), ttl: "5 minutes", singleUse: true }`)
   * or a whole codec Layer. Single use redeems through the `ReplayGuard` of
   * `shared`.
   *
   * @default a random per-process key (logged once), 10 minutes, not single use
   */
  readonly requestState?:
    | Layer.Layer<RequestState.RequestStateCodec, E>
    | RequestState.RequestStateCodecOptions<E>
    | undefined
  /**
   * The {@link SharedServices}: `Redis.layerFleet({ url })` for a fleet
   * (instances that also share the key ring and `audience` then answer each
   * other's conversations, redeem single-use states once fleet-wide, resume
   * each other's tasks and serve each other's 2025-11-25 sessions).
   *
   * @default layerLocal()
   */
  readonly shared?: Layer.Layer<SharedServices, ES> | undefined
}

/**
 * The server as a Layer, providing `McpServer` and the `McpHandler` the
 * transports need. It reads nothing from the environment: what it runs on
 * is in `options` (see {@link LayerOptions}); by default everything is in
 * this process and `requestState` is sealed with a random per-process key,
 * right for one instance that may forget its conversations on restart.
 * {@link layerConfig} reads its configuration from the environment instead. Digests use
 * `node:crypto`.
 *
 * Fails with `InvalidOption` (naming the option and the value) for an option
 * out of range, and with the errors of the `requestState` and `shared`
 * Layers (a `RedisError` when the fleet's Redis is unreachable at start-up).
 *
 * **Example** (One instance, and an instance of a fleet)
 *
 * ```ts
 * import { RequestState } from "@mrtr/core"
 * import { McpServer } from "@mrtr/server"
 * import * as Redis from "@mrtr/server/Redis"
 *
 * const keyRing = RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(7) }])
 *
 * const server = McpServer.layer({ name: "trips", version: "1.0.0" })
 * const fleetServer = McpServer.layer({
 *   name: "trips",
 *   version: "1.0.0",
 *   requestState: { keyRing, singleUse: true },
 *   shared: Redis.layerFleet({ url: "redis://127.0.0.1:6379" })
 * })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <E = never, ES = never>(
  options: LayerOptions<E, ES>
): Layer.Layer<McpServer | McpHandler, InvalidOption | E | ES> => {
  const server = Layer.effect(McpServer, make(options))
  const handler = Layer.effect(
    McpHandler,
    McpServer.useSync((s) => McpHandler.of({ handle: s.handle, requiredScopes: s.requiredScopes }))
  )
  const requestState = options.requestState
  const codec: Layer.Layer<RequestState.RequestStateCodec, InvalidOption | E> = requestState === undefined
    ? RequestState.RequestStateCodec.layer({ keyRing: RequestState.KeyRing.generate })
    : Layer.isLayer(requestState)
    ? requestState as Layer.Layer<RequestState.RequestStateCodec, E>
    : RequestState.RequestStateCodec.layer(requestState as RequestState.RequestStateCodecOptions<E>)
  return Layer.provideMerge(handler, server).pipe(
    Layer.provide(codec),
    Layer.provide(options.shared ?? layerLocal()),
    Layer.provide(NodeCrypto.layerDigest)
  )
}

/**
 * {@link layer} configured from the environment through `effect/Config` (so
 * a `ConfigProvider` may supply it):
 *
 * - `MRTR_REQUEST_STATE_KEYS`: the key ring (`RequestState.KeyRing.fromConfig`:
 *   `[id:]base64url-key` entries, comma-separated, the first current; absent:
 *   a random per-process key, logged).
 * - `MRTR_REQUEST_STATE_TTL`: how long a sealed state lives (a Duration such
 *   as `5 minutes`; default 10 minutes).
 * - `MRTR_SINGLE_USE`: `true` redeems each state once, through the
 *   `ReplayGuard` of `shared` (default false).
 * - `MRTR_TASK_LEASE`: `tasks.leaseMs` as a Duration, when the option is absent.
 *
 * The fleet's Redis is not read here: give `shared: Redis.layerFleetConfig()`
 * (`MRTR_REDIS_URL`). Fails with a `ConfigError` naming a malformed variable
 * (never echoing a key), or as {@link layer} does.
 *
 * @since 0.4.0
 * @category layers
 */
export const layerConfig = <ES = never>(
  options: Options & { readonly shared?: Layer.Layer<SharedServices, ES> | undefined }
): Layer.Layer<McpServer | McpHandler, Config.ConfigError | InvalidOption | ES> =>
  Layer.unwrap(Effect.map(ServerConfig.read, (config) =>
    layer({
      ...options,
      ...(options.tasks?.leaseMs !== undefined || config.taskLeaseMs === undefined
        ? {}
        : { tasks: { ...options.tasks, leaseMs: config.taskLeaseMs } }),
      requestState: { keyRing: config.keyRing, ttl: config.ttl, singleUse: config.singleUse }
    })))

/**
 * Provides a registering layer's context to the handler of one of its items.
 * Usually every service in it is already in the request's context (a handler
 * that needs nothing of its own): then nothing is merged, since a merge
 * copies every service of the application on every request.
 */
const provideRegistered = (registered: Context.Context<any>) => {
  // Not the layer's own Scope when the request has one: a handler that needs a
  // Scope gets the request's (its resources are released with the request).
  // Nor a Scheduler: the handler runs on the engine's, which tracks its work.
  const context = Context.omit(Scope.Scope, Scheduler.Scheduler)(registered)
  const layerScope = Context.getOption(registered, Scope.Scope)
  const entries = Array.from(context.mapUnsafe, ([id, value]) => [Context.Service<unknown>(id), value] as const)
  const provide = (current: Context.Context<never>): Context.Context<never> => {
    let next = current
    for (const [key, value] of entries) {
      if (Context.getOrUndefined(current, key) !== value) {
        next = Context.merge(current, context)
        break
      }
    }
    // A request run without a Scope (a custom transport) falls back to the layer's.
    if (Option.isSome(layerScope) && Option.isNone(Context.getOption(next, Scope.Scope))) {
      next = Context.add(next, Scope.Scope, layerScope.value)
    }
    return next
  }
  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, never> =>
    Effect.updateContext(effect as Effect.Effect<A, E, never>, provide)
}

const register = <A, R>(
  kind: Owners.Kind,
  nameOf: (item: A) => string,
  items: ReadonlyArray<A>,
  add: (server: McpServer["Service"], item: A) => Effect.Effect<void>,
  withContext: (item: A, provide: <A2, E2, R2>(effect: Effect.Effect<A2, E2, R2>) => Effect.Effect<A2, E2, never>) => A
): Layer.Layer<never, Mount.NameCollision, McpServer | R> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const server = yield* McpServer
    const provide = provideRegistered(yield* Effect.context<R>())
    for (const item of items) {
      const name = nameOf(item)
      const other = Owners.claim(server, kind, name, Owners.SERVER)
      if (other !== undefined) {
        return yield* new Mount.NameCollision({ kind, name, sources: [other.label, Owners.SERVER.label] })
      }
      yield* add(server, withContext(item, provide))
    }
  }))

/**
 * Mounts another server's registration Layers (tools, prompts, resources,
 * templates: what would be merged into `McpServer.layer`) under
 * `namespace`: tool and prompt names become `<namespace>_<name>` (see
 * `Mount.Options.separator`), resource URIs `scheme://<namespace>/rest`.
 * `include` / `exclude` and `visible` (per principal) apply to the lists and
 * the calls alike; the mounted handlers run, and ask, as they always do; a
 * tool the mounted Layer adds or removes later (through `McpServer`) is
 * announced to the parent's `list_changed` listeners. A name held by another
 * source fails the Layer with `Mount.NameCollision` naming both.
 *
 * @example
 * ```ts
 * import { McpServer, Tool } from "@mrtr/server"
 * import { Effect, Layer } from "effect"
 *
 * const search = Tool.make("search", { handler: () => Effect.succeed("found") })
 * const forecast = Tool.make("forecast", { handler: () => Effect.succeed("sunny") })
 * const alerts = Tool.make("alerts", { handler: () => Effect.succeed("none") })
 *
 * const app = Layer.mergeAll(
 *   McpServer.tools(search),
 *   McpServer.mount("weather", McpServer.tools(forecast, alerts), { exclude: ["alerts"] })
 * ).pipe(Layer.provideMerge(McpServer.layer({ name: "app", version: "1.0.0" })))
 * ```
 *
 * @since 0.3.0
 * @category composition
 */
export const mount = <ROut, E, RIn>(
  namespace: string,
  layer: Layer.Layer<ROut, E, RIn>,
  options: Mount.Options = {}
): Layer.Layer<ROut, E | Mount.NameCollision, Exclude<RIn, McpServer> | McpServer> =>
  Layer.effectContext(Effect.gen(function*() {
    const server = yield* McpServer
    const collisions: Array<Mount.NameCollision> = []
    const view = McpServer.of(Mount.view(server, namespace, options, collisions))
    const context = yield* Layer.build(Layer.provide(layer, Layer.succeed(McpServer, view)))
    if (collisions.length > 0) return yield* collisions[0]!
    return context
  })) as Layer.Layer<ROut, E | Mount.NameCollision, Exclude<RIn, McpServer> | McpServer>

/**
 * Registers tools with the server. The Layer requires what the tools'
 * handlers require (besides the engine's services), and provides it to them
 * on every round. A handler that needs a `Scope` gets the request's
 * (Streamable HTTP and stdio open one per request), so what it acquires is
 * released when the request ends; a request handled without one (a custom
 * transport calling `handle` outside any Scope) gets the layer's, released
 * when the server stops.
 *
 * @category layers
 * @since 0.1.0
 */
export const tools = <const T extends ReadonlyArray<Tool<any, any>>>(
  ...items: T
): Layer.Layer<never, Mount.NameCollision, McpServer | (T[number] extends Tool<any, infer R> ? R : never)> =>
  register("tool", (t) => t.name, items, (s, t) => s.addTool(t as AnyTool), (tool, provide) => ({
    ...tool,
    call: (args: unknown) => provide(tool.call(args))
  })) as any

/**
 * Registers prompts with the server; see {@link tools}.
 *
 * @category layers
 * @since 0.1.0
 */
export const prompts = <const P extends ReadonlyArray<Prompt<any, any>>>(
  ...items: P
): Layer.Layer<never, Mount.NameCollision, McpServer | (P[number] extends Prompt<any, infer R> ? R : never)> =>
  register("prompt", (p) => p.name, items, (s, p) => s.addPrompt(p as AnyPrompt), (prompt, provide) => ({
    ...prompt,
    get: (args: unknown) => provide(prompt.get(args))
  })) as any

/**
 * Registers resources and resource templates with the server; see {@link tools}.
 *
 * @category layers
 * @since 0.1.0
 */
export const resources = <const T extends ReadonlyArray<Resource<any, any>>>(
  ...items: T
): Layer.Layer<never, Mount.NameCollision, McpServer | (T[number] extends Resource<any, infer R> ? R : never)> =>
  register("resource", (r) => r.key, items, (s, r) => s.addResource(r as AnyResource), (resource, provide) => ({
    ...resource,
    read: (uri: string, variables: Readonly<Record<string, string>>) => provide(resource.read(uri, variables))
  })) as any
