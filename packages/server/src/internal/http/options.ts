/**
 * The options of the Streamable HTTP endpoint, in a module of their own so
 * `HttpTransport.ts` (which re-exports them) and the endpoint's
 * configuration (`config.ts`) share them without importing each other.
 */
import type { Duration, Effect } from "effect"
import type { HttpRouter, HttpServerRequest } from "effect/http"
import type * as Cors from "../cors.ts"

/**
 * Options of the MCP endpoint itself, shared by `layer`, `routes`,
 * `handleRequest`, `httpApp` and `toWebHandler`. Invalid values throw an
 * `Error` when the options are resolved (when `layer`, `routes`,
 * `handleRequest`, ... is called).
 *
 * Source: MCP 2026-07-28, basic/transports (Streamable HTTP, security warning).
 *
 * @category models
 * @since 0.1.0
 */
export interface EndpointOptions {
  /**
   * The endpoint's path.
   *
   * @default "/mcp"
   */
  readonly path?: HttpRouter.PathInput | undefined
  /**
   * The largest request body accepted, in bytes (a non-negative integer). A larger body gets `413` with a JSON-RPC
   * -32600 error body; the limit is checked against `Content-Length` before reading and against the bytes received
   * while reading (chunked bodies).
   *
   * @default 4_194_304 (4 MiB)
   */
  readonly maxBodyBytes?: number | undefined
  /**
   * The most JSON values (objects, arrays, strings, numbers, literals; an object member's key counts with its value)
   * a body may hold, a positive integer. Counted on the raw bytes before parsing, so that the work a request costs
   * on the event loop stays in proportion to its size; more values get `413` with a JSON-RPC -32600 error body.
   *
   * @default 20_000 (`DEFAULT_MAX_JSON_VALUES`)
   */
  readonly maxJsonValues?: number | undefined
  /**
   * DNS-rebinding protection on the `Host` header: host names or IP literals (`"localhost"`, `"127.0.0.1"`,
   * `"[::1]"`), optionally with a port (`"example.com:8443"`; an entry without one matches any port), matched
   * case-insensitively. `"*"` disables the check. A request whose `Host` is missing or not allowed gets `403`.
   *
   * @default ["localhost", "127.0.0.1", "[::1]"] on any port
   */
  readonly allowedHosts?: ReadonlyArray<string> | "*" | undefined
  /**
   * The origins allowed, checked only when a request has an `Origin` header: `"https://app.example.com"` (an entry
   * without a port matches the same scheme and host on any port). `"*"` disables the check. An `Origin` that is
   * present and not allowed (`null` included) gets `403`.
   *
   * @default http and https on localhost, 127.0.0.1 and [::1], any port
   */
  readonly allowedOrigins?: ReadonlyArray<string> | "*" | undefined
  /**
   * CORS, for web apps in a browser that call the endpoint from their own origin. `true` or a `CorsOptions` turns it
   * on: preflights (`OPTIONS`) from an allowed origin for `POST`, `GET` and `DELETE` get `204`; responses carry
   * `Access-Control-Allow-Origin: <the request's Origin>` (never `*`); the protocol's request headers are allowed
   * (`Content-Type`, `Accept`, `Authorization`, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Session-Id`,
   * `Last-Event-ID` and every requested `Mcp-Param-*`); `Mcp-Session-Id` and `WWW-Authenticate` are exposed; no
   * credentials unless `credentials: true`. The allowed origins are `allowedOrigins`: any other still gets `403`.
   *
   * @default false (no CORS headers; `OPTIONS` gets `405`)
   */
  readonly cors?: boolean | CorsOptions | undefined
  /**
   * Answers every POST with one JSON body, never an SSE stream. Progress and log notifications of a request are then
   * dropped, and on a 2025-11-25 session a request whose handler asks (elicitation, sampling, roots) fails at once
   * with -32600 (`data.reason: "input_undeliverable"`). A session's GET stream is SSE regardless.
   *
   * @default false
   */
  readonly jsonResponse?: boolean | undefined
  /**
   * On an SSE answer (a request's stream, `subscriptions/listen`, a 2025-11-25 session's GET stream), the silence
   * after which a comment line `: keep-alive` is written, so a proxy or load balancer with an idle timeout does not
   * cut a stream that waits for a person or for notifications; `false` for none. A positive duration of at most
   * 2^31 - 1 ms. Written on `node:http` (HTTP/1.1) responses; `toWebHandler` and HTTP/2 get none, and so does a
   * response a compression middleware encodes (SSE answers carry `Cache-Control: no-cache, no-transform`).
   *
   * @default "15 seconds" (under the 60 s idle timeout of nginx's `proxy_read_timeout` and common load balancers)
   */
  readonly sseKeepAlive?: Duration.Input | false | undefined
  /**
   * The proxies in front of the server (IP addresses or CIDR networks, `["10.0.0.0/8"]`) whose `X-Forwarded-For`
   * gives the client's address, read from the right, skipping trusted proxies. The address is what unauthenticated
   * callers' shares are counted by (replay guard, interaction pages, tasks, 2025-11-25 sessions); behind a proxy not
   * listed here every client has the proxy's address and they share one share.
   *
   * @default [] (the client address is the socket's peer; `X-Forwarded-For` is never read)
   */
  readonly trustedProxies?: ReadonlyArray<string> | undefined
  /**
   * Derives the authenticated principal from the request (for example from a header your auth middleware set); it is
   * passed to the dispatcher as `Incoming.principal`. For OAuth bearer tokens provide `Authorization.layer` instead:
   * it authenticates, answers 401 / 403, and its principal wins over this hook.
   *
   * @default undefined (no principal unless `Authorization.layer` gives one)
   */
  readonly principal?:
    | ((request: HttpServerRequest.HttpServerRequest) => Effect.Effect<string | undefined>)
    | undefined
}

/**
 * CORS options of the endpoint (`EndpointOptions.cors`; `cors: true` is `cors: {}`); each field says what it does and
 * its default. A header name that is not an HTTP token throws an `Error` when the endpoint is made.
 *
 * Source: Fetch Standard, CORS protocol; MCP 2026-07-28, basic/transports.
 *
 * @category models
 * @since 0.1.0
 */
export type CorsOptions = Cors.CorsOptions
