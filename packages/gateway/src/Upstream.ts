/**
 * A remote MCP server (HTTP or a stdio command, 2026-07-28 or 2025-11-25)
 * served by an `McpServer`: `Upstream.layer(upstream)` is a registration
 * Layer like `McpServer.tools(...)`, so it is mounted the same way
 * (`McpServer.mount("weather", Upstream.layer(Upstream.http({ ... })))`,
 * with its namespacing, filters and per-principal visibility).
 *
 * Its tools, prompts, resources and templates are mirrored (listed at start,
 * again on the upstream's `list_changed` and at least every
 * `refreshInterval`); each call is forwarded by a handler that is an
 * `McpClient` call whose input handlers are the gateway's own asks:
 *
 * - a 2026-07-28 upstream's `inputRequests` become the gateway's asks, keyed
 *   `<upstream name>/<key>` (so two upstreams asked in one round never
 *   collide); its `requestState` is journaled in the gateway's own sealed
 *   state, never shown to the client; concurrent calls of two upstreams ask
 *   in one round;
 * - a 2025-11-25 upstream's in-flight `elicitation/create`,
 *   `sampling/createMessage` and `roots/list` are answered by the gateway's
 *   asks: in flight to a 2025-11-25 client (the legacy shim), as
 *   `input_required` rounds to a 2026-07-28 one. Between two rounds of a
 *   2026-07-28 client the upstream call is held open (`HeldCalls`: the
 *   store in context, else one of this Layer's own, in memory); a retry
 *   that cannot reach it (its holder gone, timed out) calls the upstream
 *   again and answers the questions it repeats from the journal (so the
 *   upstream must then ask the same questions given the same answers).
 *
 * The upstream is asked only what the gateway's client declared: each
 * capability set of the gateway's clients gets a client (a session, for a
 * 2025-11-25 upstream) declaring exactly it. Only the upstream's own
 * `headers` / `env` go upstream: never the downstream caller's token (token
 * passthrough is forbidden, MCP basic/authorization).
 *
 * An upstream down at start or later: the gateway starts and serves the
 * others; its items stay as last listed, and a call fails within
 * `callTimeout` with a -32603 error naming the upstream; the connection is
 * dropped after a transport failure and made again by the next call, and
 * the mirror retries with backoff (logged).
 *
 * Besides the questions: the upstream's progress and log messages are
 * relayed to the downstream request (a held call's to the round in flight);
 * a downstream request cancelled cancels its upstream call (a held call too,
 * and one abandoned ends with the store's timeout); a `tools/call` whose
 * request declares the Tasks extension passes the upstream's task through
 * (the server's `TaskSource`: an id sealed for the caller, `tasks/get` /
 * `update` / `cancel` routed here); `completion/complete` of a mirrored
 * prompt or template is forwarded with the upstream's own name.
 *
 * Not forwarded yet: `subscriptions/listen`, task status notifications.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr, basic/authorization
 * (security best practices); MCP 2025-11-25, basic/lifecycle.
 *
 * @since 0.3.0
 */
import { Authorization } from "@mrtr/client"
import type { Conversation } from "@mrtr/core/engine"
import type { McpError } from "@mrtr/protocol/ErrorCode"
import { McpServer } from "@mrtr/server"
import { Context, Duration, Effect, Layer, Metric, Option, Queue, type Scope } from "effect"
import * as HeldCalls from "./HeldCalls.ts"
import { forward, type Held } from "./internal/forward.ts"
import * as HeldPath from "./internal/held.ts"
import * as Mirror from "./internal/mirror.ts"
import * as Pool from "./internal/pool.ts"
import * as Metrics from "./Metrics.ts"

/**
 * An upstream reached over Streamable HTTP (either era on one URL).
 *
 * @since 0.3.0
 * @category models
 */
export interface Http {
  readonly _tag: "Http"
  /** Names the upstream in its ask keys, logs and errors. */
  readonly name: string
  readonly url: string
  /** Sent on every request (e.g. the gateway's own `Authorization` for this upstream). @default none */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /**
   * The gateway's own OAuth client at this upstream's authorization server:
   * when the upstream answers 401, the gateway discovers its authorization
   * server (Protected Resource Metadata) and gets a token for it by the
   * client credentials grant (with `resource`, RFC 8707), refreshed the same
   * way (`@mrtr/client`'s `Authorization` with `grant: "client_credentials"`).
   * The downstream caller's token is never sent upstream, and the client
   * secret is sent only to `issuer`: an upstream naming another authorization
   * server does not get it (the gateway then registers there, if it can).
   * @default none
   */
  readonly oauth?: {
    /** The authorization server these credentials were issued by: they are sent to no other. */
    readonly issuer: string
    readonly clientId: string
    readonly clientSecret: string
  } | undefined
}

/**
 * An upstream run as a child process speaking stdio.
 *
 * @since 0.3.0
 * @category models
 */
export interface Stdio {
  readonly _tag: "Stdio"
  /** Names the upstream in its ask keys, logs and errors. */
  readonly name: string
  readonly command: string
  /** @default [] */
  readonly args?: ReadonlyArray<string> | undefined
  /** Added to the gateway's environment. @default none */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** @default the gateway's working directory */
  readonly cwd?: string | undefined
}

/**
 * An upstream server.
 *
 * @since 0.3.0
 * @category models
 */
export type Upstream = Http | Stdio

/**
 * An HTTP upstream, e.g. `Upstream.http({ name: "weather", url: "https://…/mcp" })`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const http = (options: Omit<Http, "_tag">): Http => ({ _tag: "Http", ...options })

/**
 * A stdio upstream, e.g. `Upstream.stdio({ name: "files", command: "npx", args: ["-y", "pkg"] })`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const stdio = (options: Omit<Stdio, "_tag">): Stdio => ({ _tag: "Stdio", ...options })

/**
 * Options of {@link layer}.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  /**
   * The longest the mirror goes without listing the upstream again.
   * @default "1 minute"
   */
  readonly refreshInterval?: Duration.Input | undefined
  /**
   * How long building the Layer waits for the first listing; past it the
   * gateway starts without the upstream's items and keeps trying.
   * @default "10 seconds"
   */
  readonly startTimeout?: Duration.Input | undefined
  /**
   * The longest one forwarded exchange may take.
   * @default "60 seconds"
   */
  readonly callTimeout?: Duration.Input | undefined
  /**
   * Most upstream exchanges (rounds) one forwarded call may take.
   * @default 16
   */
  readonly maxExchanges?: number | undefined
  /**
   * Most clients kept open to a 2025-11-25 upstream (one session, or stdio
   * process, per capability set; a 2026-07-28 upstream needs one client for
   * all). Past it the least recently used idle client is closed; a client
   * with calls in flight never is: when all are busy a call needing a new
   * one fails with {@link UpstreamBusy} (-32603).
   * @default 8
   */
  readonly maxClients?: number | undefined
  /**
   * Most of those clients one principal (else one client address, else all
   * unauthenticated callers together) may cause: past it their own least
   * recently used idle client is closed, and when all are busy the call
   * fails with {@link UpstreamBusy} (-32603).
   * @default 2
   */
  readonly maxClientsPerPrincipal?: number | undefined
  /**
   * The revision to speak upstream (`McpClient.Options.protocol`).
   * @default "auto"
   */
  readonly protocol?: "auto" | "2026-07-28" | "2025-11-25" | undefined
  /**
   * With `protocol: "auto"`, how long the first connection waits for the
   * answer to its `server/discover` probe, counted from the request, so for
   * a stdio upstream from the process's start: a stdio server that has not
   * answered by then is taken as 2025-11-25, an HTTP one as unavailable (and
   * tried again). The gateway's other connections to the upstream reuse the
   * era found, without a probe. Generous for stdio, whose server may start
   * slowly (`npx` installing it); a 2025-11-25 server that never answers a
   * request before `initialize` costs it once: pin its `protocol`.
   * @default "60 seconds" for a stdio upstream, "10 seconds" for an HTTP one
   */
  readonly probeTimeout?: Duration.Input | undefined
  /**
   * The gateway's `clientInfo` upstream.
   * @default { name: "mrtr-gateway", version: "0.3.0" }
   */
  readonly clientInfo?: { readonly name: string; readonly version: string } | undefined
  /**
   * The longest a 2025-11-25 upstream's call is held open for a 2026-07-28
   * client (its whole call, questions included); see {@link HeldCalls}.
   * @default "10 minutes"
   */
  readonly holdTimeout?: Duration.Input | undefined
}

/** The held calls in context, else a store of this scope's own (in memory). */
const heldOf = (options: Options): Effect.Effect<Held, never, Scope.Scope> =>
  Effect.gen(function*() {
    const found = yield* Effect.serviceOption(HeldCalls.HeldCalls)
    const timeout = Duration.fromInputUnsafe(options.holdTimeout ?? "10 minutes")
    const store = Option.isSome(found)
      ? found.value
      : Context.get(yield* Layer.build(HeldCalls.layerMemory({ timeout })), HeldCalls.HeldCalls)
    return HeldPath.make(store, timeout)
  })

const NO_CAPABILITIES = {}

/**
 * No client of the upstream can be made for a call now (see
 * `Options.maxClients` and `Options.maxClientsPerPrincipal`): the call is
 * answered with JSON-RPC -32603 (InternalError: retry later), `data` naming
 * the upstream, the bound's `scope` and its `limit`.
 *
 * @since 0.4.0
 * @category errors
 */
export const UpstreamBusy = Pool.UpstreamBusy

/**
 * @since 0.4.0
 * @category errors
 */
export type UpstreamBusy = Pool.UpstreamBusy

/** The gateway's OAuth client of an HTTP upstream with `oauth` (no user: the client credentials grant). */
const authorizationOf = (
  upstream: Upstream
): Effect.Effect<Context.Context<Authorization.Authorization> | undefined, never, Scope.Scope> =>
  upstream._tag !== "Http" || upstream.oauth === undefined
    ? Effect.succeed(undefined)
    : Layer.build(
      Authorization.layer({
        grant: "client_credentials",
        clientName: "mrtr-gateway",
        clientId: upstream.oauth.clientId,
        clientSecret: upstream.oauth.clientSecret,
        // The credentials go only to their own authorization server, never to whichever one the upstream names.
        clientIssuer: upstream.oauth.issuer
      }).pipe(Layer.provide(Layer.succeed(
        Authorization.UserAgent,
        Authorization.UserAgent.of({
          redirectUri: "http://127.0.0.1/unused",
          authorize: () =>
            Effect.fail(
              new Authorization.AuthorizationError({ reason: "the gateway has no user to sign in at its upstreams" })
            )
        })
      )))
    )

const poolOf = (
  upstream: Upstream,
  options: Options,
  authorization: Context.Context<Authorization.Authorization> | undefined,
  onNotification?: (method: string) => Effect.Effect<void>,
  onUnavailable?: Effect.Effect<void>
) => {
  const callTimeout = Duration.fromInputUnsafe(options.callTimeout ?? "60 seconds")
  return Pool.make(upstream, {
    authorization,
    clientInfo: options.clientInfo ?? { name: "mrtr-gateway", version: "0.3.0" },
    maxClients: options.maxClients ?? 8,
    maxClientsPerPrincipal: options.maxClientsPerPrincipal ?? 2,
    onUnavailable,
    client: {
      protocol: options.protocol ?? "auto",
      probeTimeout: options.probeTimeout ?? (upstream._tag === "Stdio" ? "60 seconds" : "10 seconds"),
      // every level upstream: each message is relayed only at or above its downstream request's level
      logLevel: "debug",
      requestTimeout: callTimeout,
      callTimeout,
      ...(onNotification === undefined ? {} : { onNotification: (notification) => onNotification(notification.method) })
    }
  })
}

/**
 * An upstream to call from a handler of the gateway's own (a composite tool):
 * each method forwards one request as the mirrored items do, its asks the
 * handler's own (so two upstreams called concurrently ask in one round).
 * Fails with the upstream's JSON-RPC error, or -32603 naming the upstream
 * when it is unreachable.
 *
 * @since 0.3.0
 * @category models
 */
export interface Connection {
  readonly callTool: (params: {
    readonly name: string
    readonly arguments?: Readonly<Record<string, unknown>> | undefined
  }) => Effect.Effect<Record<string, unknown>, McpError, Conversation.Conversation>
  readonly getPrompt: (params: {
    readonly name: string
    readonly arguments?: Readonly<Record<string, string>> | undefined
  }) => Effect.Effect<Record<string, unknown>, McpError, Conversation.Conversation>
  readonly readResource: (
    params: { readonly uri: string }
  ) => Effect.Effect<Record<string, unknown>, McpError, Conversation.Conversation>
}

/**
 * Connects to `upstream` for the length of the scope (lazily: the first call
 * connects), for a composite tool's handler.
 *
 * @since 0.3.0
 * @category constructors
 */
export const connect = (upstream: Upstream, options: Options = {}): Effect.Effect<Connection, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pool = poolOf(upstream, options, yield* authorizationOf(upstream))
    yield* Effect.addFinalizer(() => pool.close)
    const held = yield* heldOf(options)
    const maxExchanges = options.maxExchanges ?? 16
    const send = (method: "tools/call" | "prompts/get" | "resources/read", params: Record<string, unknown>) =>
      forward(pool, upstream.name, method, params, maxExchanges, held) as Effect.Effect<
        Record<string, unknown>,
        McpError,
        Conversation.Conversation
      >
    return {
      callTool: (params) => send("tools/call", { name: params.name, arguments: params.arguments ?? {} }),
      getPrompt: (params) => send("prompts/get", { name: params.name, arguments: params.arguments ?? {} }),
      readResource: (params) => send("resources/read", { uri: params.uri })
    }
  })

/**
 * The upstream's items registered with the `McpServer` in context, kept in
 * step with the upstream until the Layer's scope closes (the clients are then
 * closed, stdio children stopped). Never fails: an unreachable upstream is
 * logged and retried with backoff.
 *
 * @since 0.3.0
 * @category layers
 */
export const layer = (upstream: Upstream, options: Options = {}): Layer.Layer<never, never, McpServer.McpServer> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const wake = yield* Queue.sliding<void>(1)
    const callTimeout = Duration.fromInputUnsafe(options.callTimeout ?? "60 seconds")
    const pool = poolOf(
      upstream,
      options,
      yield* authorizationOf(upstream),
      (method) => method.endsWith("/list_changed") ? Queue.offer(wake, undefined) : Effect.void,
      // a lost connection: list again now (the backoff takes over if it is still down)
      Queue.offer(wake, undefined)
    )
    yield* Effect.addFinalizer(() => pool.close)
    const held = yield* heldOf(options)
    const mirror = Mirror.make(server, pool, upstream.name, options.maxExchanges ?? 16, held)
    // its tasks pass through: a forwarded call's task is the server's under a sealed id, routed back here
    yield* server.addTaskSource(upstream.name, Mirror.taskSource(pool, upstream.name))
    yield* Effect.addFinalizer(() => server.removeTaskSource(upstream.name))
    const refresh = Effect.gen(function*() {
      const client = yield* pool.lease(NO_CAPABILITIES, undefined)
      yield* Mirror.list(client).pipe(Effect.flatMap(mirror.apply), Effect.onError(() => pool.drop(client)))
      yield* Metric.update(Metric.withAttributes(Metrics.upstreamAvailable, { upstream: upstream.name }), 1)
    }).pipe(
      Effect.scoped,
      Effect.timeout(callTimeout),
      Effect.annotateLogs({ upstream: upstream.name })
    )
    const started = yield* refresh.pipe(
      Effect.timeout(Duration.fromInputUnsafe(options.startTimeout ?? "10 seconds")),
      Effect.as(true),
      Effect.catchCause((cause) =>
        Effect.as(
          Effect.logWarning(`Upstream ${upstream.name} is unavailable; retrying in the background`, cause),
          false
        )
      )
    )
    const interval = Duration.fromInputUnsafe(options.refreshInterval ?? "1 minute")
    // Refresh on list_changed or every `interval`; after a failure, back off from 500 ms to 30 s.
    yield* Effect.gen(function*() {
      let healthy = started
      let delay = Duration.millis(500)
      while (true) {
        if (healthy) {
          yield* Effect.raceFirst(Effect.sleep(interval), Queue.take(wake))
        } else {
          yield* Effect.sleep(delay)
          delay = Duration.min(Duration.times(delay, 2), Duration.seconds(30))
        }
        const ok = yield* refresh.pipe(
          Effect.as(true),
          Effect.catchCause((cause) =>
            Effect.as(Effect.logWarning(`Upstream ${upstream.name} is unavailable`, cause), false)
          )
        )
        if (ok && !healthy) yield* Effect.logInfo(`Upstream ${upstream.name} is available again`)
        if (ok) delay = Duration.millis(500)
        healthy = ok
      }
    }).pipe(Effect.forkScoped)
  }))
