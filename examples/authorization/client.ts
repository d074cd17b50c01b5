/**
 * Authorization: a client that signs in on the server's first `401` (discovery, dynamic registration, the code flow
 * with PKCE, the `resource` indicator) and is asked for more scope on `save_note`'s `403`. The user agent here is a
 * headless browser in which Ada signs in and consents; an app opens the system browser and receives the redirect on a
 * loopback port, as `mrtr` does. Run it while server.ts runs: `npx tsx examples/authorization/client.ts [url]`.
 */
// #region client
import { NodeRuntime } from "@effect/platform-node"
import { Authorization, ElicitationHandler, HttpTransport, McpClient } from "@mrtr/client"
import { headlessBrowser } from "@mrtr/test-support/oauth" // #hide
import { Console, Effect, Layer } from "effect"

// Where the user signs in: receives the authorization URL, returns the URL the server redirected to.
const userAgent = Layer.sync(Authorization.UserAgent, () => {
  const browser = headlessBrowser("ada")
  return Authorization.UserAgent.of({
    redirectUri: "http://127.0.0.1:33418/callback",
    authorize: (url) =>
      Effect.tryPromise({
        try: () => browser(url.href),
        catch: (cause) => new Authorization.AuthorizationError({ reason: "the browser failed", cause })
      })
  })
})

// Tokens in memory; Authorization.layerWithStore with TokenStore.layerFile(path) keeps them across runs.
const signIn = Authorization.layer({ clientName: "notes-app" }).pipe(Layer.provide(userAgent))

const user = ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ text: "buy milk" })) })

const client = (url: string) =>
  McpClient.layer().pipe(
    Layer.provide(HttpTransport.layerNode({ url }).pipe(Layer.provide(signIn))),
    Layer.provide(user)
  )
// #endregion client

/** Signs in at `url` and saves a note; fails unless it was saved for Ada. */
export const verify = (url: string) =>
  Effect.gen(function*() {
    const mcp = yield* McpClient.McpClient
    const result = yield* mcp.callTool({ name: "save_note" })
    const expected = [{ type: "text", text: "Saved \"buy milk\" for ada." }]
    if (JSON.stringify(result.content) !== JSON.stringify(expected)) {
      return yield* Effect.fail(new Error(`unexpected result: ${JSON.stringify(result.content)}`))
    }
    yield* Console.log(result.content)
  }).pipe(Effect.provide(client(url)))

if (import.meta.url === `file://${process.argv[1]}`) {
  verify(process.argv[2] ?? "http://127.0.0.1:3000/mcp").pipe(NodeRuntime.runMain)
}
