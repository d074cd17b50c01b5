/**
 * Streamable HTTP transport (MCP 2026-07-28, basic/transports) over real
 * sockets: every status the transport produces, SSE framing, cancellation on
 * disconnect, DNS-rebinding protection, and that the server keeps serving
 * after each rejected request.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { METHOD_HEADER, PROTOCOL_VERSION_HEADER } from "@mrtr/protocol/Headers"
import { PROTOCOL_VERSION } from "@mrtr/protocol/Meta"
import { Cause, Context, Deferred, Effect, Exit, Layer, Logger, Stream } from "effect"
import { HttpMiddleware, HttpRouter, HttpServer, HttpServerRequest } from "effect/http"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import * as HttpTransport from "../src/HttpTransport.ts"
import { watchedCount } from "../src/internal/http/sseKeepAlive.ts"
import { McpHandler } from "../src/McpHandler.ts"
import type { Handler, Incoming, Reply, WireMessage } from "../src/Transport.ts"

// -----------------------------------------------------------------------------
// Fake dispatcher
// -----------------------------------------------------------------------------

const asRecord = (u: unknown): Record<string, unknown> => (typeof u === "object" && u !== null ? u as any : {})

/**
 * - notifications (no id) → Accepted
 * - "error" → -32601 with HTTP 404
 * - "stream" → a progress notification, then the response
 * - "hang" → a notification, then never ends; records its exit in `streamExit`
 * - "die" → a defect
 * - anything else → echo of params and of some headers
 */
const makeHandler = (streamExit?: Deferred.Deferred<Exit.Exit<unknown, unknown>>): Handler => ({
  handle: (incoming: Incoming): Effect.Effect<Reply> => {
    const message = asRecord(incoming.message)
    const id = message["id"]
    const method = message["method"]
    if (id === undefined) return Effect.succeed({ _tag: "Accepted" })
    const response = (result: unknown): WireMessage => ({ jsonrpc: "2.0", id, result })
    switch (method) {
      case "error":
        return Effect.succeed({
          _tag: "Response",
          message: { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found: error" } },
          httpStatus: 404
        })
      case "stream":
        return Effect.succeed({
          _tag: "Stream",
          messages: Stream.make<Array<WireMessage>>(
            { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
            response({ done: true }),
            // after the response: the transport must end the stream before this one
            { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "late" } }
          )
        })
      case "slow":
        // silent for 450 ms between its first message and its response
        return Effect.succeed({
          _tag: "Stream",
          messages: Stream.concat(
            Stream.make<Array<WireMessage>>({
              jsonrpc: "2.0",
              method: "notifications/progress",
              params: { progress: 0 }
            }),
            Stream.fromEffect(Effect.as(Effect.sleep("450 millis"), response({ done: true })))
          )
        })
      case "die":
        return Effect.die(new Error("boom"))
      case "hang":
        return Effect.succeed({
          _tag: "Stream",
          messages: Stream.concat(
            Stream.make<Array<WireMessage>>({
              jsonrpc: "2.0",
              method: "notifications/progress",
              params: { progress: 0 }
            }),
            Stream.never
          ).pipe(Stream.onExit((exit) => streamExit ? Deferred.succeed(streamExit, exit) : Effect.void))
        })
      default:
        return Effect.succeed({
          _tag: "Response",
          message: response({
            params: message["params"] ?? null,
            protocolVersion: incoming.headers?.("MCP-PROTOCOL-VERSION") ?? null,
            method: incoming.headers?.("mcp-method") ?? null,
            principal: incoming.principal ?? null
          }),
          httpStatus: 200
        })
    }
  }
})

/** Starts the transport on an ephemeral port for the duration of the test; returns the endpoint URL. */
const startServer = (
  options: HttpTransport.LayerOptions = {},
  handler: Handler = makeHandler()
): Effect.Effect<URL, unknown, import("effect").Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      HttpTransport.layer({ port: 0, gracefulShutdownTimeout: "1 second", ...options }).pipe(
        Layer.provide(Layer.succeed(McpHandler, handler))
      )
    )
    return new URL(Context.get(context, HttpTransport.HttpEndpoint).url)
  })

// -----------------------------------------------------------------------------
// Raw HTTP client (node:http: full control over Host, chunking, disconnects)
// -----------------------------------------------------------------------------

interface RawResponse {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

interface RawRequest {
  readonly method?: string
  readonly path?: string
  readonly headers?: Record<string, string>
  /** A string is sent with Content-Length; an array is sent chunked, one write per element. */
  readonly body?: string | ReadonlyArray<string>
}

const raw = (url: URL, request: RawRequest = {}): Effect.Effect<RawResponse> =>
  Effect.callback<RawResponse>((resume) => {
    const headers: Record<string, string> = { ...request.headers }
    if (typeof request.body === "string" && headers["content-length"] === undefined) {
      headers["content-length"] = String(Buffer.byteLength(request.body))
    }
    const req = Http.request({
      host: url.hostname,
      port: url.port,
      method: request.method ?? "POST",
      path: request.path ?? url.pathname,
      headers,
      agent: false
    }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, body })))
      res.on("error", (error) => resume(Effect.die(error)))
    })
    req.on("error", (error) => resume(Effect.die(error)))
    if (request.body === undefined) {
      req.end()
    } else if (typeof request.body === "string") {
      req.end(request.body)
    } else {
      for (const chunk of request.body) req.write(chunk)
      req.end()
    }
    return Effect.sync(() => req.destroy())
  })

/** A POST's transport headers and the era's version header (the fake dispatcher here reads nothing else). */
const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  [PROTOCOL_VERSION_HEADER]: PROTOCOL_VERSION
}

const post = (url: URL, message: unknown, headers: Record<string, string> = {}) =>
  raw(url, { body: JSON.stringify(message), headers: { ...MCP_HEADERS, ...headers } })

const echo = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo" } })

/** A normal request still succeeds: the server keeps serving after an error. */
const expectServing = (url: URL) =>
  Effect.gen(function*() {
    const res = yield* post(url, echo(99))
    assert.strictEqual(res.status, 200)
    assert.strictEqual(JSON.parse(res.body).id, 99)
  })

const expectJsonRpcError = (res: RawResponse, status: number, code: number) => {
  assert.strictEqual(res.status, status)
  assert.match(String(res.headers["content-type"]), /^application\/json/)
  const body = JSON.parse(res.body)
  assert.strictEqual(body.jsonrpc, "2.0")
  assert.strictEqual(body.error.code, code)
  assert.isString(body.error.message)
  assert.isFalse("id" in body, "transport-level errors carry no id")
}

const parseSse = (body: string): Array<{ event: string | undefined; data: unknown }> =>
  body.split("\n\n").filter((block) => block.trim() !== "").map((block) => {
    const lines = block.split("\n")
    const event = lines.find((l) => l.startsWith("event: "))?.slice(7)
    const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n")
    return { event, data: JSON.parse(data) }
  })

// -----------------------------------------------------------------------------
// Tests
// -----------------------------------------------------------------------------

describe("HttpTransport", () => {
  it.live("binds 127.0.0.1 and exposes the endpoint URL", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      assert.match(url.href, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      assert.notStrictEqual(url.port, "0")
    }))

  it.live("a port in use fails the layer with a ServeError that says where and why", () =>
    Effect.gen(function*() {
      const taken = yield* startServer()
      const exit = yield* Effect.exit(startServer({ port: Number(taken.port) }))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = Cause.squash(exit.cause) as { readonly _tag?: string; readonly message?: string }
        assert.strictEqual(error._tag, "ServeError")
        assert.strictEqual(error.message, `cannot listen on 127.0.0.1:${taken.port}: the port is in use (EADDRINUSE)`)
      }
    }))

  it.live("200: a Response reply is a JSON body with the reply's status; headers are case-insensitive", () =>
    Effect.gen(function*() {
      const url = yield* startServer({ principal: () => Effect.succeed("alice") })
      const res = yield* post(url, echo(1), {
        "content-type": "application/json; charset=utf-8",
        [METHOD_HEADER]: "tools/call"
      })
      assert.strictEqual(res.status, 200)
      assert.match(String(res.headers["content-type"]), /^application\/json/)
      assert.deepStrictEqual(JSON.parse(res.body), {
        jsonrpc: "2.0",
        id: 1,
        result: {
          params: { name: "echo" },
          protocolVersion: PROTOCOL_VERSION,
          method: "tools/call",
          principal: "alice"
        }
      })
    }))

  it.live("passes the dispatcher's error status through (404 for -32601)", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      const res = yield* post(url, { jsonrpc: "2.0", id: 2, method: "error", params: {} })
      assert.strictEqual(res.status, 404)
      assert.strictEqual(JSON.parse(res.body).error.code, -32601)
      yield* expectServing(url)
    }))

  it.live("200 with -32603 and the request id when the dispatcher dies (never a 5xx, see HttpStatus)", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      const res = yield* post(url, { jsonrpc: "2.0", id: 9, method: "die", params: {} })
      assert.strictEqual(res.status, 200)
      assert.deepStrictEqual(JSON.parse(res.body), {
        jsonrpc: "2.0",
        id: 9,
        error: { code: -32603, message: "Internal error" }
      })
      yield* expectServing(url)
    }).pipe(Effect.provide(Logger.layer([]))))

  it.live("202: a notification gets an empty 202", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      const res = yield* post(url, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } })
      assert.strictEqual(res.status, 202)
      assert.strictEqual(res.body, "")
    }))

  it.live("SSE: a Stream reply is text/event-stream, one `event: message` per message, ending at the response", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      const res = yield* post(url, { jsonrpc: "2.0", id: 3, method: "stream", params: {} })
      assert.strictEqual(res.status, 200)
      assert.match(String(res.headers["content-type"]), /^text\/event-stream/)
      const events = parseSse(res.body)
      assert.strictEqual(events.length, 2)
      assert.deepStrictEqual(events.map((e) => e.event), ["message", "message"])
      assert.strictEqual(asRecord(events[0]!.data)["method"], "notifications/progress")
      assert.deepStrictEqual(events[1]!.data, { jsonrpc: "2.0", id: 3, result: { done: true } })
    }))

  it.live("SSE keep-alive: a silent stream gets `: keep-alive` comments (sseKeepAlive), none with false", () =>
    Effect.gen(function*() {
      const blocks = (body: string) => body.split("\n\n").filter((block) => block !== "")
      const kept = yield* startServer({ sseKeepAlive: "100 millis" })
      const res = yield* post(kept, { jsonrpc: "2.0", id: 4, method: "slow", params: {} })
      assert.strictEqual(res.status, 200)
      const comments = blocks(res.body).filter((block) => block.startsWith(":"))
      assert.isAtLeast(comments.length, 2, res.body)
      assert.isAtMost(comments.length, 5, res.body)
      for (const comment of comments) assert.strictEqual(comment, ": keep-alive")
      // the events are untouched: the progress, then the response, which ends the stream
      const events = parseSse(blocks(res.body).filter((block) => !block.startsWith(":")).join("\n\n"))
      assert.deepStrictEqual(events.map((e) => asRecord(e.data)["method"] ?? asRecord(e.data)["id"]), [
        "notifications/progress",
        4
      ])
      const quiet = yield* startServer({ sseKeepAlive: false })
      const plain = yield* post(quiet, { jsonrpc: "2.0", id: 5, method: "slow", params: {} })
      assert.isFalse(plain.body.includes(": keep-alive"), plain.body)
      assert.strictEqual(parseSse(plain.body).length, 2)
      // the default (15 s) sends nothing on a stream that speaks in time
      const byDefault = yield* post(yield* startServer(), { jsonrpc: "2.0", id: 6, method: "slow", params: {} })
      assert.strictEqual(parseSse(byDefault.body).length, 2)
      for (const invalid of [0, -1, "forever", Number.POSITIVE_INFINITY, "60 days"]) {
        assert.throws(
          () => HttpTransport.handleRequest({ sseKeepAlive: invalid as any }),
          /sseKeepAlive must be a positive, finite duration of at most 2147483647 ms/
        )
      }
      assert.strictEqual(String(res.headers["cache-control"]), "no-cache, no-transform")
    }))

  it.live("SSE keep-alive: a stream the client abandons stops being watched at once, whatever the interval", () =>
    Effect.gen(function*() {
      const url = yield* startServer({ sseKeepAlive: "10 minutes" })
      const before = watchedCount()
      // 20 clients open a stream that never ends and go away while it waits
      yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) =>
          post(url, { jsonrpc: "2.0", id: 100 + i, method: "hang", params: {} }).pipe(
            Effect.timeout("150 millis"),
            Effect.ignore
          ),
        { concurrency: "unbounded" }
      )
      yield* Effect.sleep("200 millis")
      assert.strictEqual(watchedCount(), before)
    }))

  it.live("SSE keep-alive behind compression middleware: the stream is not encoded (no-transform) and stays parseable", () =>
    Effect.gen(function*() {
      const app = Layer.mergeAll(
        HttpTransport.routes({ sseKeepAlive: "50 millis" }),
        HttpRouter.middleware(HttpMiddleware.compression(), { global: true })
      ).pipe(Layer.provide(Layer.succeed(McpHandler, makeHandler())))
      const context = yield* Layer.build(
        HttpRouter.serve(app, { disableLogger: true, disableListenLog: true }).pipe(
          Layer.provideMerge(NodeHttpServer.layer(Http.createServer, { port: 0, host: "127.0.0.1" }))
        )
      )
      const url = new URL(`${HttpServer.formatAddress(Context.get(context, HttpServer.HttpServer).address)}/mcp`)
      const res = yield* post(url, { jsonrpc: "2.0", id: 7, method: "slow", params: {} }, { "accept-encoding": "gzip" })
      assert.strictEqual(res.status, 200)
      assert.isUndefined(res.headers["content-encoding"])
      const blocks = res.body.split("\n\n").filter((block) => block !== "")
      assert.isAtLeast(blocks.filter((block) => block === ": keep-alive").length, 2, res.body)
      assert.strictEqual(parseSse(blocks.filter((block) => !block.startsWith(":")).join("\n\n")).length, 2)
      // a large JSON answer is compressed: the middleware is at work
      const json = yield* post(url, { ...echo(8), params: { name: "echo", pad: "x".repeat(4096) } }, {
        "accept-encoding": "gzip"
      })
      assert.strictEqual(json.headers["content-encoding"], "gzip")
    }))

  it.live("no SSE for a client whose Accept lacks text/event-stream: the final response comes as JSON", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      const res = yield* post(url, { jsonrpc: "2.0", id: 4, method: "stream", params: {} }, {
        accept: "application/json"
      })
      assert.strictEqual(res.status, 200)
      assert.match(String(res.headers["content-type"]), /^application\/json/)
      assert.deepStrictEqual(JSON.parse(res.body), { jsonrpc: "2.0", id: 4, result: { done: true } })
    }))

  it.live("closing the SSE stream interrupts the reply stream (cancels the request)", () =>
    Effect.gen(function*() {
      const streamExit = yield* Deferred.make<Exit.Exit<unknown, unknown>>()
      const url = yield* startServer({}, makeHandler(streamExit))
      const firstEvent = yield* Effect.callback<string>((resume) => {
        const req = Http.request({
          host: url.hostname,
          port: url.port,
          method: "POST",
          path: url.pathname,
          headers: MCP_HEADERS,
          agent: false
        }, (res) => {
          res.setEncoding("utf8")
          res.once("data", (chunk: string) => {
            // Got the first event: hang up.
            req.destroy()
            resume(Effect.succeed(`${res.headers["content-type"]}|${chunk}`))
          })
        })
        req.on("error", () => {})
        req.end(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "hang", params: {} }))
      })
      assert.match(firstEvent, /^text\/event-stream\|event: message\ndata: /)
      const exit = yield* Deferred.await(streamExit).pipe(Effect.timeout("5 seconds"))
      assert.isTrue(Exit.hasInterrupts(exit), "the reply stream was interrupted")
      yield* expectServing(url)
    }))

  it.live("405 with Allow: POST for GET, DELETE and other methods on the endpoint", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      for (const method of ["GET", "DELETE", "PUT"]) {
        const res = yield* raw(url, { method, headers: { accept: "text/event-stream" } })
        assert.strictEqual(res.status, 405, method)
        assert.strictEqual(res.headers["allow"], "POST")
        yield* expectServing(url)
      }
    }))

  it.live("404 for other paths", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      const res = yield* raw(url, { path: "/other", body: JSON.stringify(echo(1)), headers: MCP_HEADERS })
      assert.strictEqual(res.status, 404)
      yield* expectServing(url)
    }))

  it.live("serves a configured path", () =>
    Effect.gen(function*() {
      const url = yield* startServer({ path: "/api/mcp" })
      assert.strictEqual(url.pathname, "/api/mcp")
      yield* expectServing(url)
      const res = yield* raw(url, { path: "/mcp", body: JSON.stringify(echo(1)), headers: MCP_HEADERS })
      assert.strictEqual(res.status, 404)
    }))

  it.live("415 when Content-Type is missing or not application/json", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      const body = JSON.stringify(echo(1))
      expectJsonRpcError(yield* raw(url, { body, headers: { accept: MCP_HEADERS.accept } }), 415, -32600)
      yield* expectServing(url)
      expectJsonRpcError(
        yield* raw(url, { body, headers: { ...MCP_HEADERS, "content-type": "text/plain" } }),
        415,
        -32600
      )
      yield* expectServing(url)
    }))

  const hasSs = (() => {
    try {
      ChildProcess.execFileSync("ss", ["-V"], { stdio: "ignore" })
      return true
    } catch {
      return false
    }
  })()

  /** The listen queue length the kernel holds for a listening port (`ss`'s Send-Q column). */
  const listenBacklog = (port: string) =>
    Effect.sync(() => {
      const line = ChildProcess.execFileSync("ss", ["-ltnH", `sport = :${port}`], { encoding: "utf8" }).trim()
      return Number(line.split(/\s+/)[2])
    })

  it.live.skipIf(!hasSs)(
    "the listen backlog is DEFAULT_BACKLOG (not Node's 511) and can be set",
    () =>
      Effect.gen(function*() {
        const somaxconn = Number(Fs.readFileSync("/proc/sys/net/core/somaxconn", "utf8"))
        const url = yield* startServer()
        assert.strictEqual(yield* listenBacklog(url.port), Math.min(HttpTransport.DEFAULT_BACKLOG, somaxconn))
        const small = yield* startServer({ backlog: 77 })
        assert.strictEqual(yield* listenBacklog(small.port), 77)
        assert.throws(() => HttpTransport.layer({ backlog: 0 }), /backlog must be a positive integer/)
      })
  )

  it.live("413 for a body with more JSON values than maxJsonValues, counted before parsing; strings are not counted", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      const wide: Record<string, number> = {}
      for (let i = 0; i < 250_000; i++) wide[`k${i}`] = 1
      const refused = yield* post(url, { ...echo(1), params: { name: "echo", arguments: wide } })
      expectJsonRpcError(refused, 413, -32600)
      assert.match(JSON.parse(refused.body).error.message, /more than 20000 JSON values/)
      yield* expectServing(url)
      // commas, brackets and escaped quotes inside strings are not values: a long string passes
      const text = "a,b,[c],{d}:\\\",".repeat(50_000)
      const ok = yield* post(url, { ...echo(2), params: { name: "echo", text } })
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(JSON.parse(ok.body).result.params.text, text)
      // the bound is an option
      const strict = yield* startServer({ maxJsonValues: 10 })
      expectJsonRpcError(
        yield* post(strict, { ...echo(3), params: { list: [1, 2, 3, 4, 5, 6, 7, 8, 9] } }),
        413,
        -32600
      )
      const fits = yield* post(strict, { ...echo(4), params: { list: [1, 2] } })
      assert.strictEqual(fits.status, 200)
      assert.throws(() => HttpTransport.layer({ maxJsonValues: 0 }), /maxJsonValues must be a positive integer/)
    }))

  it.live("413 when Content-Length exceeds maxBodyBytes (checked before reading)", () =>
    Effect.gen(function*() {
      const url = yield* startServer({ maxBodyBytes: 1024 })
      const big = JSON.stringify({ ...echo(1), params: { pad: "x".repeat(2000) } })
      expectJsonRpcError(yield* raw(url, { body: big, headers: MCP_HEADERS }), 413, -32600)
      yield* expectServing(url)
      // Announce 100 MB and send a few bytes: answered at once, without waiting for (or buffering) the body.
      const announced = yield* raw(url, {
        body: "{\"jsonrpc\":",
        headers: { ...MCP_HEADERS, "content-length": String(100 * 1024 * 1024) }
      }).pipe(Effect.timeout("5 seconds"))
      expectJsonRpcError(announced, 413, -32600)
      yield* expectServing(url)
    }))

  it.live("413 with Connection: close reaches a client that writes its whole body before reading (lingering close)", () =>
    Effect.gen(function*() {
      const url = yield* startServer({ maxBodyBytes: 1024 })
      // What Python's urllib / httpx do: send the headers and the whole body, only then read the answer.
      const writeAllThenRead = (size: number, chunked: boolean) =>
        Effect.callback<{ readonly writeError: string | undefined; readonly received: string }>((resume) => {
          const socket = Net.connect(Number(url.port), url.hostname)
          let received = ""
          let writeError: string | undefined
          const body = Buffer.alloc(size, "x")
          socket.on("connect", () => {
            const framing = chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${size}`
            socket.write(
              `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\nContent-Type: application/json\r\n` +
                `Accept: application/json, text/event-stream\r\n${framing}\r\n\r\n`
            )
            if (chunked) {
              for (let offset = 0; offset < size; offset += 65536) {
                const part = body.subarray(offset, offset + 65536)
                socket.write(`${part.length.toString(16)}\r\n`)
                socket.write(part)
                socket.write("\r\n")
              }
              socket.write("0\r\n\r\n")
            } else {
              socket.write(body)
            }
          })
          socket.on("data", (chunk) => (received += chunk.toString("utf8")))
          socket.on("error", (error) => (writeError ??= (error as NodeJS.ErrnoException).code ?? error.message))
          socket.on("close", () => resume(Effect.succeed({ writeError, received })))
          return Effect.sync(() => socket.destroy())
        }).pipe(Effect.timeout("10 seconds"))
      for (const chunked of [false, true]) {
        const outcome = yield* writeAllThenRead(8 * 1024 * 1024, chunked)
        assert.isUndefined(outcome.writeError, `chunked=${chunked}: the client's writes failed (${outcome.writeError})`)
        assert.match(outcome.received, /^HTTP\/1\.1 413 /, `chunked=${chunked}`)
        assert.match(outcome.received, /\r\nconnection: close\r\n/i)
        const body = JSON.parse(outcome.received.slice(outcome.received.indexOf("\r\n\r\n") + 4))
        assert.strictEqual(body.error.code, -32600)
      }
      yield* expectServing(url)
    }))

  it.live("the lingering close is bounded: a refused body that keeps trickling in has its connection closed", () =>
    Effect.gen(function*() {
      const url = yield* startServer({ maxBodyBytes: 1024 })
      const outcome = yield* Effect.callback<{ readonly received: string; readonly closed: boolean }>((resume) => {
        // half-open allowed: the client keeps sending after the server's FIN, only the server's bound ends it
        const socket = Net.connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true })
        let received = ""
        const timer = setInterval(() => socket.write("x".repeat(1000)), 20)
        socket.on("connect", () =>
          socket.write(
            `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\nContent-Type: application/json\r\n` +
              `Content-Length: ${100 * 1024 * 1024}\r\n\r\n`
          ))
        socket.on("data", (chunk) => (received += chunk.toString("utf8")))
        socket.on("error", () => {})
        socket.on("close", () => {
          clearInterval(timer)
          resume(Effect.succeed({ received, closed: true }))
        })
        return Effect.sync(() => {
          clearInterval(timer)
          socket.destroy()
        })
      }).pipe(Effect.timeout("8 seconds"))
      assert.isTrue(outcome.closed)
      assert.match(outcome.received, /^HTTP\/1\.1 413 /)
      yield* expectServing(url)
    }))

  it.live("413 for a chunked body without Content-Length once the bytes read exceed maxBodyBytes", () =>
    Effect.gen(function*() {
      const url = yield* startServer({ maxBodyBytes: 1024 })
      const chunks = [`{"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":"`, "x".repeat(600), "x".repeat(600), `"}}`]
      const res = yield* raw(url, { body: chunks, headers: MCP_HEADERS })
      expectJsonRpcError(res, 413, -32600)
      yield* expectServing(url)
      // A chunked body under the limit is fine.
      const ok = yield* raw(url, { body: [`{"jsonrpc":"2.0",`, `"id":7,"method":"tools/call"}`], headers: MCP_HEADERS })
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(JSON.parse(ok.body).id, 7)
    }))

  it.live("mounted with routes() among middleware that reads the body before or after it, all see the body; the cap holds", () =>
    Effect.gen(function*() {
      const before: Array<string> = []
      const after: Array<string> = []
      const readBody = (into: Array<string>) =>
        Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
          // (after the endpoint refused an oversized body, the body cannot be read: noted, not fatal)
          Effect.match(request.text, {
            onFailure: () => {
              into.push("(unreadable)")
            },
            onSuccess: (text) => {
              into.push(text)
            }
          }))
      // a global middleware that reads the whole body first (say, to check a signature over it),
      // and one that reads it after the endpoint answered (say, an audit log)
      const readsFirst = HttpRouter.middleware((httpEffect) => Effect.andThen(readBody(before), httpEffect), {
        global: true
      })
      const readsAfter = HttpRouter.middleware((httpEffect) => Effect.tap(httpEffect, () => readBody(after)), {
        global: true
      })
      const serveWith = (middleware: Layer.Layer<never, never, HttpRouter.HttpRouter>) =>
        Effect.gen(function*() {
          const app = Layer.mergeAll(HttpTransport.routes({ maxBodyBytes: 1024 }), middleware).pipe(
            Layer.provide(Layer.succeed(McpHandler, makeHandler()))
          )
          const context = yield* Layer.build(
            HttpRouter.serve(app, { disableLogger: true, disableListenLog: true }).pipe(
              Layer.provideMerge(NodeHttpServer.layer(Http.createServer, { port: 0, host: "127.0.0.1" }))
            )
          )
          return new URL(`${HttpServer.formatAddress(Context.get(context, HttpServer.HttpServer).address)}/mcp`)
        })
      const body = JSON.stringify({ ...echo(5), params: { name: "echo", chunked: true } })
      for (const middleware of [readsFirst, readsAfter]) {
        const url = yield* serveWith(middleware)
        for (const request of [{ body }, { body: [body.slice(0, 10), body.slice(10)] }]) {
          const res = yield* raw(url, { ...request, headers: MCP_HEADERS })
          assert.strictEqual(res.status, 200)
          assert.deepStrictEqual(JSON.parse(res.body).result.params, { name: "echo", chunked: true })
        }
        // a chunked body over the cap, read first by a middleware without one: still 413 at the endpoint
        const big = [`{"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":"`, "x".repeat(700), "x".repeat(700), `"}}`]
        expectJsonRpcError(yield* raw(url, { body: big, headers: MCP_HEADERS }), 413, -32600)
      }
      assert.deepStrictEqual(before.slice(0, 2), [body, body])
      assert.deepStrictEqual(after, [body, body, "(unreadable)"])
    }))

  it.live("Expect: 100-continue is answered, and a body after an Upgrade offer is read (HTTP/1.1 on a raw socket)", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      const body = JSON.stringify(echo(9))
      const head = (extra: string) =>
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\n${PROTOCOL_VERSION_HEADER}: ${PROTOCOL_VERSION}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n`
      /** Sends `head`, then the body once `ready(received)` holds; resolves with all received at close. */
      const exchange = (request: string, ready: (received: string) => boolean) =>
        Effect.callback<string>((resume) => {
          const socket = Net.connect(Number(url.port), url.hostname)
          let received = ""
          let sent = false
          const send = () => {
            if (!sent && ready(received)) {
              sent = true
              socket.write(body)
            }
          }
          socket.on("connect", () => {
            socket.write(request)
            send()
          })
          socket.on("data", (chunk) => {
            received += chunk.toString("utf8")
            send()
          })
          socket.on("close", () => resume(Effect.succeed(received)))
          socket.on("error", () => resume(Effect.succeed(received)))
          return Effect.sync(() => socket.destroy())
        }).pipe(Effect.timeout("5 seconds"))
      // a client that waits for "100 Continue" before sending its body
      const continued = yield* exchange(
        head("Expect: 100-continue\r\n"),
        (received) => received.includes("100 Continue")
      )
      assert.match(continued, /^HTTP\/1\.1 100 Continue/)
      assert.match(continued, /HTTP\/1\.1 200 OK/)
      assert.strictEqual(JSON.parse(continued.slice(continued.indexOf("\r\n\r\n{") + 4)).id, 9)
      // an h2c upgrade offer (what `curl --http2` sends) with a body: served as HTTP/1.1
      const upgraded = yield* exchange(
        head("Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n").replace(
          "Connection: close",
          "Connection: Upgrade, HTTP2-Settings, close"
        ),
        () => true
      )
      assert.match(upgraded, /^HTTP\/1\.1 200 OK/)
      assert.strictEqual(JSON.parse(upgraded.slice(upgraded.indexOf("\r\n\r\n") + 4)).id, 9)
      yield* expectServing(url)
    }))

  it.live("an Upgrade offer whose body never arrives is answered 408 and closed after requestTimeout", () =>
    Effect.gen(function*() {
      const url = yield* startServer({ requestTimeout: "1 second" })
      const started = Date.now()
      const received = yield* Effect.callback<string>((resume) => {
        const socket = Net.connect(Number(url.port), url.hostname)
        let text = ""
        socket.on("connect", () =>
          socket.write(
            `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\nContent-Type: application/json\r\n` +
              `Connection: Upgrade\r\nUpgrade: h2c\r\nContent-Length: 50\r\n\r\n{`
          ))
        socket.on("data", (chunk) => (text += chunk.toString("utf8")))
        socket.on("close", () => resume(Effect.succeed(text)))
        socket.on("error", () => resume(Effect.succeed(text)))
        return Effect.sync(() => socket.destroy())
      }).pipe(Effect.timeout("10 seconds"))
      const elapsed = Date.now() - started
      assert.match(received, /^HTTP\/1\.1 408/)
      assert.strictEqual(JSON.parse(received.slice(received.indexOf("\r\n\r\n") + 4)).error.code, -32600)
      assert.isAtLeast(elapsed, 900)
      assert.isBelow(elapsed, 5000)
      yield* expectServing(url)
    }))

  it("maxBodyBytes must be a non-negative integer (thrown when the endpoint is made)", () => {
    for (const maxBodyBytes of [1000.5, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => HttpTransport.routes({ maxBodyBytes }), /maxBodyBytes must be a non-negative integer/)
      assert.throws(() => HttpTransport.handleRequest({ maxBodyBytes }), /maxBodyBytes must be a non-negative integer/)
    }
  })

  it.live("400 with -32700 for a body that is not JSON (and for an empty body)", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      expectJsonRpcError(yield* raw(url, { body: "{not json", headers: MCP_HEADERS }), 400, -32700)
      yield* expectServing(url)
      expectJsonRpcError(yield* raw(url, { body: "", headers: MCP_HEADERS }), 400, -32700)
      yield* expectServing(url)
    }))

  it.live("403 for a foreign Origin; localhost origins on any port are allowed", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      expectJsonRpcError(yield* post(url, echo(1), { origin: "http://evil.example" }), 403, -32600)
      yield* expectServing(url)
      expectJsonRpcError(yield* post(url, echo(1), { origin: "null" }), 403, -32600)
      yield* expectServing(url)
      // The check runs before the method check.
      expectJsonRpcError(yield* raw(url, { method: "GET", headers: { origin: "http://evil.example" } }), 403, -32600)
      const ok = yield* post(url, echo(2), { origin: "http://localhost:5173" })
      assert.strictEqual(ok.status, 200)
    }))

  it.live("403 for a foreign Host (DNS rebinding); localhost on any port is allowed", () =>
    Effect.gen(function*() {
      const url = yield* startServer()
      expectJsonRpcError(yield* post(url, echo(1), { host: `evil.example:${url.port}` }), 403, -32600)
      yield* expectServing(url)
      const ok = yield* post(url, echo(2), { host: "LOCALHOST:1" })
      assert.strictEqual(ok.status, 200)
      const v6 = yield* post(url, echo(3), { host: `[::1]:${url.port}` })
      assert.strictEqual(v6.status, 200)
    }))

  it.live("allowedHosts / allowedOrigins are configurable, and \"*\" disables them", () =>
    Effect.gen(function*() {
      const custom = yield* startServer({
        allowedHosts: ["mcp.example.com"],
        allowedOrigins: ["https://app.example.com"]
      })
      assert.strictEqual((yield* post(custom, echo(1), { host: "mcp.example.com" })).status, 200)
      assert.strictEqual((yield* post(custom, echo(1))).status, 403) // 127.0.0.1 no longer listed
      assert.strictEqual(
        (yield* post(custom, echo(1), { host: "mcp.example.com", origin: "https://app.example.com:8443" })).status,
        200
      )
      assert.strictEqual(
        (yield* post(custom, echo(1), { host: "mcp.example.com", origin: "http://app.example.com" })).status,
        403
      )
      const open = yield* startServer({ allowedHosts: "*", allowedOrigins: "*" })
      assert.strictEqual(
        (yield* post(open, echo(1), { host: "anything.example", origin: "https://x.example" })).status,
        200
      )
    }))

  it.effect("toWebHandler serves the endpoint as a fetch handler", () =>
    Effect.gen(function*() {
      const { dispose, handler } = HttpTransport.toWebHandler(Layer.succeed(McpHandler, makeHandler()))
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      const response = yield* Effect.promise(() =>
        handler(
          new Request("http://localhost:3000/mcp", {
            method: "POST",
            headers: MCP_HEADERS,
            body: JSON.stringify(echo(8))
          })
        )
      )
      assert.strictEqual(response.status, 200)
      assert.strictEqual((yield* Effect.promise(() => response.json())).id, 8)
      const evil = yield* Effect.promise(() =>
        handler(new Request("http://evil.example/mcp", { method: "POST", headers: MCP_HEADERS, body: "{}" }))
      )
      assert.strictEqual(evil.status, 403)
    }))
})
