/**
 * CORS for the Streamable HTTP endpoint, so that a web app in a browser can
 * call the server from its own origin. Built on effect/http's
 * `HttpMiddleware.cors`; this module only decides its options per request.
 *
 * - Allowed origins are the endpoint's `allowedOrigins` (the predicate of the
 *   DNS-rebinding check): the transport runs its `Host`/`Origin` checks first,
 *   so a disallowed origin gets `403` on the preflight and on the request
 *   alike, and an allowed one is reflected in `Access-Control-Allow-Origin`
 *   (with `Vary: Origin`), never `*`.
 * - Preflight (`OPTIONS`) is answered `204` for `POST`, `GET` and `DELETE`
 *   (the last two are what 2025-11-25 session clients send; this server
 *   answers them `405`, which the browser then lets the page see).
 * - Allowed request headers: the fixed names the protocol uses
 *   (`REQUEST_HEADERS`) plus, reflected from `Access-Control-Request-Headers`,
 *   the requested names of the protocol's header families (`Mcp-Param-*`,
 *   see `HEADER_FAMILIES`): a family cannot be listed, and reflecting every
 *   requested header would allow headers the protocol never sends. Because the
 *   answer then depends on the request, the preflight carries
 *   `Vary: Access-Control-Request-Headers`.
 * - Exposed response headers: `Mcp-Session-Id`, `WWW-Authenticate`.
 * - Credentials (`Access-Control-Allow-Credentials`) only when configured,
 *   and never together with `allowedOrigins: "*"` (that combination throws
 *   when the options are resolved: any site could then act with the user's
 *   cookies or HTTP authentication).
 *
 * Gotcha: effect/http's middleware adds the headers of an actual (non-OPTIONS)
 * response through the request's pre-response handler, which only exists when
 * the endpoint runs under an effect/http server root (`layer`, `routes`,
 * `toWebHandler`, `httpApp` in a router). `handleRequest` run by hand outside
 * such a root answers preflights but adds no headers to other responses.
 *
 * Source: Fetch Standard, CORS protocol (https://fetch.spec.whatwg.org/#http-cors-protocol);
 * MCP 2026-07-28, basic/transports (Streamable HTTP, headers `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`); MCP 2025-11-25 basic/transports
 * (`Mcp-Session-Id`, `Last-Event-ID`); basic/authorization (`Authorization`,
 * `WWW-Authenticate`).
 */
import { Effect } from "effect"
import { HttpMiddleware, HttpServerRequest, HttpServerResponse } from "effect/http"

/**
 * CORS options of the HTTP endpoint (`EndpointOptions.cors`; `cors: true` is `cors: {}`). A header name that is not
 * an HTTP token throws an `Error` when the endpoint is made.
 *
 * Source: Fetch Standard, CORS protocol.
 *
 * @since 0.1.0
 */
export interface CorsOptions {
  /**
   * Sends `Access-Control-Allow-Credentials: true`, so that the browser includes cookies / HTTP authentication and
   * lets the page read the answer. Not allowed with `allowedOrigins: "*"` (throws an `Error` when the endpoint is
   * made).
   *
   * @default false
   */
  readonly credentials?: boolean | undefined
  /**
   * How long, in seconds, a browser may cache a preflight answer (`Access-Control-Max-Age`; a non-negative integer,
   * `0` sends no header). Browsers cap it (Chromium at 7200).
   *
   * @default 600
   */
  readonly maxAge?: number | undefined
  /**
   * Request headers to allow besides the protocol's own (for example `"X-Api-Key"` read by your auth middleware).
   * Names, case-insensitive.
   *
   * @default []
   */
  readonly allowedHeaders?: ReadonlyArray<string> | undefined
  /**
   * Response headers the page may read besides `Mcp-Session-Id` and `WWW-Authenticate`.
   *
   * @default []
   */
  readonly exposedHeaders?: ReadonlyArray<string> | undefined
}

/**
 * Request headers a browser client of the protocol sends that are not
 * CORS-safelisted (`Content-Type: application/json` is not), allowed on every
 * preflight.
 *
 * Source: MCP 2026-07-28 and 2025-11-25, basic/transports; basic/authorization.
 *
 * @since 0.1.0
 */
export const REQUEST_HEADERS: ReadonlyArray<string> = [
  "Content-Type",
  "Accept",
  "Authorization",
  "MCP-Protocol-Version",
  "Mcp-Method",
  "Mcp-Name",
  "Mcp-Session-Id",
  "Last-Event-ID"
]

/**
 * Families of request header names (a prefix, lowercase): a requested name
 * that starts with one of these is reflected in the preflight's
 * `Access-Control-Allow-Headers`. `mcp-param-` carries tool parameters marked
 * `x-mcp-header` (`Mcp-Param-<Name>`).
 *
 * Source: MCP 2026-07-28, basic/transports (Streamable HTTP headers).
 *
 * @since 0.1.0
 */
export const HEADER_FAMILIES: ReadonlyArray<string> = ["mcp-param-"]

/**
 * Response headers a page may read: `Mcp-Session-Id` (2025-11-25 sessions),
 * `WWW-Authenticate` (authorization challenges).
 *
 * Source: MCP 2025-11-25 basic/transports; basic/authorization.
 *
 * @since 0.1.0
 */
export const EXPOSED_HEADERS: ReadonlyArray<string> = ["Mcp-Session-Id", "WWW-Authenticate"]

/** Methods a preflight may ask for. */
const METHODS: ReadonlyArray<string> = ["POST", "GET", "DELETE"]

/** Default `maxAge`, in seconds. */
const DEFAULT_MAX_AGE = 600

/** An RFC 9110 token: what a header name may be. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/

/**
 * What the endpoint runs per request when CORS is on: `app` wrapped in
 * effect/http's CORS middleware (a preflight is answered without running
 * `app`). Call it only after the `Host` / `Origin` checks passed.
 */
export type Cors = (
  request: HttpServerRequest.HttpServerRequest,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse>
) => Effect.Effect<HttpServerResponse.HttpServerResponse>

/**
 * Resolves the options into the per-request wrapper. `originAllowed` is the
 * endpoint's `Origin` predicate; `anyOrigin` says it is `"*"`. Throws an
 * `Error` for invalid options (see `CorsOptions`).
 */
export const make = (
  options: CorsOptions,
  originAllowed: (origin: string) => boolean,
  anyOrigin: boolean
): Cors => {
  const credentials = options.credentials === true
  if (credentials && anyOrigin) {
    throw new Error(
      "HttpTransport: cors.credentials cannot be combined with allowedOrigins \"*\" (any site could act with the user's credentials); list the origins"
    )
  }
  const maxAge = options.maxAge ?? DEFAULT_MAX_AGE
  if (!Number.isSafeInteger(maxAge) || maxAge < 0) {
    throw new Error(`HttpTransport: cors.maxAge must be a non-negative integer (seconds), got ${maxAge}`)
  }
  const extra = (options.allowedHeaders ?? []).map((name) => checkedName(name, "allowedHeaders"))
  const exposed = [
    ...EXPOSED_HEADERS,
    ...(options.exposedHeaders ?? []).map((name) => checkedName(name, "exposedHeaders"))
  ]
  const fixed = [...REQUEST_HEADERS, ...extra]
  const fixedLower = new Set(fixed.map((name) => name.toLowerCase()))
  const base = {
    allowedOrigins: (origin: string | undefined) => origin !== undefined && originAllowed(origin),
    allowedMethods: METHODS,
    exposedHeaders: exposed,
    credentials,
    maxAge
  }
  // Actual requests: the allowed headers play no part, one middleware serves all.
  const actual = HttpMiddleware.cors({ ...base, allowedHeaders: fixed })
  const preflight = (requested: string | undefined) => {
    const family = familyMembers(requested, fixedLower)
    return family.length === 0
      ? actual
      : HttpMiddleware.cors({ ...base, allowedHeaders: [...fixed, ...family] })
  }
  return (request, app) => {
    if (request.method !== "OPTIONS") {
      return Effect.provideService(actual(app), HttpServerRequest.HttpServerRequest, request)
    }
    const middleware = preflight(request.headers["access-control-request-headers"])
    return Effect.provideService(middleware(app), HttpServerRequest.HttpServerRequest, request).pipe(
      Effect.map((response) =>
        HttpServerResponse.setHeader(
          response,
          "vary",
          appendVary(response.headers["vary"], "Access-Control-Request-Headers")
        )
      )
    )
  }
}

const checkedName = (name: string, option: string): string => {
  const trimmed = name.trim()
  if (!TOKEN.test(trimmed.toLowerCase())) {
    throw new Error(`HttpTransport: invalid cors.${option} entry ${JSON.stringify(name)}`)
  }
  return trimmed
}

/** The requested header names (lowercase) that belong to a family and are not already allowed. */
const familyMembers = (requested: string | undefined, allowed: ReadonlySet<string>): ReadonlyArray<string> => {
  if (requested === undefined) return []
  const members: Array<string> = []
  for (const item of requested.split(",")) {
    const name = item.trim().toLowerCase()
    if (
      !allowed.has(name) && TOKEN.test(name) &&
      HEADER_FAMILIES.some((prefix) => name.length > prefix.length && name.startsWith(prefix)) &&
      !members.includes(name)
    ) {
      members.push(name)
    }
  }
  return members
}

const appendVary = (current: string | undefined, name: string): string =>
  current === undefined || current.trim() === "" ? name : `${current}, ${name}`
