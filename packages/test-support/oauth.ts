/**
 * Test helper: a real OAuth 2.1 authorization server (`oidc-provider`) on a free loopback port, for the tests of the
 * MCP server's `Authorization` layer and of the client's sign-in flow.
 *
 * - issuer `http://127.0.0.1:<port>` (pathless: oidc-provider serves `/.well-known/openid-configuration`), PKCE S256
 *   required, RFC 9207 `iss` in authorization responses, Dynamic Client Registration and introspection on;
 * - resource indicators (RFC 8707): a token requested with `resource=<uri>` is a JWT access token (RFC 9068, `ES256`)
 *   whose `aud` is that URI and whose `scope` is what was granted among `scopes`;
 * - the user's consent is automatic: the login page of the interaction is skipped and the account is the one named by
 *   the `x-test-user` header of the browser's request (default `alice`), so a headless "browser" (see
 *   `headlessBrowser`) plays any user.
 *
 * @since 0.1.0
 */
import * as Jose from "jose"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as oauth from "oauth4webapi"
import Provider from "oidc-provider"

/** A running authorization server. */
export interface AuthorizationServer {
  readonly issuer: string
  readonly jwksUri: string
  readonly introspectionEndpoint: string
  /** Mints an access token directly (client credentials are not needed): for tests of the resource server only. */
  readonly privateJwk: Jose.JWK
  readonly close: () => Promise<void>
}

/** Options of `startAuthorizationServer`. */
export interface AuthorizationServerOptions {
  /** Scopes a resource may be granted. Default `["mcp:basic", "mcp:write"]`. */
  readonly scopes?: ReadonlyArray<string>
  /** Pre-registered clients (oidc-provider client metadata). */
  readonly clients?: ReadonlyArray<Record<string, unknown>>
  /** Issue opaque access tokens (checked by introspection) instead of JWTs. */
  readonly opaque?: boolean
  /** Enable the client credentials grant (machine clients; pre-register them in `clients`). */
  readonly clientCredentials?: boolean
}

/** A confidential client the MCP server introspects tokens with (`client_secret_basic`). */
export const INTROSPECTION_CLIENT = { clientId: "mcp-server", clientSecret: "mcp-server-secret" } as const

export const startAuthorizationServer = async (
  options: AuthorizationServerOptions = {}
): Promise<AuthorizationServer> => {
  const scopes = options.scopes ?? ["mcp:basic", "mcp:write"]
  const { privateKey } = await Jose.generateKeyPair("ES256", { extractable: true })
  const privateJwk = { ...(await Jose.exportJWK(privateKey)), kid: "test-key", alg: "ES256", use: "sig" }
  const server = Http.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: INTROSPECTION_CLIENT.clientId,
        client_secret: INTROSPECTION_CLIENT.clientSecret,
        redirect_uris: [],
        response_types: [],
        grant_types: [],
        token_endpoint_auth_method: "client_secret_basic"
      },
      ...(options.clients ?? [])
    ] as any,
    jwks: { keys: [privateJwk as any] },
    pkce: { required: () => true },
    clientDefaults: { id_token_signed_response_alg: "ES256", grant_types: ["authorization_code", "refresh_token"] },
    scopes: ["openid", "offline_access", ...scopes],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      introspection: { enabled: true },
      clientCredentials: { enabled: options.clientCredentials === true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => ({
          scope: scopes.join(" "),
          audience: resourceIndicator,
          accessTokenFormat: options.opaque === true ? "opaque" : "jwt",
          accessTokenTTL: 3600,
          jwt: { sign: { alg: "ES256" } }
        })
      }
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    issueRefreshToken: () => true,
    ttl: { AccessToken: 3600, IdToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 }
  } as any)
  const callback = provider.callback()
  server.on("request", (req: Http.IncomingMessage, res: Http.ServerResponse) => {
    if (req.url?.startsWith("/interaction/")) {
      interact(provider, req, res).catch((error) => {
        res.writeHead(500, { "content-type": "text/plain" })
        res.end(String(error))
      })
      return
    }
    callback(req, res)
  })
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    introspectionEndpoint: `${issuer}/token/introspection`,
    privateJwk,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** Logs in the `x-test-user` account, then grants everything asked for. */
const interact = async (provider: Provider, req: Http.IncomingMessage, res: Http.ServerResponse) => {
  const details = await provider.interactionDetails(req, res)
  const user = typeof req.headers["x-test-user"] === "string" ? req.headers["x-test-user"] : "alice"
  if (details.prompt.name === "login") {
    await provider.interactionFinished(req, res, { login: { accountId: user } }, { mergeWithLastSubmission: false })
    return
  }
  const accountId = details.session!.accountId
  const clientId = details.params["client_id"] as string
  const grant = details.grantId === undefined
    ? new provider.Grant({ accountId, clientId })
    : (await provider.Grant.find(details.grantId))!
  const missing = details.prompt.details as {
    missingOIDCScope?: ReadonlyArray<string>
    missingResourceScopes?: Record<string, ReadonlyArray<string>>
  }
  if (missing.missingOIDCScope !== undefined) grant.addOIDCScope(missing.missingOIDCScope.join(" "))
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(" "))
  }
  const grantId = await grant.save()
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true })
}

/**
 * A headless browser for one user: follows the redirects of an authorization URL with its own cookie jar, sending
 * `x-test-user: <user>`, and stops at the first redirect outside `origin` (the client's `redirect_uri`), whose URL it
 * returns.
 */
export const headlessBrowser = (user: string) => {
  const jar = new Map<string, string>()
  return async (authorizationUrl: string): Promise<URL> => {
    let url = new URL(authorizationUrl)
    const origin = url.origin
    for (let hop = 0; hop < 20; hop++) {
      const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
      const response = await fetch(url, {
        redirect: "manual",
        headers: { "x-test-user": user, ...(cookie === "" ? {} : { cookie }) }
      })
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(";")
        const eq = pair!.indexOf("=")
        const name = pair!.slice(0, eq).trim()
        const value = pair!.slice(eq + 1).trim()
        if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name)
        else jar.set(name, value)
      }
      const location = response.headers.get("location")
      if (response.status < 300 || response.status >= 400 || location === null) {
        throw new Error(`authorization stopped at ${url.pathname} with ${response.status}: ${await response.text()}`)
      }
      await response.body?.cancel()
      url = new URL(location, url)
      if (url.origin !== origin) return url
    }
    throw new Error("too many redirects")
  }
}

/**
 * A browser of `user`'s with cookies (one jar per origin), for web sign-ins: `visit(url)` follows every redirect
 * (across origins, `x-test-user: <user>` sent, so the authorization server logs the user in) and returns the last
 * answer; `fetch` sends the jar's cookies for its URL's origin and keeps the ones set (for a page visited after a
 * sign-in).
 */
export const browserSession = (user: string) => {
  const jars = new Map<string, Map<string, string>>()
  const jarOf = (url: URL) => {
    let jar = jars.get(url.origin)
    if (jar === undefined) jars.set(url.origin, jar = new Map())
    return jar
  }
  const send = async (url: URL, init: RequestInit = {}): Promise<Response> => {
    const jar = jarOf(url)
    const headers = new Headers(init.headers)
    headers.set("x-test-user", user)
    if (jar.size > 0) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "))
    const response = await fetch(url, { ...init, headers })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const eq = pair!.indexOf("=")
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0/i.test(line)) jar.delete(name)
      else jar.set(name, value)
    }
    return response
  }
  const browserFetch =
    ((input: string | URL | Request, init?: RequestInit) =>
      send(new URL(input instanceof Request ? input.url : String(input)), init)) as typeof fetch
  const visit = async (start: string): Promise<Response> => {
    let url = new URL(start)
    for (let hop = 0; hop < 20; hop++) {
      const response = await send(url, { redirect: "manual" })
      const location = response.headers.get("location")
      if (response.status < 300 || response.status >= 400 || location === null) return response
      await response.body?.cancel()
      url = new URL(location, url)
    }
    throw new Error("too many redirects")
  }
  return { fetch: browserFetch, visit }
}

/**
 * Signs `user` in at `server` through the whole authorization code flow (DCR of a public native client, PKCE S256,
 * `resource`, the headless browser) with `oauth4webapi`, and returns the access token: how a resource-server test gets
 * real tokens without the MCP client.
 */
export const issueToken = async (
  server: AuthorizationServer,
  options: { readonly user: string; readonly resource: string; readonly scope: string }
): Promise<string> => {
  const insecure = { [oauth.allowInsecureRequests]: true }
  const issuer = new URL(server.issuer)
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oidc", ...insecure })
  )
  const redirectUri = "http://127.0.0.1:1/callback"
  const client = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(as, {
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      application_type: "native"
    }, insecure)
  )
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const url = new URL(as.authorization_endpoint!)
  url.searchParams.set("response_type", "code")
  url.searchParams.set("client_id", client.client_id)
  url.searchParams.set("redirect_uri", redirectUri)
  url.searchParams.set("state", state)
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier))
  url.searchParams.set("code_challenge_method", "S256")
  url.searchParams.set("scope", options.scope)
  url.searchParams.set("resource", options.resource)
  const redirected = await headlessBrowser(options.user)(url.href)
  const params = oauth.validateAuthResponse(as, client, redirected, state)
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, {
      additionalParameters: { resource: options.resource },
      ...insecure
    })
  )
  return tokens.access_token
}

/** Signs a JWT with the server's own key (or `key`), for tokens a real server would never issue (expired, other audience...). */
export const mintToken = async (
  server: AuthorizationServer,
  claims: Jose.JWTPayload,
  header: Partial<Jose.JWTHeaderParameters> = {},
  key?: Jose.CryptoKey | Uint8Array
): Promise<string> => {
  const signingKey = key ?? await Jose.importJWK(server.privateJwk, "ES256")
  return new Jose.SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: "test-key", ...header })
    .sign(signingKey)
}
