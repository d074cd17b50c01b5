/**
 * End to end: `@mrtr/client` against `@mrtr/server` over real transports,
 * Streamable HTTP (the server's `HttpTransport` on 127.0.0.1, ephemeral
 * port) and stdio (the server spawned as a child process), with the scripted
 * user answering, on both eras (2025-11-25 pinned: initialize, the shim's
 * in-flight requests, logging/setLevel). Source: MCP 2026-07-28,
 * basic/transports, basic/patterns/mrtr; MCP 2025-11-25, basic/lifecycle.
 */
import { assert, describe, it } from "@effect/vitest"
import { HttpTransport as ClientHttp, McpClient, StdioTransport as ClientStdio } from "@mrtr/client"
import { HttpTransport } from "@mrtr/server"
import { server, stdioServerScript } from "@mrtr/test-support/fixtures"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { Effect, Layer, Ref } from "effect"
import { fileURLToPath } from "node:url"
import { Recorder, ScriptedUser } from "../src/index.ts"

const user = ScriptedUser.layer({
  elicitation: {
    byKey: { who: ScriptedUser.accept({ name: "Kim" }), confirm: ScriptedUser.accept({ ok: false }) }
  },
  sampling: { otherwise: ScriptedUser.text("eat pastries") },
  roots: [{ uri: "file:///srv" }]
})

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

const scenario = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const seen = yield* Ref.make<ReadonlyArray<string>>([])
  const planned = yield* client.callTool({ name: "plan", arguments: { city: "Lisboa" } })
  const regional = yield* client.callTool({ name: "regional", arguments: { region: "ünïcode", query: "q" } })
  const slow = yield* client.callTool(
    { name: "slow" },
    { progressToken: "tok", onNotification: (n) => Ref.update(seen, (all) => [...all, n.method]) }
  )
  return {
    planned: textOf(planned),
    regional: textOf(regional),
    slow: textOf(slow),
    notifications: yield* Ref.get(seen),
    questions: (yield* Recorder.questions).map((q) => q.key)
  }
})

const expectOutcome = (outcome: Effect.Success<typeof scenario>) => {
  assert.strictEqual(outcome.planned, "Kim: eat pastries (1 roots) not booked")
  assert.strictEqual(outcome.regional, "q in ünïcode")
  assert.strictEqual(outcome.slow, "done")
  assert.sameMembers(outcome.questions, ["who", "idea", "roots", "confirm"])
}

describe("end to end", () => {
  it.live("over Streamable HTTP", () =>
    Effect.gen(function*() {
      const url = yield* HttpTransport.url
      const outcome = yield* scenario.pipe(
        Effect.provide(
          McpClient.layer({ logLevel: "info" }).pipe(
            Layer.provide(ClientHttp.layerNode({ url })),
            Layer.provideMerge(user)
          )
        )
      )
      expectOutcome(outcome)
      // progress and the log line arrive on the SSE stream of the call
      assert.deepStrictEqual(outcome.notifications, [
        "notifications/progress",
        "notifications/message",
        "notifications/progress"
      ])
    }).pipe(Effect.provide(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(server)))))

  it.live("over stdio", () =>
    Effect.gen(function*() {
      const root = fileURLToPath(new URL("../../../", import.meta.url))
      const script = stdioServerScript
      const outcome = yield* scenario.pipe(
        Effect.provide(
          McpClient.layer({ logLevel: "info" }).pipe(
            Layer.provide(
              ClientStdio.layerNode({ command: process.execPath, args: [...sourceNodeArgs, script], cwd: root })
            ),
            Layer.provideMerge(user)
          )
        )
      )
      expectOutcome(outcome)
      assert.include(outcome.notifications, "notifications/progress")
    }), { timeout: 30_000 })
})

/** The same user for the 2025-11-25 wire, where questions carry the keys the engine derives (explicit keys do not travel). */
const legacyUser = ScriptedUser.layer({
  elicitation: {
    byKey: {
      "elicitation-1": ScriptedUser.accept({ name: "Kim" }),
      "elicitation-2": ScriptedUser.accept({ ok: false })
    }
  },
  sampling: { byKey: { "sampling-1": ScriptedUser.text("eat pastries") } },
  roots: [{ uri: "file:///srv" }]
})

const expectLegacyOutcome = (outcome: Effect.Success<typeof scenario>) => {
  assert.strictEqual(outcome.planned, "Kim: eat pastries (1 roots) not booked")
  assert.strictEqual(outcome.regional, "q in ünïcode")
  assert.strictEqual(outcome.slow, "done")
  assert.sameMembers(outcome.questions, ["elicitation-1", "sampling-1", "roots-1", "elicitation-2"])
}

describe("end to end, 2025-11-25 (initialize, the server's legacy shim, in-flight requests)", () => {
  it.live("over Streamable HTTP", () =>
    Effect.gen(function*() {
      const url = yield* HttpTransport.url
      const { connection, outcome } = yield* Effect.all({
        outcome: scenario,
        connection: McpClient.McpClient.use((c) => c.connection)
      }).pipe(
        Effect.provide(
          McpClient.layer({ logLevel: "info", protocol: "2025-11-25" }).pipe(
            Layer.provide(ClientHttp.layerNode({ url })),
            Layer.provideMerge(legacyUser)
          )
        )
      )
      assert.strictEqual(connection.era, "2025-11-25")
      expectLegacyOutcome(outcome)
      // progress (progressToken in _meta) and the log line (logging/setLevel after initialize) on the call's stream
      assert.deepStrictEqual(outcome.notifications, [
        "notifications/progress",
        "notifications/message",
        "notifications/progress"
      ])
    }).pipe(Effect.provide(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(server)))))

  it.live("over stdio", () =>
    Effect.gen(function*() {
      const root = fileURLToPath(new URL("../../../", import.meta.url))
      const script = stdioServerScript
      const outcome = yield* scenario.pipe(
        Effect.provide(
          McpClient.layer({ logLevel: "info", protocol: "2025-11-25" }).pipe(
            Layer.provide(
              ClientStdio.layerNode({ command: process.execPath, args: [...sourceNodeArgs, script], cwd: root })
            ),
            Layer.provideMerge(legacyUser)
          )
        )
      )
      expectLegacyOutcome(outcome)
      assert.include(outcome.notifications, "notifications/progress")
    }), { timeout: 30_000 })
})
