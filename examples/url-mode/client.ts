/**
 * URL mode: a client that consents to the server's page and retries until the page was submitted. An app opens
 * `params.url` in the user's browser (`app` below); this client, to check itself, lets a scripted browser fill the page
 * the way a person would (`ScriptedUser.completePage`). Run it while server.ts runs:
 * `npx tsx examples/url-mode/client.ts [url]`.
 */
import { NodeRuntime } from "@effect/platform-node"
import { ElicitationHandler, HttpTransport, McpClient } from "@mrtr/client"
import { ScriptedUser } from "@mrtr/testing"
import { Console, Effect, Layer } from "effect"

// #region app
// In an app: show the message and the URL's host, ask consent, open the browser; then accept.
// The client retries with backoff (ElicitationHandler.waitAndRetry) until the page was submitted.
export const app = ElicitationHandler.layer({
  url: (params) =>
    Effect.gen(function*() {
      yield* Console.log(`${params.message}: open ${params.url}`)
      return ElicitationHandler.accept()
    })
})
// #endregion app

// #region scripted
// The same answer from a scripted browser: GET the page, POST the form with its CSRF token, then accept.
const browser = ScriptedUser.layer({
  elicitation: { modes: ["url"], byKey: { api_key: ScriptedUser.completePage({ api_key: "sk-live-123456" }) } }
})
// #endregion scripted

/** Connects at `url`, the scripted browser typing the key on the page; fails unless the tool got it. */
export const verify = (url: string) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const result = yield* client.callTool({ name: "connect" })
    const expected = [{ type: "text", text: "connected (14 characters)" }]
    if (JSON.stringify(result.content) !== JSON.stringify(expected)) {
      return yield* Effect.fail(new Error(`unexpected result: ${JSON.stringify(result.content)}`))
    }
    yield* Console.log(result.content)
  }).pipe(
    Effect.provide(McpClient.layer().pipe(Layer.provide(HttpTransport.layerNode({ url })), Layer.provide(browser)))
  )

if (import.meta.url === `file://${process.argv[1]}`) {
  verify(process.argv[2] ?? "http://127.0.0.1:3000/mcp").pipe(NodeRuntime.runMain)
}
