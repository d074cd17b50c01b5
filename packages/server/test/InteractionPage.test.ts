/**
 * The interaction page of `Elicitation.secure` over real HTTP on loopback:
 * the conversation (asked again while the page is not completed, completed
 * after), the page's headers (CSP, frame protection, no caching, no
 * referrer), CSRF (token and cookie, cross-site submits), server-side
 * validation with the form kept, single use, expiry, tampered ids, the
 * principal binding, and bad requests (methods, body type, size). Wire
 * messages are checked against the official JSON Schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { InvalidOption } from "@mrtr/core"
import { validateWire } from "@mrtr/test-support/wire"
import { Effect, Layer } from "effect"
import { InteractionPage, McpServer } from "../src/index.ts"
import { ACCEPT, callConnect, connect, startServer, URL_CAPS } from "./interactionFixtures.ts"

interface Page {
  readonly status: number
  readonly headers: Headers
  readonly html: string
}

const get = (url: string, headers: Record<string, string> = {}): Effect.Effect<Page> =>
  Effect.promise(async () => {
    const response = await fetch(url, { headers, redirect: "manual" })
    return { status: response.status, headers: response.headers, html: await response.text() }
  })

const post = (
  url: string,
  form: Record<string, string | ReadonlyArray<string>>,
  headers: Record<string, string> = {}
) =>
  Effect.promise(async (): Promise<Page> => {
    const body = new URLSearchParams()
    for (const [k, v] of Object.entries(form)) {
      for (const value of typeof v === "string" ? [v] : v) body.append(k, value)
    }
    const response = await fetch(url, {
      method: "POST",
      body: body.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      redirect: "manual"
    })
    return { status: response.status, headers: response.headers, html: await response.text() }
  })

/** The CSRF token of a form page, and the cookie the page set with it. */
const formSecrets = (page: Page) => {
  const token = /name="csrf" value="([^"]+)"/.exec(page.html)?.[1]
  const cookie = page.headers.get("set-cookie")?.split(";")[0]
  assert.isDefined(token)
  assert.isDefined(cookie)
  return { token: token!, cookie: cookie! }
}

/** Starts a conversation; returns the page URL and the state to retry with. */
const start = (mcp: string, args: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const first = yield* callConnect(mcp, { arguments: args }, headers)
    assert.strictEqual(first.status, 200)
    validateWire("JSONRPCResultResponse", first.message)
    validateWire("InputRequiredResult", first.message.result)
    const request = first.message.result.inputRequests.api_key
    validateWire("ElicitRequestURLParams", request.params)
    assert.strictEqual(request.params.message, "Paste your Acme API key")
    return { url: request.params.url as string, requestState: first.message.result.requestState as string, args }
  })

const checkSecurityHeaders = (page: Page) => {
  const csp = page.headers.get("content-security-policy") ?? ""
  assert.include(csp, "default-src 'none'")
  assert.include(csp, "frame-ancestors 'none'")
  assert.include(csp, "form-action 'self'")
  assert.notInclude(csp, "unsafe-inline")
  assert.notInclude(csp, "script-src")
  assert.strictEqual(page.headers.get("x-frame-options"), "DENY")
  assert.strictEqual(page.headers.get("cache-control"), "no-store")
  assert.strictEqual(page.headers.get("referrer-policy"), "same-origin")
  assert.strictEqual(page.headers.get("x-content-type-options"), "nosniff")
  assert.match(page.headers.get("content-type") ?? "", /^text\/html/)
}

describe("InteractionPage over HTTP", () => {
  it.live("a conversation retried before the page is completed is asked again, then completes with the value", () =>
    Effect.scoped(Effect.gen(function*() {
      const mcp = yield* startServer()
      const { requestState, url } = yield* start(mcp)
      assert.match(url, new RegExp(`^${new URL(mcp).origin}/mrtr/interactions/[A-Za-z0-9_-]{43}$`))

      // consented, not completed: the same URL elicitation again
      const early = yield* callConnect(mcp, { inputResponses: ACCEPT, requestState })
      validateWire("InputRequiredResult", early.message.result)
      assert.strictEqual(early.message.result.inputRequests.api_key.params.url, url)

      const page = yield* get(url)
      assert.strictEqual(page.status, 200)
      checkSecurityHeaders(page)
      assert.include(page.html, "Acme Connector", "the server's name")
      assert.include(page.html, "Paste your Acme API key", "the message")
      assert.include(page.html, "API key")
      assert.include(page.html, "Starts with sk-")
      assert.include(page.html, `type="password"`)
      assert.include(page.html, `<option value="eu">eu</option>`)
      assert.notInclude(page.html, "<script")
      const setCookie = page.headers.get("set-cookie") ?? ""
      assert.include(setCookie, "HttpOnly")
      assert.include(setCookie, "SameSite=Strict")
      const { cookie, token } = formSecrets(page)

      const done = yield* post(url, { csrf: token, api_key: "sk-12345678", region: "us", alerts: ["false", "true"] }, {
        cookie
      })
      assert.strictEqual(done.status, 200)
      checkSecurityHeaders(done)
      assert.include(done.html, "go back to your app")

      const again = yield* post(url, { csrf: token, api_key: "sk-other-key", region: "eu" }, { cookie })
      assert.strictEqual(again.status, 409, "the page is single use")
      assert.include(again.html, "already submitted")

      const final = yield* callConnect(mcp, { inputResponses: ACCEPT, requestState: early.message.result.requestState })
      validateWire("CallToolResult", final.message.result)
      assert.deepStrictEqual(final.message.result.content, [
        { type: "text", text: "connected to us with a key of 11 characters, alerts on" }
      ])
      assert.notInclude(JSON.stringify(final.message), "sk-12345678", "the secret never reaches the client")
      assert.notInclude(JSON.stringify(early.message), "sk-12345678")

      const after = yield* get(url)
      assert.strictEqual(after.status, 409)
    })))

  it.live("invalid input shows the reasons and keeps the form (secrets not echoed)", () =>
    Effect.scoped(Effect.gen(function*() {
      const mcp = yield* startServer()
      const { url } = yield* start(mcp)
      const page = yield* get(url)
      const { cookie, token } = formSecrets(page)
      const bad = yield* post(url, { csrf: token, api_key: "short", region: "mars" }, { cookie })
      assert.strictEqual(bad.status, 400)
      checkSecurityHeaders(bad)
      assert.include(bad.html, "role=\"alert\"")
      assert.include(bad.html, "&quot;API key&quot; must be at least 8 characters")
      assert.include(bad.html, "&quot;Region&quot; must be one of")
      assert.include(bad.html, `<form method="post" novalidate>`)
      assert.notInclude(bad.html, "short", "a secret field is not sent back")
      const missing = yield* post(url, { csrf: token, region: "eu" }, { cookie })
      assert.strictEqual(missing.status, 400)
      assert.include(missing.html, "&quot;API key&quot; is required")
      assert.include(missing.html, `<option value="eu" selected>`, "the other values are kept")
      const ok = yield* post(url, { csrf: token, api_key: "sk-12345678", region: "eu" }, { cookie })
      assert.strictEqual(ok.status, 200)
    })))

  it.live("CSRF: a submit without the cookie, with another token, or from another site is refused", () =>
    Effect.scoped(Effect.gen(function*() {
      const mcp = yield* startServer()
      const { url } = yield* start(mcp)
      const { cookie, token } = formSecrets(yield* get(url))
      const values = { api_key: "sk-12345678", region: "eu" }
      const noCookie = yield* post(url, { csrf: token, ...values })
      assert.strictEqual(noCookie.status, 403)
      assert.include(noCookie.html, "could not be verified")
      const noToken = yield* post(url, values, { cookie })
      assert.strictEqual(noToken.status, 403)
      const otherToken = yield* post(url, { csrf: "A".repeat(43), ...values }, {
        cookie: "mrtr_csrf=" + "A".repeat(43)
      })
      assert.strictEqual(otherToken.status, 403)
      const crossOrigin = yield* post(url, { csrf: token, ...values }, { cookie, origin: "https://evil.example.com" })
      assert.strictEqual(crossOrigin.status, 403)
      const crossSite = yield* post(url, { csrf: token, ...values }, { cookie, "sec-fetch-site": "cross-site" })
      assert.strictEqual(crossSite.status, 403)
      const sameOrigin = yield* post(url, { csrf: token, ...values }, { cookie, origin: new URL(mcp).origin })
      assert.strictEqual(sameOrigin.status, 200, "the real form still works after the refused attempts")
    })))

  it.live("a tampered or malformed id is refused; an expired page says so and the retry fails as the tool's error", () =>
    Effect.scoped(Effect.gen(function*() {
      const mcp = yield* startServer()
      const { url } = yield* start(mcp)
      const id = url.slice(url.lastIndexOf("/") + 1)
      const tampered = url.slice(0, -id.length) + (id[0] === "A" ? "B" : "A") + id.slice(1)
      const bad = yield* get(tampered)
      assert.strictEqual(bad.status, 404)
      checkSecurityHeaders(bad)
      assert.include(bad.html, "not valid")
      assert.strictEqual((yield* get(url.slice(0, -id.length) + "short")).status, 404)
      assert.strictEqual((yield* get(url.slice(0, -id.length) + "%3Cscript%3E")).status, 404)
      assert.strictEqual((yield* post(tampered, { csrf: "x" })).status, 404)

      const short = yield* start(mcp, { ttlMs: 200 })
      const { cookie, token } = formSecrets(yield* get(short.url))
      yield* Effect.sleep("300 millis")
      const expiredGet = yield* get(short.url)
      assert.strictEqual(expiredGet.status, 410)
      assert.include(expiredGet.html, "expired")
      const expiredPost = yield* post(short.url, { csrf: token, api_key: "sk-12345678", region: "eu" }, { cookie })
      assert.strictEqual(expiredPost.status, 410)
      const retry = yield* callConnect(mcp, {
        arguments: short.args,
        inputResponses: ACCEPT,
        requestState: short.requestState
      })
      validateWire("CallToolResult", retry.message.result)
      assert.isTrue(retry.message.result.isError)
      assert.include(retry.message.result.content[0].text, "expired")
    })))

  it.live("with authorization on, only the conversation's user may complete the page", () =>
    Effect.scoped(Effect.gen(function*() {
      const mcp = yield* startServer(
        { principal: (request) => Effect.succeed(request.cookies["user"]) },
        { principal: (request) => Effect.succeed(request.headers["x-user"]) }
      )
      const { url } = yield* start(mcp, {}, { "x-user": "alice" })
      const anonymous = yield* get(url)
      assert.strictEqual(anonymous.status, 403)
      assert.include(anonymous.html, "another user")
      assert.strictEqual((yield* get(url, { cookie: "user=bob" })).status, 403)
      const alice = yield* get(url, { cookie: "user=alice" })
      assert.strictEqual(alice.status, 200)
      const { cookie, token } = formSecrets(alice)
      const asBob = yield* post(url, { csrf: token, api_key: "sk-12345678", region: "eu" }, {
        cookie: `${cookie}; user=bob`
      })
      assert.strictEqual(asBob.status, 403)
      const asAlice = yield* post(url, { csrf: token, api_key: "sk-12345678", region: "eu" }, {
        cookie: `${cookie}; user=alice`
      })
      assert.strictEqual(asAlice.status, 200)
    })))

  it.live("no way to verify who opens the page: the secure ask is refused (-32603 naming the fix), no page is made", () =>
    Effect.scoped(Effect.gen(function*() {
      // authorization off and no single-user acknowledgement: an attacker's link would be answered by its victim
      const open = yield* startServer({ singleUser: false })
      const refused = yield* callConnect(open)
      validateWire("JSONRPCErrorResponse", refused.message)
      assert.strictEqual(refused.message.error.code, -32603)
      assert.include(refused.message.error.message, "not authenticated")
      assert.include(refused.message.error.message, "singleUser: true")
      assert.notInclude(JSON.stringify(refused.message), "/mrtr/interactions/")
      // an authenticated conversation, but a page that cannot tell who opens it: nobody could complete it
      const blind = yield* startServer({}, { principal: (request) => Effect.succeed(request.headers["x-user"]) })
      const unidentified = yield* callConnect(blind, {}, { "x-user": "alice" })
      assert.strictEqual(unidentified.message.error.code, -32603)
      assert.include(unidentified.message.error.message, "give InteractionPage.layer a principal")
    })))

  it.live("other methods, other body types and oversized bodies get 405, 415 and 413", () =>
    Effect.scoped(Effect.gen(function*() {
      const mcp = yield* startServer({ maxBodyBytes: 1024 })
      const { url } = yield* start(mcp)
      const { cookie, token } = formSecrets(yield* get(url))
      const put = yield* Effect.promise(() => fetch(url, { method: "PUT", body: "x" }))
      assert.strictEqual(put.status, 405)
      assert.strictEqual(put.headers.get("allow"), "GET, POST")
      const json = yield* Effect.promise(() =>
        fetch(url, { method: "POST", body: "{}", headers: { "content-type": "application/json", cookie } })
      )
      assert.strictEqual(json.status, 415)
      const large = yield* post(url, { csrf: token, api_key: "x".repeat(4096), region: "eu" }, { cookie })
      assert.strictEqual(large.status, 413)
      const ok = yield* post(url, { csrf: token, api_key: "sk-12345678", region: "eu" }, { cookie })
      assert.strictEqual(ok.status, 200, "the page still works")
    })))

  it.effect("refuses a publicBaseUrl that is not an absolute http(s) URL: the layer fails with InvalidOption", () =>
    Effect.gen(function*() {
      for (const publicBaseUrl of ["mcp.example.com", "ftp://mcp.example.com"]) {
        const error = yield* Effect.flip(Layer.build(InteractionPage.layer({ publicBaseUrl })))
        assert.instanceOf(error, InvalidOption)
        assert.match(error.message, /publicBaseUrl must be an absolute http: or https: URL/)
      }
    }).pipe(Effect.scoped))

  it.live("behind a proxy, the page URL uses publicBaseUrl", () =>
    Effect.scoped(Effect.gen(function*() {
      const mcp = yield* startServer({ publicBaseUrl: "https://mcp.example.com/acme/" })
      const { url } = yield* start(mcp)
      assert.match(url, /^https:\/\/mcp\.example\.com\/acme\/mrtr\/interactions\/[A-Za-z0-9_-]{43}$/)
      // the proxy strips /acme: the page is served on the same path locally
      const local = `${new URL(mcp).origin}/mrtr/interactions/${url.slice(url.lastIndexOf("/") + 1)}`
      const page = yield* get(local)
      assert.strictEqual(page.status, 200)
      assert.include(page.headers.get("set-cookie") ?? "", "Secure")
      const id = url.slice(url.lastIndexOf("/") + 1)
      assert.include(
        page.headers.get("set-cookie") ?? "",
        `Path=/acme/mrtr/interactions/${id};`,
        "the cookie's path is the public one"
      )
      assert.include(page.html, `<form method="post" novalidate>`, "the form posts to the page's own (public) URL")
      const { cookie, token } = formSecrets(page)
      const wrongOrigin = yield* post(local, { csrf: token, api_key: "sk-12345678", region: "eu" }, {
        cookie,
        origin: new URL(mcp).origin
      })
      assert.strictEqual(wrongOrigin.status, 403, "the public origin is the only allowed one")
    })))
})

describe("InteractionPage.serve (a server whose MCP transport is not HTTP)", () => {
  it.live("serves the pages on a port of their own; the in-process conversation completes with the value", () =>
    Effect.scoped(Effect.gen(function*() {
      const interactions = InteractionPage.layer({ singleUser: true })
      const server = McpServer.tools(connect).pipe(
        Layer.provide(interactions),
        Layer.provideMerge(McpServer.layer({ name: "stdio-acme", version: "1.0.0" }))
      )
      // the page reads the server's name from McpServer when it is there
      const context = yield* Layer.build(
        InteractionPage.serve({ port: 0 }).pipe(Layer.provide(interactions), Layer.provideMerge(server), Layer.orDie)
      )
      const handle = (params: Record<string, unknown>) =>
        McpServer.McpServer.use((server) => server.handle({ message: rpc(params) })).pipe(
          Effect.provide(context),
          Effect.map((reply) => (reply as { message: any }).message)
        )
      const first = yield* handle({})
      validateWire("InputRequiredResult", first.result)
      const url: string = first.result.inputRequests.api_key.params.url
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mrtr\/interactions\/[A-Za-z0-9_-]{43}$/)
      const page = yield* get(url)
      assert.strictEqual(page.status, 200)
      assert.include(page.html, "stdio-acme")
      const { cookie, token } = formSecrets(page)
      assert.strictEqual(
        (yield* post(url, { csrf: token, api_key: "sk-12345678", region: "eu" }, { cookie })).status,
        200
      )
      const done = yield* handle({ inputResponses: ACCEPT, requestState: first.result.requestState })
      validateWire("CallToolResult", done.result)
      assert.deepStrictEqual(done.result.content, [{
        type: "text",
        text: "connected to eu with a key of 11 characters"
      }])
      assert.strictEqual((yield* get(`${new URL(url).origin}/mcp`)).status, 404, "only the pages are served there")
    })))
})

let rpcId = 1
const rpc = (params: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: rpcId++,
  method: "tools/call",
  params: {
    name: "connect",
    arguments: {},
    ...params,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": URL_CAPS
    }
  }
})
