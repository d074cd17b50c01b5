/**
 * DNS-rebinding protection of the MCP endpoint: the `allowedHosts` and
 * `allowedOrigins` rules, parsed once, and the checks of a request's `Host`
 * and `Origin` against them (403 in the request path when they fail). The
 * CORS middleware uses `originMatches` as its predicate, so a browser gets
 * CORS headers exactly where the request would be admitted.
 *
 * Gotchas: an entry without a port matches any port; a bare IPv6 literal
 * (`::1`) is bracketed; the opaque origin `null` never matches a rule; web
 * requests (`toWebHandler`) carry the authority in the URL, not in `Host`.
 *
 * Source: MCP 2026-07-28, basic/transports (security warning on DNS rebinding).
 *
 * @internal
 */
import type { Headers, HttpServerRequest } from "effect/http"

/** One `allowedHosts` entry: a lowercased host name or bracketed IPv6 literal, and a port or any (`undefined`). */
export interface HostRule {
  readonly hostname: string
  readonly port: string | undefined
}

/** One `allowedOrigins` entry: scheme and lowercased host, and the whole origin when the entry names a port. */
export interface OriginRule {
  readonly protocol: string
  readonly hostname: string
  /** `undefined`: any port. Otherwise the normalized `URL.origin`. */
  readonly origin: string | undefined
}

/** Parses an `allowedHosts` entry; throws an `Error` naming the entry when it is not `host[:port]`. */
export const parseHostRule = (entry: string): HostRule => {
  let value = entry.trim().toLowerCase()
  // A bare IPv6 literal ("::1") has several colons and no brackets.
  if (!value.startsWith("[") && value.indexOf(":") !== value.lastIndexOf(":")) {
    value = `[${value}]`
  }
  const parsed = splitAuthority(value)
  if (parsed === undefined || parsed.hostname === "") {
    throw new Error(`HttpTransport: invalid allowedHosts entry ${JSON.stringify(entry)}`)
  }
  return parsed
}

/** Splits `host[:port]` (host may be a bracketed IPv6 literal); lowercases. */
const splitAuthority = (authority: string): HostRule | undefined => {
  const value = authority.trim().toLowerCase()
  if (value.startsWith("[")) {
    const end = value.indexOf("]")
    if (end < 0) return undefined
    const rest = value.slice(end + 1)
    if (rest !== "" && !/^:\d+$/.test(rest)) return undefined
    return { hostname: value.slice(0, end + 1), port: rest === "" ? undefined : rest.slice(1) }
  }
  const colon = value.indexOf(":")
  if (colon < 0) return { hostname: value, port: undefined }
  const port = value.slice(colon + 1)
  if (!/^\d+$/.test(port)) return undefined
  return { hostname: value.slice(0, colon), port }
}

const hasExplicitPort = (origin: string): boolean =>
  /^[a-z][a-z0-9+.-]*:\/\/(\[[^\]]*\]|[^:/?#]*):\d+/i.test(origin.trim())

/** Parses an `allowedOrigins` entry; throws an `Error` naming the entry when it is not a URL. */
export const parseOriginRule = (entry: string): OriginRule => {
  let parsed: URL
  try {
    parsed = new URL(entry.trim())
  } catch {
    throw new Error(`HttpTransport: invalid allowedOrigins entry ${JSON.stringify(entry)}`)
  }
  return {
    protocol: parsed.protocol,
    hostname: parsed.hostname.toLowerCase(),
    origin: hasExplicitPort(entry) ? parsed.origin.toLowerCase() : undefined
  }
}

/** The parts of the endpoint's resolved configuration (`config.ts: Config`) the guards read. */
export interface GuardRules {
  readonly hosts: ReadonlyArray<HostRule> | "*"
  readonly origins: ReadonlyArray<OriginRule> | "*"
  /** Last verdicts of `hostAllowed` by `Host` value (at most 64). */
  readonly hostVerdicts: Map<string, boolean>
}

/** True when the request's `Host` (or, for web requests, its URL's authority) matches a rule; verdicts are cached per value. */
export const hostAllowed = (
  config: GuardRules,
  request: HttpServerRequest.HttpServerRequest,
  headers: Headers.Headers
): boolean => {
  if (config.hosts === "*") return true
  const host = headers["host"] ?? hostFromUrl(request.originalUrl)
  if (host === undefined) return false
  // Every request of a client carries the same Host: remember the last verdicts.
  const known = config.hostVerdicts.get(host)
  if (known !== undefined) return known
  const parsed = splitAuthority(host)
  const allowed = parsed !== undefined &&
    config.hosts.some((rule) =>
      rule.hostname === parsed.hostname && (rule.port === undefined || rule.port === parsed.port)
    )
  if (config.hostVerdicts.size >= 64) config.hostVerdicts.clear()
  config.hostVerdicts.set(host, allowed)
  return allowed
}

/** Web requests carry the authority in the URL rather than in a `Host` header. */
const hostFromUrl = (url: string): string | undefined => {
  if (!/^https?:\/\//i.test(url)) return undefined
  try {
    return new URL(url).host
  } catch {
    return undefined
  }
}

/** True when the request has no `Origin`, or its `Origin` matches a rule. */
export const originAllowed = (config: GuardRules, headers: Headers.Headers): boolean => {
  const origin = headers["origin"]
  return origin === undefined || originMatches(config.origins, origin)
}

/** True when the `Origin` value `origin` matches the rules (the CORS middleware's predicate too). */
export const originMatches = (origins: GuardRules["origins"], origin: string): boolean => {
  if (origins === "*") return true
  let parsed: URL
  try {
    parsed = new URL(origin.trim())
  } catch {
    return false // includes the opaque origin "null"
  }
  const hostname = parsed.hostname.toLowerCase()
  const normalized = parsed.origin.toLowerCase()
  return origins.some((rule) =>
    rule.origin === undefined
      ? rule.protocol === parsed.protocol && rule.hostname === hostname
      : rule.origin === normalized
  )
}
