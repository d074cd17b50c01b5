/**
 * Both eras: one handler, one scripted user, each era in memory.
 */
import { assert, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Harness, ScriptedUser } from "@mrtr/testing"
import { Effect } from "effect"
import { server } from "./server.ts"

// #region test
const user = ScriptedUser.layer({ elicitation: { byKey: { "elicitation-1": ScriptedUser.accept({ name: "Ada" }) } } })

for (const protocol of ["2026-07-28", "2025-11-25"] as const) {
  it.effect(`greets over ${protocol}`, () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "greet" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "Hello, Ada!" }])
      assert.strictEqual((yield* client.connection).era, protocol)
    }).pipe(Effect.provide(Harness.layer({ server, user, protocol }))))
}
// #endregion test
