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
 * `handleRequest`, `httpApp` and `toWebHandler`.
 *
 * - `path`: the endpoint path. Default `"/mcp"`.
 * - `maxBodyBytes`: largest accepted request body, in bytes (a non-negative
 *   integer; anything else throws when `layer`, `routes`, `handleRequest`,
 *   `httpApp` or `toWebHandler` is called). Default
 *   4 MiB (4_194_304). Larger bodies get `413` with a JSON-RPC -32600 error
 *   body; the limit is checked against `Content-Length` before reading and
 *   against the bytes actually received while reading (chunked bodies).
 * - `maxJsonValues`: most JSON values (objects, arrays, strings, numbers,
 *   literals; an object member's key counts with its value) a body may hold,
 *   a positive integer. Default `DEFAULT_MAX_JSON_VALUES` (20,000). Counted
 *   on the raw bytes before parsing (about 1 ms per MB), so that the work one
 *   request costs (parsing, digests, decoding; all on the event loop, where
 *   every other request waits) stays in proportion to its size: a legal
 *   4 MB body of 250,000 keys used to stall the server for half a second.
 *   More values get `413` with a JSON-RPC -32600 error body. Measured by
 *   `bench/requestWork.ts`.
 * - `allowedHosts`: DNS-rebinding protection on the `Host` header. Entries
 *   are host names or IP literals (`"localhost"`, `"127.0.0.1"`, `"[::1]"`),
 *   optionally with a port (`"example.com:8443"`); an entry without a port
 *   matches any port. Matching is case-insensitive. Default: `localhost`,
 *   `127.0.0.1` and `[::1]` on any port. `"*"` disables the check. A request
 *   whose `Host` is missing or not allowed gets `403`.
 * - `allowedOrigins`: checked only when the request has an `Origin` header.
 *   Entries are origins (`"https://app.example.com"`); an entry without a port
 *   matches the same scheme and host on any port. Default: `http` and `https`
 *   on `localhost`, `127.0.0.1` and `[::1]`, any port. `"*"` disables the
 *   check. An `Origin` that is present and not allowed (including `null`) gets
 *   `403`.
 * - `cors`: CORS for web apps in a browser that call the endpoint from their
 *   own origin. Default off (no CORS headers; `OPTIONS` gets `405`). `true`
 *   or a `CorsOptions` turns it on: preflights (`OPTIONS`) from an allowed
 *   origin for `POST`, `GET`, `DELETE` get `204`; responses carry
 *   `Access-Control-Allow-Origin: <the request's Origin>` (never `*`), the
 *   protocol's request headers are allowed (`Content-Type`, `Accept`,
 *   `Authorization`, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
 *   `Mcp-Session-Id`, `Last-Event-ID`, and every requested `Mcp-Param-*`),
 *   `Mcp-Session-Id` and `WWW-Authenticate` are exposed, and no credentials
 *   unless `credentials: true`. The allowed origins are `allowedOrigins`: a
 *   preflight or request from any other origin still gets `403`. Invalid
 *   options throw an `Error` when the options are resolved.
 * - `jsonResponse`: answer every POST with one JSON body, never an SSE
 *   stream (default `false`). Progress and log notifications of a request
 *   are then dropped, and on a 2025-11-25 session a request whose handler
 *   asks (elicitation, sampling, roots) fails at once with -32600
 *   (`data.reason: "input_undeliverable"`): no server-to-client request can
 *   travel in a JSON body. A session's GET stream is SSE regardless.
 * - `sseKeepAlive`: on an SSE answer (a request's stream, `subscriptions/listen`,
 *   a 2025-11-25 session's GET stream), the silence after which a comment
 *   line `: keep-alive` is written (SSE parsers ignore it), so a proxy or
 *   load balancer with an idle timeout does not cut a stream that waits for
 *   a person or for notifications. A `Duration.Input` (default 15 seconds:
 *   no stream stays silent for 30 s, under the 60 s of nginx's
 *   `proxy_read_timeout` and of common load balancers) or `false` for none.
 *   Written on `node:http` (HTTP/1.1) responses; `toWebHandler` and HTTP/2
 *   get none. Invalid values (not a positive duration of at most 2^31 - 1
 *   ms, about 24 days) throw an `Error` when the options are resolved. SSE
 *   answers carry `Cache-Control: no-cache, no-transform`, so compression
 *   middleware (effect's `HttpMiddleware.compression`) leaves them alone; a
 *   response encoded all the same gets no comments.
 * - `trustedProxies`: the proxies in front of the server (IP addresses or
 *   CIDR networks, e.g. `["10.0.0.0/8"]`) whose `X-Forwarded-For` gives the
 *   client's address. Default none: the client address is the socket's peer
 *   and `X-Forwarded-For` is never read (any client can send one). The
 *   address is what unauthenticated callers' shares are counted by (replay
 *   guard, interaction pages, tasks, 2025-11-25 sessions: one address cannot
 *   take every other's room); behind a proxy not listed here, every client
 *   has the proxy's address and shares one share. Effect's
 *   `HttpMiddleware.xForwardedHeaders` reads the header: from the right,
 *   skipping trusted proxies. An invalid entry throws an `Error` when the
 *   options are resolved.
 * - `principal`: optional hook that derives the authenticated principal from
 *   the request (for example from a header your auth middleware set); it is
 *   passed to the dispatcher as `Incoming.principal`. For OAuth bearer
 *   tokens provide `Authorization.layer` instead (it authenticates, answers
 *   401 / 403, and its principal wins over this hook).
 *
 * Invalid `allowedHosts` / `allowedOrigins` entries throw an `Error` when the
 * options are resolved (when `layer`, `routes`, `handleRequest`, ... is called).
 *
 * Source: MCP 2026-07-28, basic/transports (Streamable HTTP, security warning).
 *
 * @category models
 * @since 0.1.0
 */
export interface EndpointOptions {
  readonly path?: HttpRouter.PathInput | undefined
  readonly maxBodyBytes?: number | undefined
  readonly maxJsonValues?: number | undefined
  readonly allowedHosts?: ReadonlyArray<string> | "*" | undefined
  readonly allowedOrigins?: ReadonlyArray<string> | "*" | undefined
  readonly cors?: boolean | CorsOptions | undefined
  readonly jsonResponse?: boolean | undefined
  readonly sseKeepAlive?: Duration.Input | false | undefined
  readonly trustedProxies?: ReadonlyArray<string> | undefined
  readonly principal?:
    | ((request: HttpServerRequest.HttpServerRequest) => Effect.Effect<string | undefined>)
    | undefined
}

/**
 * CORS options of the endpoint (`EndpointOptions.cors`; `cors: true` is
 * `cors: {}`). Every field is optional:
 *
 * - `credentials`: send `Access-Control-Allow-Credentials: true`, so that the
 *   browser includes cookies / HTTP authentication and lets the page read the
 *   answer. Default `false`. Not allowed with `allowedOrigins: "*"` (throws an
 *   `Error` when the endpoint is made).
 * - `maxAge`: how long, in seconds, a browser may cache a preflight answer
 *   (`Access-Control-Max-Age`; a non-negative integer, `0` sends none).
 *   Default `600`. Browsers cap it (Chromium at 7200).
 * - `allowedHeaders`: request headers to allow besides the protocol's own
 *   (for example `"X-Api-Key"` read by your auth middleware).
 * - `exposedHeaders`: response headers the page may read besides
 *   `Mcp-Session-Id` and `WWW-Authenticate`.
 *
 * A header name that is not an HTTP token throws an `Error` when the
 * endpoint is made.
 *
 * Source: Fetch Standard, CORS protocol; MCP 2026-07-28, basic/transports.
 *
 * @category models
 * @since 0.1.0
 */
export type CorsOptions = Cors.CorsOptions
