/**
 * The stdio fixture server, spawned by tests as `node` with `sourceNodeArgs` (its path is `stdioServerScript` of
 * `./fixtures.ts`): the fixture tools of `./fixtures.ts` over stdio with `StdioTransport.main`, or, given the argument
 * `travel`, the trip planner of `./travel.ts` with its interaction page on a free port of 127.0.0.1.
 */
import { InteractionPage, StdioTransport } from "@mrtr/server"
import { Layer } from "effect"
import { server } from "./fixtures.ts"
import * as Travel from "./travel.ts"

if (process.argv.slice(2).includes("travel")) {
  StdioTransport.main(InteractionPage.serve({ port: 0 }).pipe(Layer.provideMerge(Travel.layer)))
} else {
  StdioTransport.main(server)
}
