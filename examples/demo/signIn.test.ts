/**
 * The demo with `--auth` (`serveAuthorized`): the interaction
 * page of a secure elicitation opens only for the user signed in to the trip
 * planner's web app, known from the session cookie of a real sign-in at the
 * demo's authorization server (oidc-provider). A header any client can set
 * (`x-demo-user`, what the demo once trusted), no session, another user's
 * session and a forged cookie are refused with 403; the conversation's own
 * user signs in, completes the page and the call resumes.
 * Source: MCP 2026-07-28, client/elicitation (URL mode: the server verifies
 * the identity of the user who opens the URL).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Authorization as ClientAuth, Errors, HttpTransport as ClientHttp, McpClient } from "@mrtr/client"
import { HttpTransport } from "@mrtr/server"
import {
  type AuthorizationServer,
  browserSession,
  headlessBrowser,
  startAuthorizationServer
} from "@mrtr/test-support/oauth"
import { ScriptedUser } from "@mrtr/testing"
import { Effect, Layer } from "effect"
import { serveAuthorized } from "./server.ts"

let as: AuthorizationServer
beforeAll(async () => {
  as = await startAuthorizationServer({ scopes: ["trips"] })
}, 30_000)
afterAll(() => as?.close())

const RAIL_ACCOUNT = { accountId: "ada-1815", apiKey: "rk_live_0123456789abcdef" }

/** The MCP client of `user`, signed in through the headless browser; `page` answers the URL-mode ask. */
const clientOf = (url: string, user: string, page: ReturnType<typeof ScriptedUser.completePage>) =>
  McpClient.layer({ protocol: "2026-07-28" }).pipe(
    Layer.provide(
      ClientHttp.layerNode({ url }).pipe(
        Layer.provide(ClientAuth.layer({})),
        Layer.provide(Layer.succeed(
          ClientAuth.UserAgent,
          ClientAuth.UserAgent.of({
            redirectUri: "http://127.0.0.1:1/callback",
            authorize: (authorizationUrl) =>
              Effect.tryPromise({
                try: () => headlessBrowser(user)(authorizationUrl.href),
                catch: (cause) => new ClientAuth.AuthorizationError({ reason: "the browser failed", cause })
              })
          })
        ))
      )
    ),
    Layer.provide(ScriptedUser.layer({ elicitation: { modes: ["url"], byKey: { rail_api_key: page } } }))
  )

describe("the demo's interaction page knows its user from the web sign-in's session cookie", () => {
  it.live(
    "a header, no session, another user's session or a forged cookie: 403; Ada's own session: the page",
    () =>
      Effect.gen(function*() {
        const url = yield* HttpTransport.url
        const statuses: Record<string, number> = {}
        const page: ReturnType<typeof ScriptedUser.completePage> = (params, context) =>
          Effect.gen(function*() {
            if (params.mode !== "url") {
              return yield* new Errors.InputHandlerError({ kind: "elicitation", key: context.key, reason: "not a URL" })
            }
            const { origin, pathname } = new URL(params.url)
            const status = (response: Response) => Effect.promise(() => response.text().then(() => response.status))
            // Whoever has the URL, saying who they are: not a user of this app.
            statuses["x-demo-user"] = yield* status(
              yield* Effect.promise(() => fetch(params.url, { headers: { "x-demo-user": "ada" } }))
            )
            statuses["forged cookie"] = yield* status(
              yield* Effect.promise(() => fetch(params.url, { headers: { cookie: "demo_session=guessed" } }))
            )
            // Mallory signs in to the app for real, then opens Ada's page.
            const mallory = browserSession("mallory")
            statuses["mallory signed in"] = yield* status(
              yield* Effect.promise(() => mallory.visit(`${origin}/signin?next=${encodeURIComponent(pathname)}`))
            )
            // Ada signs in, and the sign-in brings her back to her page.
            const ada = browserSession("ada")
            statuses["ada signed in"] = yield* status(
              yield* Effect.promise(() => ada.visit(`${origin}/signin?next=${encodeURIComponent(pathname)}`))
            )
            // No open redirect: a `next` off this server lands on its root.
            const away = yield* Effect.promise(() =>
              ada.visit(`${origin}/signin?next=${encodeURIComponent("//evil.example/")}`)
            )
            statuses["next elsewhere"] = new URL(away.url).origin === origin ? 0 : 1
            yield* Effect.promise(() => away.text())
            return yield* ScriptedUser.completePage(RAIL_ACCOUNT, { fetch: ada.fetch })(params, context)
          })
        const result = yield* McpClient.McpClient.use((client) =>
          client.callTool({ name: "link_rail_account", arguments: { operator: "EuroRail" } })
        ).pipe(Effect.provide(clientOf(url, "ada", page)))
        assert.deepStrictEqual(statuses, {
          "x-demo-user": 403,
          "forged cookie": 403,
          "mallory signed in": 403,
          "ada signed in": 200,
          "next elsewhere": 0
        })
        assert.include((result.content[0] as { text: string }).text, "Linked EuroRail account ada-1815")
      }).pipe(Effect.provide(Layer.unwrap(
        Effect.sync(() => serveAuthorized(as.issuer, as.jwksUri)).pipe(
          Effect.map(Layer.orDie)
        )
      ))),
    { timeout: 60_000 }
  )
})
