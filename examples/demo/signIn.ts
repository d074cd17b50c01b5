/**
 * The demo's web sign-in (`--auth`): the trip planner is also a web app whose
 * users sign in at the demo's authorization server, and the interaction page
 * of secure elicitations knows its user from that session's cookie, as a real
 * application would: never from a header any client can set.
 *
 * - `GET /signin?next=<path>`: registers the app at the authorization server
 *   once (Dynamic Client Registration), then sends the browser to its
 *   authorization endpoint (OpenID Connect code flow: `openid`, PKCE S256,
 *   `state`, `nonce`), with `oauth4webapi`;
 * - `GET /signin/callback`: checks `iss` and `state`, exchanges the code,
 *   validates the ID token, starts a session (a random id in the `HttpOnly`,
 *   `SameSite=Lax` cookie `demo_session`) and sends the browser back to
 *   `next` (a path of this server only);
 * - `principal(request)`: the session's user as the MCP principal,
 *   `[issuer, sub]`, the same as the bearer tokens of the MCP requests give
 *   (`Authorization.authInfo`), so the page of a conversation opens only for
 *   the user who signed in to it.
 *
 * Gotchas: sessions and pending sign-ins live in memory (an hour, ten
 * minutes); a failed sign-in answers 400 with a one-line reason.
 */
import { HttpTransport } from "@mrtr/server"
import { Effect, type Layer } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomBytes } from "node:crypto"
import * as oauth from "oauth4webapi"

/** The session cookie's name. */
export const COOKIE = "demo_session"

const SESSION_MILLIS = 60 * 60 * 1000
const PENDING_MILLIS = 10 * 60 * 1000

interface Pending {
  readonly verifier: string
  readonly nonce: string
  readonly next: string
  readonly expires: number
}

/** The sign-in of the demo's web app at `issuer` (see the module header): its routes and the page's `principal`. */
export const make = (issuer: string) => {
  const sessions = new Map<string, { readonly subject: string; readonly expires: number }>()
  const pending = new Map<string, Pending>()
  const insecure = { [oauth.allowInsecureRequests]: true } as const
  let registered: Promise<{ readonly as: oauth.AuthorizationServer; readonly client: oauth.Client }> | undefined

  /** Discovery and registration, once (the redirect URI is the bound address's). */
  const registration = (callback: string) =>
    registered ??= (async () => {
      const url = new URL(issuer)
      const as = await oauth.processDiscoveryResponse(
        url,
        await oauth.discoveryRequest(url, { algorithm: "oidc", ...insecure })
      )
      const client = await oauth.processDynamicClientRegistrationResponse(
        await oauth.dynamicClientRegistrationRequest(as, {
          client_name: "trip planner (web)",
          redirect_uris: [callback],
          token_endpoint_auth_method: "none",
          grant_types: ["authorization_code"],
          response_types: ["code"],
          application_type: "web"
        }, insecure)
      )
      return { as, client }
    })()

  const refused = (reason: string) =>
    HttpServerResponse.text(`Sign-in failed: ${reason}\n`, { status: 400, headers: { "cache-control": "no-store" } })
  const redirect = (location: string, headers: Record<string, string> = {}) =>
    HttpServerResponse.empty({ status: 302, headers: { location, "cache-control": "no-store", ...headers } })

  /** Only a path of this server (never `//elsewhere`): no open redirect. */
  const safeNext = (next: string | null) => next !== null && next.startsWith("/") && !next.startsWith("//") ? next : "/"

  const start = (origin: string) => (request: HttpServerRequest.HttpServerRequest) =>
    Effect.promise(async () => {
      const callback = `${origin}/signin/callback`
      const { as, client } = await registration(callback)
      const state = oauth.generateRandomState()
      const verifier = oauth.generateRandomCodeVerifier()
      const nonce = oauth.generateRandomNonce()
      const next = safeNext(new URL(request.url, origin).searchParams.get("next"))
      pending.set(state, { verifier, nonce, next, expires: Date.now() + PENDING_MILLIS })
      const url = new URL(as.authorization_endpoint!)
      url.searchParams.set("response_type", "code")
      url.searchParams.set("client_id", client.client_id)
      url.searchParams.set("redirect_uri", callback)
      url.searchParams.set("scope", "openid")
      url.searchParams.set("state", state)
      url.searchParams.set("nonce", nonce)
      url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier))
      url.searchParams.set("code_challenge_method", "S256")
      return redirect(url.href)
    })

  const callback = (origin: string) => (request: HttpServerRequest.HttpServerRequest) =>
    Effect.promise(async () => {
      const redirectUri = `${origin}/signin/callback`
      const current = new URL(request.url, origin)
      const state = current.searchParams.get("state") ?? ""
      const flow = pending.get(state)
      pending.delete(state)
      if (flow === undefined || flow.expires < Date.now()) return refused("no sign-in of this browser is pending")
      try {
        const { as, client } = await registration(redirectUri)
        const params = oauth.validateAuthResponse(as, client, current, state)
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          oauth.None(),
          params,
          redirectUri,
          flow.verifier,
          insecure
        )
        const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
          expectedNonce: flow.nonce,
          requireIdToken: true
        })
        const subject = oauth.getValidatedIdTokenClaims(tokens)!.sub
        const session = randomBytes(32).toString("base64url")
        sessions.set(session, { subject, expires: Date.now() + SESSION_MILLIS })
        return redirect(flow.next, {
          "set-cookie": `${COOKIE}=${session}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_MILLIS / 1000}`
        })
      } catch (error) {
        return refused(error instanceof Error ? error.message : String(error))
      }
    })

  /** The routes, on the server's own origin (the bound address, read from `HttpEndpoint`). */
  const routes: Layer.Layer<never, never, HttpRouter.HttpRouter | HttpTransport.HttpEndpoint> = HttpRouter.use((
    router
  ) =>
    Effect.gen(function*() {
      const origin = new URL(yield* HttpTransport.url).origin
      yield* router.add("GET", "/signin", start(origin))
      yield* router.add("GET", "/signin/callback", callback(origin))
    })
  )

  /** The signed-in user of the browser's request, from its session cookie (`undefined`: not signed in). */
  const principal = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string | undefined> =>
    Effect.sync(() => {
      const id = request.cookies[COOKIE]
      const session = id === undefined ? undefined : sessions.get(id)
      if (session === undefined || session.expires < Date.now()) return undefined
      return JSON.stringify([issuer, session.subject])
    })

  return { routes, principal }
}
