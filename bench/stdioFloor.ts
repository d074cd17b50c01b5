/**
 * The floor for `bench/stdioFirstAnswer.ts`: what any Effect stdio server pays before its first answer. It imports
 * `effect` (Effect 4 publishes its modules behind barrels, so this loads the `effect` barrel as every Effect
 * application does) and answers the first line on stdin with a fixed `DiscoverResult`, with no MCP code at all.
 */
import { Effect, Layer, Schema } from "effect"
import { createInterface } from "node:readline"

const Request = Schema.Struct({ id: Schema.Number })
const decode = Schema.decodeUnknownSync(Schema.fromJsonString(Request))

createInterface({ input: process.stdin }).on("line", (line) => {
  const { id } = decode(line)
  Effect.runSync(
    Effect.sync(() => {
      process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result: { supportedVersions: ["2026-07-28"] } }) + "\n")
    }).pipe(Effect.provide(Layer.empty))
  )
})
