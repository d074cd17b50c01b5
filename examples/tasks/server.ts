/**
 * Tasks: a long-running tool that asks before and after it goes asynchronous (the Tasks extension,
 * `io.modelcontextprotocol/tasks`). A client that declares the extension gets a task and answers its later question
 * through `tasks/update`; one that does not gets the same questions as MRTR rounds.
 * Run it: `npx tsx examples/tasks/server.ts [port]` (prints `listening <url>`); `client.ts` drives it.
 */
// #region tool
import { NodeRuntime } from "@effect/platform-node"
import { Elicitation, Mrtr, Task } from "@mrtr/core"
import { HttpTransport, McpServer, Tool } from "@mrtr/server"
import { Console, Effect, Layer, Schema } from "effect"

const Passenger = Schema.Struct({ name: Schema.String.annotate({ title: "Passenger name" }) })
const Confirm = Schema.Struct({ book: Schema.Boolean.annotate({ title: "Book it?" }) })

// Stands in for a slow reservation system.
const reserveSeat = (from: string, to: string, name: string) =>
  Effect.sleep("200 millis").pipe(Effect.as(`${from.length}${to.length}${name[0] ?? "A"}`))

export const bookTickets = Tool.make("book_tickets", {
  parameters: Schema.Struct({ from: Schema.String, to: Schema.String }),
  task: { support: "optional", start: "detach" }, // "forbidden" (default) | "optional" | "required"
  handler: ({ from, to }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "passenger", message: "Who travels?", schema: Passenger })
      yield* Task.detach // MRTR rounds before, the task after
      const seat = yield* Mrtr.step("reserve", reserveSeat(from, to, name), Schema.String)
      const { book } = yield* Elicitation.form({ key: "confirm", message: `Book seat ${seat}?`, schema: Confirm })
      return book ? `Booked seat ${seat} for ${name}.` : `Released seat ${seat}.`
    })
})
// #endregion tool

// #region server
export const server = McpServer.tools(bookTickets).pipe(
  Layer.provideMerge(McpServer.layer({
    name: "tickets",
    version: "1.0.0",
    tasks: { ttlMs: 5 * 60_000, pollIntervalMs: 500 } // a task lives 5 minutes; clients poll every 500 ms
  }))
)
// #endregion server

/** Streamable HTTP on 127.0.0.1 (`port` 0: any free port). */
export const serve = (port: number) => HttpTransport.layer({ port }).pipe(Layer.provide(server))

if (import.meta.url === `file://${process.argv[1]}`) {
  Effect.gen(function*() {
    yield* Console.log(`listening ${yield* HttpTransport.url}`)
    return yield* Effect.never
  }).pipe(Effect.provide(serve(Number(process.argv[2] ?? 3000))), NodeRuntime.runMain)
}
