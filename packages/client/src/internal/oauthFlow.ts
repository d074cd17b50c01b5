/**
 * The OAuth steps of the client's sign-in, each with `oauth4webapi`:
 * registration (pre-registered, Client ID Metadata Document, Dynamic Client
 * Registration, in the spec's priority), the authorization request (PKCE
 * S256, `state`, `resource`, scope), the RFC 9207 `iss` and `state` checks of
 * the redirect, the code exchange and the refresh grant, with the token
 * endpoint authentication method the server supports.
 *
 * Gotchas: `resource` is the PRM `resource` verbatim; `offline_access` is
 * added only when the authorization server lists it; DCR always sends
 * `application_type` (SEP-837) and `refresh_token` in `grant_types`
 * (SEP-2207); the auth method is the DCR answer's, else `client_secret_basic`
 * / `client_secret_post` with a secret, else `none` (RFC 8414: a missing
 * `token_endpoint_auth_methods_supported` means `client_secret_basic`).
 *
 * Source: MCP 2026-07-28 basic/authorization (index, client-registration,
 * security-considerations); RFC 7591, RFC 7636, RFC 8707, RFC 9207; spec
 * digest A3-A6, B4.
 */
import { Redacted } from "effect"
import * as oauth from "oauth4webapi"
import type { Registration, Tokens } from "../TokenStore.ts"
import { requestOptions } from "./oauthDiscovery.ts"

/** How the client registers, in priority order (each used only when it fits the authorization server). */
export interface ClientConfig {
  /** The `client_name` sent at registration. */
  readonly clientName: string
  /** Where the authorization server sends the user back (the user agent's callback). */
  readonly redirectUri: string
  /** The `application_type` of the registration (SEP-837). */
  readonly applicationType: "native" | "web"
  /**
   * This client's Client ID Metadata Document URL, used as `client_id` where the authorization server supports CIMD.
   *
   * @default undefined (no CIMD)
   */
  readonly clientMetadataUrl?: string | undefined
  /**
   * Pre-registered credentials, tried first (for `issuer` only, when given).
   *
   * @default undefined (none)
   */
  readonly preRegistered?: {
    readonly clientId: string
    readonly clientSecret?: string | undefined
    readonly issuer?: string | undefined
  } | undefined
}

const supports = (as: oauth.AuthorizationServer, method: string) =>
  (as.token_endpoint_auth_methods_supported ?? ["client_secret_basic"]).includes(method)

const chooseMethod = (
  as: oauth.AuthorizationServer,
  secret: string | undefined,
  answered?: unknown
): Registration["authMethod"] => {
  if (
    (answered === "client_secret_basic" || answered === "client_secret_post" || answered === "none") &&
    (as.token_endpoint_auth_methods_supported === undefined || supports(as, answered))
  ) return answered
  if (secret !== undefined) {
    if (supports(as, "client_secret_basic")) return "client_secret_basic"
    if (supports(as, "client_secret_post")) return "client_secret_post"
  }
  return "none"
}

/** A registration for `as`: pre-registered, CIMD, or DCR (SEP-2352: never another server's). */
export const register = async (
  as: oauth.AuthorizationServer,
  config: ClientConfig,
  signal: AbortSignal
): Promise<Registration> => {
  const pre = config.preRegistered
  if (pre !== undefined && (pre.issuer === undefined || pre.issuer === as.issuer)) {
    return {
      clientId: pre.clientId,
      clientSecret: pre.clientSecret === undefined ? undefined : Redacted.make(pre.clientSecret),
      authMethod: chooseMethod(as, pre.clientSecret)
    }
  }
  if (config.clientMetadataUrl !== undefined && as.client_id_metadata_document_supported === true) {
    return { clientId: config.clientMetadataUrl, authMethod: "none" }
  }
  if (as.registration_endpoint !== undefined) {
    const endpoint = new URL(as.registration_endpoint)
    const response = await oauth.dynamicClientRegistrationRequest(as, {
      client_name: config.clientName,
      redirect_uris: [config.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      application_type: config.applicationType,
      token_endpoint_auth_method: "none"
    }, requestOptions(endpoint, signal))
    const client = await oauth.processDynamicClientRegistrationResponse(await withSecretExpiry(response))
    const secret = typeof client.client_secret === "string" ? client.client_secret : undefined
    return {
      clientId: client.client_id,
      clientSecret: secret === undefined ? undefined : Redacted.make(secret),
      authMethod: chooseMethod(as, secret, client.token_endpoint_auth_method)
    }
  }
  throw new Error(
    pre !== undefined
      ? `the pre-registered client is for ${pre.issuer}, not for ${as.issuer}, which offers no registration`
      : `cannot register at ${as.issuer}: it supports neither client ID metadata documents nor dynamic registration; pass a pre-registered client id`
  )
}

/**
 * RFC 7591 makes `client_secret_expires_at` REQUIRED with a secret, and
 * oauth4webapi enforces it; servers that leave it out (the conformance suite's
 * among them) mean "never expires", which is what `0` says.
 */
const withSecretExpiry = async (response: Response): Promise<Response> => {
  if (response.status !== 201 && response.status !== 200) return response
  const json: unknown = await response.clone().json().catch(() => undefined)
  if (
    typeof json !== "object" || json === null || !("client_secret" in json) || "client_secret_expires_at" in json
  ) return response
  return new Response(JSON.stringify({ ...json, client_secret_expires_at: 0 }), {
    status: response.status,
    headers: response.headers
  })
}

/**
 * `client_secret_basic` with the `application/x-www-form-urlencoded`
 * serializer (RFC 6749 §2.3.1 via URLSearchParams): oauth4webapi's own also
 * escapes `-`, `.`, `_` and `*`, which the serializer leaves as they are and
 * some servers (the conformance suite's) compare undecoded.
 */
const clientSecretBasic = (secret: string): oauth.ClientAuth => (_as, client, _body, headers) => {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2)
  headers.set("authorization", `Basic ${btoa(`${encode(client.client_id)}:${encode(secret)}`)}`)
}

export const clientAuth = (registration: Registration): oauth.ClientAuth => {
  const secret = registration.clientSecret === undefined ? undefined : Redacted.value(registration.clientSecret)
  switch (registration.authMethod) {
    case "client_secret_basic":
      return clientSecretBasic(secret ?? "")
    case "client_secret_post":
      return oauth.ClientSecretPost(secret ?? "")
    case "none":
      return oauth.None()
  }
}

/** The scopes to ask for (SEP-835 order; SEP-2207 `offline_access` when the authorization server lists it). */
export const selectScopes = (
  as: oauth.AuthorizationServer,
  challenged: string | undefined,
  previous: ReadonlySet<string>,
  scopesSupported: ReadonlyArray<string> | undefined
): ReadonlyArray<string> => {
  const scopes = new Set<string>()
  if (challenged !== undefined && challenged.trim() !== "") {
    for (const s of previous) scopes.add(s)
    for (const s of challenged.split(" ")) if (s !== "") scopes.add(s)
  } else if (scopesSupported !== undefined && scopesSupported.length > 0) {
    for (const s of scopesSupported) scopes.add(s)
  } else {
    for (const s of previous) scopes.add(s)
  }
  if (scopes.size > 0 && as.scopes_supported?.includes("offline_access")) scopes.add("offline_access")
  return [...scopes]
}

/** What must be kept between the authorization request and the redirect. */
export interface PendingAuthorization {
  readonly url: URL
  readonly state: string
  readonly verifier: string
}

export const authorizationRequest = async (
  as: oauth.AuthorizationServer,
  registration: Registration,
  config: ClientConfig,
  resource: string,
  scopes: ReadonlyArray<string>
): Promise<PendingAuthorization> => {
  if (as.authorization_endpoint === undefined) throw new Error("the authorization server has no authorization endpoint")
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const url = new URL(as.authorization_endpoint)
  url.searchParams.set("response_type", "code")
  url.searchParams.set("client_id", registration.clientId)
  url.searchParams.set("redirect_uri", config.redirectUri)
  url.searchParams.set("state", state)
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier))
  url.searchParams.set("code_challenge_method", "S256")
  if (scopes.length > 0) url.searchParams.set("scope", scopes.join(" "))
  url.searchParams.set("resource", resource)
  return { url, state, verifier }
}

const toTokens = (
  issuer: string,
  scope: string | undefined,
  response: oauth.TokenEndpointResponse,
  previous?: Tokens
): Tokens => ({
  issuer,
  accessToken: Redacted.make(response.access_token),
  refreshToken: typeof response.refresh_token === "string"
    ? Redacted.make(response.refresh_token)
    : previous?.refreshToken,
  expiresAt: typeof response.expires_in === "number" ? Date.now() + response.expires_in * 1000 : undefined,
  scope: typeof response.scope === "string" ? response.scope : scope
})

/** Checks the redirect (RFC 9207 `iss`, `state`) and exchanges the code (with `resource`). */
export const exchangeCode = async (
  as: oauth.AuthorizationServer,
  registration: Registration,
  config: ClientConfig,
  pending: PendingAuthorization,
  redirected: URL,
  resource: string,
  scope: string | undefined,
  signal: AbortSignal
): Promise<Tokens> => {
  const client: oauth.Client = { client_id: registration.clientId }
  // Throws on a missing / wrong `iss` and `state`, and on an `error` answer (only after `iss` passed).
  const params = oauth.validateAuthResponse(as, client, redirected, pending.state)
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth(registration),
    params,
    config.redirectUri,
    pending.verifier,
    { additionalParameters: { resource }, ...requestOptions(new URL(as.token_endpoint!), signal) }
  )
  return toTokens(as.issuer, scope, await oauth.processAuthorizationCodeResponse(as, client, response))
}

/** The refresh grant (with `resource`); rotated refresh tokens replace the old one. */
export const refresh = async (
  as: oauth.AuthorizationServer,
  registration: Registration,
  tokens: Tokens,
  resource: string,
  signal: AbortSignal
): Promise<Tokens> => {
  const client: oauth.Client = { client_id: registration.clientId }
  const response = await oauth.refreshTokenGrantRequest(
    as,
    client,
    clientAuth(registration),
    Redacted.value(tokens.refreshToken!),
    { additionalParameters: { resource }, ...requestOptions(new URL(as.token_endpoint!), signal) }
  )
  return toTokens(as.issuer, tokens.scope, await oauth.processRefreshTokenResponse(as, client, response), tokens)
}

/**
 * The client credentials grant (OAuth 2.1 §4.2; the MCP client-credentials
 * extension, SEP-1046) for a machine client with a secret, with `resource`.
 */
export const clientCredentials = async (
  as: oauth.AuthorizationServer,
  registration: Registration,
  resource: string,
  scope: string | undefined,
  signal: AbortSignal
): Promise<Tokens> => {
  const client: oauth.Client = { client_id: registration.clientId }
  const parameters: Record<string, string> = { resource }
  if (scope !== undefined) parameters["scope"] = scope
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    client,
    clientAuth(registration),
    parameters,
    requestOptions(new URL(as.token_endpoint!), signal)
  )
  return toTokens(as.issuer, scope, await oauth.processClientCredentialsResponse(as, client, response))
}
