/**
 * `protocol: "auto"`: the era is told from the `server/discover` probe by the
 * spec's dual-era rule, against a `node:http` server on 127.0.0.1 that
 * answers the probe each way a server can: a `DiscoverResult`, the modern
 * errors -32020 / -32021 / -32022 (HTTP 400), other errors, a result that is
 * no `DiscoverResult`, an HTTP 4xx without JSON-RPC, 401, 5xx. A legacy
 * verdict then sends `initialize`; an `initialize` refused as a modern-only
 * server refuses it falls back to 2026-07-28. The verdict is kept: one probe
 * per connection. Pinned protocols send no probe.
 * Source: MCP 2026-07-28, basic/versioning, basic/transports/streamable-http
 * (backward compatibility).
 */
import { assert, describe, it } from "@effect/vitest"
import { validateWire } from "@mrtr/test-support/wire"
import { Effect, Layer, Logger, Stream } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as ClientTransport from "../src/ClientTransport.ts"
import * as HttpTransport from "../src/HttpTransport.ts"
import * as McpClient from "../src/McpClient.ts"

type ProbeAnswer = { readonly status: number; readonly body?: unknown; readonly contentType?: string }

const rpcError = (code: number, data?: unknown) => ({
  jsonrpc: "2.0",
  id: null,
  error: { code, message: `error ${code}`, ...(data === undefined ? {} : { data }) }
})

const discoverResult = (supportedVersions: ReadonlyArray<string>) => ({
  resultType: "complete",
  ttlMs: 0,
  cacheScope: "private",
  supportedVersions,
  capabilities: { tools: {} },
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } }
})

/**
 * A server answering `server/discover` with `probe`, `initialize` with
 * `initialize` (a valid 2025-11-25 result by default), and `tools/list`
 * with an empty list in either era's shape.
 */
const serve = (probe: ProbeAnswer, initialize?: ProbeAnswer) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly methods: Array<string>; readonly server: Http.Server }>(
      (resume) => {
        const methods: Array<string> = []
        const server = Http.createServer((req, res) => {
          if (req.method !== "POST") {
            res.writeHead(405).end()
            return
          }
          let text = ""
          req.setEncoding("utf8")
          req.on("data", (chunk) => (text += chunk))
          req.on("end", () => {
            const body = JSON.parse(text)
            if (typeof body.method === "string") methods.push(body.method)
            const send = (answer: ProbeAnswer) => {
              if (answer.body === undefined) {
                res.writeHead(answer.status).end()
                return
              }
              const message = typeof answer.body === "object" && answer.body !== null && "error" in answer.body
                ? { ...answer.body, id: body.id }
                : answer.body
              res.writeHead(answer.status, { "content-type": answer.contentType ?? "application/json" })
              res.end(typeof message === "string" ? message : JSON.stringify(message))
            }
            switch (body.method) {
              case "server/discover":
                if (typeof probe.body === "object" && probe.body !== null && "result" in probe.body) {
                  res.writeHead(probe.status, { "content-type": "application/json" })
                  res.end(JSON.stringify({ ...(probe.body as object), id: body.id }))
                  return
                }
                return send(probe)
              case "initialize":
                if (initialize !== undefined) return send(initialize)
                res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" })
                res.end(JSON.stringify({
                  jsonrpc: "2.0",
                  id: body.id,
                  result: {
                    protocolVersion: "2025-11-25",
                    capabilities: { tools: {} },
                    serverInfo: { name: "l", version: "1" }
                  }
                }))
                return
              case "notifications/initialized":
                res.writeHead(202).end()
                return
              case "tools/list":
                res.writeHead(200, { "content-type": "application/json" })
                res.end(JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { tools: [] } }))
                return
              default:
                res.writeHead(202).end()
            }
          })
        })
        server.listen(0, "127.0.0.1", () =>
          resume(
            Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, methods, server })
          ))
      }
    ),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const connect = (url: string, options: McpClient.Options = {}) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const connection = yield* client.connection
    yield* client.listTools()
    yield* client.listTools()
    return connection
  }).pipe(Effect.provide(McpClient.layer(options).pipe(Layer.provide(HttpTransport.layerNode({ url })))))

const cases: ReadonlyArray<readonly [string, ProbeAnswer, "2026-07-28" | "2025-11-25"]> = [
  ["a DiscoverResult listing 2026-07-28", {
    status: 200,
    body: { jsonrpc: "2.0", result: discoverResult(["2026-07-28"]) }
  }, "2026-07-28"],
  ["-32020 (HeaderMismatch), HTTP 400", { status: 400, body: rpcError(-32020) }, "2026-07-28"],
  ["-32021 (MissingRequiredClientCapability), HTTP 400", {
    status: 400,
    body: rpcError(-32021, { requiredCapabilities: {} })
  }, "2026-07-28"],
  ["-32022 listing 2026-07-28 (retried once, then kept modern)", {
    status: 400,
    body: rpcError(-32022, { supported: ["2026-07-28"], requested: "2026-07-28" })
  }, "2026-07-28"],
  [
    "-32022 listing only 2025-11-25",
    { status: 400, body: rpcError(-32022, { supported: ["2025-11-25"] }) },
    "2025-11-25"
  ],
  ["a result that is no DiscoverResult ({})", { status: 200, body: { jsonrpc: "2.0", result: {} } }, "2025-11-25"],
  ["a DiscoverResult without 2026-07-28", {
    status: 200,
    body: { jsonrpc: "2.0", result: discoverResult(["2027-01-01"]) }
  }, "2025-11-25"],
  ["-32000 (No valid session ID), HTTP 400", { status: 400, body: rpcError(-32000) }, "2025-11-25"],
  ["-32601 (Method not found), HTTP 404", { status: 404, body: rpcError(-32601) }, "2025-11-25"],
  ["an HTTP 405 without a body", { status: 405 }, "2025-11-25"],
  [
    "an HTTP 400 whose body is not JSON-RPC",
    { status: 400, body: "Bad Request", contentType: "text/plain" },
    "2025-11-25"
  ]
]

describe("McpClient protocol: auto (the dual-era rule)", () => {
  for (const [name, probe, era] of cases) {
    it.live(`${name} → ${era}`, () =>
      Effect.gen(function*() {
        const { methods, url } = yield* serve(probe)
        const connection = yield* connect(url)
        assert.strictEqual(connection.era, era)
        // one probe for the connection (a -32022 listing our version is retried once), then the era's own lifecycle
        const probes = methods.filter((m) => m === "server/discover").length
        assert.strictEqual(probes, name.startsWith("-32022 listing 2026") ? 2 : 1)
        assert.deepStrictEqual(
          methods.filter((m) => m !== "server/discover"),
          era === "2025-11-25"
            ? ["initialize", "notifications/initialized", "tools/list", "tools/list"]
            : ["tools/list", "tools/list"]
        )
      }).pipe(Effect.scoped))
  }

  it.live("the probe is a valid 2026-07-28 DiscoverRequest", () =>
    Effect.gen(function*() {
      const captured: Array<unknown> = []
      const server = yield* Effect.acquireRelease(
        Effect.callback<Http.Server>((resume) => {
          const server = Http.createServer((req, res) => {
            let text = ""
            req.on("data", (chunk) => (text += chunk))
            req.on("end", () => {
              const body = JSON.parse(text)
              captured.push(body)
              res.writeHead(200, { "content-type": "application/json" })
              res.end(JSON.stringify({ jsonrpc: "2.0", id: body.id, result: discoverResult(["2026-07-28"]) }))
            })
          })
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) => Effect.sync(() => server.close())
      )
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
      const discovered = yield* McpClient.McpClient.use((client) => client.discover()).pipe(
        Effect.provide(McpClient.layer().pipe(Layer.provide(HttpTransport.layerNode({ url }))))
      )
      // the probe's own result answers the first discover(): one request in all
      assert.deepStrictEqual(discovered.supportedVersions, ["2026-07-28"])
      assert.strictEqual(captured.length, 1)
      validateWire("DiscoverRequest", captured[0])
    }).pipe(Effect.scoped))

  for (
    const [name, probe] of [["401", { status: 401 }], ["500", {
      status: 500,
      body: "boom",
      contentType: "text/plain"
    }]] as const
  ) {
    it.live(`an HTTP ${name} to the probe is the error itself, not a verdict`, () =>
      Effect.gen(function*() {
        const { methods, url } = yield* serve(probe)
        const error = yield* connect(url).pipe(Effect.flip)
        assert.strictEqual(error._tag, "TransportError")
        assert.deepStrictEqual(methods, ["server/discover"])
      }).pipe(Effect.scoped))
  }

  it.live("an initialize refused as a modern-only server refuses it (-32601) falls back to 2026-07-28", () =>
    Effect.gen(function*() {
      const { methods, url } = yield* serve({ status: 404, body: rpcError(-32601) }, {
        status: 404,
        body: rpcError(-32601)
      })
      const connection = yield* connect(url)
      assert.strictEqual(connection.era, "2026-07-28")
      assert.deepStrictEqual(methods, ["server/discover", "initialize", "tools/list", "tools/list"])
    }).pipe(Effect.scoped))

  it.live("pinned protocols send no probe", () =>
    Effect.gen(function*() {
      const { methods, url } = yield* serve({
        status: 200,
        body: { jsonrpc: "2.0", result: discoverResult(["2026-07-28"]) }
      })
      assert.strictEqual((yield* connect(url, { protocol: "2025-11-25" })).era, "2025-11-25")
      assert.strictEqual((yield* connect(url, { protocol: "2026-07-28" })).era, "2026-07-28")
      assert.notInclude(methods, "server/discover")
    }).pipe(Effect.scoped))
})

/** An HTTP-like transport in process: what the client sends goes to `request`, `notify` and `listen` (the GET stream). */
const fakeHttpTransport = (
  service: Pick<ClientTransport.ClientTransport["Service"], "request" | "notify" | "listen">
) =>
  Layer.succeed(
    ClientTransport.ClientTransport,
    ClientTransport.ClientTransport.of({ kind: "http", usesHeaders: true, notifications: Stream.never, ...service })
  )

const initializeResult = {
  protocolVersion: "2025-11-25",
  capabilities: { tools: {} },
  serverInfo: { name: "s", version: "1" }
}

describe("McpClient on a 2025-11-25 session: the GET stream", () => {
  // A transport that records, in order, each request's method and the moment the GET stream is opened.
  const recordingTransport = (log: Array<string>) =>
    fakeHttpTransport({
      request: (message) =>
        Stream.fromEffect(Effect.sync(() => {
          log.push(message.method)
          const result = message.method === "initialize" ? initializeResult : { tools: [] }
          return { jsonrpc: "2.0", id: message.id, result }
        })),
      notify: (message) => Effect.sync(() => void log.push("method" in message ? message.method : "response")),
      listen: () =>
        Stream.fromEffect(Effect.sync(() => void log.push("GET"))).pipe(Stream.drain, Stream.concat(Stream.never))
    })

  it.effect("is opened as the session is established, before the request that established it is sent", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.listTools()
      }).pipe(Effect.provide(McpClient.layer({ protocol: "2025-11-25" }).pipe(Layer.provide(recordingTransport(log)))))
      assert.deepStrictEqual(log, ["initialize", "notifications/initialized", "GET", "tools/list"])
    }).pipe(Effect.scoped))
})

describe("McpClient on a 2025-11-25 session: the bounds of a call", () => {
  // An HTTP-like transport: `initialize` answered unless `hangInitialize`, every other request never answered,
  // `notifications/cancelled` never acknowledged.
  const silentTransport = (options: { readonly hangInitialize: boolean }) =>
    fakeHttpTransport({
      request: (message) =>
        message.method === "initialize" && !options.hangInitialize
          ? Stream.succeed({ jsonrpc: "2.0", id: message.id, result: initializeResult })
          : Stream.never,
      notify: (message) =>
        "method" in message && message.method === "notifications/cancelled" ? Effect.never : Effect.void,
      listen: undefined
    })
  const callGreet = (options: McpClient.Options, hangInitialize: boolean) =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      return yield* Effect.flip(client.callTool({ name: "greet" }))
    }).pipe(
      Effect.provide(
        McpClient.layer({ protocol: "2025-11-25", ...options }).pipe(Layer.provide(silentTransport({ hangInitialize })))
      ),
      // a hang is a failure of the test, not a test that never ends
      Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.die(new Error("the call hung")) })
    )

  it.live("callTimeout bounds the whole tools/call, the connection included", () =>
    Effect.gen(function*() {
      const error = yield* callGreet({ requestTimeout: "Infinity", callTimeout: "300 millis" }, true)
      assert.strictEqual(error._tag, "RequestTimeout")
      if (error._tag === "RequestTimeout") assert.strictEqual(error.bound, "call")
    }))

  it.live("a notifications/cancelled the server never acknowledges does not hold the call past its bound", () =>
    Effect.gen(function*() {
      const started = Date.now()
      const error = yield* callGreet({ requestTimeout: "300 millis", callTimeout: "Infinity" }, false)
      assert.strictEqual(error._tag, "RequestTimeout")
      if (error._tag === "RequestTimeout") assert.strictEqual(error.bound, "request")
      // the request bound, then at most the notice's own second
      assert.isBelow(Date.now() - started, 3_000)
    }))
})

describe("McpClient on a 2025-11-25 session: the handshake", () => {
  it.live("a notifications/initialized the server never acknowledges fails the connection with RequestTimeout, not a hang", () =>
    Effect.gen(function*() {
      const transport = fakeHttpTransport({
        request: (message) => Stream.succeed({ jsonrpc: "2.0", id: message.id, result: initializeResult }),
        notify: () => Effect.never,
        listen: () => Stream.never
      })
      const error = yield* McpClient.McpClient.use((client) => client.connection).pipe(
        Effect.provide(
          McpClient.layer({ protocol: "2025-11-25", requestTimeout: "200 millis" }).pipe(Layer.provide(transport))
        ),
        Effect.flip,
        Effect.timeout("5 seconds")
      )
      assert.strictEqual(error._tag, "RequestTimeout")
      if (error._tag === "RequestTimeout") {
        assert.strictEqual(error.method, "notifications/initialized")
        assert.strictEqual(error.bound, "request")
      }
    }).pipe(Effect.scoped))
})

describe("McpClient: the tools a listing excludes", () => {
  it.effect("are logged with the server's strings escaped: a newline cannot forge a log line", () =>
    Effect.gen(function*() {
      const messages: Array<string> = []
      const logger = Logger.make((options) => void messages.push(String(options.message)))
      const evil = "evil\nlevel=ERROR forged\u2028line\u202Eright-to-left\u009B31m"
      const tools = [{
        name: evil,
        inputSchema: { type: "object", properties: { score: { type: "number", "x-mcp-header": "Sco\nre" } } }
      }]
      const transport = fakeHttpTransport({
        request: (message) => Stream.succeed({ jsonrpc: "2.0", id: message.id, result: { tools } }),
        notify: () => Effect.void,
        listen: () => Stream.never
      })
      const listed = yield* McpClient.McpClient.use((client) => client.listTools()).pipe(
        Effect.provide(McpClient.layer({ protocol: "2026-07-28" }).pipe(Layer.provide(transport))),
        Effect.provide(Logger.layer([logger]))
      )
      assert.deepStrictEqual(listed.tools, [])
      const warning = messages.find((message) => message.startsWith("Excluding tool"))
      assert.isDefined(warning)
      assert.notMatch(warning!, /[\n\u2028\u202E\u009B]/)
      assert.include(
        warning!,
        "Excluding tool \"evil\\nlevel=ERROR forged\\u2028line\\u202eright-to-left\\u009b31m\": "
      )
      assert.include(warning!, "Sco\\nre")
    }).pipe(Effect.scoped))
})
