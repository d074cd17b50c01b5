/**
 * One instance of the fleet: the demo's tools, prompt and resource
 * (`../demo/server.ts`) on a server configured from the environment, as a
 * deployment would configure it. The Layer graph says what runs:
 *
 * - `McpServer.layerConfig`: the key ring (`MRTR_REQUEST_STATE_KEYS`, shared
 *   by every instance), expiry, single use (`MRTR_SINGLE_USE`) and task lease
 *   (`MRTR_TASK_LEASE`);
 * - `Redis.layerFleetConfig()` (`MRTR_REDIS_URL`) as its shared services and
 *   as the interaction page's store, one connection for both; without
 *   `MRTR_REDIS_URL` (or with it empty) the instance keeps them in memory
 *   (`McpServer.layerLocal()`), as one instance alone would;
 * - the interaction pages on the balancer's origin (`MRTR_PUBLIC_BASE_URL`),
 *   for the demo's single user (no authorization).
 *
 * Run as `examples/fleet/instance.ts --port <port>`; prints `listening <url>`.
 */
import { NodeRuntime } from "@effect/platform-node"
import { HttpTransport, InteractionPage, McpServer } from "@mrtr/server"
import * as Redis from "@mrtr/server/Redis"
import { Config, Console, Effect, Layer, Option, References } from "effect"
import { items, serverOptions, singleUserPage } from "../demo/server.ts"

const port = Number(process.argv[process.argv.indexOf("--port") + 1] ?? 0) || 0

// Absent or empty: None.
const optional = (name: string) =>
  Config.option(Config.String(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

// #region instance
const instance = Layer.unwrap(Effect.gen(function*() {
  const fleet = Option.isSome(yield* optional("MRTR_REDIS_URL")) ? Redis.layerFleetConfig() : undefined
  const base = yield* optional("MRTR_PUBLIC_BASE_URL")
  const page = InteractionPage.layer({
    ...singleUserPage,
    ...(Option.isSome(base) ? { publicBaseUrl: base.value } : {}),
    ...(fleet === undefined ? {} : { store: fleet })
  })
  const server = McpServer.layerConfig({ ...serverOptions, shared: fleet ?? McpServer.layerLocal() })
  return HttpTransport.layer({ port, cors: true, mount: InteractionPage.routes }).pipe(
    Layer.provide(items.pipe(Layer.provideMerge(page), Layer.provideMerge(server)))
  )
}))
// #endregion instance

Effect.gen(function*() {
  yield* Console.log(`listening ${yield* HttpTransport.url}`)
  return yield* Effect.never
}).pipe(
  Effect.provide(instance),
  Effect.provideService(References.LogToStderr, true),
  NodeRuntime.runMain
)
