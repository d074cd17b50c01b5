/**
 * The servers of `bench/index.ts`, one per child process:
 *
 *   node --expose-gc <servers.ts compiled by bench/index.ts> <kind>
 *   node --expose-gc --conditions=@mrtr/source --import tsx bench/servers.ts <kind>      (uncompiled)
 *
 * Each serves the same two-round elicitation tool `greet` on
 * `http://127.0.0.1:<ephemeral>/mcp`:
 *
 * - round 1 (`tools/call` without `inputResponses`): `input_required` with one
 *   form elicitation under the key `name` (`{ name: string }`) and a `requestState`;
 * - round 2 (`inputResponses.name = { action: "accept", content: { name } }` and
 *   the echoed `requestState`): complete with the text `Hello, <name>!`.
 *
 * Kinds:
 * - `ours`: this project's runtime (`Tool.make` + `Elicitation.form`, sealed
 *   replay journal, `HttpTransport.layer`);
 * - `effect-ai`: the same tool written by hand on effect's own `effect/ai`
 *   `McpServer` (`McpServer.layerHttp` with `McpProtocol.v2026_07_28`), returning
 *   `McpSchema.InputRequired` with an HMAC-SHA256 `requestState` as a
 *   hand-written handler would;
 * - `bare`: `node:http` answering with fixed JSON (the floor);
 * - `effect-http-floor`, `transport-floor`: reference floors, the fixed JSON
 *   answered by effect/http alone and by our `HttpTransport` in front of a
 *   dispatcher that does nothing else.
 *
 * IPC with the parent: the child sends `{ type: "ready", url }`. On
 * `{ type: "cpu" }` it answers `{ type: "cpu", cpuMicros }` (user + system CPU
 * of the process so far); on `{ type: "stats" }` it runs two forced GCs
 * (`--expose-gc`) and answers `{ type: "stats", heapUsed, rss, cpuMicros }`.
 * Nothing else runs in the child, so its heap and CPU are the server's.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Schema } from "effect"
import { McpProtocol, McpSchema, McpServer as AiMcpServer } from "effect/ai"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { Elicitation, RequestState } from "@mrtr/core"
import { HttpTransport, McpHandler, McpServer, Tool, type Transport } from "@mrtr/server"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export type ServerKind = "ours" | "effect-ai" | "bare" | "effect-http-floor" | "transport-floor"

const NAME_SCHEMA = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"]
} as const

// -----------------------------------------------------------------------------
// (a) ours
// -----------------------------------------------------------------------------

const Name = Schema.Struct({ name: Schema.String })

const greet = Tool.make("greet", {
  description: "Asks for a name, then greets",
  handler: () =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "name", message: "Your name?", schema: Name })
      return `Hello, ${name}!`
    })
})

const startOurs = (): Promise<string> => {
  const server = Layer.mergeAll(McpServer.tools(greet)).pipe(
    Layer.provideMerge(McpServer.layer({
      name: "bench-ours",
      version: "1.0.0",
      requestState: RequestState.RequestStateCodec.layer({
        keyRing: RequestState.KeyRing.fromBytes([{ id: "bench", bytes: randomBytes(32) }])
      }).pipe(Layer.orDie)
    }))
  )
  const app = HttpTransport.layer({ port: 0 }).pipe(Layer.provide(server), Layer.orDie)
  return launch(app, HttpTransport.url)
}

// -----------------------------------------------------------------------------
// (b) effect/ai, by hand
// -----------------------------------------------------------------------------

const hmacKey = randomBytes(32)
const sign = (payload: string) => createHmac("sha256", hmacKey).update(payload).digest("base64url")

/** `base64url(JSON{tool, exp}).hmac`: what a hand-written handler would hand out. */
const makeState = () => {
  const payload = Buffer.from(JSON.stringify({ tool: "greet", exp: Date.now() + 600_000 })).toString("base64url")
  return `${payload}.${sign(payload)}`
}

const verifyState = (state: string): boolean => {
  const dot = state.indexOf(".")
  if (dot < 0) return false
  const payload = state.slice(0, dot)
  const expected = Buffer.from(sign(payload))
  const actual = Buffer.from(state.slice(dot + 1))
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return false
  try {
    const decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { tool?: unknown; exp?: unknown }
    return decoded.tool === "greet" && typeof decoded.exp === "number" && decoded.exp > Date.now()
  } catch {
    return false
  }
}

const askName = () =>
  new McpSchema.InputRequired({
    inputRequests: {
      name: {
        method: "elicitation/create",
        params: { mode: "form", message: "Your name?", requestedSchema: NAME_SCHEMA }
      }
    },
    requestState: makeState()
  })

const effectAiGreet = Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* AiMcpServer.McpServer
  yield* server.addTool({
    tool: new McpSchema.Tool({
      name: "greet",
      description: "Asks for a name, then greets",
      inputSchema: { type: "object", properties: {} }
    }),
    annotations: Context.empty(),
    handle: () =>
      Effect.gen(function*() {
        const context = yield* McpSchema.McpRequestContext
        const answer = context.inputResponses?.["name"]
        if (answer === undefined) return askName()
        if (context.requestState !== undefined && !verifyState(context.requestState)) {
          return yield* new McpSchema.InvalidParams({ message: "Invalid requestState" })
        }
        const content = answer["content"] as { readonly name?: unknown } | undefined
        if (answer["action"] !== "accept" || typeof content?.name !== "string") return askName()
        return new McpSchema.CallToolResult({ content: [{ type: "text", text: `Hello, ${content.name}!` }] })
      })
  })
}))

const startEffectAi = (): Promise<string> => {
  const mcp = AiMcpServer.layerHttp({
    name: "bench-effect-ai",
    version: "1.0.0",
    path: "/mcp",
    protocols: [McpProtocol.v2026_07_28],
    registrations: effectAiGreet
  })
  const app = HttpRouter.serve(mcp, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.orDie
  )
  return launch(
    app,
    Effect.map(HttpServer.HttpServer, (server) => `${HttpServer.formatAddress(server.address)}/mcp`)
  )
}

// -----------------------------------------------------------------------------
// (c) bare node:http
// -----------------------------------------------------------------------------

const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "bench-bare", version: "1.0.0" } }
const ROUND_ONE = JSON.stringify({
  _meta: SERVER_INFO,
  resultType: "input_required",
  inputRequests: {
    name: { method: "elicitation/create", params: { mode: "form", message: "Your name?", requestedSchema: NAME_SCHEMA } }
  },
  requestState: "fixed-state"
})
const ROUND_TWO = JSON.stringify({
  _meta: SERVER_INFO,
  resultType: "complete",
  content: [{ type: "text", text: "Hello, Alice!" }]
})

const startBare = (): Promise<string> =>
  new Promise((resolve) => {
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          id: number | string
          params?: { inputResponses?: unknown }
        }
        const result = message.params?.inputResponses === undefined ? ROUND_ONE : ROUND_TWO
        const body = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${result}}`
        response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
        response.end(body)
      })
    })
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`))
  })

// -----------------------------------------------------------------------------
// Process plumbing
// -----------------------------------------------------------------------------

/** Builds `app` for the life of the process and resolves with the URL `url` reads from it. */
const launch = <R>(app: Layer.Layer<R>, url: Effect.Effect<string, never, R>): Promise<string> =>
  new Promise((resolve, reject) => {
    Effect.runFork(
      Effect.gen(function*() {
        resolve(yield* url)
        return yield* Effect.never
      }).pipe(Effect.provide(app), Effect.scoped, Effect.tapCause((cause) => Effect.sync(() => reject(cause))))
    )
  })

// -----------------------------------------------------------------------------
// Reference floors (not targets): what the HTTP layers cost without MCP logic
// -----------------------------------------------------------------------------

const fixedReply = (message: unknown): string => {
  const m = message as { id: unknown; params?: { inputResponses?: unknown } }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":${
    m.params?.inputResponses === undefined ? ROUND_ONE : ROUND_TWO
  }}`
}

/** effect/http alone (`HttpRouter` on `NodeHttpServer`), answering the fixed JSON. */
const startEffectHttpFloor = (): Promise<string> => {
  const route = HttpRouter.add("POST", "/mcp", (request) =>
    Effect.map(
      Effect.orDie(request.text),
      (text) => HttpServerResponse.text(fixedReply(JSON.parse(text)), { contentType: "application/json" })
    ))
  const app = HttpRouter.serve(route, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.orDie
  )
  return launch(app, Effect.map(HttpServer.HttpServer, (server) => `${HttpServer.formatAddress(server.address)}/mcp`))
}

/** Our `HttpTransport` (all its checks) in front of a dispatcher that answers the fixed JSON. */
const startTransportFloor = (): Promise<string> => {
  const roundOne = { _tag: "Response", message: {}, httpStatus: 200 } as const
  const handler = Layer.succeed(
    McpHandler,
    McpHandler.of({
      handle: (incoming) =>
        Effect.succeed({ ...roundOne, message: JSON.parse(fixedReply(incoming.message)) as Transport.WireMessage })
    })
  )
  return launch(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(handler), Layer.orDie), HttpTransport.url)
}

const start = (kind: ServerKind): Promise<string> => {
  switch (kind) {
    case "ours":
      return startOurs()
    case "effect-ai":
      return startEffectAi()
    case "bare":
      return startBare()
    case "effect-http-floor":
      return startEffectHttpFloor()
    case "transport-floor":
      return startTransportFloor()
  }
}

const gc = (globalThis as { gc?: () => void }).gc

const main = async () => {
  const kind = process.argv[2] as ServerKind
  const url = await start(kind)
  process.on("message", (message: { type?: string }) => {
    if (message.type === "cpu") {
      const cpu = process.cpuUsage()
      process.send!({ type: "cpu", cpuMicros: cpu.user + cpu.system })
      return
    }
    if (message.type !== "stats") return
    // Two full collections, a turn of the event loop apart, so finalizers and weak refs settle.
    gc?.()
    setImmediate(() => {
      gc?.()
      const memory = process.memoryUsage()
      const cpu = process.cpuUsage()
      process.send!({ type: "stats", heapUsed: memory.heapUsed, rss: memory.rss, cpuMicros: cpu.user + cpu.system })
    })
  })
  process.on("disconnect", () => process.exit(0))
  process.send!({ type: "ready", url })
}

void main()
