/**
 * Get started: the tool of src/server.ts tested with a scripted user, in memory.
 */
// #region test
import { assert, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Harness, Recorder, ScriptedUser } from "@mrtr/testing"
import { Effect } from "effect"
import { server } from "../src/server.js"

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

// #region shared
it.layer(Harness.layer({ server, user }))((it) => {
  const greet = McpClient.McpClient.pipe(
    Effect.flatMap((client) => client.callTool({ name: "greet", arguments: { greeting: "Hi" } }))
  )
  it.effect("asks two questions", () =>
    Effect.gen(function*() {
      yield* greet
      assert.strictEqual((yield* Recorder.questions).length, 2)
    }))
  it.effect("asks two questions again", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* Recorder.questions).length, 2) // still the first test's questions
      yield* Recorder.clear // forget them: this test sees only its own
      yield* greet
      assert.strictEqual((yield* Recorder.questions).length, 2) // 4 without the clear
    }))
})
// #endregion shared
