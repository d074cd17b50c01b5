/**
 * Both eras: one server, one endpoint, one handler. A 2026-07-28 client gets `input_required` rounds; a 2025-11-25
 * client (`initialize`, a session) gets the same asks as server-to-client `elicitation/create` requests on the call's
 * SSE stream. Nothing to configure. Run it: `npx tsx examples/dual-era/server.ts`; `client.ts` speaks both eras to it.
 */
// #region server
import { NodeRuntime } from "@effect/platform-node"
import { Elicitation } from "@mrtr/core"
import { HttpTransport, McpServer, Tool } from "@mrtr/server"
import { Console, Effect, Layer, Schema } from "effect"

const Name = Schema.Struct({ name: Schema.String })

const greet = Tool.make("greet", {
  handler: () =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ message: "Your name?", schema: Name }) // key: "elicitation-1"
      return `Hello, ${name}!`
    })
})

export const server = McpServer.tools(greet).pipe(
  Layer.provideMerge(McpServer.layer({
    name: "greeter",
    version: "1.0.0",
    legacy: { maxSessions: 1000, sessionIdleTimeout: "30 minutes", inputTimeout: "5 minutes" } // or false: 2026 only
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
