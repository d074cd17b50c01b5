/**
 * Asking: the tools of server.ts against scripted users, in memory: the rounds each question was asked in, what went
 * over the wire, a declined form, and a client without the elicitation capability.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Harness, Recorder, ScriptedUser } from "@mrtr/testing"
import { Effect } from "effect"
import { server } from "./server.ts"

// #region test
const traveller = ScriptedUser.layer({
  elicitation: { byKey: { dates: ScriptedUser.accept({ departure: "2026-12-24", nights: 3 }) } },
  sampling: { otherwise: ScriptedUser.text("MR107") },
  roots: [{ uri: "file:///tmp/trips" }]
})

it.layer(Harness.layer({ server, user: traveller }))((it) => {
  it.effect("books a trip in two rounds", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "book_trip", arguments: { city: "Lisbon" } })
      assert.deepStrictEqual(result.content, [
        { type: "text", text: "Booked MR107 for 3 nights; receipt filed under file:///tmp/trips" }
      ])
      const questions = yield* Recorder.questions // every question asked, with its key and round
      assert.deepStrictEqual(questions.map((q) => [q.round, q.key]).sort(), [[1, "dates"], [2, "pick"], [2, "roots"]])
      assert.strictEqual((yield* Harness.requests).length, 3) // what went over the wire
    }))
})
// #endregion test

describe("subscribe", () => {
  // #region decline
  it.effect("a declined form is caught by the handler", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "subscribe" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "Not subscribed." }])
    }).pipe(Effect.provide(Harness.layer({
      server,
      user: ScriptedUser.layer({ elicitation: { byKey: { email: ScriptedUser.decline } } })
    }))))
  // #endregion decline

  it.effect("a client that cannot elicit gets the fallback", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "subscribe" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "Not subscribed: this client cannot ask you." }])
    }).pipe(Effect.provide(Harness.layer({ server }))))

  const asked: Array<string> = []
  it.effect("an answer that is not an email is asked again with the reason", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "subscribe" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "Subscribed ada@example.com." }])
      assert.strictEqual(asked.length, 2)
      assert.strictEqual(
        asked[1],
        "Your answer was not accepted: \"Email\" must be an email address (such as name@example.com). Please answer again." +
          "\n\nYour email, for the newsletter?"
      )
    }).pipe(Effect.provide(Harness.layer({
      server,
      user: ScriptedUser.layer({
        elicitation: {
          otherwise: (params) => {
            asked.push(params.message)
            return ScriptedUser.accept({ email: params.message.startsWith("Your answer") ? "ada@example.com" : "ada" })
          }
        }
      })
    }))))
})
