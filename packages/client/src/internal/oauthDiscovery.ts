/**
 * Discovery for the client's authorization flow: the `WWW-Authenticate`
 * challenge, the Protected Resource Metadata (RFC 9728) and the
 * authorization server metadata (RFC 8414 / OpenID Connect Discovery), in the
 * MCP order, with `oauth4webapi`.
 *
 * Gotchas (each one a conformance trap):
 * - PRM: the `resource_metadata` URL of the challenge first; otherwise the
 *   path-inserted well-known URI, then the root one. `resource` must be
 *   same-origin with the MCP URL and a path prefix of it, and is used
 *   verbatim (never `new URL(...).href`, which adds a trailing slash);
 * - AS metadata: for issuer `https://a/t1`, oauth-insert, OIDC-insert,
 *   OIDC-append; for a pathless issuer, oauth then OIDC. Non-200 answers are
 *   skipped; a document whose `issuer` is not byte-identical to the issuer is
 *   never used (oauth4webapi compares normalized URLs, so a raw `===` is
 *   added);
 * - PKCE S256 must be listed in `code_challenge_methods_supported`.
 *
 * Source: MCP 2026-07-28 basic/authorization/authorization-server-discovery;
 * RFC 9728 §3, RFC 8414 §3.
 */
import * as oauth from "oauth4webapi"

/** A `Bearer` challenge's parameters (lowercased names), or `undefined` when there is none. */
export const parseBearerChallenge = (header: string | null | undefined): Record<string, string> | undefined => {
  if (header === null || header === undefined) return undefined
  const match = /(?:^|,)\s*bearer(?:\s+|$)/i.exec(header)
  if (match === null) return undefined
  const params: Record<string, string> = {}
  const rest = header.slice(match.index + match[0].length)
  const pattern = /\s*([A-Za-z0-9_.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*(,|$)/y
  let found: RegExpExecArray | null
  while ((found = pattern.exec(rest)) !== null) {
    params[found[1]!.toLowerCase()] = found[2] !== undefined ? found[2].replace(/\\(.)/g, "$1") : found[3]!
    if (found[0] === "" || pattern.lastIndex >= rest.length) break
  }
  return params
}

/** Requests over plain HTTP are allowed only to loopback hosts (local development, the conformance suite). */
export const isLoopback = (url: URL) =>
  url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]"

export const requestOptions = (url: URL, signal?: AbortSignal) => ({
  ...(signal === undefined ? {} : { signal }),
  ...(url.protocol === "http:" && isLoopback(url) ? { [oauth.allowInsecureRequests]: true } : {})
})

/** Fails when an endpoint is neither HTTPS nor loopback HTTP. */
export const assertSecure = (what: string, value: string) => {
  const url = new URL(value)
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url))) return url
  throw new Error(`${what} must be https (or http on loopback): ${url.origin}`)
}

/** The Protected Resource Metadata the client works with. */
export interface ResourceMetadata {
  readonly resource: string
  readonly authorization_servers: ReadonlyArray<string>
  readonly scopes_supported?: ReadonlyArray<string> | undefined
}

const validResource = (resource: string, mcpUrl: URL): boolean => {
  let parsed: URL
  try {
    parsed = new URL(resource)
  } catch {
    return false
  }
  if (parsed.origin !== mcpUrl.origin || parsed.hash !== "") return false
  const prefix = parsed.pathname.endsWith("/") ? parsed.pathname : `${parsed.pathname}/`
  return parsed.pathname === "/" || mcpUrl.pathname === parsed.pathname || mcpUrl.pathname.startsWith(prefix)
}

const asResourceMetadata = (json: oauth.ResourceServer): ResourceMetadata => {
  const servers = json.authorization_servers
  if (!Array.isArray(servers) || servers.length === 0 || servers.some((s) => typeof s !== "string")) {
    throw new Error("the protected resource metadata names no authorization server")
  }
  return {
    resource: json.resource,
    authorization_servers: servers,
    scopes_supported: Array.isArray(json.scopes_supported) ? json.scopes_supported : undefined
  }
}

/** RFC 9728 discovery for `mcpUrl`, from the challenge's `resource_metadata` when there is one. */
export const discoverResource = async (
  mcpUrl: URL,
  resourceMetadataUrl: string | undefined,
  signal: AbortSignal
): Promise<ResourceMetadata> => {
  if (resourceMetadataUrl !== undefined) {
    const url = assertSecure("resource_metadata", new URL(resourceMetadataUrl, mcpUrl).href)
    const response = await fetch(url, { headers: { accept: "application/json" }, signal })
    // The expected resource is not known beforehand here: read it, check it, then let oauth4webapi validate the rest.
    const peek: unknown = response.status === 200 ? await response.clone().json().catch(() => undefined) : undefined
    const claimed = typeof peek === "object" && peek !== null ? (peek as { resource?: unknown }).resource : undefined
    if (typeof claimed !== "string" || !validResource(claimed, mcpUrl)) {
      await response.body?.cancel()
      throw new Error(`the protected resource metadata is for another resource (${String(claimed)})`)
    }
    const json = await oauth.processResourceDiscoveryResponse(new URL(claimed), response)
    if (json.resource !== claimed) {
      throw new Error(`the protected resource metadata is for another resource (${json.resource})`)
    }
    return asResourceMetadata(json)
  }
  const pathIdentifier = `${mcpUrl.origin}${mcpUrl.pathname === "/" ? "" : mcpUrl.pathname}`
  const candidates = pathIdentifier === mcpUrl.origin ? [mcpUrl.origin] : [pathIdentifier, mcpUrl.origin]
  for (const identifier of candidates) {
    const response = await oauth.resourceDiscoveryRequest(new URL(identifier), requestOptions(mcpUrl, signal))
    if (response.status !== 200) {
      await response.body?.cancel()
      continue
    }
    const json = await oauth.processResourceDiscoveryResponse(new URL(identifier), response)
    if (json.resource !== identifier) {
      throw new Error(`the protected resource metadata is for another resource (${json.resource})`)
    }
    return asResourceMetadata(json)
  }
  throw new Error("no protected resource metadata found for the MCP server")
}

/** The authorization server metadata URLs for `issuer`, in the MCP order. */
export const metadataUrls = (
  issuer: string
): ReadonlyArray<{ readonly url: URL; readonly algorithm: "oauth2" | "oidc" }> => {
  const parsed = new URL(issuer)
  const path = parsed.pathname === "/" ? "" : parsed.pathname.replace(/\/$/, "")
  if (path === "") {
    return [
      { url: new URL(`${parsed.origin}/.well-known/oauth-authorization-server`), algorithm: "oauth2" },
      { url: new URL(`${parsed.origin}/.well-known/openid-configuration`), algorithm: "oidc" }
    ]
  }
  return [
    { url: new URL(`${parsed.origin}/.well-known/oauth-authorization-server${path}`), algorithm: "oauth2" },
    { url: new URL(`${parsed.origin}/.well-known/openid-configuration${path}`), algorithm: "oidc" },
    { url: new URL(`${parsed.origin}${path}/.well-known/openid-configuration`), algorithm: "oidc" }
  ]
}

/** RFC 8414 / OIDC discovery of `issuer` (a string, compared byte for byte). */
export const discoverIssuer = async (issuer: string, signal: AbortSignal): Promise<oauth.AuthorizationServer> => {
  const issuerUrl = assertSecure("the authorization server", issuer)
  let mismatch: string | undefined
  for (const { url } of metadataUrls(issuer)) {
    const response = await fetch(url, {
      headers: { accept: "application/json" },
      signal,
      redirect: "manual"
    })
    if (response.status !== 200) {
      await response.body?.cancel()
      continue
    }
    let metadata: oauth.AuthorizationServer
    try {
      metadata = await oauth.processDiscoveryResponse(issuerUrl, response)
    } catch (error) {
      mismatch = error instanceof Error ? error.message : String(error)
      continue
    }
    if (metadata.issuer !== issuer) {
      mismatch = `the metadata's issuer ${JSON.stringify(metadata.issuer)} is not ${JSON.stringify(issuer)}`
      continue
    }
    if (!metadata.code_challenge_methods_supported?.includes("S256")) {
      throw new Error("the authorization server does not support PKCE with S256")
    }
    return metadata
  }
  throw new Error(
    mismatch === undefined
      ? `no authorization server metadata found for ${issuer}`
      : `no usable authorization server metadata for ${issuer}: ${mismatch}`
  )
}
