/** Serves `trips.ts` over Streamable HTTP on a free port of 127.0.0.1 and prints `listening <url>`. */
import { NodeRuntime } from "@effect/platform-node"
import { HttpTransport } from "@mrtr/server"
import { Console, Effect, Layer } from "effect"
import { server } from "./trips.js"

Effect.gen(function*() {
  yield* Console.log(`listening ${yield* HttpTransport.url}`)
  return yield* Effect.never
}).pipe(
  Effect.provide(HttpTransport.layer({ port: 0, host: "127.0.0.1" }).pipe(Layer.provide(server))),
  NodeRuntime.runMain
)
