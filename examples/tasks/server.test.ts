/**
 * Tasks: the tool of server.ts with and without the Tasks extension, answered by one scripted user, in memory.
 */
import { assert, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Harness, Recorder, ScriptedUser } from "@mrtr/testing"
import { Effect } from "effect"
import { server } from "./server.ts"

// #region test
const user = ScriptedUser.layer({
  elicitation: {
    byKey: { passenger: ScriptedUser.accept({ name: "Ada" }), confirm: ScriptedUser.accept({ book: true }) }
  }
})

// The client polls the task on the live clock: it.live.
it.live("runs as a task when the client declares the extension", () =>
  Effect.gen(function*() {
    const statuses: Array<string> = []
    const client = yield* McpClient.McpClient
    const result = yield* client.callTool(
      { name: "book_tickets", arguments: { from: "Paris", to: "Rome" } },
      { onTaskStatus: (change) => Effect.sync(() => statuses.push(change.status)) }
    )
    assert.deepStrictEqual(result.content, [{ type: "text", text: "Booked seat 54A for Ada." }])
    assert.deepStrictEqual(statuses.at(-1), "completed")
    assert.isTrue(statuses.includes("input_required")) // the confirmation was task input
  }).pipe(Effect.provide(Harness.layer({ server, user, client: { tasks: "auto" } }))))
// #endregion test

it.live("asks the same questions as MRTR rounds without the extension", () =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const result = yield* client.callTool({ name: "book_tickets", arguments: { from: "Paris", to: "Rome" } })
    assert.deepStrictEqual(result.content, [{ type: "text", text: "Booked seat 54A for Ada." }])
    assert.deepStrictEqual((yield* Recorder.questions).map((q) => [q.round, q.key]), [[1, "passenger"], [2, "confirm"]])
  }).pipe(Effect.provide(Harness.layer({ server, user }))))
