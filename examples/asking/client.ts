/**
 * Asking: a client whose user, model and roots are handler Layers; it books a trip (two rounds: a form, then a
 * sampling request and the roots together) and declines the newsletter. Run it while server.ts runs:
 * `npx tsx examples/asking/client.ts [url]`; it checks both results and exits 1 on any difference.
 */
// #region handlers
import { NodeRuntime } from "@effect/platform-node"
import { ElicitationHandler, HttpTransport, McpClient, RootsHandler, SamplingHandler } from "@mrtr/client"
import type { CreateMessageRequestParams, CreateMessageResult } from "@mrtr/protocol/Schema"
import { Effect, Layer } from "effect"

// Stands in for a real model: a SamplingHandler returns an Effect of a CreateMessageResult.
const callMyModel = (_params: CreateMessageRequestParams): Effect.Effect<CreateMessageResult> =>
  Effect.succeed({
    role: "assistant",
    content: { type: "text", text: "MR107" },
    model: "my-model",
    stopReason: "endTurn"
  })

const user = Layer.mergeAll(
  // `params` is the elicitation (message, requestedSchema); `context` says which key, tool and round it is for.
  ElicitationHandler.layer({
    form: (params, context) =>
      Effect.succeed(
        context.key === "dates"
          ? ElicitationHandler.accept({ departure: "2026-12-24", nights: 3 })
          : ElicitationHandler.decline
      )
  }),
  SamplingHandler.layer({ createMessage: callMyModel }),
  RootsHandler.layerStatic([{ uri: "file:///home/me/trips", name: "trips" }])
)

const client = (url: string) =>
  McpClient.layer({
    clientInfo: { name: "my-app", version: "1.0.0" },
    requestTimeout: "60 seconds", // without any message of a request's answer (progress restarts it)
    callTimeout: "10 minutes", // a whole call: every round, the answering included
    maxRounds: 10 // requests per call, the first included
  }).pipe(
    Layer.provide(HttpTransport.layerNode({ url })),
    Layer.provide(user)
  )
// #endregion handlers

const expect = (actual: unknown, expected: unknown) =>
  JSON.stringify(actual) === JSON.stringify(expected)
    ? Effect.void
    : Effect.fail(new Error(`expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`))

/** Books a trip and declines the newsletter at `url`, failing on any unexpected result. */
export const verify = (url: string) =>
  Effect.gen(function*() {
    // #region call
    const mcp = yield* McpClient.McpClient
    const trip = yield* mcp.callTool({ name: "book_trip", arguments: { city: "Lisbon" } }) // every round driven
    // #endregion call
    yield* expect(trip.content, [{
      type: "text",
      text: "Booked MR107 for 3 nights; receipt filed under file:///home/me/trips"
    }])
    const newsletter = yield* mcp.callTool({ name: "subscribe" })
    yield* expect(newsletter.content, [{ type: "text", text: "Not subscribed." }])
  }).pipe(Effect.provide(client(url)))

if (import.meta.url === `file://${process.argv[1]}`) {
  verify(process.argv[2] ?? "http://127.0.0.1:3000/mcp").pipe(NodeRuntime.runMain)
}
