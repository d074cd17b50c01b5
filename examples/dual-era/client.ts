/**
 * Both eras: the same client code, pinned once to each revision, with the same handler Layer. Run it while server.ts
 * runs: `npx tsx examples/dual-era/client.ts [url]`; it fails unless both eras greet Ada.
 */
// #region client
import { NodeRuntime } from "@effect/platform-node"
import { ElicitationHandler, HttpTransport, McpClient } from "@mrtr/client"
import { Console, Effect, Layer } from "effect"

const user = ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ name: "Ada" })) })

// `protocol` defaults to "auto": one server/discover probe, then 2026-07-28, or initialize and a session.
const greetOver = (url: string, protocol: "2026-07-28" | "2025-11-25") =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const result = yield* client.callTool({ name: "greet" })
    const { era, protocolVersion } = yield* client.connection // which revision was spoken
    yield* Console.log(`${era} (${protocolVersion}):`, result.content)
    return { era, result }
  }).pipe(Effect.provide(
    McpClient.layer({ protocol }).pipe(
      Layer.provide(HttpTransport.layerNode({ url })),
      Layer.provide(user)
    )
  ))
// #endregion client

/** Greets at `url` over each era; fails unless both answer the same greeting over the era asked for. */
export const verify = (url: string) =>
  Effect.forEach(["2026-07-28", "2025-11-25"] as const, (protocol) =>
    Effect.gen(function*() {
      const { era, result } = yield* greetOver(url, protocol)
      const expected = [{ type: "text", text: "Hello, Ada!" }]
      if (era !== protocol || JSON.stringify(result.content) !== JSON.stringify(expected)) {
        return yield* Effect.fail(new Error(`${protocol}: got ${era} and ${JSON.stringify(result.content)}`))
      }
    }), { discard: true })

if (import.meta.url === `file://${process.argv[1]}`) {
  verify(process.argv[2] ?? "http://127.0.0.1:3000/mcp").pipe(NodeRuntime.runMain)
}
