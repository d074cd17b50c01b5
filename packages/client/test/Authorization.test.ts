/**
 * The client's authorization pieces that need no authorization server:
 * `WWW-Authenticate` parsing, the authorization server metadata URLs in the
 * MCP order, scope selection (challenge, union on step-up, PRM, offline_access),
 * the file token store (mode 0600, a damaged file is an empty store, tokens
 * stay `Redacted`), and the transport's behaviour on a 401 it cannot act on.
 * The flows themselves run against oidc-provider (packages/testing) and the
 * conformance suite's authorization servers (`npm run conformance`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { mkdtempSync, statSync, writeFileSync } from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Authorization from "../src/Authorization.ts"
import * as HttpTransport from "../src/HttpTransport.ts"
import { metadataUrls, parseBearerChallenge } from "../src/internal/oauthDiscovery.ts"
import { selectScopes } from "../src/internal/oauthFlow.ts"
import * as McpClient from "../src/McpClient.ts"
import * as TokenStore from "../src/TokenStore.ts"

describe("Authorization (client)", () => {
  it("parses Bearer challenges: any order, quoted or not, escapes, other schemes around", () => {
    assert.deepStrictEqual(
      parseBearerChallenge(`Bearer error="insufficient_scope", scope="a b", resource_metadata="http://h/x"`),
      { error: "insufficient_scope", scope: "a b", resource_metadata: "http://h/x" }
    )
    assert.deepStrictEqual(parseBearerChallenge(`Basic realm="x", Bearer scope=mcp:basic,error=invalid_token`), {
      scope: "mcp:basic",
      error: "invalid_token"
    })
    assert.deepStrictEqual(parseBearerChallenge(`Bearer error_description="say \\"hi\\""`), {
      error_description: `say "hi"`
    })
    assert.deepStrictEqual(parseBearerChallenge("Bearer"), {})
    assert.isUndefined(parseBearerChallenge(`Basic realm="x"`))
    assert.isUndefined(parseBearerChallenge(undefined))
  })

  it("builds the authorization server metadata URLs in the MCP order", () => {
    assert.deepStrictEqual(metadataUrls("https://a/t1").map((u) => u.url.href), [
      "https://a/.well-known/oauth-authorization-server/t1",
      "https://a/.well-known/openid-configuration/t1",
      "https://a/t1/.well-known/openid-configuration"
    ])
    assert.deepStrictEqual(metadataUrls("https://a").map((u) => u.url.href), [
      "https://a/.well-known/oauth-authorization-server",
      "https://a/.well-known/openid-configuration"
    ])
  })

  it("selects scopes: the challenge's (with the earlier ones on step-up), else the PRM's, else none; offline_access when offered", () => {
    const as = { issuer: "https://a" }
    assert.deepStrictEqual(selectScopes(as, "mcp:basic", new Set(), ["x"]), ["mcp:basic"])
    assert.deepStrictEqual(selectScopes(as, "mcp:write", new Set(["mcp:basic"]), undefined), ["mcp:basic", "mcp:write"])
    assert.deepStrictEqual(selectScopes(as, undefined, new Set(), ["a", "b"]), ["a", "b"])
    assert.deepStrictEqual(selectScopes(as, undefined, new Set(), undefined), [])
    const offline = { issuer: "https://a", scopes_supported: ["mcp:basic", "offline_access"] }
    assert.deepStrictEqual(selectScopes(offline, "mcp:basic", new Set(), undefined), ["mcp:basic", "offline_access"])
    assert.deepStrictEqual(selectScopes(offline, undefined, new Set(), undefined), [])
  })

  it.effect("the file store: mode 0600 in a 0700 folder, survives a restart, a damaged file is an empty store", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "mrtr-store-"))
      const file = join(dir, "nested", "tokens.json")
      const tokens: TokenStore.Tokens = {
        issuer: "https://as",
        accessToken: Redacted.make("secret-access"),
        refreshToken: Redacted.make("secret-refresh"),
        expiresAt: 123
      }
      yield* TokenStore.TokenStore.use((store) =>
        Effect.andThen(
          store.setTokens("https://mcp/x", tokens),
          store.setRegistration("https://as", { clientId: "c", authMethod: "none" })
        )
      ).pipe(Effect.provide(TokenStore.layerFile(file)))
      assert.strictEqual(statSync(file).mode & 0o777, 0o600)
      assert.strictEqual(statSync(join(dir, "nested")).mode & 0o777, 0o700)
      const reread = yield* TokenStore.TokenStore.use((store) => store.getTokens("https://mcp/x")).pipe(
        Effect.provide(TokenStore.layerFile(file))
      )
      const value = Option.getOrThrow(reread)
      assert.strictEqual(Redacted.value(value.accessToken), "secret-access")
      assert.notInclude(String(value.accessToken), "secret")
      assert.notInclude(JSON.stringify(value), "secret-access")
      writeFileSync(file, "{ not json")
      const damaged = yield* TokenStore.TokenStore.use((store) => store.getTokens("https://mcp/x")).pipe(
        Effect.provide(TokenStore.layerFile(file))
      )
      assert.isTrue(Option.isNone(damaged))
      // Keys named like Object.prototype members are plain keys.
      writeFileSync(file, JSON.stringify({ tokens: { "__proto__": { issuer: "x", accessToken: "y" } } }))
      const odd = yield* TokenStore.TokenStore.use((store) => store.getTokens("toString")).pipe(
        Effect.provide(TokenStore.layerFile(file))
      )
      assert.isTrue(Option.isNone(odd))
    }))

  it.live("a 401 with no usable metadata is a clear TransportError after one try, not a loop", () =>
    Effect.gen(function*() {
      let posts = 0
      const server = Http.createServer((req, res) => {
        if (req.method === "POST") posts++
        res.writeHead(req.method === "POST" ? 401 : 404, {
          "www-authenticate": "Bearer",
          "content-type": "application/json"
        })
        res.end("{}")
      })
      yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)))
      yield* Effect.addFinalizer(() => Effect.sync(() => server.close()))
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
      const error = yield* McpClient.McpClient.use((client) => client.listTools()).pipe(
        Effect.provide(
          McpClient.layer({}).pipe(
            Layer.provide(
              HttpTransport.layerNode({ url }).pipe(
                Layer.provide(Authorization.layer()),
                Layer.provide(Authorization.layerHeadlessUserAgent())
              )
            )
          )
        ),
        Effect.flip
      )
      assert.strictEqual(error._tag, "TransportError")
      assert.include(error.message, "no protected resource metadata")
      assert.strictEqual(posts, 1)
    }))
})
