/**
 * Observability: after one two-round conversation over HTTP, the scrape endpoint shows the conversation counters.
 */
import { assert, it } from "@effect/vitest"
import { ElicitationHandler, HttpTransport as ClientHttp, McpClient } from "@mrtr/client"
import { HttpTransport } from "@mrtr/server"
import { ConfigProvider, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { serveWithMetrics } from "./observability.ts"

const keys = ConfigProvider.layer(
  ConfigProvider.fromUnknown({ MRTR_REQUEST_STATE_KEYS: `k1:${randomBytes(32).toString("base64url")}` })
)

it.live("counts the conversation on /metrics", () =>
  Effect.gen(function*() {
    const url = yield* HttpTransport.url
    const user = ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ name: "Ada" })) })
    yield* McpClient.McpClient.use((client) => client.callTool({ name: "greet" })).pipe(
      Effect.provide(McpClient.layer().pipe(Layer.provide(ClientHttp.layerNode({ url })), Layer.provide(user)))
    )
    const text = yield* Effect.promise(() => fetch(new URL("/metrics", url)).then((response) => response.text()))
    assert.match(text, /mrtr_conversations_started_total\{[^}]*method="tools\/call"[^}]*\} 1/)
    assert.match(text, /mrtr_conversations_completed_total\{[^}]*method="tools\/call"[^}]*\} 1/)
  }).pipe(Effect.provide(serveWithMetrics(0).pipe(Layer.provide(keys)))))
