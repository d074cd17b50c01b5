/**
 * An upstream that requires authorization: the gateway gets a token of its
 * own for it by the client credentials grant at a real authorization server
 * (oidc-provider), discovered from the upstream's 401; the downstream
 * caller's own token never reaches the upstream. Source: MCP 2026-07-28
 * basic/authorization (Token Handling, token passthrough).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Authorization, McpServer, Tool } from "@mrtr/server"
import { type AuthorizationServer, startAuthorizationServer } from "@mrtr/test-support/oauth"
import { Harness } from "@mrtr/testing"
import { Effect, Layer, Option } from "effect"
import { Upstream } from "../src/index.ts"
import { gatewayKeys, serve, upstreamServer, user } from "./fixtures.ts"

const GATEWAY_CLIENT = { clientId: "the-gateway", clientSecret: "the-gateway-secret" }

/** Says who the upstream saw: the subject and client of the token it verified. */
const whoami = Tool.make("whoami", {
  handler: () =>
    Effect.map(Authorization.authInfo, (auth) => {
      const info = Option.getOrThrow(auth)
      return `subject=${info.subject} client=${info.clientId ?? "?"} scopes=${[...info.scopes].join(" ")}`
    })
})

let as: AuthorizationServer
let upstream: Awaited<ReturnType<typeof serve>>

beforeAll(async () => {
  as = await startAuthorizationServer({
    scopes: ["mcp:basic"],
    clientCredentials: true,
    clients: [{
      client_id: GATEWAY_CLIENT.clientId,
      client_secret: GATEWAY_CLIENT.clientSecret,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: "client_secret_basic",
      scope: "mcp:basic"
    }]
  })
  upstream = await serve(
    upstreamServer("secured", [whoami]).pipe(
      Layer.provideMerge(Authorization.layer({
        verifier: Authorization.jwt({ issuer: as.issuer, jwksUri: as.jwksUri }),
        requiredScopes: ["mcp:basic"]
      }))
    )
  )
}, 30_000)
afterAll(async () => {
  await upstream?.close()
  await as?.close()
})

const gateway = (oauth?: { issuer: string; clientId: string; clientSecret: string }) =>
  McpServer.mount(
    "",
    Upstream.layer(Upstream.http({ name: "secured", url: upstream.url, ...(oauth === undefined ? {} : { oauth }) }), {
      startTimeout: "5 seconds",
      callTimeout: "10 seconds"
    })
  ).pipe(
    Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
    Layer.orDie
  )

describe("OAuth to upstreams", () => {
  it.effect(
    "the gateway signs in with its own client credentials and calls the secured upstream",
    () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const listed = yield* client.listTools()
        expect(listed.tools.map((t) => t.name)).toEqual(["whoami"])
        const first = yield* client.callTool({ name: "whoami" })
        const text = (first.content[0] as { text: string }).text
        expect(text).toContain(`client=${GATEWAY_CLIENT.clientId}`)
        expect(text).toContain("mcp:basic")
        // the token is kept: a second call needs no new sign-in and still works
        const second = yield* client.callTool({ name: "whoami" })
        expect((second.content[0] as { text: string }).text).toBe(text)
      }).pipe(Effect.provide(Harness.layer({ server: gateway({ ...GATEWAY_CLIENT, issuer: as.issuer }), user }))),
    30_000
  )

  it.effect(
    "without credentials of its own the upstream stays closed: its items are not served",
    () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const listed = yield* client.listTools()
        expect(listed.tools).toEqual([])
      }).pipe(Effect.provide(Harness.layer({ server: gateway(), user }))),
    30_000
  )

  it.effect("wrong client credentials: nothing is served, and the gateway still starts", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const listed = yield* client.listTools()
      expect(listed.tools).toEqual([])
    }).pipe(
      Effect.provide(
        Harness.layer({
          server: gateway({ issuer: as.issuer, clientId: GATEWAY_CLIENT.clientId, clientSecret: "wrong" }),
          user
        })
      )
    ), 30_000)

  it.effect(
    "credentials for another issuer are not sent to the authorization server the upstream names",
    () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        // With its secret the gateway would get a token and serve `whoami`; without it, it cannot sign in there.
        const listed = yield* client.listTools()
        expect(listed.tools).toEqual([])
      }).pipe(
        Effect.provide(
          Harness.layer({ server: gateway({ ...GATEWAY_CLIENT, issuer: "https://auth.example" }), user })
        )
      ),
    30_000
  )
})
