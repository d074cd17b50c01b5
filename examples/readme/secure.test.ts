/**
 * The README's secure elicitation over real HTTP: the scripted user
 * completes the server's page, the retry returns the tool's result.
 */
import { assert, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpTransport as ClientHttp, McpClient } from "@mrtr/client"
import { HttpTransport } from "@mrtr/server"
import { ScriptedUser } from "@mrtr/testing"
import { serve } from "./secure.ts"

it.live("the API key is typed on the server's page, the tool gets it", () =>
  Effect.gen(function*() {
    const url = yield* HttpTransport.url
    const result = yield* McpClient.McpClient.use((client) => client.callTool({ name: "connect" })).pipe(
      Effect.provide(
        McpClient.layer().pipe(
          Layer.provide(ClientHttp.layerNode({ url })),
          Layer.provide(ScriptedUser.layer({
            elicitation: { modes: ["url"], byKey: { api_key: ScriptedUser.completePage({ api_key: "sk-live-123456" }) } }
          }))
        )
      )
    )
    assert.deepStrictEqual(result.content, [{ type: "text", text: "connected (14 characters)" }])
  }).pipe(Effect.provide(serve(0))))
