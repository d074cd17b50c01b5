/**
 * The client's OAuth 2.1 authorization, for MCP servers that answer `401`
 * (or `403 insufficient_scope`) on Streamable HTTP.
 *
 * Provide `layer(options)` next to `HttpTransport.layer*` and the transport
 * sends `Authorization: Bearer <token>` on every request and, when the server
 * challenges, signs in and retries the same request:
 *
 * 1. discovery: the Protected Resource Metadata (RFC 9728) from the
 *    challenge's `resource_metadata`, else the well-known URIs; then the
 *    authorization server metadata (RFC 8414 / OIDC Discovery, the MCP
 *    fallback order), re-fetched on every `401` (authorization-server
 *    migration);
 * 2. registration, per authorization server (SEP-2352): pre-registered
 *    credentials, a Client ID Metadata Document, or Dynamic Client
 *    Registration (RFC 7591);
 * 3. the authorization code flow with PKCE S256, `state`, `resource`
 *    (RFC 8707) and the scopes of the challenge (else the PRM's), through the
 *    {@link UserAgent} (where the user consents); the redirect's `iss`
 *    (RFC 9207) and `state` are checked before the code is used;
 * 4. the token request with `client_secret_basic`, `client_secret_post` or
 *    `none`; refresh tokens are used (and rotated) before signing in again;
 *    (when the authorization server offers only the client credentials
 *    grant and a client secret is configured, that grant instead, with no
 *    user: the client-credentials extension);
 * 5. step-up: on `403 insufficient_scope` the client asks again for the
 *    union of the scopes it had and the challenged ones; at most
 *    `maxAuthorizations` (default 3) authorization requests in a row without
 *    a request that the server accepted, then `AuthorizationError`.
 *
 * Every OAuth step is `oauth4webapi`'s. Tokens live in the {@link TokenStore}
 * (in memory by default) as `Redacted` values, and are never logged nor sent
 * anywhere but the MCP server they were issued for.
 *
 * Source: MCP 2026-07-28 basic/authorization (all of it).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option, Redacted, Schema, Semaphore } from "effect"
import type * as oauth from "oauth4webapi"
import { discoverIssuer, discoverResource, parseBearerChallenge } from "./internal/oauthDiscovery.ts"
import * as Flow from "./internal/oauthFlow.ts"
import { SignInTime } from "./internal/signInTime.ts"
import { layerMemory, type Tokens, TokenStore } from "./TokenStore.ts"

/**
 * The sign-in failed: `reason` says which step and why (never with a token
 * in it); `cause` the underlying failure. Raised for: no or invalid
 * metadata, a PRM for another resource, an issuer mismatch, no PKCE S256, no
 * way to register, the user's refusal, an `iss` / `state` mismatch, a token
 * endpoint error, and the step-up limit.
 *
 * Source: MCP 2026-07-28 basic/authorization.
 *
 * @category errors
 * @since 0.1.0
 */
export class AuthorizationError extends Schema.TaggedError<AuthorizationError>()("AuthorizationError", {
  reason: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {
  override get message(): string {
    return `Authorization failed: ${this.reason}`
  }
}

/**
 * Where the user consents: it receives the authorization URL and returns
 * the URL the authorization server redirected to (`redirectUri` with `code`,
 * `state`, `iss`, or `error`).
 *
 * - {@link layerHeadlessUserAgent}: no browser; GETs the URL and reads the
 *   redirect (the conformance suite's authorization server approves at once).
 * - the CLI's: asks, opens the browser and receives the redirect on a
 *   loopback listener.
 *
 * Source: MCP 2026-07-28 basic/authorization; RFC 8252 §7.3 (loopback redirect).
 *
 * @category services
 * @since 0.1.0
 */
export class UserAgent extends Context.Service<UserAgent, {
  readonly redirectUri: string
  readonly authorize: (authorizationUrl: URL) => Effect.Effect<URL, AuthorizationError>
}>()("@mrtr/client/Authorization/UserAgent") {}

/**
 * A {@link UserAgent} without a user: GETs the authorization URL without
 * following redirects and returns the `Location` it answers (one that is
 * relative is resolved against the URL). `redirectUri` defaults to
 * `http://localhost:3000/callback`; nothing listens there.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerHeadlessUserAgent = (redirectUri = "http://localhost:3000/callback"): Layer.Layer<UserAgent> =>
  Layer.succeed(
    UserAgent,
    UserAgent.of({
      redirectUri,
      authorize: (url) =>
        Effect.tryPromise({
          try: async (signal) => {
            const response = await fetch(url, { redirect: "manual", signal })
            await response.body?.cancel()
            const location = response.headers.get("location")
            if (location === null) {
              throw new Error(`the authorization endpoint answered ${response.status} without a redirect`)
            }
            return new URL(location, url)
          },
          catch: (cause) => new AuthorizationError({ reason: "the authorization request failed", cause })
        })
    })
  )

/**
 * Options of {@link layer}.
 *
 * Source: MCP 2026-07-28 basic/authorization/client-registration.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * The `client_name` sent at registration.
   *
   * @default "mrtr"
   */
  readonly clientName?: string | undefined
  /**
   * `"native"` (CLI, desktop, localhost) or `"web"` (SEP-837).
   *
   * @default "native"
   */
  readonly applicationType?: "native" | "web" | undefined
  /**
   * This client's Client ID Metadata Document URL (`https`, with a path), used as `client_id` where the authorization
   * server supports CIMD.
   *
   * @default undefined (registration instead)
   */
  readonly clientMetadataUrl?: string | undefined
  /**
   * A pre-registered client id, tried before CIMD and registration (for `clientIssuer` only, when given).
   *
   * @default undefined (none)
   */
  readonly clientId?: string | undefined
  /**
   * The secret of the pre-registered `clientId`.
   *
   * @default undefined (a public client)
   */
  readonly clientSecret?: string | undefined
  /**
   * The authorization server the pre-registered `clientId` belongs to.
   *
   * @default undefined (any)
   */
  readonly clientIssuer?: string | undefined
  /**
   * Authorization requests in a row without an accepted request before giving up.
   *
   * @default 3
   */
  readonly maxAuthorizations?: number | undefined
  /**
   * Bound of each OAuth HTTP exchange, in milliseconds.
   *
   * @default 30_000
   */
  readonly timeout?: number | undefined
  /**
   * `"auto"`: the authorization code flow, or the client credentials grant when the authorization server offers only
   * that one. `"client_credentials"`: always the client credentials grant with `clientId` / `clientSecret`, never a
   * user (a machine client such as a gateway; without a `clientSecret`, `AuthorizationError`).
   *
   * @default "auto"
   * @since 0.3.0
   */
  readonly grant?: "auto" | "client_credentials" | undefined
}

/**
 * The challenge the transport hands over: the HTTP `status` (401 or 403),
 * the `WWW-Authenticate` header, and the `Authorization` header the refused
 * request carried (when another request signed in meanwhile, the new token
 * is simply used: no second sign-in).
 *
 * @category models
 * @since 0.1.0
 */
export interface Challenge {
  readonly status: number
  readonly wwwAuthenticate: string | undefined
  readonly sent?: string | undefined
}

/**
 * The authorization as the HTTP transport uses it, per MCP endpoint URL:
 *
 * - `headers(url)`: `{ authorization: "Bearer …" }` when a token is held
 *   (refreshed first when it expired and a refresh token is held), else `{}`;
 * - `challenged(url, challenge)`: `true` when the request should be sent
 *   again (new token obtained), `false` when the challenge is not one to act
 *   on (a 403 other than `insufficient_scope`); fails with
 *   `AuthorizationError` when signing in fails or the limit is reached;
 * - `accepted(url)`: the server accepted a request (resets the limit);
 * - `logout(url?)`: forgets the tokens (of one server, or all and every registration);
 * - `signInMillis(now)` (optional): the milliseconds, in the `Clock`'s
 *   time, spent so far signing in (`challenged`: the user at the
 *   {@link UserAgent}, and the authorization server's exchanges, each
 *   bounded by `timeout`), an ongoing sign-in included up to `now`. The
 *   client's bounds on the MCP server's answers (`requestTimeout`,
 *   `probeTimeout`) do not count them, so a person who signs in slowly is
 *   never cut off by a bound meant for the server; the whole-call
 *   `callTimeout` counts them, as it counts the time spent answering a form.
 *
 * Source: MCP 2026-07-28 basic/authorization.
 *
 * @category services
 * @since 0.1.0
 */
export class Authorization extends Context.Service<Authorization, {
  readonly headers: (url: string) => Effect.Effect<Readonly<Record<string, string>>>
  readonly challenged: (url: string, challenge: Challenge) => Effect.Effect<boolean, AuthorizationError>
  readonly accepted: (url: string) => Effect.Effect<void>
  readonly logout: (url?: string) => Effect.Effect<void>
  readonly signInMillis?: ((now: number) => number) | undefined
}>()("@mrtr/client/Authorization") {}

interface ResourceState {
  requested: Set<string>
  attempts: number
  as: oauth.AuthorizationServer | undefined
}

const step = <A>(reason: string, timeout: number, run: (signal: AbortSignal) => Promise<A>) =>
  Effect.tryPromise({
    try: (signal) => run(AbortSignal.any([signal, AbortSignal.timeout(timeout)])),
    catch: (cause) =>
      new AuthorizationError({
        reason: `${reason}: ${cause instanceof Error ? cause.message : String(cause)}`,
        cause
      })
  })

/**
 * Builds the {@link Authorization} service; requires a {@link TokenStore}
 * and a {@link UserAgent}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const store = yield* TokenStore
  const agent = yield* UserAgent
  const timeout = options.timeout ?? 30_000
  const maxAuthorizations = options.maxAuthorizations ?? 3
  const config: Flow.ClientConfig = {
    clientName: options.clientName ?? "mrtr",
    redirectUri: agent.redirectUri,
    applicationType: options.applicationType ?? "native",
    clientMetadataUrl: options.clientMetadataUrl,
    preRegistered: options.clientId === undefined ? undefined : {
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      issuer: options.clientIssuer
    }
  }
  const states = new Map<string, ResourceState>()
  const stateOf = (url: string) => {
    let state = states.get(url)
    if (state === undefined) states.set(url, state = { requested: new Set(), attempts: 0, as: undefined })
    return state
  }
  const lock = yield* Semaphore.make(1)
  // The time signing in takes (the person at the user agent, above all), which the request bounds do not count.
  const signInTime = new SignInTime()

  const registrationFor = (as: oauth.AuthorizationServer) =>
    Effect.flatMap(store.getRegistration(as.issuer), (found) =>
      Option.isSome(found)
        ? Effect.succeed(found.value)
        : Effect.tap(
          step("client registration failed", timeout, (signal) => Flow.register(as, config, signal)),
          (registration) => store.setRegistration(as.issuer, registration)
        ))

  const tryRefresh = (url: string, tokens: Tokens) =>
    Effect.gen(function*() {
      const state = stateOf(url)
      if (tokens.refreshToken === undefined) return false
      if (state.as === undefined || state.as.issuer !== tokens.issuer) {
        // Tokens from an earlier process (a file store): learn their authorization server again.
        const discovered = yield* step("authorization server discovery failed", timeout, (signal) =>
          discoverIssuer(tokens.issuer, signal)).pipe(Effect.option)
        if (Option.isNone(discovered)) {
          return false
        }
        state.as = discovered.value
      }
      const as = state.as
      const registration = yield* store.getRegistration(as.issuer)
      if (Option.isNone(registration)) {
        return false
      }
      const resource = tokens.resource ?? url
      const refreshed = yield* step("refresh failed", timeout, (signal) =>
        Flow.refresh(as, registration.value, tokens, resource, signal)).pipe(
          Effect.option
        )
      if (Option.isNone(refreshed)) {
        return false
      }
      yield* store.setTokens(url, { ...refreshed.value, resource })
      return true
    })

  const signIn = (url: string, challenge: Record<string, string>) =>
    Effect.gen(function*() {
      const state = stateOf(url)
      if (state.attempts >= maxAuthorizations) {
        return yield* new AuthorizationError({
          reason: `gave up after ${state.attempts} authorization requests that the server did not accept`
        })
      }
      const prm = yield* step(
        "protected resource discovery failed",
        timeout,
        (signal) => discoverResource(new URL(url), challenge["resource_metadata"], signal)
      )
      const issuer = prm.authorization_servers[0]!
      const as = yield* step(
        "authorization server discovery failed",
        timeout,
        (signal) => discoverIssuer(issuer, signal)
      )
      if (state.as !== undefined && state.as.issuer !== as.issuer) state.requested.clear()
      state.as = as
      const registration = yield* registrationFor(as)
      const scopes = Flow.selectScopes(as, challenge["scope"], state.requested, prm.scopes_supported)
      const grants = as.grant_types_supported
      const machine = options.grant === "client_credentials"
      if (machine && registration.clientSecret === undefined) {
        return yield* new AuthorizationError({ reason: "the client credentials grant needs a client secret" })
      }
      if (
        registration.clientSecret !== undefined &&
        (machine || (grants?.includes("client_credentials") === true && !grants.includes("authorization_code")))
      ) {
        // A server for machine clients only: no user, no browser (the client-credentials extension).
        // No refresh token comes with this grant (RFC 6749 §4.4.3): `offline_access` is not asked for.
        state.attempts++
        const granted = scopes.filter((s) => s !== "offline_access")
        const scope = granted.length === 0 ? undefined : granted.join(" ")
        const tokens = yield* step(
          "the client credentials grant failed",
          timeout,
          (signal) => Flow.clientCredentials(as, registration, prm.resource, scope, signal)
        )
        return yield* store.setTokens(url, { ...tokens, resource: prm.resource })
      }
      const pending = yield* step(
        "cannot build the authorization request",
        timeout,
        () => Flow.authorizationRequest(as, registration, config, prm.resource, scopes)
      )
      state.attempts++
      for (const s of scopes) state.requested.add(s)
      const redirected = yield* agent.authorize(pending.url)
      const scope = scopes.length === 0 ? undefined : scopes.join(" ")
      const tokens = yield* step(
        "the authorization response was rejected",
        timeout,
        (signal) => Flow.exchangeCode(as, registration, config, pending, redirected, prm.resource, scope, signal)
      )
      yield* store.setTokens(url, { ...tokens, resource: prm.resource })
    })

  return Authorization.of({
    headers: (url) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const found = yield* store.getTokens(url)
        if (Option.isNone(found)) return {}
        const tokens = found.value
        if (tokens.expiresAt !== undefined && tokens.expiresAt < Date.now() + 10_000) {
          if (yield* tryRefresh(url, tokens)) {
            const refreshed = yield* store.getTokens(url)
            if (Option.isSome(refreshed)) {
              return { authorization: `Bearer ${Redacted.value(refreshed.value.accessToken)}` }
            }
          }
        }
        return { authorization: `Bearer ${Redacted.value(tokens.accessToken)}` }
      })),
    challenged: (url, { sent, status, wwwAuthenticate }) =>
      signInTime.during(
        lock.withPermits(1)(Effect.gen(function*() {
          const challenge = parseBearerChallenge(wwwAuthenticate) ?? {}
          if (status === 403 && challenge["error"] !== "insufficient_scope") return false
          const held = yield* store.getTokens(url)
          const current = Option.isSome(held) ? `Bearer ${Redacted.value(held.value.accessToken)}` : undefined
          // Another request obtained a new token while this one was refused: retry with it.
          if (current !== undefined && current !== sent) return true
          if (status === 401) {
            yield* store.deleteTokens(url)
            // An expired token of the same authorization server: a refresh is cheaper than a sign-in.
            if (Option.isSome(held) && challenge["error"] === "invalid_token" && (yield* tryRefresh(url, held.value))) {
              return true
            }
          }
          yield* signIn(url, challenge)
          return true
        }))
      ),
    accepted: (url) =>
      Effect.sync(() => {
        const state = states.get(url)
        if (state !== undefined) state.attempts = 0
      }),
    logout: (url) => store.clear(url),
    signInMillis: signInTime.signInMillis
  })
})

/**
 * The {@link Authorization} service with its {@link TokenStore} (in memory
 * unless one is provided) and the {@link UserAgent} from the context:
 *
 * ```ts
 * import { Authorization, HttpTransport, McpClient } from "@mrtr/client"
 * import { Layer } from "effect"
 *
 * const client = McpClient.layer({ clientInfo: { name: "my-app", version: "1.0.0" } }).pipe(
 *   Layer.provide(HttpTransport.layerNode({ url: "https://mcp.example.com/mcp" })),
 *   Layer.provide(Authorization.layer({ clientName: "my-app" })),
 *   Layer.provide(Authorization.layerHeadlessUserAgent())
 * )
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<Authorization, never, UserAgent> =>
  Layer.effect(Authorization, make(options)).pipe(Layer.provide(layerMemory))

/**
 * {@link layer} with the {@link TokenStore} taken from the context (say
 * `TokenStore.layerFile(path)`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerWithStore = (options: Options = {}): Layer.Layer<Authorization, never, UserAgent | TokenStore> =>
  Layer.effect(Authorization, make(options))
