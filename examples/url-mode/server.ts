/**
 * URL mode: a tool asking for an API key on the server's own page (`Elicitation.secure`), so the secret never passes
 * through the MCP client. The page is mounted beside the MCP endpoint and shares its store.
 * Run it: `npx tsx examples/url-mode/server.ts [port]` (prints `listening <url>`); `client.ts` drives it.
 */
// #region server
import { NodeRuntime } from "@effect/platform-node"
import { Elicitation } from "@mrtr/core"
import { HttpTransport, InteractionPage, McpServer, Tool } from "@mrtr/server"
import { Console, Effect, Layer, Schema } from "effect"

const ApiKey = Schema.Struct({
  api_key: Schema.String.check(Schema.isMinLength(12)).annotate({ title: "API key" })
})

const connect = Tool.make("connect", {
  handler: () =>
    Effect.gen(function*() {
      const { api_key } = yield* Elicitation.secure({
        key: "api_key",
        message: "Paste your Acme API key",
        schema: ApiKey
      })
      return `connected (${api_key.length} characters)`
    })
})

// The store and the page's URL (behind a proxy: { publicBaseUrl }). A local server for the person at this machine
// acknowledges a single user; with authorization on, say who the page's user is instead: { principal }.
const interactions = InteractionPage.layer({ singleUser: true })
const server = McpServer.tools(connect).pipe(
  Layer.provide(interactions),
  Layer.provideMerge(McpServer.layer({ name: "acme", version: "1.0.0" }))
)

/** `/mcp` and the pages under `/mrtr/interactions/<id>`, sharing one store (`port` 0: any free port). */
export const serve = (port: number) =>
  HttpTransport.layer({ port, mount: InteractionPage.routes }).pipe(Layer.provide(server), Layer.provide(interactions))
// #endregion server

if (import.meta.url === `file://${process.argv[1]}`) {
  Effect.gen(function*() {
    yield* Console.log(`listening ${yield* HttpTransport.url}`)
    return yield* Effect.never
  }).pipe(Effect.provide(serve(Number(process.argv[2] ?? 3000))), NodeRuntime.runMain)
}
