/**
 * The HTTP transport as an OAuth 2.1 protected resource, against a real
 * authorization server (oidc-provider on a free loopback port) issuing JWT
 * access tokens through the code + PKCE flow: Protected Resource Metadata,
 * the 401 / 403 / 400 / 503 challenges, per-tool scopes, every kind of bad
 * token (the server keeps serving after each), and `requestState` bound to
 * the principal (`iss` + `sub`).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Elicitation, RequestState } from "@mrtr/core"
import { mcpHeaders, mcpPost } from "@mrtr/test-support/http"
import {
  type AuthorizationServer,
  INTROSPECTION_CLIENT,
  issueToken,
  mintToken,
  startAuthorizationServer
} from "@mrtr/test-support/oauth"
import { validateWire } from "@mrtr/test-support/wire"
import { ConfigProvider, Effect, Layer, Logger, Option, References, Schema } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import * as Jose from "jose"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { Authorization, HttpTransport, McpServer, Tool } from "../src/index.ts"
import { ALL_CAPS, keys, readme, request } from "./fixtures.ts"

const Answer = Schema.Struct({ answer: Schema.String })

/** Three rounds: two questions, then the result. */
const survey = Tool.make("survey", {
  handler: () =>
    Effect.gen(function*() {
      const first = yield* Elicitation.form({ key: "first", message: "First?", schema: Answer })
      const second = yield* Elicitation.form({ key: "second", message: "Second?", schema: Answer })
      return `${first.answer}+${second.answer}`
    })
})

const publish = Tool.make("publish", { scopes: ["mcp:write"], handler: () => Effect.succeed("published") })

const whoami = Tool.make("whoami", {
  handler: () =>
    Effect.map(Authorization.authInfo, (auth) =>
      Option.match(auth, {
        onNone: () => "nobody",
        onSome: (a) => `${a.subject} ${a.scopes.join(",")}`
      }))
})

let as: AuthorizationServer
beforeAll(async () => {
  as = await startAuthorizationServer({ scopes: ["mcp:basic", "mcp:write"] })
}, 30_000)
afterAll(() => as?.close())

/** Every log line the servers write, to check that no token or key reaches a log. */
const logged: Array<string> = []
const capture = Logger.make((options) => {
  logged.push(
    JSON.stringify(options.message) + " " +
      JSON.stringify([...Object.entries(options.fiber.getRef(References.CurrentLogAnnotations))])
  )
})

const startMcp = (
  options: Partial<Authorization.Options> = {},
  cache?: McpServer.Options["cache"],
  authorization?: Layer.Layer<Authorization.ResourceServer, unknown>,
  transport: HttpTransport.LayerOptions = {}
) =>
  Effect.gen(function*() {
    const server = Layer.mergeAll(McpServer.tools(survey, publish, whoami), McpServer.resources(readme)).pipe(
      Layer.provideMerge(McpServer.layer({
        name: "auth-test",
        version: "1.0.0",
        cache,
        requestState: RequestState.RequestStateCodec.layer({
          keyRing: RequestState.KeyRing.fromBytes(keys.map((bytes) => ({ bytes })))
        }).pipe(Layer.orDie)
      })),
      Layer.orDie
    )
    const context = yield* Layer.build(
      HttpTransport.layer({ port: 0, ...transport }).pipe(
        Layer.provide(
          authorization ?? Authorization.layer({
            verifier: Authorization.jwt({ issuer: as.issuer, jwksUri: as.jwksUri, jwksTimeoutMillis: 1000 }),
            requiredScopes: ["mcp:basic"],
            scopesSupported: ["mcp:basic", "mcp:write"],
            ...options
          })
        ),
        Layer.provide(server),
        Layer.provide(Logger.layer([capture], { mergeWithExisting: true })),
        Layer.orDie
      )
    )
    return yield* Effect.provide(HttpTransport.url, context)
  })

const post = (url: string, message: any, token?: string, extra: Record<string, string> = {}) =>
  mcpPost(url, message, {
    accept: "application/json",
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...extra
  }).pipe(Effect.map((reply) => ({
    status: reply.status,
    challenge: reply.headers.get("www-authenticate"),
    json: reply.json
  })))

/** A request by node:http, which sends the `Host` it is given (fetch does not); an SSE answer is not read. */
const raw = (
  url: string,
  method: "GET" | "POST" | "DELETE",
  headers: Record<string, string>,
  bearer?: string,
  message?: unknown
) =>
  Effect.promise(() =>
    new Promise<{ status: number; challenge: string | undefined; session: string | undefined; body: string }>(
      (resolve, reject) => {
        const body = message === undefined ? undefined : JSON.stringify(message)
        const req = Http.request(url, {
          method,
          headers: {
            ...(body === undefined ? {} : { "content-type": "application/json", accept: "application/json" }),
            ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
            ...headers
          }
        }, (res) => {
          const out = {
            status: res.statusCode!,
            challenge: res.headers["www-authenticate"],
            session: res.headers["mcp-session-id"] as string | undefined
          }
          if (res.headers["content-type"]?.startsWith("text/event-stream")) {
            res.destroy()
            return resolve({ ...out, body: "" })
          }
          let text = ""
          res.setEncoding("utf8")
          res.on("data", (chunk) => text += chunk)
          res.on("end", () => resolve({ ...out, body: text }))
        })
        req.on("error", reject)
        req.end(body)
      }
    )
  )

const token = (url: string, user: string, scope = "mcp:basic") =>
  Effect.promise(() => issueToken(as, { user, resource: url, scope }))

const call = (name: string, extra: Record<string, unknown> = {}) =>
  request("tools/call", { name, arguments: {}, ...extra })

describe("Authorization (server, protected resource)", () => {
  it.live("serves Protected Resource Metadata at the path-inserted well-known URI, without a token", () =>
    Effect.gen(function*() {
      const url = yield* startMcp()
      const origin = new URL(url).origin
      const response = yield* Effect.promise(() => fetch(`${origin}/.well-known/oauth-protected-resource/mcp`))
      assert.strictEqual(response.status, 200)
      assert.isNull(response.headers.get("access-control-allow-origin"))
      assert.deepStrictEqual(yield* Effect.promise(() => response.json()), {
        resource: url,
        authorization_servers: [as.issuer],
        scopes_supported: ["mcp:basic", "mcp:write"],
        bearer_methods_supported: ["header"]
      })
    }))

  it.live("with cors on, a browser page reads the metadata and the 401 challenge cross-origin; preflights need no token", () =>
    Effect.gen(function*() {
      const url = yield* startMcp({}, undefined, undefined, { cors: true })
      const origin = "http://localhost:5173"
      const metadata = yield* Effect.promise(() =>
        fetch(`${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`, { headers: { origin } })
      )
      assert.strictEqual(metadata.status, 200)
      assert.strictEqual(metadata.headers.get("access-control-allow-origin"), origin)
      const preflight = yield* Effect.promise(() =>
        fetch(url, {
          method: "OPTIONS",
          headers: {
            origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization"
          }
        })
      )
      assert.strictEqual(preflight.status, 204)
      const refused = yield* post(url, request("tools/list"), undefined, { origin })
      assert.strictEqual(refused.status, 401)
    }))

  it.live("401 without a token, with resource_metadata and the needed scope; 200 with a real token", () =>
    Effect.gen(function*() {
      const url = yield* startMcp()
      const origin = new URL(url).origin
      const refused = yield* post(url, request("tools/list"))
      assert.strictEqual(refused.status, 401)
      assert.strictEqual(
        refused.challenge,
        `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:basic"`
      )
      assert.strictEqual(refused.json.error, "invalid_token")
      const alice = yield* token(url, "alice")
      const ok = yield* post(url, request("tools/list"), alice)
      assert.strictEqual(ok.status, 200)
      validateWire("JSONRPCResultResponse", ok.json)
      const me = yield* post(url, call("whoami"), alice)
      assert.strictEqual(me.json.result.content[0].text, "alice mcp:basic")
    }))

  it.live("403 insufficient_scope naming every scope needed, before the tool runs; a stepped-up token passes", () =>
    Effect.gen(function*() {
      const url = yield* startMcp()
      const basic = yield* token(url, "alice")
      const denied = yield* post(url, call("publish"), basic)
      assert.strictEqual(denied.status, 403)
      assert.include(denied.challenge, `error="insufficient_scope"`)
      assert.include(denied.challenge, `scope="mcp:basic mcp:write"`)
      assert.include(
        denied.challenge,
        `resource_metadata="${new URL(url).origin}/.well-known/oauth-protected-resource/mcp"`
      )
      const stepped = yield* token(url, "alice", "mcp:basic mcp:write")
      const ok = yield* post(url, call("publish"), stepped)
      assert.strictEqual(ok.json.result.content[0].text, "published")
    }))

  it.live("scope hierarchies: a scope that includes the needed one is enough", () =>
    Effect.gen(function*() {
      const url = yield* startMcp({ scopeHierarchy: { "mcp:write": ["mcp:basic"] } })
      const writer = yield* token(url, "alice", "mcp:write")
      assert.strictEqual((yield* post(url, call("publish"), writer)).status, 200)
    }))

  it.live("a requestState issued to one user is the frozen -32602 for another; a new token of the same user keeps it", () =>
    Effect.gen(function*() {
      const url = yield* startMcp()
      const alice = yield* token(url, "alice")
      const bob = yield* token(url, "bob")
      const round1 = yield* post(url, call("survey"), alice)
      assert.strictEqual(round1.json.result.resultType, "input_required")
      const state1 = round1.json.result.requestState
      const answer = (text: string) => ({ action: "accept", content: { answer: text } })

      const stolen = yield* post(
        url,
        call("survey", { inputResponses: { first: answer("x") }, requestState: state1 }),
        bob
      )
      // The frozen error (its HTTP status is the transport's table's, not authorization's).
      assert.strictEqual(stolen.json.error.code, -32602)
      assert.match(stolen.json.error.message, /requestState/i)
      validateWire("JSONRPCErrorResponse", stolen.json)

      // Alice's refreshed / stepped-up token (another jti, more scopes) continues the conversation.
      const aliceAgain = yield* token(url, "alice", "mcp:basic mcp:write")
      const round2 = yield* post(
        url,
        call("survey", { inputResponses: { first: answer("a") }, requestState: state1 }),
        aliceAgain
      )
      assert.strictEqual(round2.json.result.resultType, "input_required")
      const round3 = yield* post(
        url,
        call("survey", { inputResponses: { second: answer("b") }, requestState: round2.json.result.requestState }),
        alice
      )
      assert.strictEqual(round3.json.result.content[0].text, "a+b")
      validateWire("JSONRPCResultResponse", round3.json)
    }))

  it.live("bad tokens: each gets 401 invalid_token (or 400 when malformed) and the server keeps serving", () =>
    Effect.gen(function*() {
      const url = yield* startMcp()
      const good = yield* token(url, "alice")
      const now = Math.floor(Date.now() / 1000)
      const claims = { iss: as.issuer, sub: "mallory", aud: url, scope: "mcp:basic", iat: now, exp: now + 600 }
      const mint = (c: Jose.JWTPayload, h: Partial<Jose.JWTHeaderParameters> = {}, key?: any) =>
        Effect.promise(() => mintToken(as, c, h, key))
      const otherKey = (yield* Effect.promise(() => Jose.generateKeyPair("ES256"))).privateKey
      const unsigned = `${Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt" })).toString("base64url")}.${
        Buffer.from(JSON.stringify(claims)).toString("base64url")
      }.`
      const cases: Array<readonly [string, string]> = [
        ["garbage", "not-a-jwt"],
        ["expired", yield* mint({ ...claims, exp: now - 3600, iat: now - 7200 })],
        ["wrong audience", yield* mint({ ...claims, aud: "https://elsewhere.example/mcp" })],
        ["wrong issuer", yield* mint({ ...claims, iss: "https://evil.example" })],
        ["alg none", unsigned],
        ["unknown kid", yield* mint(claims, { kid: "other-key" }, otherKey)],
        ["wrong key, known kid", yield* mint(claims, {}, otherKey)],
        ["not an access token (typ)", yield* mint(claims, { typ: "JWT" })],
        [
          "HS256",
          yield* Effect.promise(() =>
            new Jose.SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "at+jwt" }).sign(new Uint8Array(32))
          )
        ]
      ]
      for (const [what, bad] of cases) {
        assert.isFalse(logged.some((line) => line.includes(bad)), what)
        const reply = yield* post(url, request("tools/list"), bad)
        assert.strictEqual(reply.status, 401, what)
        assert.match(
          String(reply.challenge),
          /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata=/,
          what
        )
        assert.notInclude(JSON.stringify(reply), bad, what)
        assert.strictEqual((yield* post(url, request("tools/list"), good)).status, 200)
      }
      const malformed = [`${"a".repeat(9000)}`, "two words", "tok\u00e9n"]
      for (const bad of malformed) {
        const reply = yield* post(url, request("tools/list"), undefined, { authorization: `Bearer ${bad}` })
        assert.strictEqual(reply.status, 400)
        assert.strictEqual(reply.json.error, "invalid_request")
        assert.strictEqual((yield* post(url, request("tools/list"), good)).status, 200)
      }
      // Another scheme is no credentials at all.
      const basic = yield* post(url, request("tools/list"), undefined, { authorization: "Basic YTpi" })
      assert.strictEqual(basic.status, 401)
      assert.notInclude(basic.challenge, "error=")
    }))

  it.live("a JWKS endpoint that is down or hangs: a bounded wait and a clean 503, then it recovers", () =>
    Effect.gen(function*() {
      let mode: "hang" | "down" | "proxy" = "hang"
      const jwks = Http.createServer((req, res) => {
        if (mode === "hang") return // never answers
        if (mode === "down") {
          res.writeHead(500)
          res.end()
          return
        }
        fetch(as.jwksUri).then(async (r) => {
          res.writeHead(r.status, { "content-type": "application/json" })
          res.end(await r.text())
        })
      })
      yield* Effect.promise(() => new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve)))
      yield* Effect.addFinalizer(() => Effect.sync(() => (jwks.closeAllConnections(), jwks.close())))
      const url = yield* startMcp({
        verifier: Authorization.jwt({
          issuer: as.issuer,
          jwksUri: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`,
          jwksTimeoutMillis: 300,
          jwksCooldownMillis: 0
        })
      })
      const alice = yield* token(url, "alice")
      const started = Date.now()
      const hung = yield* post(url, request("tools/list"), alice)
      assert.strictEqual(hung.status, 503)
      assert.isBelow(Date.now() - started, 5_000)
      mode = "down"
      assert.strictEqual((yield* post(url, request("tools/list"), alice)).status, 503)
      mode = "proxy"
      assert.strictEqual((yield* post(url, request("tools/list"), alice)).status, 200)
      // Once fetched, the keys are cached: the JWKS going down again does not matter for known keys.
      mode = "down"
      assert.strictEqual((yield* post(url, request("tools/list"), alice)).status, 200)
      mode = "hang"
      assert.strictEqual((yield* post(url, request("tools/list"), alice)).status, 200)
      // The outage was logged, without the token.
      assert.isTrue(
        logged.some((line) => line.includes("Authorization: the authorization server's keys are unavailable"))
      )
      assert.isFalse(logged.some((line) => line.includes(alice)))
    }))

  it.live("lists and resources/read answered to an authenticated caller are never cacheScope public", () =>
    Effect.gen(function*() {
      const url = yield* startMcp({}, { ttlMs: 60_000, cacheScope: "public" })
      const listed = yield* post(url, request("tools/list"), yield* token(url, "alice"))
      assert.strictEqual(listed.json.result.cacheScope, "private")
      assert.strictEqual(listed.json.result.ttlMs, 60_000)
      validateWire("JSONRPCResultResponse", listed.json)
      // resources/read is an MRTR method and cacheable: its complete result is stamped for the caller too.
      const read = yield* post(url, request("resources/read", { uri: "test://readme" }), yield* token(url, "alice"))
      assert.isUndefined(read.json.error)
      assert.strictEqual(read.json.result.contents[0].text, "hello")
      assert.strictEqual(read.json.result.cacheScope, "private")
      assert.strictEqual(read.json.result.ttlMs, 60_000)
      validateWire("JSONRPCResultResponse", read.json)
    }))

  it.live("introspection (RFC 7662) for opaque tokens: the same principal, 401 for an unknown token, 503 when it is down", () =>
    Effect.gen(function*() {
      const opaqueAs = yield* Effect.acquireRelease(
        Effect.promise(() => startAuthorizationServer({ opaque: true })),
        (server) => Effect.promise(() => server.close())
      )
      const verifier = (endpoint: string) =>
        Authorization.introspection({
          issuer: opaqueAs.issuer,
          introspectionEndpoint: endpoint,
          clientId: INTROSPECTION_CLIENT.clientId,
          clientSecret: INTROSPECTION_CLIENT.clientSecret,
          timeoutMillis: 1000
        })
      const url = yield* startMcp({ verifier: verifier(opaqueAs.introspectionEndpoint) })
      const opaque = yield* Effect.promise(() =>
        issueToken(opaqueAs, { user: "carol", resource: url, scope: "mcp:basic" })
      )
      assert.notStrictEqual(opaque.split(".").length, 3)
      const me = yield* post(url, call("whoami"), opaque)
      assert.strictEqual(me.json.result.content[0].text, "carol mcp:basic")
      const unknown = yield* post(url, request("tools/list"), "an-opaque-token-nobody-issued")
      assert.strictEqual(unknown.status, 401)
      assert.include(unknown.challenge, `error="invalid_token"`)
      // A token for another resource is refused too.
      const elsewhere = yield* Effect.promise(() =>
        issueToken(opaqueAs, { user: "carol", resource: "http://127.0.0.1:1/other", scope: "mcp:basic" })
      )
      assert.strictEqual((yield* post(url, request("tools/list"), elsewhere)).status, 401)
      const down = yield* startMcp({ verifier: verifier("http://127.0.0.1:1/introspect") })
      assert.strictEqual((yield* post(down, request("tools/list"), opaque)).status, 503)
    }))

  it.live("from configuration (effect/Config): MCP_AUTH_ISSUER, MCP_AUTH_JWKS_URL, MCP_AUTH_SCOPES; a clear ConfigError without keys", () =>
    Effect.gen(function*() {
      const fromConfig = (env: Record<string, string>) =>
        Authorization.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))))
      const url = yield* startMcp(
        {},
        undefined,
        fromConfig({
          MCP_AUTH_ISSUER: as.issuer,
          MCP_AUTH_JWKS_URL: as.jwksUri,
          MCP_AUTH_SCOPES: "mcp:basic"
        })
      )
      const refused = yield* post(url, request("tools/list"))
      assert.include(refused.challenge, `scope="mcp:basic"`)
      assert.strictEqual((yield* post(url, request("tools/list"), yield* token(url, "alice"))).status, 200)
      const missing = yield* Layer.build(fromConfig({ MCP_AUTH_ISSUER: as.issuer })).pipe(Effect.flip)
      assert.strictEqual(missing._tag, "ConfigError")
      assert.include(String(missing), "MCP_AUTH_JWKS_URL or MCP_AUTH_INTROSPECTION_URL is required")
    }))

  it.live("the audience is never taken from Host: a real token for another port's resource, sent with that Host, is 401", () =>
    Effect.gen(function*() {
      const url = yield* startMcp()
      const here = new URL(url)
      const elsewhere = `http://127.0.0.1:${Number(here.port) + 1}/mcp`
      // A real token, with every scope, for the server one port up; sent here with a Host naming that server.
      const stolen = yield* Effect.promise(() =>
        issueToken(as, { user: "mallory", resource: elsewhere, scope: "mcp:basic mcp:write" })
      )
      const forged = { host: new URL(elsewhere).host }
      const reply = yield* raw(url, "POST", forged, stolen, call("publish"))
      assert.strictEqual(reply.status, 401)
      assert.strictEqual(
        reply.challenge,
        `Bearer error="invalid_token", error_description="The access token was not issued for this resource", ` +
          `resource_metadata="${here.origin}/.well-known/oauth-protected-resource/mcp"`
      )
      assert.deepStrictEqual(JSON.parse(reply.body), {
        error: "invalid_token",
        error_description: "The access token was not issued for this resource"
      })
      // The metadata names the bound address whatever the Host says.
      const metadata = yield* raw(`${here.origin}/.well-known/oauth-protected-resource/mcp`, "GET", forged)
      assert.strictEqual(JSON.parse(metadata.body).resource, url)
      // A token for this server still passes, forged Host or not.
      const list = request("tools/list")
      const modern = { ...forged, ...mcpHeaders(list), accept: "application/json" }
      assert.strictEqual((yield* raw(url, "POST", modern, yield* token(url, "alice"), list)).status, 200)
    }))

  it.live("no resource and no single bound address: the endpoint refuses to start with ResourceRequired", () =>
    Effect.gen(function*() {
      const resourceServer = Authorization.layer({
        verifier: Authorization.jwt({ issuer: as.issuer, jwksUri: as.jwksUri })
      })
      const server = McpServer.tools(whoami).pipe(Layer.provideMerge(McpServer.layer({ name: "s", version: "1" })))
      const failed = yield* Layer.build(
        HttpTransport.layer({ port: 0, host: "0.0.0.0" }).pipe(Layer.provide(resourceServer), Layer.provide(server))
      ).pipe(Effect.flip)
      assert.strictEqual(failed._tag, "ResourceRequired")
      assert.include(failed.message, "set the resource option (MCP_AUTH_RESOURCE with layerConfig)")
      assert.include(failed.message, "bound to 0.0.0.0")
      // Mounted on a router of one's own (no bound address known): the same refusal, and handleRequest answers 500.
      const mounted = yield* Layer.build(
        HttpTransport.routes().pipe(
          Layer.provide(HttpRouter.layer),
          Layer.provide(resourceServer),
          Layer.provide(server)
        )
      ).pipe(Effect.flip)
      assert.strictEqual(mounted._tag, "ResourceRequired")
      assert.include(mounted.message, "no bound address is known")
      const handled = yield* HttpTransport.handleRequest()(
        HttpServerRequest.fromWeb(new Request("http://127.0.0.1/mcp", { method: "POST", body: "{}" }))
      ).pipe(Effect.provide(Layer.merge(resourceServer, server)), Effect.provide(Logger.layer([])))
      assert.strictEqual(handled.status, 500)
      // With `resource` set, the same bind starts, and that URI is the audience.
      const configured = "https://mcp.example.com/mcp"
      const context = yield* Layer.build(
        HttpTransport.layer({ port: 0, host: "0.0.0.0" }).pipe(
          Layer.provide(Authorization.layer({
            verifier: Authorization.jwt({ issuer: as.issuer, jwksUri: as.jwksUri }),
            resource: configured
          })),
          Layer.provide(server)
        )
      )
      const port = new URL(yield* Effect.provide(HttpTransport.url, context)).port
      const served = `http://127.0.0.1:${port}/mcp`
      const forThisUrl = yield* token(served, "alice")
      assert.strictEqual((yield* post(served, request("tools/list"), forThisUrl)).status, 401)
      assert.strictEqual((yield* post(served, request("tools/list"), yield* token(configured, "alice"))).status, 200)
    }))

  it.live("scopes on every method: a token without the required scope is 403 on a session's GET and DELETE too", () =>
    Effect.gen(function*() {
      const url = yield* startMcp()
      const basic = yield* token(url, "alice")
      const init = yield* raw(url, "POST", { accept: "application/json, text/event-stream" }, basic, {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "a", version: "1" } }
      })
      assert.strictEqual(init.status, 200)
      const session = { "mcp-session-id": init.session!, "mcp-protocol-version": "2025-11-25" }
      // The same user, a token without `mcp:basic` (the scope every request needs).
      const writeOnly = yield* token(url, "alice", "mcp:write")
      assert.strictEqual(
        (yield* raw(url, "POST", session, writeOnly, { jsonrpc: "2.0", id: 2, method: "ping" })).status,
        403
      )
      for (const method of ["GET", "DELETE"] as const) {
        const denied = yield* raw(url, method, { ...session, accept: "text/event-stream" }, writeOnly)
        assert.strictEqual(denied.status, 403, method)
        assert.include(denied.challenge, `error="insufficient_scope"`, method)
        assert.include(denied.challenge, `scope="mcp:basic"`, method)
        assert.strictEqual(JSON.parse(denied.body).error, "insufficient_scope", method)
      }
      // The session lives on for a token with the scope.
      assert.strictEqual(
        (yield* raw(url, "POST", session, basic, { jsonrpc: "2.0", id: 3, method: "ping" })).status,
        200
      )
      assert.strictEqual((yield* raw(url, "DELETE", session, basic)).status, 200)
    }))

  it.live("iat in the future: refused past the clock tolerance (default 30 s), accepted within it", () =>
    Effect.gen(function*() {
      const url = yield* startMcp()
      const now = Math.floor(Date.now() / 1000)
      const claims = { iss: as.issuer, sub: "alice", aud: url, scope: "mcp:basic", exp: now + 7200 }
      const future = yield* Effect.promise(() => mintToken(as, { ...claims, iat: now + 3600 }))
      const refused = yield* post(url, request("tools/list"), future)
      assert.strictEqual(refused.status, 401)
      assert.include(refused.challenge, `error_description="The access token's iat claim is not acceptable"`)
      assert.strictEqual(refused.json.error_description, "The access token's iat claim is not acceptable")
      const skewed = yield* Effect.promise(() => mintToken(as, { ...claims, iat: now + 10 }))
      assert.strictEqual((yield* post(url, request("tools/list"), skewed)).status, 200)
      // A tolerance of its own: 10 s ahead is then too far.
      const strict = yield* startMcp({
        verifier: Authorization.jwt({ issuer: as.issuer, jwksUri: as.jwksUri, clockToleranceSeconds: 2 })
      })
      const strictSkewed = yield* Effect.promise(() => mintToken(as, { ...claims, aud: strict, iat: now + 10 }))
      assert.strictEqual((yield* post(strict, request("tools/list"), strictSkewed)).status, 401)
    }))

  it.live("a JWT whose sub is empty, not a string or absent: 401 invalid_token naming the sub claim", () =>
    Effect.gen(function*() {
      const url = yield* startMcp()
      const now = Math.floor(Date.now() / 1000)
      const claims = { iss: as.issuer, aud: url, scope: "mcp:basic", iat: now, exp: now + 600 }
      const subjects: Array<readonly [string, Record<string, unknown>]> = [
        ["empty", { sub: "" }],
        ["a number", { sub: 42 }],
        ["an object", { sub: { id: "alice" } }],
        ["an array", { sub: ["alice"] }],
        ["null", { sub: null }],
        ["absent", {}]
      ]
      for (const [what, sub] of subjects) {
        const bad = yield* Effect.promise(() => mintToken(as, { ...claims, ...sub } as Jose.JWTPayload))
        const refused = yield* post(url, request("tools/list"), bad)
        assert.strictEqual(refused.status, 401, what)
        assert.match(String(refused.challenge), /^Bearer error="invalid_token", /, what)
        assert.include(refused.challenge, `error_description="The access token's sub claim is not acceptable"`, what)
        assert.containSubset(refused.json, {
          error: "invalid_token",
          error_description: "The access token's sub claim is not acceptable"
        }, what)
      }
      const good = yield* Effect.promise(() => mintToken(as, { ...claims, sub: "alice" }))
      assert.strictEqual((yield* post(url, request("tools/list"), good)).status, 200)
    }))

  it.live("only HTTP: the 401 comes before any MCP check (no headers, no _meta)", () =>
    Effect.gen(function*() {
      const url = yield* startMcp()
      const response = yield* Effect.promise(() =>
        fetch(url, { method: "POST", body: "{}", headers: { "content-type": "application/json" } })
      )
      assert.strictEqual(response.status, 401)
      // Other methods too: nothing of the endpoint is served without a token.
      for (const method of ["GET", "DELETE", "PUT"]) {
        const other = yield* Effect.promise(() => fetch(url, { method, headers: { "mcp-session-id": "s" } }))
        assert.strictEqual(other.status, 401, method)
      }
      void ALL_CAPS
    }))
})
