/**
 * Asking, driven by hand: a client that declares elicitation without a handler gets each round as an
 * `InputRequiredError`, answers by key, and calls again with the echoed `requestState`.
 */
import { assert, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Harness } from "@mrtr/testing"
import { Effect } from "effect"
import { server } from "./server.ts"

const byHand = Harness.layer({ server, client: { capabilities: { elicitation: { form: {} } } } })

it.effect("answers the round by hand", () =>
  Effect.gen(function*() {
    // #region manual
    const client = yield* McpClient.McpClient
    const result = yield* client.callTool({ name: "subscribe" }).pipe(
      Effect.catchTag("InputRequiredError", (round) =>
        // round.inputRequests: the questions by key; answer each, then call again with the echoed state
        client.callTool({
          name: "subscribe",
          inputResponses: { email: { action: "accept", content: { email: "ada@example.com" } } },
          requestState: round.requestState
        }))
    )
    // #endregion manual
    assert.deepStrictEqual(result.content, [{ type: "text", text: "Subscribed ada@example.com." }])
  }).pipe(Effect.provide(byHand)))
