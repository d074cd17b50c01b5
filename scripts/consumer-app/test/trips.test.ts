/** A consumer's vitest test of its tool with `@mrtr/testing`: a scripted user, in memory. */
import { assert, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Harness, Recorder, ScriptedUser } from "@mrtr/testing"
import { Effect } from "effect"
import { server } from "../src/trips.js"

const TestLayer = Harness.layer({
  server,
  user: ScriptedUser.layer({
    elicitation: { byKey: { dates: ScriptedUser.accept({ departure: "2026-12-24", nights: 3 }) } },
    sampling: { otherwise: ScriptedUser.text("MR107") },
    roots: [{ uri: "file:///tmp/trips" }]
  })
})

it.layer(TestLayer)((it) => {
  it.effect("books a trip in two rounds", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "book_trip", arguments: { city: "Lisbon" } })
      assert.deepStrictEqual(result.content, [
        { type: "text", text: "Booked MR107 for 3 nights; receipt filed under file:///tmp/trips" }
      ])
      const questions = yield* Recorder.questions
      assert.deepStrictEqual(questions.map((q) => [q.round, q.key]).sort(), [[1, "dates"], [2, "pick"], [2, "roots"]])
    }))
})
