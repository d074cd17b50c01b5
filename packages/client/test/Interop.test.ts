/**
 * Interop: this client drives a multi-round tool served by Effect's own
 * `effect/ai` `McpServer` on protocol 2026-07-28, over real Streamable HTTP,
 * to completion. The tool is hand-written against `effect/ai`: it reads the
 * retry's `inputResponses` / `requestState` from `McpRequestContext` and
 * returns `new McpSchema.InputRequired({...})` until it has what it needs.
 * Source: MCP 2026-07-28, basic/patterns/mrtr.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { McpProtocol, McpSchema, McpServer as EffectMcpServer } from "effect/ai"
import { HttpRouter, HttpServer } from "effect/http"
import { createServer } from "node:http"
import * as ElicitationHandler from "../src/ElicitationHandler.ts"
import * as HttpTransport from "../src/HttpTransport.ts"
import * as McpClient from "../src/McpClient.ts"
import * as RootsHandler from "../src/RootsHandler.ts"

const nameRequest = {
  method: "elicitation/create" as const,
  params: {
    message: "Who is travelling?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
  }
}

const seatRequest = (name: string) => ({
  method: "elicitation/create" as const,
  params: {
    message: `Window seat for ${name}?`,
    requestedSchema: { type: "object", properties: { window: { type: "boolean" } }, required: ["window"] }
  }
})

const isRecord = (u: unknown): u is Record<string, any> => typeof u === "object" && u !== null

/**
 * Three rounds: ask the name (and the roots), then a seat preference with the
 * name sealed in the state, then answer.
 */
const bookFlight = Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* EffectMcpServer.McpServer
  yield* server.addTool({
    tool: new McpSchema.Tool({
      name: "book_flight",
      description: "Books a flight in several rounds",
      inputSchema: { type: "object", properties: { to: { type: "string" } }, required: ["to"] }
    }),
    annotations: Context.empty(),
    handle: (args: { readonly to: string }) =>
      Effect.gen(function*() {
        const request = yield* McpSchema.McpRequestContext
        const responses: Record<string, any> = request.inputResponses ?? {}
        const state = request.requestState
        if (state === undefined) {
          const answer = responses.name
          if (!isRecord(answer) || answer.action !== "accept") {
            return new McpSchema.InputRequired({
              inputRequests: { name: nameRequest, roots: { method: "roots/list", params: {} } }
            })
          }
          const name = String(answer.content.name)
          const roots = isRecord(responses.roots) ? responses.roots.roots.length : 0
          return new McpSchema.InputRequired({
            inputRequests: { seat: seatRequest(name) },
            requestState: JSON.stringify({ name, roots })
          })
        }
        const { name, roots } = JSON.parse(state) as { name: string; roots: number }
        const seat = responses.seat
        if (!isRecord(seat) || seat.action !== "accept") {
          return new McpSchema.InputRequired({ inputRequests: { seat: seatRequest(name) }, requestState: state })
        }
        return new McpSchema.CallToolResult({
          content: [{
            type: "text",
            text: `${name} flies to ${args.to}, ${seat.content.window ? "window" : "aisle"} seat, ${roots} root(s)`
          }]
        })
      })
  })
}))

const effectServer = HttpRouter.serve(
  EffectMcpServer.layerHttp({
    name: "effect-ai-server",
    version: "1.0.0",
    path: "/mcp",
    protocols: [McpProtocol.v2026_07_28],
    registrations: bookFlight
  }),
  { disableListenLog: true, disableLogger: true }
).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })))

describe("interop with effect/ai McpServer (2026-07-28)", () => {
  it.live("drives a hand-written multi-round InputRequired tool to completion", () =>
    Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      const url = `${HttpServer.formatAddress(server.address)}/mcp`
      const asked: Array<string> = []
      const user = Layer.mergeAll(
        ElicitationHandler.layer({
          form: (params, context) =>
            Effect.sync(() => {
              asked.push(`${context.round}:${context.key}`)
              return context.key === "name"
                ? ElicitationHandler.accept({ name: "Ada" })
                : ElicitationHandler.accept({ window: true })
            })
        }),
        RootsHandler.layerStatic([{ uri: "file:///home/ada", name: "home" }])
      )
      const result = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const discovered = yield* client.discover()
        assert.include(discovered.supportedVersions, "2026-07-28")
        const { tools } = yield* client.listTools()
        assert.deepStrictEqual(tools.map((t) => t.name), ["book_flight"])
        return yield* client.callTool({ name: "book_flight", arguments: { to: "Lisbon" } })
      }).pipe(
        Effect.provide(McpClient.layer().pipe(Layer.provide(HttpTransport.layerNode({ url })), Layer.provide(user)))
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "Ada flies to Lisbon, window seat, 1 root(s)" }])
      assert.deepStrictEqual(asked, ["1:name", "2:seat"])
    }).pipe(Effect.provide(effectServer)))
})
