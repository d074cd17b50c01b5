/** Drives `book_trip` on the server at `process.argv[2]` with scripted handler Layers; prints the tool's text. */
import { NodeRuntime } from "@effect/platform-node"
import { ElicitationHandler, HttpTransport, McpClient, RootsHandler, SamplingHandler } from "@mrtr/client"
import { Console, Effect, Layer } from "effect"

const url = process.argv[2]
if (url === undefined) throw new Error("usage: client.js <url>")

const user = Layer.mergeAll(
  ElicitationHandler.layer({
    form: () => Effect.succeed(ElicitationHandler.accept({ departure: "2026-12-24", nights: 3 }))
  }),
  SamplingHandler.layer({
    createMessage: () =>
      Effect.succeed({
        role: "assistant",
        content: { type: "text", text: "MR107" },
        model: "scripted",
        stopReason: "endTurn"
      })
  }),
  RootsHandler.layerStatic([{ uri: "file:///home/me/trips", name: "trips" }])
)

const ClientLive = McpClient.layer({ clientInfo: { name: "consumer-app", version: "1.0.0" } }).pipe(
  Layer.provide(HttpTransport.layerNode({ url })),
  Layer.provide(user)
)

Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const result = yield* client.callTool({ name: "book_trip", arguments: { city: "Lisbon" } })
  for (const block of result.content) if (block.type === "text") yield* Console.log(block.text)
}).pipe(Effect.provide(ClientLive), NodeRuntime.runMain)
