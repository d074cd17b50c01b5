/**
 * Get started: a tool that asks the user two questions, in direct style.
 * Run it: `npx tsx examples/get-started/src/server.ts [port]` (prints `listening <url>`).
 */
// #region server
import { NodeRuntime } from "@effect/platform-node"
import { Elicitation } from "@mrtr/core"
import { HttpTransport, McpServer, Tool } from "@mrtr/server"
import { Console, Effect, Layer, Schema } from "effect"

const Name = Schema.Struct({ name: Schema.String })
const City = Schema.Struct({ city: Schema.String })

const greet = Tool.make("greet", {
  parameters: Schema.Struct({ greeting: Schema.String }),
  handler: ({ greeting }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "name", message: "Your name?", schema: Name })
      const { city } = yield* Elicitation.form({ key: "city", message: `Where are you, ${name}?`, schema: City })
      return `${greeting}, ${name} from ${city}!`
    })
})

export const server = McpServer.tools(greet).pipe(
  Layer.provideMerge(McpServer.layer({ name: "greeter", version: "1.0.0" }))
)
// #endregion server

// #region main
/** Streamable HTTP on 127.0.0.1 (`port` 0: any free port). */
export const serve = (port: number) => HttpTransport.layer({ port }).pipe(Layer.provide(server))

if (import.meta.url === `file://${process.argv[1]}`) {
  Effect.gen(function*() {
    yield* Console.log(`listening ${yield* HttpTransport.url}`) // once the port is bound
    return yield* Effect.never
  }).pipe(Effect.provide(serve(Number(process.argv[2] ?? 3000))), NodeRuntime.runMain)
}
// #endregion main
