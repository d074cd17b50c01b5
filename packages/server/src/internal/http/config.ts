/**
 * The resolved options of an MCP HTTP endpoint (`HttpTransport`'s
 * `EndpointOptions` checked and parsed once by `resolve`, when `layer`,
 * `routes`, `handleRequest`, ... is called), read by every step of the
 * request path.
 *
 * Gotcha: `hostVerdicts` is mutable (a small cache of `Host` verdicts shared by
 * every request of the endpoint).
 *
 * @internal
 */
import { Duration, Option, Result } from "effect"
import { HttpMiddleware, type HttpRouter } from "effect/http"
import { IpNetwork } from "effect/net"
import * as Cors from "../cors.ts"
import { type HostRule, originMatches, type OriginRule, parseHostRule, parseOriginRule } from "./hostGuard.ts"
import type { EndpointOptions } from "./options.ts"

export interface Config {
  /** The endpoint's path (`EndpointOptions.path`). */
  readonly path: HttpRouter.PathInput
  /** The largest body accepted, in bytes. */
  readonly maxBodyBytes: number
  /** The most JSON values a body may hold. */
  readonly maxJsonValues: number
  /** The parsed `allowedHosts`, or `"*"`: no check. */
  readonly hosts: ReadonlyArray<HostRule> | "*"
  /** The parsed `allowedOrigins`, or `"*"`: no check. */
  readonly origins: ReadonlyArray<OriginRule> | "*"
  /** The hook that derives a request's principal, if any. */
  readonly principal: EndpointOptions["principal"]

  /** `X-Forwarded-For` from the proxies of `trustedProxies` (Effect's middleware); none: the socket's peer. */
  readonly forwarded: ReturnType<typeof HttpMiddleware.xForwardedHeaders> | undefined
  /** The CORS wrapper, when `cors` is on. */
  readonly cors: Cors.Cors | undefined
  /** Never answer a POST with SSE. */
  readonly jsonResponse: boolean
  /** Last verdicts of `hostAllowed` by `Host` value (at most 64). */
  readonly hostVerdicts: Map<string, boolean>
  /**
   * The endpoint is the whole server (`layer`): no middleware of the user's
   * reads the body before or after it, so it may read a Node body directly.
   */
  readonly ownsServer: boolean
  /** How long the body of an `Upgrade` offer may take to arrive (Node's own timeouts no longer cover it). */
  readonly upgradeBodyTimeoutMillis: number
  /** The silence after which an SSE answer gets a `: keep-alive` comment (`undefined`: never). */
  readonly sseKeepAliveMillis: number | undefined
}

/**
 * How one request's SSE answer is written: the keep-alive interval and the
 * Node response to write the comments to (absent off Node: no keep-alive).
 */
export interface Sse {
  readonly keepAliveMillis: number | undefined
  readonly response?: SseResponse | undefined
}

/** The part of a Node `ServerResponse` the keep-alive reads and writes (`sseKeepAlive.ts`). */
export interface SseResponse {
  readonly headersSent: boolean
  readonly writableEnded: boolean
  readonly destroyed: boolean
  readonly writableNeedDrain: boolean
  write(chunk: string): boolean
  getHeader(name: string): unknown
}

/** The default silence before an SSE keep-alive comment (`EndpointOptions.sseKeepAlive`). */
const DEFAULT_SSE_KEEP_ALIVE_MILLIS = 15_000
/** The longest delay of a Node timer. */
const MAX_TIMER_MILLIS = 2 ** 31 - 1

const keepAliveMillis = (option: EndpointOptions["sseKeepAlive"]): number | undefined => {
  if (option === false) return undefined
  if (option === undefined) return DEFAULT_SSE_KEEP_ALIVE_MILLIS
  const duration = Duration.fromInput(option)
  const millis = Option.isSome(duration) ? Duration.toMillis(duration.value) : Number.NaN
  // The sweeper's timer runs every half interval; Node's timers hold at most 2^31 - 1 ms.
  if (!(millis >= 1) || !(millis <= MAX_TIMER_MILLIS)) {
    throw new Error(
      `HttpTransport: sseKeepAlive must be a positive, finite duration of at most ${MAX_TIMER_MILLIS} ms (about 24 days) or false, got ${
        String(option)
      }`
    )
  }
  return Math.round(millis)
}

const trustedProxies = (option: EndpointOptions["trustedProxies"]) => {
  if (option === undefined || option.length === 0) return undefined
  const networks = option.map((entry) => {
    const network = IpNetwork.fromString(
      entry.includes("/") ? entry : entry.includes(":") ? `${entry}/128` : `${entry}/32`
    )
    if (Result.isFailure(network)) {
      throw new Error(
        `HttpTransport: trustedProxies entries must be IP addresses or CIDR networks, got ${JSON.stringify(entry)}`
      )
    }
    return network.success
  })
  return HttpMiddleware.xForwardedHeaders({ trustedProxies: networks })
}

/** The defaults of the options (`HttpTransport`'s `DEFAULT_*`). */
export interface Defaults {
  readonly path: HttpRouter.PathInput
  readonly maxBodyBytes: number
  readonly maxJsonValues: number
  readonly allowedHosts: ReadonlyArray<string>
  readonly allowedOrigins: ReadonlyArray<string>
}

/**
 * `options` checked and parsed, with `defaults` for what they leave out;
 * `server` is what the server the endpoint runs on says (whether the endpoint
 * is all of it, its request timeout). A bad value throws an `Error`.
 */
export const resolve = (
  options: EndpointOptions,
  defaults: Defaults,
  server: { readonly owned: boolean; readonly requestTimeoutMillis: number } = {
    owned: false,
    requestTimeoutMillis: 30_000
  }
): Config => {
  const maxBodyBytes = options.maxBodyBytes ?? defaults.maxBodyBytes
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) {
    throw new Error(`HttpTransport: maxBodyBytes must be a non-negative integer, got ${maxBodyBytes}`)
  }
  const maxJsonValues = options.maxJsonValues ?? defaults.maxJsonValues
  if (!Number.isSafeInteger(maxJsonValues) || maxJsonValues < 1) {
    throw new Error(`HttpTransport: maxJsonValues must be a positive integer, got ${maxJsonValues}`)
  }
  const hosts = options.allowedHosts ?? defaults.allowedHosts
  const origins = options.allowedOrigins ?? defaults.allowedOrigins
  const originRules = origins === "*" ? "*" : origins.map(parseOriginRule)
  const cors = options.cors === undefined || options.cors === false
    ? undefined
    : Cors.make(
      options.cors === true ? {} : options.cors,
      (origin) => originMatches(originRules, origin),
      origins === "*"
    )
  return {
    path: options.path ?? defaults.path,
    maxBodyBytes,
    maxJsonValues,
    hosts: hosts === "*" ? "*" : hosts.map(parseHostRule),
    origins: originRules,
    principal: options.principal,
    forwarded: trustedProxies(options.trustedProxies),
    cors,
    jsonResponse: options.jsonResponse === true,
    hostVerdicts: new Map(),
    ownsServer: server.owned,
    upgradeBodyTimeoutMillis: server.requestTimeoutMillis,
    sseKeepAliveMillis: keepAliveMillis(options.sseKeepAlive)
  }
}
