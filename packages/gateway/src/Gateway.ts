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
 *   `protocol` (`"auto"`, `"2026-07-28"`, `"2025-11-25"`).
 * - Namespaces: by default each server's items are served under its name
 *   (`files_read_file`), except when there is only one server: then
 *   unprefixed.
 * - `gateway` (all optional): `name` (default `"mrtr-gateway"`), `port`
 *   (default 3000; 0 picks a free one), `host` (default `127.0.0.1`),
 *   `separator` (default `_`), `refreshInterval` (a duration such as
 *   `"1 minute"`), `callTimeout` (default `"60 seconds"`).
 *
 * The sealing keys and other server settings come from the environment
 * (`McpServer.layerConfig`: `MRTR_REQUEST_STATE_KEYS`, ...).
 *
 * @since 0.3.0
 */
import { Duration, Effect, Layer, Option, Schema } from "effect"
import { McpServer, Mount } from "@mrtr/server"
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
  protocol: Schema.optionalKey(Protocol)
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
  ...common
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
    callTimeout: Schema.optionalKey(Schema.String)
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

/**
 * Decodes and checks a configuration (parsed JSON).
 *
 * @since 0.3.0
 * @category config
 */
export const decode = (input: unknown): Effect.Effect<Config, GatewayConfigError> =>
  Schema.decodeUnknownEffect(Config)(input).pipe(
    Effect.mapError((issue) => new GatewayConfigError({ reason: issue.message })),
    Effect.flatMap((config) => {
      for (const key of ["refreshInterval", "callTimeout"] as const) {
        const value = config.gateway?.[key]
        if (value !== undefined && Option.isNone(Duration.fromInput(value as Duration.Input))) {
          return Effect.fail(new GatewayConfigError({ reason: `gateway.${key} must be a duration such as "30 seconds"` }))
        }
      }
      for (const [name, server] of Object.entries(config.mcpServers)) {
        if (!NAME.test(name)) {
          return Effect.fail(new GatewayConfigError({ reason: `mcpServers: "${name}" must be 1-64 letters, digits, '_', '.' or '-'` }))
        }
        const isStdio = "command" in server
        if (server.type !== undefined && (server.type === "stdio") !== isStdio) {
          return Effect.fail(new GatewayConfigError({ reason: `mcpServers.${name}: type "${server.type}" does not match its fields` }))
        }
        if (!isStdio) {
          try {
            const url = new URL(server.url)
            if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error()
          } catch {
            return Effect.fail(new GatewayConfigError({ reason: `mcpServers.${name}.url must be an http(s) URL` }))
          }
        }
      }
      return Effect.succeed(config)
    })
  )

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
      : Upstream.http({ name, url: server.url, ...(server.headers === undefined ? {} : { headers: server.headers }) })
    const namespace = server.namespace === false ? "" : server.namespace ?? (enabled.length === 1 ? "" : name)
    return {
      upstream,
      namespace,
      protocol: server.protocol ?? "auto",
      mount: {
        ...(config.gateway?.separator === undefined ? {} : { separator: config.gateway.separator }),
        ...(server.include === undefined ? {} : { include: server.include as ReadonlyArray<Mount.Selector> }),
        ...(server.exclude === undefined ? {} : { exclude: server.exclude as ReadonlyArray<Mount.Selector> })
      }
    }
  })
}

/**
 * The gateway's `McpServer` (configured from the environment, see
 * `McpServer.layerConfig`) with every enabled upstream mounted. A name two
 * upstreams serve under the same namespace fails it with
 * `Mount.NameCollision`.
 *
 * @since 0.3.0
 * @category layers
 */
export const layer = (config: Config) => {
  const callTimeout = config.gateway?.callTimeout
  const refreshInterval = config.gateway?.refreshInterval
  const mounts = upstreams(config).map(({ mount, namespace, protocol, upstream }) =>
    McpServer.mount(
      namespace,
      Upstream.layer(upstream, {
        protocol,
        ...(callTimeout === undefined ? {} : { callTimeout: callTimeout as Duration.Input }),
        ...(refreshInterval === undefined ? {} : { refreshInterval: refreshInterval as Duration.Input })
      }),
      mount
    )
  )
  return Layer.mergeAll(Layer.empty, ...mounts).pipe(
    Layer.provideMerge(McpServer.layerConfig({ name: config.gateway?.name ?? "mrtr-gateway", version: "0.3.0" }))
  )
}
