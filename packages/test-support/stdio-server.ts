/**
 * The stdio fixture server, spawned by tests as `node` with `sourceNodeArgs` (its path is `stdioServerScript` of
 * `./fixtures.ts`): the fixture tools of `./fixtures.ts` over stdio with `StdioTransport.main`, or, given the argument
 * `travel`, the trip planner of `./travel.ts` with its interaction page on a free port of 127.0.0.1. Each loads only
 * what it serves, so the process answers soon after it starts.
 */
import { StdioTransport } from "@mrtr/server"

if (process.argv.slice(2).includes("travel")) {
  const [{ InteractionPage }, { Layer }, Travel] = await Promise.all([
    import("@mrtr/server"),
    import("effect"),
    import("./travel.ts")
  ])
  StdioTransport.main(InteractionPage.serve({ port: 0 }).pipe(Layer.provideMerge(Travel.layer)))
} else {
  const { server } = await import("./fixtures.ts")
  StdioTransport.main(server)
}
