/**
 * Streamable HTTP transport (MCP 2026-07-28, basic/transports/streamable-http)
 * against a real local `node:http` server: JSON and SSE answers, progress and
 * log notifications surfaced to the caller, the standard and `Mcp-Param-*`
 * headers, HTTP error statuses, and tools excluded for invalid
 * `x-mcp-header` annotations. Every test runs on both implementations:
 * `layerNode` (`node:http` driven directly) and `layer` on effect's
 * `NodeHttpClient`.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Ref, Stream, Tracer } from "effect"
import * as Http from "node:http"
import * as Https from "node:https"
import type { AddressInfo } from "node:net"
import { type ClientTransport, ClientTransport as ClientTransportService } from "../src/ClientTransport.ts"
import * as ElicitationHandler from "../src/ElicitationHandler.ts"
import * as Errors from "../src/Errors.ts"
import * as HttpTransport from "../src/HttpTransport.ts"
import { nodeSend } from "../src/internal/httpSend.ts"
import * as McpClient from "../src/McpClient.ts"
import { validateRequest } from "./fixtures.ts"
import * as tls from "./tls.ts"

interface Received {
  readonly headers: Http.IncomingHttpHeaders
  readonly body: Record<string, any>
}

type Respond = (body: Record<string, any>, res: Http.ServerResponse) => void

const json = (res: Http.ServerResponse, status: number, message: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(message))
}

const sse = (res: Http.ServerResponse, messages: ReadonlyArray<unknown>) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  // a retry directive and a comment, which the client must ignore
  res.write("retry: 1000\n: keep-alive\n\n")
  for (const message of messages) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
  res.end()
}

/** A local HTTP server on 127.0.0.1 (ephemeral port) answering with `respond`; closed with the scope. */
const serve = (respond: Respond) =>
  Effect.gen(function*() {
    const received: Array<Received> = []
    const connections = { count: 0 }
    const server = yield* Effect.acquireRelease(
      Effect.callback<Http.Server>((resume) => {
        const server = Http.createServer((req, res) => {
          let text = ""
          req.setEncoding("utf8")
          req.on("data", (chunk) => (text += chunk))
          req.on("end", () => {
            const body = JSON.parse(text)
            received.push({ headers: req.headers, body })
            respond(body, res)
          })
        })
        server.on("connection", () => connections.count++)
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const { port } = server.address() as AddressInfo
    return { url: `http://127.0.0.1:${port}/mcp`, received, connections }
  })

const tools = [
  {
    name: "weather",
    inputSchema: {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        days: { type: "integer", "x-mcp-header": "Days" }
      }
    }
  },
  {
    name: "bad_tool",
    inputSchema: { type: "object", properties: { score: { type: "number", "x-mcp-header": "Score" } } }
  }
]

/** Ids of requests whose response stream the client closed. */
const closed: Array<unknown> = []

const respond: Respond = (body, res) => {
  const id = body.id
  const params = body.params ?? {}
  switch (body.method) {
    case "tools/list":
      return json(res, 200, {
        jsonrpc: "2.0",
        id,
        result: { resultType: "complete", tools, ttlMs: 0, cacheScope: "private" }
      })
    case "tools/call":
      switch (params.name) {
        case "weather":
          if (params.inputResponses === undefined) {
            return sse(res, [
              {
                jsonrpc: "2.0",
                method: "notifications/progress",
                params: { progressToken: params._meta.progressToken ?? 0, progress: 1, total: 2 }
              },
              { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "looking outside" } },
              {
                jsonrpc: "2.0",
                id,
                result: {
                  resultType: "input_required",
                  inputRequests: {
                    unit: {
                      method: "elicitation/create",
                      params: {
                        message: "Unit?",
                        requestedSchema: { type: "object", properties: { unit: { type: "string" } } }
                      }
                    }
                  },
                  requestState: "st-1"
                }
              }
            ])
          }
          return json(res, 200, {
            jsonrpc: "2.0",
            id,
            result: {
              resultType: "complete",
              content: [{ type: "text", text: `sunny, in ${params.inputResponses.unit.content.unit}` }]
            }
          })
        case "mismatch":
          return json(res, 400, { jsonrpc: "2.0", id, error: { code: -32020, message: "Header mismatch: Mcp-Name" } })
        case "crash":
          res.writeHead(500, { "content-type": "text/plain" })
          return res.end("boom")
        case "hang":
          res.writeHead(200, { "content-type": "text/event-stream" })
          res.write(
            `data: ${
              JSON.stringify({
                jsonrpc: "2.0",
                method: "notifications/progress",
                params: { progressToken: 0, progress: 0 }
              })
            }\n\n`
          )
          res.on("close", () => closed.push(id))
          return
        case "accepted":
          res.writeHead(202)
          return res.end()
        case "silent": {
          // an SSE stream that never ends and never carries a message: comments only
          res.writeHead(200, { "content-type": "text/event-stream" })
          const timer = setInterval(() => res.write(": still here\n\n"), 50)
          res.on("close", () => (clearInterval(timer), closed.push(id)))
          return
        }
        case "trickle": {
          // a JSON body that trickles in, one byte at a time
          res.writeHead(200, { "content-type": "application/json" })
          const timer = setInterval(() => res.write(" "), 50)
          res.on("close", () => (clearInterval(timer), closed.push(id)))
          return
        }
        case "progress": {
          // progress every 50 ms; the response after `params.arguments.ms` (never when absent)
          res.writeHead(200, { "content-type": "text/event-stream" })
          let progress = 0
          const event = (message: unknown) => res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
          const timer = setInterval(() => {
            event({
              jsonrpc: "2.0",
              method: "notifications/progress",
              params: { progressToken: 7, progress: ++progress }
            })
            const ms = params.arguments?.ms
            if (typeof ms === "number" && progress * 50 >= ms) {
              clearInterval(timer)
              event({
                jsonrpc: "2.0",
                id,
                result: { resultType: "complete", content: [{ type: "text", text: `after ${progress}` }] }
              })
              res.end()
            }
          }, 50)
          res.on("close", () => clearInterval(timer))
          return
        }
        default:
          return json(res, 200, { jsonrpc: "2.0", id, result: { resultType: "complete", content: [] } })
      }
    default:
      return json(res, 404, {
        jsonrpc: "2.0",
        id,
        error: { code: -32601, message: `Method not found: ${body.method}` }
      })
  }
}

const user = ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ unit: "celsius" })) })

/** The two implementations of the transport. */
const transports: ReadonlyArray<readonly [string, (options: HttpTransport.Options) => Layer.Layer<ClientTransport>]> = [
  ["layerNode (node:http)", HttpTransport.layerNode],
  [
    "layer (effect's NodeHttpClient)",
    (options) =>
      HttpTransport.layer(options).pipe(Layer.provide(NodeHttpClient.layerNodeHttpOptions({ keepAlive: true })))
  ]
]

describe.each(transports)("HttpTransport, %s", (_name, transportOf) => {
  const withClient = <A, E>(
    url: string,
    body: Effect.Effect<A, E, McpClient.McpClient>,
    options: McpClient.Options = {}
  ) =>
    body.pipe(
      Effect.provide(
        McpClient.layer({ protocol: "2026-07-28", ...options }).pipe(
          Layer.provide(transportOf({ url })),
          Layer.provide(user)
        )
      )
    )

  it.live("JSON and SSE answers, MRTR over HTTP, standard and Mcp-Param headers", () =>
    Effect.gen(function*() {
      const { received, url } = yield* serve(respond)
      const result = yield* withClient(
        url,
        McpClient.McpClient.use((c) => c.callTool({ name: "weather", arguments: { region: "Zürich", days: 3 } }))
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "sunny, in celsius" }])
      // the first call learned the tools' x-mcp-header annotations from tools/list
      assert.deepStrictEqual(received.map((r) => r.body.method), ["tools/list", "tools/call", "tools/call"])
      for (const { body, headers } of received) {
        validateRequest(body)
        assert.strictEqual(headers["mcp-protocol-version"], "2026-07-28")
        assert.strictEqual(headers["mcp-method"], body.method)
        assert.strictEqual(headers["accept"], "application/json, text/event-stream")
        assert.include(headers["content-type"], "application/json")
      }
      const [, first, retry] = received
      assert.strictEqual(first!.headers["mcp-name"], "weather")
      assert.strictEqual(first!.headers["mcp-param-region"], `=?base64?${Buffer.from("Zürich").toString("base64")}?=`)
      assert.strictEqual(first!.headers["mcp-param-days"], "3")
      assert.strictEqual(retry!.headers["mcp-param-region"], first!.headers["mcp-param-region"])
      assert.strictEqual(retry!.body.params.requestState, "st-1")
      assert.notStrictEqual(retry!.body.id, first!.body.id)
    }))

  it.live("progress and log notifications on an SSE answer reach the caller", () =>
    Effect.gen(function*() {
      const { url } = yield* serve(respond)
      const seen = yield* Ref.make<ReadonlyArray<McpClient.Notification>>([])
      const fromStream = yield* withClient(
        url,
        Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const collector = yield* client.notifications.pipe(Stream.take(2), Stream.runCollect, Effect.forkChild)
          yield* Effect.sleep("10 millis")
          yield* client.callTool(
            { name: "weather", arguments: { region: "Oslo" } },
            { progressToken: "p-1", onNotification: (n) => Ref.update(seen, (all) => [...all, n]) }
          )
          return yield* Fiber.join(collector)
        })
      )
      const notifications = yield* Ref.get(seen)
      assert.deepStrictEqual(notifications.map((n) => n.method), ["notifications/progress", "notifications/message"])
      assert.deepStrictEqual(notifications[0]!.params, { progressToken: "p-1", progress: 1, total: 2 })
      assert.strictEqual(notifications[0]!.request?.method, "tools/call")
      assert.deepStrictEqual(fromStream.map((n) => n.method), ["notifications/progress", "notifications/message"])
    }))

  it.live("a 400 carrying a JSON-RPC error is an McpError; other statuses are TransportErrors", () =>
    Effect.gen(function*() {
      const { url } = yield* serve(respond)
      const [mismatch, crash, accepted, unknown] = yield* withClient(
        url,
        Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          return yield* Effect.all([
            Effect.flip(client.callTool({ name: "mismatch" })),
            Effect.flip(client.callTool({ name: "crash" })),
            Effect.flip(client.callTool({ name: "accepted" })),
            Effect.flip(client.listPrompts())
          ])
        })
      )
      assert.strictEqual(mismatch._tag, "McpError")
      if (mismatch._tag === "McpError") assert.strictEqual(mismatch.code, -32020)
      assert.strictEqual(crash._tag, "TransportError")
      if (crash._tag === "TransportError") assert.strictEqual(crash.status, 500)
      assert.strictEqual(accepted._tag, "TransportError")
      if (accepted._tag === "TransportError") assert.strictEqual(accepted.status, 202)
      assert.strictEqual(unknown._tag, "McpError")
      if (unknown._tag === "McpError") assert.strictEqual(unknown.code, -32601)
    }))

  it.live("tools with invalid x-mcp-header annotations are excluded and never called", () =>
    Effect.gen(function*() {
      const { received, url } = yield* serve(respond)
      const [listed, error] = yield* withClient(
        url,
        Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const listed = yield* client.listTools()
          const error = yield* Effect.flip(client.callTool({ name: "bad_tool", arguments: { score: 1.5 } }))
          return [listed, error] as const
        })
      )
      assert.deepStrictEqual(listed.tools.map((t) => t.name), ["weather"])
      assert.instanceOf(error, Errors.InvalidToolDefinition)
      assert.isFalse(received.some((r) => r.body.params?.name === "bad_tool"))
    }))

  it.live("interrupting a call closes its response stream (cancellation)", () =>
    Effect.gen(function*() {
      const { received, url } = yield* serve(respond)
      const outcome = yield* withClient(url, McpClient.McpClient.use((c) => c.callTool({ name: "hang" }))).pipe(
        Effect.timeoutOption("300 millis")
      )
      assert.strictEqual(outcome._tag, "None")
      const id = received.find((r) => r.body.params?.name === "hang")!.body.id
      for (let i = 0; i < 50 && !closed.includes(id); i++) yield* Effect.sleep("20 millis")
      assert.include(closed, id)
    }))

  it.live("an unreachable server is a TransportError that says the connection was refused", () =>
    Effect.gen(function*() {
      const error = yield* withClient("http://127.0.0.1:1/mcp", McpClient.McpClient.use((c) => c.listTools())).pipe(
        Effect.flip
      )
      assert.strictEqual(error._tag, "TransportError")
      assert.strictEqual(error.message, "connection refused: nothing listens at http://127.0.0.1:1/mcp")
    }))

  it.live("a 404 that is not JSON-RPC (a wrong path) says there is no MCP endpoint at this URL", () =>
    Effect.gen(function*() {
      for (
        const [type, body] of [["text/plain", "Not Found"], ["application/json", "{\"error\":\"not found\"}"], [
          undefined,
          ""
        ]]
      ) {
        const { url } = yield* serve((_body, res) => {
          res.writeHead(404, type === undefined ? {} : { "content-type": type })
          res.end(body)
        })
        const error = yield* withClient(url, McpClient.McpClient.use((c) => c.discover())).pipe(Effect.flip)
        assert.strictEqual(error._tag, "TransportError")
        assert.strictEqual(error.message, "no MCP endpoint at this URL (HTTP 404)", String(type))
      }
    }).pipe(Effect.scoped))

  it.live("keeps connections alive: one TCP connection for a whole multi-round conversation", () =>
    Effect.gen(function*() {
      const { connections, received, url } = yield* serve(respond)
      yield* withClient(
        url,
        Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          yield* client.listTools()
          yield* client.callTool({ name: "weather", arguments: { region: "north", days: 2 } })
          yield* client.callTool({ name: "weather", arguments: { region: "south", days: 1 } })
        })
      )
      assert.isAtLeast(received.length, 5)
      assert.strictEqual(connections.count, 1)
    }).pipe(Effect.scoped))

  it.live("a response whose body is not read (an endless error page) fails at once and its connection is closed", () =>
    Effect.gen(function*() {
      const sockets: Array<{ closed: boolean }> = []
      const { url } = yield* serve((_body, res) => {
        const socket = { closed: false }
        sockets.push(socket)
        res.socket?.on("close", () => (socket.closed = true))
        res.writeHead(500, { "content-type": "text/html" })
        res.write("<html>an error page that never ends")
      })
      // checked while the client (and its agent, which would close every socket) is still open
      yield* withClient(
        url,
        Effect.gen(function*() {
          const error = yield* McpClient.McpClient.use((c) => c.discover()).pipe(Effect.flip)
          assert.strictEqual(error._tag, "TransportError")
          assert.match(error.message, /content-type: text\/html/)
          yield* Effect.sleep("100 millis")
          assert.isAbove(sockets.length, 0)
          assert.isTrue(sockets.every((socket) => socket.closed))
        })
      )
    }).pipe(Effect.scoped))

  it.live("tracing: a request is a client span with traceparent only when a tracer records spans", () =>
    Effect.gen(function*() {
      const { received, url } = yield* serve(respond)
      const call = withClient(url, McpClient.McpClient.use((c) => c.listTools()))
      yield* call
      assert.isAbove(received.length, 0)
      assert.isTrue(received.every(({ headers }) => headers.traceparent === undefined))
      const names: Array<string> = []
      const recording = Tracer.make({
        span: (options) => {
          names.push(options.name)
          return Tracer.nativeTracer.span(options)
        }
      })
      const before = received.length
      yield* call.pipe(Effect.withTracer(recording))
      const traced = received.slice(before)
      assert.isAbove(traced.length, 0)
      assert.isTrue(
        traced.every(({ headers }) => /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/.test(String(headers.traceparent)))
      )
      assert.include(names.join(" "), "POST")
    }).pipe(Effect.scoped))

  it.live("a JSON body over maxBodyBytes is a TransportError, announced or streamed", () =>
    Effect.gen(function*() {
      const big = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "complete", tools: [], padding: "x".repeat(300_000) }
      })
      for (const chunked of [false, true]) {
        const { url } = yield* serve((_body, res) => {
          res.writeHead(
            200,
            chunked ? { "content-type": "application/json" } : {
              "content-type": "application/json",
              "content-length": String(Buffer.byteLength(big))
            }
          )
          res.end(big)
        })
        const error = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          return yield* Effect.flip(client.listTools())
        }).pipe(Effect.provide(
          McpClient.layer({ protocol: "2026-07-28" }).pipe(
            Layer.provide(transportOf({ url, maxBodyBytes: 100_000 }))
          )
        ))
        assert.strictEqual(error._tag, "TransportError")
        assert.match((error as { reason: string }).reason, /exceeds 100000 bytes/)
      }
    }).pipe(Effect.scoped))

  it.live("time bounds: a silent SSE stream and a trickling body end in RequestTimeout, and the request is closed", () =>
    Effect.gen(function*() {
      const { received, url } = yield* serve(respond)
      const fast = { requestTimeout: "300 millis" } as const
      for (const name of ["silent", "trickle"]) {
        const error = yield* withClient(url, McpClient.McpClient.use((c) => c.callTool({ name })), fast).pipe(
          Effect.flip,
          Effect.timeout("5 seconds")
        )
        assert.instanceOf(error, Errors.RequestTimeout, name)
        if (error instanceof Errors.RequestTimeout) {
          assert.strictEqual(error.bound, "request")
          assert.strictEqual(error.millis, 300)
          assert.match(error.message, /tools\/call: no answer from the server within 0\.3 seconds \(requestTimeout\)/)
        }
        const id = received.find((r) => r.body.params?.name === name)!.body.id
        for (let i = 0; i < 50 && !closed.includes(id); i++) yield* Effect.sleep("20 millis")
        assert.include(closed, id, `${name}: the request was not closed`)
      }
    }).pipe(Effect.scoped))

  it.live("time bounds: progress restarts the request bound; callTimeout bounds a call that reports progress forever", () =>
    Effect.gen(function*() {
      const { url } = yield* serve(respond)
      // 600 ms of progress every 50 ms, with a 300 ms request bound: completes
      const done = yield* withClient(
        url,
        McpClient.McpClient.use((c) => c.callTool({ name: "progress", arguments: { ms: 600 } })),
        { requestTimeout: "300 millis" }
      )
      assert.match(JSON.stringify(done.content), /after 12/)
      // progress forever: the whole-call bound ends it (per-call override of the client's option)
      const error = yield* withClient(
        url,
        McpClient.McpClient.use((c) => c.callTool({ name: "progress" }, { callTimeout: "700 millis" })),
        { requestTimeout: "300 millis" }
      ).pipe(Effect.flip, Effect.timeout("5 seconds"))
      assert.instanceOf(error, Errors.RequestTimeout)
      if (error instanceof Errors.RequestTimeout) {
        assert.strictEqual(error.bound, "call")
        assert.match(error.message, /tools\/call did not complete within 0\.7 seconds \(callTimeout\)/)
      }
    }).pipe(Effect.scoped))

  it.live("a reply cut off mid-body (JSON) or mid-stream (SSE, before the response) is a TransportError, not a hang", () =>
    Effect.gen(function*() {
      for (const type of ["application/json", "text/event-stream"]) {
        const { url } = yield* serve((body, res) => {
          if (body.method !== "tools/call") return respond(body, res)
          res.writeHead(200, {
            "content-type": type,
            ...(type === "application/json" ? { "content-length": "500" } : {})
          })
          res.write(type === "application/json" ? "{\"jsonrpc\":\"2.0\",\"id\":" : ": hello\n\n")
          setTimeout(() => res.socket?.destroy(), 20)
        })
        const error = yield* withClient(
          url,
          McpClient.McpClient.use((c) => c.callTool({ name: "weather", arguments: {} }))
        ).pipe(
          Effect.flip,
          Effect.timeout("5 seconds")
        )
        assert.strictEqual(error._tag, "TransportError", type)
      }
    }).pipe(Effect.scoped))

  it.live("closing the client closes its connections", () =>
    Effect.gen(function*() {
      // the server's side of every connection the client opened
      const sockets = new Set<import("node:net").Socket>()
      const { url } = yield* serve((body, res) => {
        sockets.add(res.socket!)
        respond(body, res)
      })
      yield* withClient(
        url,
        McpClient.McpClient.use((c) => c.callTool({ name: "weather", arguments: { region: "north" } }))
      )
      const allClosed = () => [...sockets].every((socket) => socket.destroyed)
      for (let i = 0; i < 50 && !allClosed(); i++) yield* Effect.sleep("20 millis")
      assert.isAbove(sockets.size, 0)
      assert.isTrue(allClosed(), "a keep-alive connection outlived the client")
    }).pipe(Effect.scoped))

  it.live("a server that holds a reply open (an error page announced but stalled, an SSE stream after its response) holds no call", () =>
    Effect.gen(function*() {
      const { url } = yield* serve((body, res) => {
        if (body.method === "tools/list") {
          res.writeHead(500, { "content-type": "text/html", "content-length": "1000" })
          return res.write("<html>....")
        }
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(
          `data: ${
            JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { resultType: "complete", content: [] } })
          }\n\n`
        )
        const timer = setInterval(() => res.write(": still here\n\n"), 50)
        res.on("close", () => clearInterval(timer))
      })
      yield* withClient(
        url,
        Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const t0 = Date.now()
          const error = yield* Effect.flip(client.listTools())
          assert.strictEqual(error._tag, "TransportError")
          assert.isBelow(Date.now() - t0, 1000, "the error page held the call")
          const t1 = Date.now()
          yield* client.callTool({ name: "any" })
          assert.isBelow(Date.now() - t1, 1000, "the open stream held the call")
        })
      )
    }).pipe(Effect.scoped))

  it.live("a JSON body with a byte order mark is read; a Latin-1 header value arrives as sent; a string that is no URL is a TransportError", () =>
    Effect.gen(function*() {
      const { received, url } = yield* serve((body, res) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          "\uFEFF" + JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { resultType: "complete", tools: [] } })
        )
      })
      const listed = yield* McpClient.McpClient.use((c) => c.listTools()).pipe(
        Effect.provide(
          McpClient.layer({ protocol: "2026-07-28" }).pipe(
            Layer.provide(transportOf({ url, headers: { "x-city": "Zürich" } }))
          )
        )
      )
      assert.deepStrictEqual(listed.tools, [])
      // node:http reads header bytes as Latin-1: UTF-8 bytes would arrive as "ZÃ¼rich"
      assert.strictEqual(received[0]!.headers["x-city"], "Zürich")
      const error = yield* McpClient.McpClient.use((c) => c.listTools()).pipe(
        Effect.provide(
          McpClient.layer({ protocol: "2026-07-28" }).pipe(Layer.provide(transportOf({ url: "not a url" })))
        ),
        Effect.flip
      )
      assert.strictEqual(error._tag, "TransportError")
    }).pipe(Effect.scoped))
})

describe("HttpTransport.layerNode", () => {
  it.live("a notification's 202, SSE answers and traced requests reuse one connection; an SSE answer that ends late holds nobody and is drained, not closed", () =>
    Effect.gen(function*() {
      let closedSockets = 0
      const { connections, url } = yield* serve((body, res) => {
        res.socket?.once("close", () => closedSockets++)
        if (body.id === undefined) {
          res.writeHead(202)
          return res.end()
        }
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(
          `data: ${JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { resultType: "complete", tools: [] } })}\n\n`
        )
        // the stream's end with the response, or a second after it
        if (body.params?.late === true) setTimeout(() => res.end(), 1000)
        else res.end()
      })
      const recording = Tracer.make({ span: (options) => Tracer.nativeTracer.span(options) })
      yield* Effect.gen(function*() {
        const transport = yield* ClientTransportService
        const ask = (id: number, late = false) =>
          Stream.runHead(transport.request({ jsonrpc: "2.0", id, method: "tools/list", params: { late } }, {})).pipe(
            Effect.map((answer) => answer._tag === "Some" ? (answer.value as { id: number }).id : undefined)
          )
        for (let id = 1; id <= 3; id++) {
          yield* transport.notify({ jsonrpc: "2.0", method: "notifications/initialized" }, {})
          assert.strictEqual(yield* ask(id), id)
        }
        // through effect's NodeHttpClient (a tracer records spans), on the same agent
        assert.strictEqual(yield* ask(4).pipe(Effect.withTracer(recording)), 4)
        assert.strictEqual(connections.count, 1)
        const t0 = Date.now()
        assert.strictEqual(yield* ask(5, true), 5)
        assert.isBelow(Date.now() - t0, 700, "the caller waited for the end of a stream that had carried its response")
        yield* Effect.sleep("1200 millis")
        assert.strictEqual(yield* ask(6), 6)
        assert.isAtMost(connections.count, 2)
        assert.strictEqual(closedSockets, 0, "a drained connection was closed")
      }).pipe(Effect.provide(HttpTransport.layerNode({ url })))
    }).pipe(Effect.scoped))

  it.live("https: a self-signed server is a TransportError; with an agent that trusts it, the call works", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(
        Effect.callback<Https.Server>((resume) => {
          const server = Https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
            let text = ""
            req.on("data", (chunk) => (text += chunk))
            req.on("end", () => respond(JSON.parse(text), res))
          })
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) =>
          Effect.callback<void>((resume) => {
            server.closeAllConnections()
            server.close(() => resume(Effect.void))
          })
      )
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
      const list = (options: HttpTransport.NodeOptions) =>
        McpClient.McpClient.use((c) => c.listTools()).pipe(
          Effect.provide(
            McpClient.layer({ protocol: "2026-07-28" }).pipe(Layer.provide(HttpTransport.layerNode(options)))
          )
        )
      const refused = yield* Effect.flip(list({ url }))
      assert.strictEqual(refused._tag, "TransportError")
      assert.match(refused.message, /^HTTP request to https:\/\/127\.0\.0\.1:\d+\/mcp failed/)
      const agent = new Https.Agent({ keepAlive: true, ca: tls.cert })
      yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
      const listed = yield* list({ url, agents: { https: agent } })
      assert.deepStrictEqual(listed.tools.map((t) => t.name), ["weather"])
    }).pipe(Effect.scoped))

  it.live("an invalid header value is a TransportError, not a throw", () =>
    Effect.gen(function*() {
      const { url } = yield* serve(respond)
      const error = yield* McpClient.McpClient.use((c) => c.listTools()).pipe(
        Effect.provide(
          McpClient.layer({ protocol: "2026-07-28" }).pipe(
            Layer.provide(HttpTransport.layerNode({ url, headers: { "x-bad": "a\nb" } }))
          )
        ),
        Effect.flip
      )
      assert.strictEqual(error._tag, "TransportError")
      // node's reason, in the message: which header, what is wrong with it
      assert.match(error.message, /Invalid character in header content \["x-bad"\]/)
    }).pipe(Effect.scoped))

  it.live("a reply cut off before its body was asked for fails text() at once", () =>
    Effect.gen(function*() {
      const { url } = yield* serve((_body, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": "500" })
        res.write("{\"jsonrpc\":\"2.0\",\"id\"")
        setTimeout(() => res.socket?.destroy(), 10)
      })
      const agent = new Http.Agent({ keepAlive: true })
      yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
      const send = nodeSend({ http: agent, https: new Https.Agent() }, url)
      const reply = yield* send({ method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
      yield* Effect.sleep("100 millis")
      const error = yield* reply.text(1_000_000).pipe(Effect.flip, Effect.timeout("2 seconds"))
      assert.strictEqual(error._tag, "TransportError")
    }).pipe(Effect.scoped))

  it.live("an invalid header value is a TransportError on the traced path too (a tracer that records spans)", () =>
    Effect.gen(function*() {
      const { url } = yield* serve(respond)
      const recording = Tracer.make({ span: (options) => Tracer.nativeTracer.span(options) })
      const error = yield* McpClient.McpClient.use((c) => c.listTools()).pipe(
        Effect.provide(
          McpClient.layer({ protocol: "2026-07-28" }).pipe(
            Layer.provide(HttpTransport.layerNode({ url, headers: { "x-bad": "a\r\nx-injected: 1" } }))
          )
        ),
        Effect.flip,
        Effect.withTracer(recording)
      )
      assert.strictEqual(error._tag, "TransportError")
      assert.match(error.message, /Invalid character in header content \["x-bad"\]/)
    }).pipe(Effect.scoped))
})

describe("HttpTransport: resuming an SSE stream", () => {
  it.live("a retry of 0 does not make the client reconnect in a tight loop (at least 100 ms between GETs)", () =>
    Effect.gen(function*() {
      let gets = 0
      // every reply (the POST's and each GET's) is one event with an id and `retry: 0`, then the end: never a response
      const server = yield* Effect.acquireRelease(
        Effect.callback<Http.Server>((resume) => {
          const server = Http.createServer((req, res) => {
            if (req.method === "GET") gets++
            req.resume()
            res.writeHead(200, { "content-type": "text/event-stream" })
            res.end(`id: e${gets}\nretry: 0\ndata: \n\n`)
          })
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) =>
          Effect.callback<void>((resume) => {
            server.closeAllConnections()
            server.close(() => resume(Effect.void))
          })
      )
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
      const error = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        return yield* Effect.flip(client.callTool({ name: "t" }))
      }).pipe(
        Effect.provide(
          McpClient.layer({ protocol: "2026-07-28", callTimeout: "600 millis" }).pipe(
            Layer.provide(HttpTransport.layerNode({ url }))
          )
        )
      )
      assert.strictEqual(error._tag, "RequestTimeout")
      // 600 ms at 100 ms or more apart (the listing of tools before the call resumes the same way)
      assert.isAtMost(gets, 8)
      assert.isAtLeast(gets, 1)
    }).pipe(Effect.scoped))
})
