/**
 * Deployment: key rotation as the docs describe it. A state sealed before a rotation is still opened while the old key
 * is on the ring, refused once it is gone; a single-use state is refused the second time.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Errors } from "@mrtr/client"
import { McpClient } from "@mrtr/client"
import { Harness } from "@mrtr/testing"
import { ConfigProvider, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { server } from "./server.ts"

const key = () => randomBytes(32).toString("base64url")
const [k1, k2] = [`k1:${key()}`, `k2:${key()}`]

/** The server of server.ts with `MRTR_REQUEST_STATE_KEYS` set to `keys`, and a client that answers by hand. */
const withKeys = (keys: string) =>
  Harness.layer({
    server: server.pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ MRTR_REQUEST_STATE_KEYS: keys })))
    ),
    client: { capabilities: { elicitation: { form: {} } } }
  })

/** Round 1 on a server with `keys`: the `requestState` it sealed. */
const firstRound = (keys: string) =>
  McpClient.McpClient.use((client) => client.callTool({ name: "greet" })).pipe(
    Effect.flip,
    Effect.map((error) => (error as Errors.InputRequiredError).requestState!),
    Effect.provide(withKeys(keys))
  )

/** Round 2 on a server with `keys`: the answer and `state`. */
const retry = (keys: string, state: string) =>
  McpClient.McpClient.use((client) =>
    client.callTool({
      name: "greet",
      inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
      requestState: state
    })
  ).pipe(Effect.provide(withKeys(keys)))

describe("key rotation", () => {
  it.effect("a state sealed with k1 opens on k1,k2 and on k2,k1, and not on k2 alone", () =>
    Effect.gen(function*() {
      const state = yield* firstRound(k1)
      const expected = [{ type: "text" as const, text: "Hello, Ada!" }]
      assert.deepStrictEqual((yield* retry(`${k1},${k2}`, state)).content, expected)
      assert.deepStrictEqual((yield* retry(`${k2},${k1}`, state)).content, expected)
      const refused = yield* Effect.flip(retry(k2, state))
      assert.strictEqual((refused as Errors.McpError).code, -32602)
    }))

  it.effect("a single-use state is redeemed once", () =>
    Effect.gen(function*() {
      const state = yield* firstRound(k1)
      const again = McpClient.McpClient.use((client) =>
        client.callTool({
          name: "greet",
          inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
          requestState: state
        })
      )
      yield* again
      const refused = yield* Effect.flip(again)
      assert.strictEqual((refused as Errors.McpError).code, -32602)
    }).pipe(Effect.provide(withKeys(k1))))
})
