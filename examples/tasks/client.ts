/**
 * Tasks: a client that declares the Tasks extension (`tasks: "auto"`), answers the passenger question as an MRTR round
 * and the confirmation as task input, prints each status change of the task, and checks the result. Run it while server.ts runs:
 * `npx tsx examples/tasks/client.ts [url]`.
 */
// #region client
import { NodeRuntime } from "@effect/platform-node"
import { ElicitationHandler, HttpTransport, McpClient } from "@mrtr/client"
import { Console, Effect, Layer } from "effect"

const user = ElicitationHandler.layer({
  form: (params, context) =>
    Effect.succeed(ElicitationHandler.accept(context.key === "passenger" ? { name: "Ada" } : { book: true }))
})

const client = (url: string) =>
  McpClient.layer({ tasks: "auto" }).pipe( // declare the extension and drive tasks to their end
    Layer.provide(HttpTransport.layerNode({ url })),
    Layer.provide(user)
  )

export const book = Effect.gen(function*() {
  const mcp = yield* McpClient.McpClient
  return yield* mcp.callTool(
    { name: "book_tickets", arguments: { from: "Paris", to: "Rome" } },
    { onTaskStatus: (change) => Console.log(`task ${change.taskId}: ${change.status}`) }
  )
})
// #endregion client

/** Books at `url` through a task; fails unless the seat was booked for Ada. */
export const verify = (url: string) =>
  Effect.gen(function*() {
    const result = yield* book
    const expected = [{ type: "text", text: "Booked seat 54A for Ada." }]
    if (JSON.stringify(result.content) !== JSON.stringify(expected)) {
      return yield* Effect.fail(new Error(`unexpected result: ${JSON.stringify(result.content)}`))
    }
    yield* Console.log(result.content)
  }).pipe(Effect.provide(client(url)))

if (import.meta.url === `file://${process.argv[1]}`) {
  verify(process.argv[2] ?? "http://127.0.0.1:3000/mcp").pipe(NodeRuntime.runMain)
}
