/**
 * The README's client: `npx tsx examples/readme/client.ts` while main.ts runs.
 * Which handler Layers are provided decides the capabilities every request declares.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { ElicitationHandler, HttpTransport, McpClient, RootsHandler, SamplingHandler } from "@mrtr/client"
import type { CreateMessageRequestParams, CreateMessageResult } from "@mrtr/protocol"

// Stands in for a real model: a SamplingHandler returns an Effect of a CreateMessageResult.
const callMyModel = (params: CreateMessageRequestParams): Effect.Effect<CreateMessageResult> =>
  Effect.succeed({ role: "assistant", content: { type: "text", text: "MR107" }, model: "my-model", stopReason: "endTurn" })

const user = Layer.mergeAll(
  // `params` is the elicitation (message, requestedSchema); `context` says which key, tool and round it is for.
  ElicitationHandler.layer({
    form: (params, context) => Effect.succeed(ElicitationHandler.accept({ departure: "2026-12-24", nights: 3 }))
  }),
  SamplingHandler.layer({ createMessage: callMyModel }),
  RootsHandler.layerStatic([{ uri: "file:///home/me/trips", name: "trips" }])
)

const ClientLive = McpClient.layer({ clientInfo: { name: "my-app", version: "1.0.0" } }).pipe(
  Layer.provide(HttpTransport.layerNode({ url: "http://127.0.0.1:3000/mcp" })),
  Layer.provide(user)
)

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const result = yield* client.callTool({ name: "book_trip", arguments: { city: "Lisbon" } }) // every round driven
  yield* Console.log(result.content)
})

program.pipe(Effect.provide(ClientLive), NodeRuntime.runMain)
