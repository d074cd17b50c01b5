/**
 * The server the agent's story talks to: the demo's trip planner (`examples/demo/server.ts`) over Streamable HTTP
 * on 127.0.0.1. Run it: `npx tsx examples/agent/server.ts [port]`, then `npm run agent -- --url <url>`.
 */
import { NodeRuntime } from "@effect/platform-node"
import { HttpTransport } from "@mrtr/server"
import { Console, Effect } from "effect"
import * as Demo from "../demo/server.ts"

/** Streamable HTTP on 127.0.0.1 (`port` 0: any free port). */
export const serve = (port: number) => Demo.serve(port)

if (import.meta.url === `file://${process.argv[1]}`) {
  Effect.gen(function*() {
    yield* Console.log(`listening ${yield* HttpTransport.url}`)
    return yield* Effect.never
  }).pipe(Effect.provide(serve(Number(process.argv[2] ?? 3000))), NodeRuntime.runMain)
}
