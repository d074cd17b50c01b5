/**
 * Node's HTTP server module (`@effect/platform-node/NodeHttpServer`, with
 * `ws`: about 40 modules), imported when a layer that serves HTTP is built
 * (`HttpTransport.layer`, `InteractionPage.serve`), not when `@mrtr/server`
 * is imported: a server that never serves HTTP (stdio) does not load it,
 * which keeps its start-up short (`bench/stdioFirstAnswer.ts`).
 *
 * @internal
 */
import type * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect } from "effect"

/** The module, imported on first use (then from Node's module cache). */
export const loadNodeHttpServer: Effect.Effect<typeof NodeHttpServer> = Effect.promise(() =>
  import("@effect/platform-node/NodeHttpServer")
)
