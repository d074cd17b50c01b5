/**
 * The example gateway: its `mcp.json` as the command reads
 * it, two stdio upstreams of different eras, called through the gateway by
 * `@mrtr/client` on both revisions.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Gateway } from "@mrtr/gateway"
import { Harness, ScriptedUser } from "@mrtr/testing"
import { Effect, Layer, Schedule } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const ROOT = fileURLToPath(new URL("../../", import.meta.url))
const text = readFileSync(new URL("./mcp.json", import.meta.url), "utf8")

const gateway = Layer.unwrap(Effect.map(Gateway.parse(text), (config) =>
  Gateway.layer({
    ...config,
    mcpServers: Object.fromEntries(
      Object.entries(config.mcpServers).map(([name, server]) => [name, { ...server, cwd: ROOT }])
    )
  }))).pipe(Layer.orDie)

const user = ScriptedUser.layer({
  elicitation: {
    otherwise: (params: any) =>
      String(params.message).startsWith("How many")
        ? ScriptedUser.accept({ nights: 2 })
        : ScriptedUser.accept({ class: "second" })
  }
})

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

const scenario = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  // The gateway serves at once; a stdio upstream's items appear once it has started (tsx boots slowly on a busy machine).
  const listed = Effect.map(client.listTools(), (r) => r.tools.map((t) => t.name).sort())
  const names = yield* listed.pipe(
    Effect.repeat({ until: (names) => names.length === 2, schedule: Schedule.spaced("250 millis") }),
    Effect.timeout("45 seconds")
  )
  return {
    names,
    hotel: textOf(yield* client.callTool({ name: "hotels_book_hotel", arguments: { city: "Lisboa" } })),
    train: textOf(yield* client.callTool({ name: "trains_book_train", arguments: { to: "Porto" } }))
  }
})

const EXPECTED = {
  names: ["hotels_book_hotel", "trains_book_train"],
  hotel: "Booked 2 night(s) in Lisboa",
  train: "Booked second class to Porto"
}

describe("the example gateway", () => {
  it.live(
    "a 2026-07-28 client",
    () =>
      Effect.map(scenario, (outcome) => assert.deepStrictEqual(outcome, EXPECTED)).pipe(
        Effect.provide(Harness.layer({ server: gateway, user }))
      ),
    90_000
  )

  it.live(
    "a 2025-11-25 client",
    () =>
      Effect.map(scenario, (outcome) => assert.deepStrictEqual(outcome, EXPECTED)).pipe(
        Effect.provide(Harness.layer({ server: gateway, user, protocol: "2025-11-25" }))
      ),
    90_000
  )
})
