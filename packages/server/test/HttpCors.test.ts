/**
 * CORS on the Streamable HTTP transport, over real sockets against the real
 * server: off by default, preflights (methods, the protocol's request headers
 * with the `Mcp-Param-*` family reflected, max age, no credentials unless
 * configured), the headers of actual responses (JSON and SSE), disallowed
 * origins and hosts still `403`, and the same behaviour through `layer`,
 * `routes()` and `toWebHandler`. The browser's view is in
 * `HttpCors.browser.test.ts`.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { mcpHeaders } from "@mrtr/test-support/http"
import { validateWire } from "@mrtr/test-support/wire"
import { Context, Effect, Layer, type Scope } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as Http from "node:http"
import { HttpTransport } from "../src/index.ts"
import type { McpHandler } from "../src/McpHandler.ts"
import { request, serverLayer } from "./fixtures.ts"

const APP = "http://localhost:5173"

interface RawResponse {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** One request with node:http (full control over `Host` and `Origin`). */
const raw = (
  url: URL,
  options: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: string } = {}
): Effect.Effect<RawResponse> =>
  Effect.callback<RawResponse>((resume) => {
    const req = Http.request({
      host: url.hostname,
      port: url.port,
      method: options.method ?? "POST",
      path: url.pathname,
      headers: options.body === undefined
        ? options.headers
        : { ...options.headers, "content-length": String(Buffer.byteLength(options.body)) },
      agent: false
    }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, body })))
    })
    req.on("error", (error) => resume(Effect.die(error)))
    req.end(options.body)
    return Effect.sync(() => req.destroy())
  })

const preflight = (url: URL, origin: string, requestHeaders?: string, extra: Record<string, string> = {}) =>
  raw(url, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      ...(requestHeaders === undefined ? {} : { "access-control-request-headers": requestHeaders }),
      ...extra
    }
  })

const call = (
  url: URL,
  name: string,
  args: Record<string, unknown>,
  headers: Record<string, string> = {},
  meta: Record<string, unknown> = {}
) => {
  const message = request("tools/call", { name, arguments: args, _meta: meta })
  return raw(url, {
    body: JSON.stringify(message),
    headers: { ...mcpHeaders(message), accept: "application/json", ...headers }
  })
}

/** The comma-separated list of a header, lowercased. */
const list = (value: string | ReadonlyArray<string> | undefined): Array<string> =>
  value === undefined ? [] : String(value).split(",").map((s) => s.trim().toLowerCase()).filter((s) => s !== "")

const PROTOCOL_HEADERS = [
  "content-type",
  "accept",
  "authorization",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "mcp-session-id",
  "last-event-id"
]

const start = (options: HttpTransport.LayerOptions = {}): Effect.Effect<URL, never, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      HttpTransport.layer({ port: 0, gracefulShutdownTimeout: "1 second", ...options }).pipe(
        Layer.provide(serverLayer()),
        Layer.orDie
      )
    )
    return new URL(Context.get(context, HttpTransport.HttpEndpoint).url)
  })

const noCorsHeaders = (res: RawResponse) =>
  assert.deepStrictEqual(Object.keys(res.headers).filter((name) => name.startsWith("access-control-")), [])

/** The checks every mounting must pass: preflight 204, actual response headers, a foreign origin 403. */
const expectCorsEndpoint = (url: URL) =>
  Effect.gen(function*() {
    const pre = yield* preflight(url, APP, "content-type,mcp-protocol-version,mcp-method,mcp-name")
    assert.strictEqual(pre.status, 204)
    assert.strictEqual(pre.headers["access-control-allow-origin"], APP)
    const ok = yield* call(url, "greet", { greeting: "Hi" }, { origin: APP })
    assert.strictEqual(ok.status, 200)
    assert.strictEqual(ok.headers["access-control-allow-origin"], APP)
    assert.includeMembers(list(ok.headers["access-control-expose-headers"]), ["mcp-session-id", "www-authenticate"])
    validateWire("JSONRPCResultResponse", JSON.parse(ok.body))
    const evil = yield* preflight(url, "http://evil.example")
    assert.strictEqual(evil.status, 403)
    noCorsHeaders(evil)
  })

describe("HttpTransport CORS", () => {
  it.live("off by default: OPTIONS gets 405 and no response carries CORS headers", () =>
    Effect.gen(function*() {
      const url = yield* start()
      const pre = yield* preflight(url, APP, "content-type")
      assert.strictEqual(pre.status, 405)
      noCorsHeaders(pre)
      const ok = yield* call(url, "greet", { greeting: "Hi" }, { origin: APP })
      assert.strictEqual(ok.status, 200)
      noCorsHeaders(ok)
      validateWire("JSONRPCResultResponse", JSON.parse(ok.body))
    }))

  it.live("preflight: 204 for an allowed origin, reflected; POST, GET, DELETE; the protocol's headers; max age; no credentials", () =>
    Effect.gen(function*() {
      const url = yield* start({ cors: true })
      const res = yield* preflight(
        url,
        APP,
        "content-type,mcp-protocol-version,mcp-method,mcp-name,mcp-param-region,authorization"
      )
      assert.strictEqual(res.status, 204)
      assert.strictEqual(res.body, "")
      assert.strictEqual(res.headers["access-control-allow-origin"], APP)
      assert.includeMembers(list(res.headers["vary"]), ["origin", "access-control-request-headers"])
      assert.includeMembers(list(res.headers["access-control-allow-methods"]), ["post", "get", "delete"])
      assert.includeMembers(list(res.headers["access-control-allow-headers"]), [
        ...PROTOCOL_HEADERS,
        "mcp-param-region"
      ])
      assert.strictEqual(res.headers["access-control-max-age"], "600")
      assert.isUndefined(res.headers["access-control-allow-credentials"])
    }))

  it.live("preflight reflects only the requested Mcp-Param-* names, never other requested headers", () =>
    Effect.gen(function*() {
      const url = yield* start({ cors: true })
      const res = yield* preflight(url, APP, "mcp-param-a, Mcp-Param-Tenant-Id, x-evil, mcp-param-, cookie")
      assert.strictEqual(res.status, 204)
      const allowed = list(res.headers["access-control-allow-headers"])
      assert.includeMembers(allowed, ["mcp-param-a", "mcp-param-tenant-id", ...PROTOCOL_HEADERS])
      assert.notInclude(allowed, "x-evil")
      assert.notInclude(allowed, "cookie")
      assert.notInclude(allowed, "mcp-param-")
      // Nothing of the family requested: the fixed list only.
      const plain = yield* preflight(url, APP, "x-evil")
      assert.sameMembers(list(plain.headers["access-control-allow-headers"]), PROTOCOL_HEADERS)
    }))

  it.live("actual responses carry the origin and the exposed headers, JSON and SSE alike", () =>
    Effect.gen(function*() {
      const url = yield* start({ cors: true })
      const json = yield* call(url, "greet", { greeting: "Hi" }, { origin: APP })
      assert.strictEqual(json.status, 200)
      assert.strictEqual(json.headers["access-control-allow-origin"], APP)
      assert.include(list(json.headers["vary"]), "origin")
      assert.sameMembers(list(json.headers["access-control-expose-headers"]), ["mcp-session-id", "www-authenticate"])
      assert.isUndefined(json.headers["access-control-allow-credentials"])
      const body = JSON.parse(json.body)
      validateWire("JSONRPCResultResponse", body)
      assert.strictEqual(body.result.resultType, "input_required")

      const sse = yield* call(url, "progress", {}, { origin: APP, accept: "application/json, text/event-stream" }, {
        progressToken: "p1"
      })
      assert.strictEqual(sse.status, 200)
      assert.match(String(sse.headers["content-type"]), /^text\/event-stream/)
      assert.strictEqual(sse.headers["access-control-allow-origin"], APP)
      // Error responses too (the page must be able to read why).
      const wrong = yield* call(url, "greet", { greeting: "Hi" }, { origin: APP, "mcp-name": "other" })
      assert.strictEqual(wrong.status, 400)
      assert.strictEqual(wrong.headers["access-control-allow-origin"], APP)
      validateWire("JSONRPCErrorResponse", JSON.parse(wrong.body))
      // GET (a 2025-11-25 client's stream) is answered 405, readable by the page.
      const get = yield* raw(url, { method: "GET", headers: { origin: APP } })
      assert.strictEqual(get.status, 405)
      assert.strictEqual(get.headers["access-control-allow-origin"], APP)
    }))

  it.live("a disallowed origin or host still gets 403, on the preflight and the request, with no CORS headers", () =>
    Effect.gen(function*() {
      const url = yield* start({ cors: true })
      for (const origin of ["http://evil.example", "null", "http://localhost.evil.example:5173"]) {
        const pre = yield* preflight(url, origin, "content-type")
        assert.strictEqual(pre.status, 403, origin)
        noCorsHeaders(pre)
        validateWire("JSONRPCErrorResponse", JSON.parse(pre.body))
        const post = yield* call(url, "greet", { greeting: "Hi" }, { origin })
        assert.strictEqual(post.status, 403, origin)
        noCorsHeaders(post)
      }
      const rebound = yield* preflight(url, APP, "content-type", { host: `evil.example:${url.port}` })
      assert.strictEqual(rebound.status, 403)
      noCorsHeaders(rebound)
      // A configured list is the CORS list too.
      const custom = yield* start({ cors: true, allowedOrigins: ["https://app.example.com"] })
      assert.strictEqual((yield* preflight(custom, APP)).status, 403)
      const listed = yield* preflight(custom, "https://app.example.com")
      assert.strictEqual(listed.status, 204)
      assert.strictEqual(listed.headers["access-control-allow-origin"], "https://app.example.com")
    }))

  it.live("credentials, maxAge and extra headers are configurable; credentials with allowedOrigins \"*\" throws", () =>
    Effect.gen(function*() {
      const url = yield* start({
        cors: { credentials: true, maxAge: 0, allowedHeaders: ["X-Api-Key"], exposedHeaders: ["X-Trace"] }
      })
      const pre = yield* preflight(url, APP, "x-api-key")
      assert.strictEqual(pre.headers["access-control-allow-credentials"], "true")
      assert.isUndefined(pre.headers["access-control-max-age"])
      assert.include(list(pre.headers["access-control-allow-headers"]), "x-api-key")
      const ok = yield* call(url, "greet", { greeting: "Hi" }, { origin: APP })
      assert.strictEqual(ok.headers["access-control-allow-credentials"], "true")
      assert.include(list(ok.headers["access-control-expose-headers"]), "x-trace")

      const any = yield* start({ cors: true, allowedOrigins: "*" })
      const reflected = yield* preflight(any, "https://anything.example")
      assert.strictEqual(reflected.status, 204)
      assert.strictEqual(reflected.headers["access-control-allow-origin"], "https://anything.example")

      assert.throws(() => HttpTransport.layer({ cors: { credentials: true }, allowedOrigins: "*" }), /credentials/)
      assert.throws(() => HttpTransport.routes({ cors: { maxAge: -1 } }), /maxAge/)
      assert.throws(
        () => HttpTransport.toWebHandler(serverLayer(), { cors: { allowedHeaders: ["bad header"] } }),
        /allowedHeaders/
      )
    }))

  it.live("routes() in a user's router serves CORS the same way", () =>
    Effect.gen(function*() {
      const app = HttpRouter.serve(HttpTransport.routes({ cors: true }), {
        disableListenLog: true,
        disableLogger: true
      }).pipe(
        Layer.provideMerge(NodeHttpServer.layer(Http.createServer, { port: 0, host: "127.0.0.1" })),
        Layer.provide(serverLayer())
      )
      const context = yield* Layer.build(app).pipe(Effect.orDie)
      const server = Context.get(context, HttpServer.HttpServer)
      yield* expectCorsEndpoint(new URL(`${HttpServer.formatAddress(server.address)}/mcp`))
    }))

  it.live("toWebHandler serves CORS the same way", () =>
    Effect.gen(function*() {
      const web = HttpTransport.toWebHandler(serverLayer() as Layer.Layer<McpHandler>, { cors: true })
      yield* Effect.addFinalizer(() => Effect.promise(web.dispose))
      const fetchIt = (init: RequestInit) =>
        Effect.promise(() => web.handler(new Request("http://localhost:3000/mcp", init)))
      const pre = yield* fetchIt({
        method: "OPTIONS",
        headers: {
          origin: APP,
          "access-control-request-method": "POST",
          "access-control-request-headers": "mcp-param-x"
        }
      })
      assert.strictEqual(pre.status, 204)
      assert.strictEqual(pre.headers.get("access-control-allow-origin"), APP)
      assert.include(list(pre.headers.get("access-control-allow-headers") ?? undefined), "mcp-param-x")
      const message = request("tools/call", { name: "greet", arguments: { greeting: "Hi" } })
      const ok = yield* fetchIt({
        method: "POST",
        body: JSON.stringify(message),
        headers: { origin: APP, ...mcpHeaders(message), accept: "application/json" }
      })
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(ok.headers.get("access-control-allow-origin"), APP)
      validateWire("JSONRPCResultResponse", yield* Effect.promise(() => ok.json()))
      const evil = yield* fetchIt({ method: "OPTIONS", headers: { origin: "http://evil.example" } })
      assert.strictEqual(evil.status, 403)
      assert.isNull(evil.headers.get("access-control-allow-origin"))
    }))
})
