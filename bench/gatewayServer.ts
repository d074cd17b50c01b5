/**
 * The gateway process of `npm run bench:gateway` (compiled with esbuild, run
 * on plain `node`): `Gateway.layer` of an `mcpServers` configuration (JSON in
 * argv[2]) served over Streamable HTTP on a free port of 127.0.0.1; tells its
 * parent `{ type: "ready", url }` over IPC once it serves.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Gateway } from "@mrtr/gateway"
import { HttpTransport } from "@mrtr/server"
import { Effect, Layer } from "effect"

const main = Effect.gen(function*() {
  const config = yield* Gateway.parse(process.argv[2]!)
  yield* Effect.gen(function*() {
    const url = yield* HttpTransport.url
    process.send!({ type: "ready", url })
    process.on("disconnect", () => process.exit(0))
    return yield* Effect.never
  }).pipe(Effect.provide(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(Gateway.layer(config)))))
})

NodeRuntime.runMain(main.pipe(Effect.orDie))
