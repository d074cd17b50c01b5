/**
 * One file that serves and calls over Streamable HTTP, importing the server's
 * and the client's `HttpTransport` under names of its own.
 * Source: MCP 2026-07-28, basic/transports/streamable-http.
 */
import { assert, describe, it } from "@effect/vitest"
import { Elicitation, RequestState } from "@mrtr/core"
import { HttpTransport as HttpServerTransport, McpServer, RequestContext, Tool } from "@mrtr/server"
import { Effect, Layer, Schema } from "effect"
import { ElicitationHandler, HttpTransport as HttpClientTransport, McpClient } from "../src/index.ts"

const hello = Tool.make("hello", {
  handler: () =>
    Elicitation.form({ key: "name", message: "Name?", schema: Schema.Struct({ name: Schema.String }) }).pipe(
      Effect.map(({ name }) => `Hello, ${name}!`)
    )
})

/** Reports progress, then is silent for 300 ms before it answers: its SSE stream gets keep-alive comments meanwhile. */
const slow = Tool.make("slow", {
  handler: () =>
    Effect.gen(function*() {
      yield* RequestContext.progress(1, { total: 2 })
      yield* Effect.sleep("300 millis")
      return "done"
    })
})

const server = McpServer.tools(hello, slow).pipe(Layer.provideMerge(McpServer.layer({
  name: "both",
  version: "1.0.0",
  requestState: RequestState.RequestStateCodec.layer({
    keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(1) }])
  }).pipe(Layer.orDie)
})))

describe("HttpServerTransport and HttpClientTransport in one file", () => {
  it.live("serve with one, call with the other", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(
        HttpServerTransport.layer({ port: 0 }).pipe(Layer.provide(server), Layer.orDie)
      )
      const url = yield* Effect.provide(HttpServerTransport.url, context)
      const result = yield* McpClient.McpClient.use((client) => client.callTool({ name: "hello" })).pipe(
        Effect.provide(
          McpClient.layer().pipe(
            Layer.provide(HttpClientTransport.layerNode({ url })),
            Layer.provide(
              ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ name: "Ada" })) })
            )
          )
        )
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "Hello, Ada!" }])
    }).pipe(Effect.scoped))

  it.live("an SSE answer with keep-alive comments (the server's sseKeepAlive) is read as if they were not there", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(
        HttpServerTransport.layer({ port: 0, sseKeepAlive: "40 millis" }).pipe(Layer.provide(server), Layer.orDie)
      )
      const url = yield* Effect.provide(HttpServerTransport.url, context)
      const progress: Array<unknown> = []
      const result = yield* McpClient.McpClient.use((client) =>
        client.callTool({ name: "slow" }, {
          progressToken: "p1",
          onNotification: (notification) => Effect.sync(() => void progress.push(notification.method))
        })
      ).pipe(
        Effect.provide(
          McpClient.layer().pipe(
            Layer.provide(HttpClientTransport.layerNode({ url })),
            Layer.provide(
              ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ name: "Ada" })) })
            )
          )
        )
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "done" }])
      assert.deepStrictEqual(progress, ["notifications/progress"])
    }).pipe(Effect.scoped))
})
