/**
 * One handler, both eras: the same tool (keyless asks, so the server derives
 * `elicitation-1`, `sampling-1`, `roots-1`, `elicitation-2`) and the same
 * scripted user (`ScriptedUser.byKey` on those keys) through `Harness.layer`
 * at `protocol: "2026-07-28"` (input_required rounds) and `"2025-11-25"`
 * (initialize, then the shim's in-flight requests), as stdio-like and as
 * HTTP-like connections. The answers, the result and the questions recorded
 * are the same; the wire is each era's own (validated against its schema).
 * Source: MCP 2026-07-28, basic/patterns/mrtr; MCP 2025-11-25, basic/lifecycle.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Elicitation, Mrtr, RequestState, Roots, Sampling } from "@mrtr/core"
import { MetaKey } from "@mrtr/protocol/Meta"
import { McpServer, Tool } from "@mrtr/server"
import { LEGACY_SCHEMA_ID, validateWire } from "@mrtr/test-support/wire"
import { Effect, Layer, Schema } from "effect"
import { Harness, Recorder, ScriptedUser } from "../src/index.ts"

/** Keyless asks: who, then a model idea and the roots at once, then a confirmation. */
const trip = Tool.make("trip", {
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({
        message: `Who travels to ${city}?`,
        schema: Schema.Struct({ name: Schema.String })
      })
      const [idea, roots] = yield* Mrtr.all([
        Sampling.createMessage({
          messages: [{ role: "user", content: { type: "text", text: `Idea for ${city}` } }],
          maxTokens: 30
        }),
        Roots.list()
      ])
      const { ok } = yield* Elicitation.form({
        message: `Book it for ${name}?`,
        schema: Schema.Struct({ ok: Schema.Boolean })
      })
      return `${name}: ${(idea.content as { readonly text: string }).text}, ${roots.length} roots, ${
        ok ? "booked" : "not booked"
      }`
    })
})

const server = McpServer.tools(trip).pipe(
  Layer.provideMerge(McpServer.layer({
    name: "both-eras",
    version: "1.0.0",
    requestState: RequestState.RequestStateCodec.layer({
      keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(7) }])
    }).pipe(Layer.orDie)
  }))
)

const user = ScriptedUser.layer({
  elicitation: {
    byKey: {
      "elicitation-1": ScriptedUser.accept({ name: "Alice" }),
      "elicitation-2": ScriptedUser.accept({ ok: true })
    }
  },
  sampling: { byKey: { "sampling-1": ScriptedUser.text("the harbour") } },
  roots: [{ uri: "file:///home/alice" }, { uri: "file:///tmp" }]
})

const cases = [
  { protocol: "2026-07-28", simulateHttp: false },
  { protocol: "2026-07-28", simulateHttp: true },
  { protocol: "2025-11-25", simulateHttp: false },
  { protocol: "2025-11-25", simulateHttp: true }
] as const

describe("the same handler and the same scripted user over both eras", () => {
  for (const { protocol, simulateHttp } of cases) {
    it.effect(`${protocol}${simulateHttp ? " (HTTP headers)" : ""}`, () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const result = yield* client.callTool({ name: "trip", arguments: { city: "Porto" } })
        assert.strictEqual(
          (result.content[0] as { readonly text: string }).text,
          "Alice: the harbour, 2 roots, booked"
        )
        const connection = yield* client.connection
        assert.strictEqual(connection.era, protocol)
        const questions = yield* Recorder.questions
        assert.deepStrictEqual(
          questions.map((q) => `${q.kind}:${q.key}`).sort(),
          ["elicitation:elicitation-1", "elicitation:elicitation-2", "roots:roots-1", "sampling:sampling-1"]
        )
        assert.isTrue(questions.every((q) => q.method === "tools/call" && q.target === "trip"))
        const requests = yield* Harness.requests
        if (protocol === "2026-07-28") {
          // over HTTP the client lists the tools first (x-mcp-header annotations)
          const calls = simulateHttp ? requests.slice(1) : requests
          if (simulateHttp) validateWire("ListToolsRequest", requests[0])
          assert.deepStrictEqual(calls.map((r) => r.method), ["tools/call", "tools/call", "tools/call", "tools/call"])
          for (const request of calls) validateWire("CallToolRequest", request)
        } else {
          // initialize, initialized, the call, and the answers to the shim's four requests
          assert.deepStrictEqual(requests.slice(0, 3).map((r) => r.method), [
            "initialize",
            "notifications/initialized",
            "tools/call"
          ])
          validateWire("InitializeRequest", requests[0], LEGACY_SCHEMA_ID)
          validateWire("CallToolRequest", requests[2], LEGACY_SCHEMA_ID)
          assert.notProperty(requests[2]!.params._meta ?? {}, MetaKey.protocolVersion)
          const answers = requests.slice(3)
          assert.strictEqual(answers.length, 4)
          for (const answer of answers) validateWire("JSONRPCResultResponse", answer, LEGACY_SCHEMA_ID)
        }
      }).pipe(Effect.provide(Harness.layer({ server, user, protocol, simulateHttp }))))
  }
})
