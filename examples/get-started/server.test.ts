/**
 * Get started: the tool of server.ts tested with a scripted user, in memory.
 */
// #region test
import { assert, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Harness, Recorder, ScriptedUser } from "@mrtr/testing"
import { Effect } from "effect"
import { server } from "./server.js"

const user = ScriptedUser.layer({
  elicitation: {
    byKey: { name: ScriptedUser.accept({ name: "Ada" }), city: ScriptedUser.accept({ city: "London" }) }
  }
})

it.layer(Harness.layer({ server, user }))((it) => {
  it.effect("greets after two questions", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "greet", arguments: { greeting: "Hello" } })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "Hello, Ada from London!" }])
      const questions = yield* Recorder.questions // every question asked, with its key and round
      assert.deepStrictEqual(questions.map((q) => [q.round, q.key]), [[1, "name"], [2, "city"]])
    }))
})
// #endregion test
