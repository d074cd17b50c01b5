/**
 * Streamable HTTP transport for MCP 2026-07-28 (stateless).
 *
 * One endpoint (default `/mcp`) that accepts only `POST`. Each POST carries one
 * JSON-RPC message; the answer is a single JSON body, `202 Accepted` for a
 * notification, or a per-request Server-Sent Events stream (notifications such
 * as progress or log messages, then the response, which ends the stream).
 * There is no GET stream, no DELETE, no `Mcp-Session-Id` and no
 * `Last-Event-ID` in this revision. Closing the SSE stream cancels the request.
 * The same endpoint serves the 2025-11-25 wire (the dispatcher tells the
 * eras apart): a `GET` or `DELETE` carrying `Mcp-Session-Id` goes to the
 * dispatcher (a session's stream, the end of a session), responses may carry
 * an `Mcp-Session-Id` header, and SSE events of a session carry `id:` lines
 * (after an empty priming event) for `Last-Event-ID` resumption.
 *
 * What this module checks before the dispatcher sees a message, in order:
 *
 * | check                                         | status | body                        |
 * |-----------------------------------------------|--------|-----------------------------|
 * | `Host` / `Origin` not allowed (DNS rebinding)  | 403    | JSON-RPC -32600, no `id`    |
 * | `OPTIONS` with `cors` on (CORS preflight)      | 204    | empty, CORS headers         |
 * | method other than `POST` (but a GET/DELETE with `Mcp-Session-Id`) | 405 | empty, `Allow: POST` |
 * | `Content-Type` not `application/json`          | 415    | JSON-RPC -32600, no `id`    |
 * | body larger than `maxBodyBytes`                | 413    | JSON-RPC -32600, no `id`, `Connection: close` |
 * | body of an `Upgrade` offer not in time         | 408    | JSON-RPC -32600, no `id`    |
 * | body with more than `maxJsonValues` JSON values | 413    | JSON-RPC -32600, no `id`    |
 * | body not JSON                                  | 400    | JSON-RPC -32700, no `id`    |
 *
 * With an `Authorization.ResourceServer` in the context (`Authorization.layer`),
 * the bearer token of every request is checked right after `Host` / `Origin`
 * (and a CORS preflight) and before anything else (401 / 400 / 503), the
 * scopes of the message's target right after parsing (403), and the
 * Protected Resource Metadata is served at its well-known path: see
 * `Authorization.ts`.
 *
 * Everything else (JSON-RPC shape, `MCP-Protocol-Version` / `Mcp-Method` /
 * `Mcp-Name` headers, `_meta`) is the dispatcher's job: it receives the parsed
 * value and a case-insensitive header lookup, see `Transport.ts`. Paths other
 * than the endpoint get `404` from the router.
 *
 * CORS (browser clients calling from another origin) is off by default; turn
 * it on with `cors: true` (or `CorsOptions`). It is effect/http's
 * `HttpMiddleware.cors` with the endpoint's `allowedOrigins`, the protocol's
 * request headers (`Mcp-Param-*` reflected as requested) and exposed headers,
 * applied after the `Host` / `Origin` checks, so a disallowed origin still
 * gets `403`; see `internal/cors.ts`.
 *
 * Source: MCP 2026-07-28, basic/transports (Streamable HTTP, security
 * warning on DNS rebinding); `docs/architecture.md` (the HTTP walk).
 *
 * @since 0.1.0
 */
import { Context, Duration, Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServer, HttpServerError, HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { NetAddress } from "effect/net"
import { createServer } from "node:http"
import { resourceFromAddress, ResourceRequired, ResourceServer } from "./Authorization.ts"
import { type Config, resolve } from "./internal/http/config.ts"
import { loadNodeHttpServer } from "./internal/http/nodeServer.ts"
import type { EndpointOptions } from "./internal/http/options.ts"
import { handleWith } from "./internal/http/requestPath.ts"
import { errorResponse } from "./internal/http/responses.ts"
import { ErrorCode } from "./internal/jsonRpc.ts"
import { McpHandler } from "./McpHandler.ts"

// -----------------------------------------------------------------------------
// Options
// -----------------------------------------------------------------------------

export type {
  /**
   * Which browser origins may call the endpoint, and what the CORS preflight answers (see `internal/http/options.ts`).
   *
   * @category models
   * @since 0.1.0
   */
  CorsOptions,
  /**
   * Options of the MCP endpoint itself, shared by `layer`, `routes`,
   * `handleRequest`, `httpApp` and `toWebHandler` (see `internal/http/options.ts`).
   *
   * @category models
   * @since 0.1.0
   */
  EndpointOptions
} from "./internal/http/options.ts"

/**
 * Options of `layer`: the endpoint options plus where to listen.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category models
 * @since 0.1.0
 */
export interface LayerOptions<R = never> extends EndpointOptions {
  /**
   * More routes served beside the endpoint, as a layer on the `HttpRouter` that may read the bound `HttpEndpoint`
   * (for example `InteractionPage.routes`, the pages of secure elicitations). Its requirements become the layer's.
   *
   * @default undefined (nothing but the endpoint)
   */
  readonly mount?: Layer.Layer<never, never, HttpRouter.HttpRouter | HttpEndpoint | R> | undefined
  /**
   * The TCP port; `0` picks a free ephemeral port (read it back with `url` / `HttpEndpoint`).
   *
   * @default 3000
   */
  readonly port?: number | undefined
  /**
   * The interface to bind: loopback only by default, as the spec recommends for local servers. When binding another
   * interface, also set `allowedHosts` (and `allowedOrigins`, with `cors`, for browser clients), otherwise remote
   * requests get `403`.
   *
   * @default "127.0.0.1"
   */
  readonly host?: string | undefined
  /**
   * Logs one line per HTTP request with Effect's `HttpMiddleware.logger`.
   *
   * @default false
   */
  readonly logRequests?: boolean | undefined
  /**
   * How long closing the layer waits for open connections (SSE streams, for example) before giving up.
   *
   * @default "20 seconds" (the Node platform's default)
   */
  readonly gracefulShutdownTimeout?: Duration.Input | undefined
  /**
   * How long a client may take to send a whole request (headers and body; not the response, so SSE answers are
   * unaffected) before the connection is closed with 408, against slow-body clients holding buffers open. Headers
   * alone get at most 10 seconds (or this, when shorter). The body of a request that offers an `Upgrade` (say `h2c`,
   * as `curl --http2` does) must arrive within the same time, else `408` with a JSON-RPC -32600 error body.
   *
   * @default "30 seconds"
   */
  readonly requestTimeout?: Duration.Input | undefined
  /**
   * The listen queue length, in connections (a positive integer; anything else throws when `layer` is called): the
   * connections the kernel accepts before the server takes them. Node's own default, 511, overflows under a burst of
   * a few thousand clients, each overflow costing the client a connect retry of a second or more. The kernel caps it
   * at `net.core.somaxconn` (Linux).
   *
   * @default 4096 (`DEFAULT_BACKLOG`)
   */
  readonly backlog?: number | undefined
}

/**
 * Default listen backlog of `layer`: 4096 connections (the Linux default of
 * `net.core.somaxconn`, which caps it).
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_BACKLOG = 4096

/**
 * Default endpoint path: `"/mcp"`.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_PATH = "/mcp" as const

/**
 * Default body limit: 4 MiB (4_194_304 bytes).
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024

/**
 * Default bound on the JSON values of one request body: 20,000 (see
 * `EndpointOptions.maxJsonValues`).
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_MAX_JSON_VALUES = 20_000

/**
 * Default `Host` allow-list: `localhost`, `127.0.0.1`, `[::1]`, any port.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_ALLOWED_HOSTS: ReadonlyArray<string> = ["localhost", "127.0.0.1", "[::1]"]

/**
 * Default `Origin` allow-list: `http` and `https` on `localhost`,
 * `127.0.0.1` and `[::1]`, any port.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_ALLOWED_ORIGINS: ReadonlyArray<string> = [
  "http://localhost",
  "https://localhost",
  "http://127.0.0.1",
  "https://127.0.0.1",
  "http://[::1]",
  "https://[::1]"
]

// -----------------------------------------------------------------------------
// Bound address
// -----------------------------------------------------------------------------

/**
 * The endpoint `layer` serves, once the server is listening:
 *
 * - `url`: full endpoint URL, e.g. `"http://127.0.0.1:54321/mcp"`.
 * - `address`: the socket address the server is bound to (port resolved when
 *   `port: 0` was given).
 * - `path`: the endpoint path, e.g. `"/mcp"`.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category services
 * @since 0.1.0
 */
export class HttpEndpoint extends Context.Service<HttpEndpoint, {
  readonly url: string
  readonly address: NetAddress.SocketAddress
  readonly path: string
}>()("@mrtr/server/HttpTransport/HttpEndpoint") {}

/**
 * The full URL of the endpoint served by `layer`, e.g.
 * `"http://127.0.0.1:54321/mcp"`. Print it once ready:
 *
 * ```ts
 * import { HttpTransport, McpServer } from "@mrtr/server"
 * import { Console, Effect, Layer } from "effect"
 *
 * const server = McpServer.layer({ name: "s", version: "1.0.0" })
 *
 * const program = Effect.gen(function*() {
 *   yield* Console.error(`listening ${yield* HttpTransport.url}`)
 *   return yield* Effect.never
 * }).pipe(Effect.provide(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(server))))
 * ```
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category accessors
 * @since 0.1.0
 */
export const url: Effect.Effect<string, never, HttpEndpoint> = HttpEndpoint.useSync((endpoint) => endpoint.url)

// -----------------------------------------------------------------------------
// Request handling
// -----------------------------------------------------------------------------

/**
 * Handles one HTTP request addressed to the MCP endpoint (any method): the
 * checks listed in the module header, then `handler.handle`, then the reply:
 *
 * - `Response` → `reply.httpStatus` with `Content-Type: application/json` and
 *   the message as body.
 * - `Accepted` → `202`, empty body.
 * - `Stream` → `200`, `Content-Type: text/event-stream`, one SSE event per
 *   message (`event: message` + `data: <json>`), written and flushed as each
 *   message arrives. The stream ends after the response to the request's `id`
 *   (the spec's SHOULD), even if the dispatcher's stream would go on. When
 *   the client disconnects, the response fiber, and with it the dispatcher's
 *   stream, is interrupted: that is how a request is cancelled on HTTP.
 *
 * Accept handling is lenient: a client whose `Accept` lacks
 * `application/json` or `text/event-stream` is not rejected (no `406`), but it
 * never receives SSE. For a `Stream` reply to such a client the transport
 * drains the stream and answers with its final response as JSON (status
 * from the error code as for `Response`, see `HttpStatus`: 200 for a result
 * and for errors of a running method, -32601 → 404, -32020/-32021/-32022 →
 * 400); intermediate notifications are dropped. A stream that ends without a
 * response answers `202` for a notification and `200` with -32603 for a request.
 * The answers that can only be streams are refused for such a client with
 * `406` and -32600: `subscriptions/listen` (by the dispatcher) and a
 * 2025-11-25 session's GET (here).
 *
 * A defect in the dispatcher (it should never fail) is logged and answered
 * with `200` and a JSON-RPC -32603 error carrying the request's `id` (never
 * a 5xx, which the official clients turn into a transport failure).
 *
 * The returned function never fails. The router in front of it must route
 * every method on the endpoint path here (`routes` does, with `"*"`). With
 * authorization on, `Authorization.Options.resource` is required (no bound
 * address is known here): without it every request is answered `500`
 * (-32603) and the missing option is logged.
 *
 * Source: MCP 2026-07-28, basic/transports (Streamable HTTP).
 *
 * @category handlers
 * @since 0.1.0
 */
export const handleRequest = (
  options: EndpointOptions = {}
): (
  request: HttpServerRequest.HttpServerRequest
) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, McpHandler> => {
  const config = resolveOptions(options)
  return (request) =>
    Effect.flatMap(McpHandler, (handler) =>
      Effect.flatMap(Effect.serviceOption(ResourceServer), (found) => {
        if (Option.isNone(found)) return handleWith(handler, config, request, undefined)
        const resource = found.value.resource
        // No bound address here: a resource server without its `resource` cannot tell its tokens' audience.
        return resource === undefined
          ? Effect.as(
            Effect.logError(
              new ResourceRequired({ where: "HttpTransport.handleRequest / httpApp knows no bound address" }).message
            ),
            errorResponse(
              500,
              ErrorCode.InternalError,
              "Internal error: the server's authorization has no resource set"
            )
          )
          : handleWith(handler, config, request, { server: found.value, resource })
      }))
}

/**
 * The endpoint as an HTTP app: `handleRequest` applied to the current
 * `HttpServerRequest`. Mount it in your own router for every method:
 *
 * ```ts
 * import { HttpTransport } from "@mrtr/server"
 * import { HttpRouter } from "effect/http"
 *
 * const mcpRoute = HttpRouter.add("*", "/mcp", HttpTransport.httpApp())
 * ```
 *
 * The route then requires `McpHandler` per request (as an
 * `HttpRouter.Request` requirement); prefer `routes` when you can provide
 * `McpHandler` to a layer.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category handlers
 * @since 0.1.0
 */
export const httpApp = (
  options: EndpointOptions = {}
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, McpHandler | HttpServerRequest.HttpServerRequest> => {
  const handle = handleRequest(options)
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, handle)
}

/**
 * A layer that registers the endpoint (all methods on `options.path`) on the
 * surrounding `HttpRouter`, taking the dispatcher from `McpHandler` once when
 * the layer is built. Use it to add MCP to an existing effect/http server:
 *
 * ```ts
 * import { HttpTransport } from "@mrtr/server"
 * import { Layer } from "effect"
 * import { HttpRouter } from "effect/http"
 *
 * declare const MyRoutes: Layer.Layer<never, never, HttpRouter.HttpRouter>
 *
 * const app = HttpRouter.serve(Layer.mergeAll(MyRoutes, HttpTransport.routes({ path: "/mcp" })))
 * ```
 *
 * With authorization on, `Authorization.Options.resource` is required here
 * (no bound address is known to derive the tokens' audience from, unless an
 * `HttpEndpoint` is provided): without it the layer fails with
 * `Authorization.ResourceRequired`.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category layers
 * @since 0.1.0
 */
export const routes = (
  options: EndpointOptions = {}
): Layer.Layer<never, ResourceRequired, HttpRouter.HttpRouter | McpHandler> => routesWith(resolveOptions(options))

/**
 * The endpoint's routes. With authorization on, the canonical resource URI
 * (the audience tokens must name) is the configured one, else the bound
 * address's (`HttpEndpoint`, present under `layer`), else the layer fails
 * with `ResourceRequired`: never the request's `Host`.
 */
const routesWith = (config: Config): Layer.Layer<never, ResourceRequired, HttpRouter.HttpRouter | McpHandler> =>
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      const handler = yield* McpHandler
      const found = yield* Effect.serviceOption(ResourceServer)
      if (Option.isNone(found)) {
        return yield* router.add("*", config.path, (request) => handleWith(handler, config, request, undefined))
      }
      const server = found.value
      const path = String(config.path)
      const resource = server.resource ?? (yield* Effect.flatMap(
        Effect.serviceOption(HttpEndpoint),
        (endpoint) => resourceFromAddress(Option.getOrUndefined(endpoint)?.address, path)
      ))
      const authorization = { server, resource }
      yield* router.add("*", config.path, (request) => handleWith(handler, config, request, authorization))
      // RFC 9728: the metadata is public, GET only.
      yield* router.add("GET", server.metadataPath(resource) as HttpRouter.PathInput, (request) => {
        const metadata = Effect.sync(() => server.metadata(resource))
        // A browser client reads it cross-origin too.
        return config.cors === undefined ? metadata : config.cors(request, metadata)
      })
    })
  )

/**
 * The `ServeError` of a failed `listen`, with a message that says where and
 * why (effect's own has none): `cannot listen on 127.0.0.1:3000: the port is
 * in use (EADDRINUSE)`.
 */
const withListenMessage = (error: HttpServerError.ServeError, host: string, port: number) => {
  const cause = error.cause as { readonly code?: unknown; readonly message?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : undefined
  const why = code === "EADDRINUSE"
    ? "the port is in use (EADDRINUSE)"
    : code === "EACCES"
    ? "permission denied (EACCES: ports below 1024 need privileges)"
    : code === "EADDRNOTAVAIL"
    ? "no such local address (EADDRNOTAVAIL)"
    : typeof cause?.message === "string"
    ? cause.message
    : String(cause)
  return Object.assign(new HttpServerError.ServeError({ cause: error.cause }), {
    message: `cannot listen on ${host}:${port}: ${why}`
  })
}

/**
 * Serves the endpoint on Node's `http` server (`NodeHttpServer.layer`),
 * bound to `host` (default `127.0.0.1`) and `port` (default `3000`, `0` =
 * ephemeral). Requires `McpHandler` (the dispatcher); provides `HttpEndpoint`
 * (read the bound URL with `url`). Fails with `ServeError` when the port
 * cannot be bound (its message says where and why, e.g. the port is in use),
 * and with `Authorization.ResourceRequired` when authorization is on without
 * a `resource` and the server is bound to every interface (`0.0.0.0`, `::`):
 * the tokens' audience is then the bound address's URL, never a request's
 * `Host`. Other paths answer `404`, except those of `mount`.
 *
 * Source: MCP 2026-07-28, basic/transports (Streamable HTTP).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <R = never>(
  options: LayerOptions<R> = {}
): Layer.Layer<
  HttpEndpoint,
  HttpServerError.ServeError | ResourceRequired,
  McpHandler | Exclude<R, HttpRouter.HttpRouter | HttpEndpoint>
> => {
  const requestTimeout = Duration.toMillis(Duration.fromInputUnsafe(options.requestTimeout ?? "30 seconds"))
  const config = resolveOptions(options, { owned: true, requestTimeoutMillis: requestTimeout })
  const backlog = options.backlog ?? DEFAULT_BACKLOG
  if (!Number.isSafeInteger(backlog) || backlog < 1) {
    throw new Error(`HttpTransport: backlog must be a positive integer, got ${backlog}`)
  }
  const port = options.port ?? 3000
  const host = options.host ?? "127.0.0.1"
  // Node's HTTP server (with `ws`, about 40 modules) is imported when the layer is built: a server that never
  // serves HTTP (stdio) does not load it.
  const server = Layer.unwrap(
    Effect.map(loadNodeHttpServer, (NodeHttpServer) =>
      NodeHttpServer.layer(() =>
        createServer({
          requestTimeout,
          headersTimeout: Math.min(requestTimeout, 10_000),
          connectionsCheckingInterval: Math.min(requestTimeout, 5_000)
        }), {
        port,
        host,
        backlog,
        ...(options.gracefulShutdownTimeout === undefined
          ? {}
          : { gracefulShutdownTimeout: options.gracefulShutdownTimeout })
      }))
  ).pipe(
    Layer.catchTag("ServeError", (error) => Layer.effectDiscard(Effect.fail(withListenMessage(error, host, port))))
  )
  const endpoint = Layer.effect(
    HttpEndpoint,
    Effect.map(HttpServer.HttpServer, (server) =>
      HttpEndpoint.of({
        url: `${HttpServer.formatAddress(server.address)}${config.path}`,
        address: server.address,
        path: config.path
      }))
  )
  // The endpoint's routes read the bound address too (the canonical resource URI of authorization).
  const routes = routesWith(config).pipe(Layer.provide(endpoint))
  const mounted = options.mount === undefined
    ? routes
    : Layer.merge(routes, options.mount.pipe(Layer.provide(endpoint)))
  const serve = HttpRouter.serve(mounted, {
    disableListenLog: true,
    disableLogger: options.logRequests !== true
  })
  return Layer.merge(serve, endpoint).pipe(Layer.provide(server)) as Layer.Layer<
    HttpEndpoint,
    HttpServerError.ServeError | ResourceRequired,
    McpHandler | Exclude<R, HttpRouter.HttpRouter | HttpEndpoint>
  >
}

/**
 * Builds a Fetch-style handler (`(request: Request) => Promise<Response>`)
 * for the endpoint, for serverless hosts or for mounting in a non-Effect
 * server. `handlerLayer` provides the dispatcher. Call `dispose` on shutdown.
 * Requests to other paths get `404`. With authorization on, set
 * `Authorization.Options.resource` (see {@link routes}).
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category layers
 * @since 0.1.0
 */
export const toWebHandler = <E>(
  handlerLayer: Layer.Layer<McpHandler, E>,
  options: EndpointOptions = {}
): {
  readonly handler: (request: Request) => Promise<Response>
  readonly dispose: () => Promise<void>
} => {
  const web = HttpRouter.toWebHandler(
    routes(options).pipe(Layer.provide(handlerLayer), Layer.provide(HttpServer.layerServices)),
    { disableLogger: true }
  )
  return { handler: (request) => web.handler(request), dispose: web.dispose }
}

// -----------------------------------------------------------------------------
// Options, resolved (the request path itself: internal/http/requestPath.ts)
// -----------------------------------------------------------------------------

/** The options checked and parsed once (`Config`); a bad value throws an `Error` here, before anything is served. */
const resolveOptions = (
  options: EndpointOptions,
  server?: { readonly owned: boolean; readonly requestTimeoutMillis: number }
): Config =>
  resolve(options, {
    path: DEFAULT_PATH,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    maxJsonValues: DEFAULT_MAX_JSON_VALUES,
    allowedHosts: DEFAULT_ALLOWED_HOSTS,
    allowedOrigins: DEFAULT_ALLOWED_ORIGINS
  }, server)
