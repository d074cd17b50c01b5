/**
 * The README's server, served: `npx tsx examples/readme/main.ts` (Streamable
 * HTTP on http://127.0.0.1:3000/mcp; `--stdio` serves stdin/stdout instead).
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { HttpTransport, StdioTransport } from "@mrtr/server"
import { server } from "./trips.ts"

if (process.argv.includes("--stdio")) {
  // stdout carries only JSON-RPC; logs go to stderr
  StdioTransport.main(server)
} else {
  Effect.gen(function*() {
    yield* Console.log(`listening ${yield* HttpTransport.url}`)
    return yield* Effect.never
  }).pipe(Effect.provide(HttpTransport.layer({ port: 3000 }).pipe(Layer.provide(server))), NodeRuntime.runMain)
}
