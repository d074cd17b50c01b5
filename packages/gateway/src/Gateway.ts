/**
 * A gateway from a configuration file: the `mcpServers` object Claude
 * Desktop, Cursor and VS Code users already have, plus optional gateway
 * settings; what `mrtr gateway --config <file>` serves.
 *
 * ```json
 * {
 *   "mcpServers": {
 *     "files":   { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"] },
 *     "weather": { "url": "https://weather.example/mcp", "headers": { "Authorization": "Bearer …" },
 *                  "namespace": "wx", "include": ["forecast*"], "exclude": [{ "annotations": { "destructiveHint": true } }] }
 *   },
 *   "gateway": { "name": "my-gateway", "port": 3000, "host": "127.0.0.1", "separator": "_" }
 * }
 * ```
 *
 * - Each server is `{ command, args?, env?, cwd? }` (stdio) or
 *   `{ url, headers? }` (Streamable HTTP); `"disabled": true` skips it, and
 *   `type` (`"stdio"`, `"http"`, `"streamable-http"`, `"sse"`) is accepted
 *   and checked against the fields given.
 * - Per server, optionally: `namespace` (a string, or `false` for none),
 *   `include` / `exclude` (names, globs, or `{ "annotations": {…} }`),
 *   `protocol` (`"auto"`, `"2026-07-28"`, `"2025-11-25"`), `probeTimeout`
 *   (a duration: how long `"auto"` waits for the server's answer to its
 *   probe, see `Upstream.Options.probeTimeout`).
 * - A `command` server with `url`, `headers` or `oauth` is refused: a stdio
 *   server is reached without them (its credentials go in `env`).
 * - Namespaces: by default each server's items are served under its name
 *   (`files_read_file`), except when there is only one server: then
 *   unprefixed.
 * - Per HTTP server, optionally: `oauth` (`{ issuer, clientId, clientSecret }`):
 *   the gateway's own OAuth client at that server's
 *   authorization server (client credentials grant, see `Upstream.Http`).
 * - `gateway` (all optional): `name` (default `"mrtr-gateway"`), `port`
 *   (default 3000; 0 picks a free one), `host` (default `127.0.0.1`),
 *   `separator` (default `_`), `refreshInterval` (a duration such as
 *   `"1 minute"`), `callTimeout` (default `"60 seconds"`),
 *   `requestState` (`{ keys?, ttl?, singleUse? }`: what
 *   `MRTR_REQUEST_STATE_KEYS`, `MRTR_REQUEST_STATE_TTL` and
 *   `MRTR_SINGLE_USE` say, which still apply to what the file leaves out),
 *   `redis` (`{ url }`: a fleet's shared state and held calls, see
 *   `HeldCalls.layerRedis`), `heldCalls` (`{ max?, maxPerPrincipal?,
 *   timeout? }`), `authorization` (the downstream's: `{ issuer, jwksUri }`
 *   or `{ issuer, introspection: { endpoint, clientId, clientSecret } }`,
 *   with `resource?`, `requiredScopes?`, `scopesSupported?`; see
 *   `@mrtr/server`'s `Authorization`; HTTP only).
 *
 * @since 0.3.0
 */
import { RequestState } from "@mrtr/core"
import type { Mount } from "@mrtr/server"
import { Authorization, McpServer } from "@mrtr/server"
import { ConfigProvider, Duration, Effect, Layer, Option, Schema } from "effect"
import * as HeldCalls from "./HeldCalls.ts"
import * as Upstream from "./Upstream.ts"

const Strings = Schema.Record(Schema.String, Schema.String)
const AnnotationSelector = Schema.Struct({ annotations: Schema.Record(Schema.String, Schema.Unknown) })
const Selectors = Schema.Array(Schema.Union([Schema.String, AnnotationSelector]))
const Protocol = Schema.Literals(["auto", "2026-07-28", "2025-11-25"])

const common = {
  type: Schema.optionalKey(Schema.Literals(["stdio", "http", "streamable-http", "sse"])),
  disabled: Schema.optionalKey(Schema.Boolean),
  namespace: Schema.optionalKey(Schema.Union([Schema.String, Schema.Literal(false)])),
  include: Schema.optionalKey(Selectors),
  exclude: Schema.optionalKey(Selectors),
  protocol: Schema.optionalKey(Protocol),
  probeTimeout: Schema.optionalKey(Schema.String)
}

/**
 * One entry of `mcpServers`: a stdio command.
 *
 * @since 0.3.0
 * @category config
 */
export const StdioServer = Schema.Struct({
  command: Schema.String,
  args: Schema.optionalKey(Schema.Array(Schema.String)),
  env: Schema.optionalKey(Strings),
  cwd: Schema.optionalKey(Schema.String),
  ...common
})

/**
 * One entry of `mcpServers`: a Streamable HTTP endpoint.
 *
 * @since 0.3.0
 * @category config
 */
export const HttpServer = Schema.Struct({
  url: Schema.String,
  headers: Schema.optionalKey(Strings),
  oauth: Schema.optionalKey(Schema.Struct({
    issuer: Schema.String,
    clientId: Schema.String,
    clientSecret: Schema.String
  })),
  ...common
})

/**
 * `gateway.authorization`: how the gateway checks its own callers' bearer
 * tokens (`@mrtr/server`'s `Authorization`), over HTTP.
 *
 * @since 0.3.0
 * @category config
 */
export const AuthorizationConfig = Schema.Struct({
  issuer: Schema.String,
  jwksUri: Schema.optionalKey(Schema.String),
  introspection: Schema.optionalKey(Schema.Struct({
    endpoint: Schema.String,
    clientId: Schema.String,
    clientSecret: Schema.String
  })),
  resource: Schema.optionalKey(Schema.String),
  requiredScopes: Schema.optionalKey(Schema.Array(Schema.String)),
  scopesSupported: Schema.optionalKey(Schema.Array(Schema.String))
})

/**
 * The configuration file.
 *
 * @since 0.3.0
 * @category config
 */
export const Config = Schema.Struct({
  mcpServers: Schema.Record(Schema.String, Schema.Union([StdioServer, HttpServer])),
  gateway: Schema.optionalKey(Schema.Struct({
    name: Schema.optionalKey(Schema.String),
    port: Schema.optionalKey(Schema.Int),
    host: Schema.optionalKey(Schema.String),
    separator: Schema.optionalKey(Schema.String),
    refreshInterval: Schema.optionalKey(Schema.String),
    callTimeout: Schema.optionalKey(Schema.String),
    requestState: Schema.optionalKey(Schema.Struct({
      keys: Schema.optionalKey(Schema.String),
      ttl: Schema.optionalKey(Schema.String),
      singleUse: Schema.optionalKey(Schema.Boolean)
    })),
    redis: Schema.optionalKey(Schema.Struct({ url: Schema.String })),
    heldCalls: Schema.optionalKey(Schema.Struct({
      max: Schema.optionalKey(Schema.Int),
      maxPerPrincipal: Schema.optionalKey(Schema.Int),
      timeout: Schema.optionalKey(Schema.String)
    })),
    authorization: Schema.optionalKey(AuthorizationConfig)
  }))
})

/**
 * @since 0.3.0
 * @category config
 */
export type Config = typeof Config.Type

/**
 * The configuration is not usable: not JSON, not of the shape above, or
 * contradictory (`reason` says where).
 *
 * @since 0.3.0
 * @category errors
 */
export class GatewayConfigError extends Schema.TaggedError<GatewayConfigError>()("GatewayConfigError", {
  reason: Schema.String
}) {
  override get message(): string {
    return `Invalid gateway configuration: ${this.reason}`
  }
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/

/** The fields of an HTTP server that a stdio one cannot use: refused on it rather than dropped. */
const HTTP_ONLY = ["url", "headers", "oauth"] as const

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Decodes and checks a configuration (parsed JSON).
 *
 * @since 0.3.0
 * @category config
 */
export const decode = (input: unknown): Effect.Effect<Config, GatewayConfigError> =>
  Effect.suspend(() => {
    // A `command` server's fields decode whatever else its entry says: an HTTP server's credentials would be dropped
    // without a word, and the server then reached without them.
    const servers = isRecord(input) && isRecord(input.mcpServers) ? input.mcpServers : {}
    for (const [name, server] of Object.entries(servers)) {
      if (!isRecord(server) || !("command" in server)) continue
      const foreign = HTTP_ONLY.filter((field) => field in server)
      if (foreign.length > 0) {
        return Effect.fail(
          new GatewayConfigError({
            reason: `mcpServers.${name}: ${foreign.map((field) => `"${field}"`).join(", ")} ${
              foreign.length === 1 ? "is" : "are"
            } for a "url" server only; a "command" server gets its credentials from "env"`
          })
        )
      }
    }
    return Schema.decodeUnknownEffect(Config)(input).pipe(
      Effect.mapError((issue) => new GatewayConfigError({ reason: issue.message }))
    )
  }).pipe(
    Effect.flatMap((config) => {
      const durations = {
        "gateway.refreshInterval": config.gateway?.refreshInterval,
        "gateway.callTimeout": config.gateway?.callTimeout,
        "gateway.requestState.ttl": config.gateway?.requestState?.ttl,
        "gateway.heldCalls.timeout": config.gateway?.heldCalls?.timeout
      }
      for (const [where, value] of Object.entries(durations)) {
        if (value !== undefined && !isPositiveDuration(value)) {
          return Effect.fail(new GatewayConfigError({ reason: `${where} must be a duration such as "30 seconds"` }))
        }
      }
      const gateway = config.gateway
      for (const key of ["max", "maxPerPrincipal"] as const) {
        const value = gateway?.heldCalls?.[key]
        if (value !== undefined && !(value > 0)) {
          return Effect.fail(new GatewayConfigError({ reason: `gateway.heldCalls.${key} must be a positive integer` }))
        }
      }
      if (gateway?.redis !== undefined && !/^rediss?:\/\//.test(gateway.redis.url)) {
        return Effect.fail(new GatewayConfigError({ reason: "gateway.redis.url must be a redis:// or rediss:// URL" }))
      }
      const auth = gateway?.authorization
      if (auth !== undefined) {
        if ((auth.jwksUri === undefined) === (auth.introspection === undefined)) {
          return Effect.fail(
            new GatewayConfigError({ reason: "gateway.authorization needs exactly one of jwksUri and introspection" })
          )
        }
        const urls = {
          "gateway.authorization.issuer": auth.issuer,
          "gateway.authorization.jwksUri": auth.jwksUri,
          "gateway.authorization.introspection.endpoint": auth.introspection?.endpoint,
          "gateway.authorization.resource": auth.resource
        }
        for (const [where, value] of Object.entries(urls)) {
          if (value !== undefined && !isHttpUrl(value)) {
            return Effect.fail(new GatewayConfigError({ reason: `${where} must be an http(s) URL` }))
          }
        }
      }
      for (const [name, server] of Object.entries(config.mcpServers)) {
        if (!NAME.test(name)) {
          return Effect.fail(
            new GatewayConfigError({ reason: `mcpServers: "${name}" must be 1-64 letters, digits, '_', '.' or '-'` })
          )
        }
        const isStdio = "command" in server
        if (server.type !== undefined && (server.type === "stdio") !== isStdio) {
          return Effect.fail(
            new GatewayConfigError({ reason: `mcpServers.${name}: type "${server.type}" does not match its fields` })
          )
        }
        if (!isStdio && !isHttpUrl(server.url)) {
          return Effect.fail(new GatewayConfigError({ reason: `mcpServers.${name}.url must be an http(s) URL` }))
        }
        if (server.probeTimeout !== undefined && !isPositiveDuration(server.probeTimeout)) {
          return Effect.fail(
            new GatewayConfigError({
              reason: `mcpServers.${name}.probeTimeout must be a duration such as "30 seconds"`
            })
          )
        }
      }
      return Effect.succeed(config)
    })
  )

const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

const isPositiveDuration = (value: string): boolean => {
  const parsed = Duration.fromInput(value as Duration.Input)
  return Option.isSome(parsed) && Duration.isFinite(parsed.value) && Duration.toMillis(parsed.value) > 0
}

/**
 * Parses and checks a configuration file's text.
 *
 * @since 0.3.0
 * @category config
 */
export const parse = (text: string): Effect.Effect<Config, GatewayConfigError> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) => new GatewayConfigError({ reason: `not JSON: ${(error as Error).message}` })
  }).pipe(Effect.flatMap(decode))

/**
 * The upstreams of a configuration, each with the namespace it is served
 * under (`""`: unprefixed) and its mount options.
 *
 * @since 0.3.0
 * @category config
 */
export const upstreams = (config: Config): ReadonlyArray<{
  readonly upstream: Upstream.Upstream
  readonly namespace: string
  readonly mount: Mount.Options
  readonly protocol: "auto" | "2026-07-28" | "2025-11-25"
  /** The server's `probeTimeout`, when it has one (else `Upstream.Options.probeTimeout`'s default). */
  readonly probeTimeout?: Duration.Input | undefined
}> => {
  const enabled = Object.entries(config.mcpServers).filter(([, server]) => server.disabled !== true)
  return enabled.map(([name, server]) => {
    const upstream: Upstream.Upstream = "command" in server
      ? Upstream.stdio({
        name,
        command: server.command,
        ...(server.args === undefined ? {} : { args: server.args }),
        ...(server.env === undefined ? {} : { env: server.env }),
        ...(server.cwd === undefined ? {} : { cwd: server.cwd })
      })
      : Upstream.http({
        name,
        url: server.url,
        ...(server.headers === undefined ? {} : { headers: server.headers }),
        ...(server.oauth === undefined ? {} : { oauth: server.oauth })
      })
    const namespace = server.namespace === false ? "" : server.namespace ?? (enabled.length === 1 ? "" : name)
    return {
      upstream,
      namespace,
      protocol: server.protocol ?? "auto",
      ...(server.probeTimeout === undefined ? {} : { probeTimeout: server.probeTimeout as Duration.Input }),
      mount: {
        ...(config.gateway?.separator === undefined ? {} : { separator: config.gateway.separator }),
        ...(server.include === undefined ? {} : { include: server.include as ReadonlyArray<Mount.Selector> }),
        ...(server.exclude === undefined ? {} : { exclude: server.exclude as ReadonlyArray<Mount.Selector> })
      }
    }
  })
}

/**
 * What `gateway.requestState` says, as the `MRTR_*` variables
 * `McpServer.layerConfig` reads: the file's values first, the environment's
 * for what the file leaves out.
 */
const settingsProvider = (config: Config) => {
  const state = config.gateway?.requestState
  const values: Record<string, string> = {
    ...(state?.keys === undefined ? {} : { [RequestState.keysConfigName]: state.keys }),
    ...(state?.ttl === undefined ? {} : { [RequestState.ttlConfigName]: state.ttl }),
    ...(state?.singleUse === undefined ? {} : { MRTR_SINGLE_USE: String(state.singleUse) })
  }
  return ConfigProvider.layerAdd(ConfigProvider.fromUnknown(values), { asPrimary: true })
}

/**
 * The gateway's `McpServer` with every enabled upstream mounted: its
 * `requestState` settings from `gateway.requestState` and the environment
 * (`McpServer.layerConfig`), with `gateway.redis` the fleet's shared state
 * (`@mrtr/server`'s `Redis.layerFleet`) and held calls on Redis, else both in
 * this process. A name two upstreams serve under the same namespace fails it
 * with `Mount.NameCollision`; an unreachable Redis with a `RedisError`.
 *
 * @since 0.3.0
 * @category layers
 */
export const layer = (config: Config) => {
  const callTimeout = config.gateway?.callTimeout
  const refreshInterval = config.gateway?.refreshInterval
  const held = config.gateway?.heldCalls
  const redisUrl = config.gateway?.redis?.url
  const mounts = upstreams(config).map(({ mount, namespace, probeTimeout, protocol, upstream }) =>
    McpServer.mount(
      namespace,
      Upstream.layer(upstream, {
        protocol,
        ...(probeTimeout === undefined ? {} : { probeTimeout }),
        ...(callTimeout === undefined ? {} : { callTimeout: callTimeout as Duration.Input }),
        ...(refreshInterval === undefined ? {} : { refreshInterval: refreshInterval as Duration.Input }),
        ...(held?.timeout === undefined ? {} : { holdTimeout: held.timeout as Duration.Input })
      }),
      mount
    )
  )
  const server = (shared: Layer.Layer<any, any> | undefined) =>
    McpServer.layerConfig({
      name: config.gateway?.name ?? "mrtr-gateway",
      version: "0.3.0",
      ...(shared === undefined ? {} : { shared })
    })
  const build = Layer.unwrap(Effect.gen(function*() {
    // held calls time out with the gateway's states: gateway.heldCalls.timeout, else the requestState TTL
    const ttl = yield* RequestState.ttlFromConfig
    const heldOptions: HeldCalls.Options = {
      timeout: held?.timeout === undefined ? ttl : held.timeout as Duration.Input,
      ...(held?.max === undefined ? {} : { maxHeld: held.max }),
      ...(held?.maxPerPrincipal === undefined ? {} : { maxPerPrincipal: held.maxPerPrincipal })
    }
    if (redisUrl === undefined) {
      return Layer.mergeAll(Layer.empty, ...mounts).pipe(
        Layer.provide(HeldCalls.layerMemory(heldOptions)),
        Layer.provideMerge(server(undefined))
      )
    }
    // loaded only for a fleet: a gateway without Redis never loads the `redis` client
    const Redis = yield* Effect.promise(() => import("@mrtr/server/Redis"))
    const fleet = Redis.layerFleet({ url: redisUrl })
    return Layer.mergeAll(Layer.empty, ...mounts).pipe(
      Layer.provide(HeldCalls.layerRedis(heldOptions).pipe(Layer.provide(Redis.layerClient({ url: redisUrl })))),
      Layer.provideMerge(server(fleet))
    )
  }))
  return build.pipe(Layer.provide(settingsProvider(config)))
}

/**
 * The downstream's authorization of `gateway.authorization` (to provide to
 * `HttpTransport.layer`), or `undefined` when the file has none.
 *
 * @since 0.3.0
 * @category layers
 */
export const authorization = (config: Config): Layer.Layer<Authorization.ResourceServer> | undefined => {
  const auth = config.gateway?.authorization
  if (auth === undefined) return undefined
  const verifier = auth.introspection === undefined
    ? Authorization.jwt({ issuer: auth.issuer, jwksUri: auth.jwksUri! })
    : Authorization.introspection({
      issuer: auth.issuer,
      introspectionEndpoint: auth.introspection.endpoint,
      clientId: auth.introspection.clientId,
      clientSecret: auth.introspection.clientSecret
    })
  return Authorization.layer({
    verifier,
    ...(auth.resource === undefined ? {} : { resource: auth.resource }),
    ...(auth.requiredScopes === undefined ? {} : { requiredScopes: auth.requiredScopes }),
    ...(auth.scopesSupported === undefined
      ? auth.requiredScopes === undefined ? {} : { scopesSupported: auth.requiredScopes }
      : { scopesSupported: auth.scopesSupported })
  })
}
