/**
 * Get started: a client that calls `greet` and answers its two questions from a handler Layer.
 * Run it while server.ts runs: `npx tsx examples/get-started/src/client.ts [url]`. It checks the result and exits 1
 * when it is not the expected greeting.
 */
// #region client
import { NodeRuntime } from "@effect/platform-node"
import { ElicitationHandler, HttpTransport, McpClient } from "@mrtr/client"
import { Console, Effect, Layer } from "effect"

// The user: here a function of the question's key; in an app, a form on screen.
const user = ElicitationHandler.layer({
  form: (params, context) =>
    Effect.succeed(ElicitationHandler.accept(context.key === "name" ? { name: "Ada" } : { city: "London" }))
})

export const greet = (url: string) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const result = yield* client.callTool({ name: "greet", arguments: { greeting: "Hello" } }) // every round driven
    yield* Console.log(result.content)
    return result
  }).pipe(Effect.provide(McpClient.layer().pipe(Layer.provide(HttpTransport.layerNode({ url })), Layer.provide(user))))
// #endregion client

// #region main
/** Calls `greet` at `url` and fails unless the greeting is the expected one. */
export const verify = (url: string) =>
  Effect.gen(function*() {
    const result = yield* greet(url)
    const expected = [{ type: "text", text: "Hello, Ada from London!" }]
    if (JSON.stringify(result.content) !== JSON.stringify(expected)) {
      return yield* Effect.fail(new Error(`unexpected result: ${JSON.stringify(result.content)}`))
    }
  })

if (import.meta.url === `file://${process.argv[1]}`) {
  verify(process.argv[2] ?? "http://127.0.0.1:3000/mcp").pipe(NodeRuntime.runMain)
}
// #endregion main
