/**
 * `effect/ai`'s own MCP client (`effect/ai/McpClient`, code no one here wrote) as a real client of this server over
 * Streamable HTTP on loopback, with each of its protocol adapters for the two eras: a tool that does not ask works
 * (listed, called, its structured result and error result read; through `McpClient.toolkit` too), and a tool that
 * asks gets the spec's answer for a client that declared no capability (2026-07-28: -32021 naming `elicitation`;
 * 2025-11-25: the tool's error result naming it), at once rather than a hang.
 * Source: MCP 2026-07-28, server/tools, basic/patterns/mrtr (missing client capability); MCP 2025-11-25.
 */
import { assert, describe, it } from "@effect/vitest"
import { Elicitation } from "@mrtr/core"
import { Effect, Layer, Schema, Stream } from "effect"
import { McpClient, McpProtocol, Tool as AiTool, Toolkit } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { AiToolkit, HttpTransport, McpServer, Tool } from "../src/index.ts"

const Forecast = AiTool.make("forecast", {
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ city: Schema.String, celsius: Schema.Finite }),
  failure: Schema.Struct({ reason: Schema.String })
}).annotate(AiTool.Readonly, true)
const Forecasts = Toolkit.make(Forecast)

const greet = Tool.make("greet", {
  handler: () =>
    Elicitation.form({ key: "name", message: "Your name?", schema: Schema.Struct({ name: Schema.String }) }).pipe(
      Effect.map(({ name }) => `Hello, ${name}!`)
    )
})

const server = Layer.mergeAll(
  AiToolkit.layer(Forecasts).pipe(Layer.provide(Forecasts.toLayer({
    forecast: ({ city }) =>
      city === "Nowhere" ? Effect.fail({ reason: "no such city" }) : Effect.succeed({ city, celsius: 21 })
  }))),
  McpServer.tools(greet)
).pipe(Layer.provideMerge(McpServer.layer({ name: "weather", version: "1.0.0" })))

const endpoint = HttpTransport.layer({ port: 0 }).pipe(Layer.provide(server))

const client = (url: string, protocol: McpProtocol.ProtocolAdapter<any>) =>
  McpClient.layerHttp({ name: "effect-ai", version: "1.0.0", url, protocol, timeout: "20 seconds" }).pipe(
    Layer.provide(FetchHttpClient.layer)
  )

const withClient = <A, E>(
  protocol: McpProtocol.ProtocolAdapter<any>,
  body: (client: McpClient.McpClient) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const url = yield* HttpTransport.url
    return yield* McpClient.McpClient.use(body).pipe(Effect.provide(client(url, protocol)))
  }).pipe(Effect.provide(endpoint))

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

for (
  const [era, protocol] of [["2026-07-28", McpProtocol.v2026_07_28], ["2025-11-25", McpProtocol.v2025_11_25]] as const
) {
  describe(`effect/ai's McpClient on ${era}`, () => {
    it.live(
      "lists the tools and calls one that does not ask: structured result, error result",
      () =>
        withClient(protocol, (mcp) =>
          Effect.gen(function*() {
            assert.strictEqual(mcp.protocolVersion, era)
            const tools = yield* mcp.listTools()
            assert.deepStrictEqual(tools.map((tool) => tool.name).sort(), ["forecast", "greet"])
            const forecast = tools.find((tool) => tool.name === "forecast")!
            assert.strictEqual(forecast.annotations?.readOnlyHint, true)
            const result = yield* mcp.callTool({ tool: forecast, arguments: { city: "Rome" } })
            assert.deepStrictEqual(result.structuredContent, { city: "Rome", celsius: 21 })
            const failed = yield* mcp.callTool({ tool: forecast, arguments: { city: "Nowhere" } })
            assert.isTrue(failed.isError)
            assert.deepStrictEqual(JSON.parse(textOf(failed)), { reason: "no such city" })

            // Through its Toolkit, as a model would call it.
            const toolkit = yield* McpClient.toolkit(mcp)
            const stream = yield* toolkit.handle("forecast", { city: "Oslo" })
            const results = yield* Stream.runCollect(stream)
            assert.include(JSON.stringify(results.at(-1)!.result), "Oslo")
          })),
      { timeout: 30_000 }
    )

    it.live(
      "a tool that asks answers at once with the missing capability, never hangs",
      () =>
        withClient(protocol, (mcp) =>
          Effect.gen(function*() {
            const greetTool = (yield* mcp.listTools()).find((tool) => tool.name === "greet")!
            const outcome = yield* Effect.result(mcp.callTool({ tool: greetTool }))
            if (era === "2026-07-28") {
              assert.strictEqual(outcome._tag, "Failure")
              const error = JSON.stringify(outcome._tag === "Failure" ? outcome.failure : undefined)
              assert.include(error, "-32021")
              assert.include(error, "elicitation")
            } else {
              // 2025-11-25 has no code for it: the tool's error result names the capability (the official SDK's way).
              assert.strictEqual(outcome._tag, "Success")
              const result = outcome._tag === "Success" ? outcome.success : undefined
              assert.isTrue(result?.isError)
              assert.include(textOf(result!), "elicitation")
            }
          }).pipe(Effect.timeout("15 seconds"))),
      { timeout: 30_000 }
    )
  })
}
