/**
 * An `effect/ai` Toolkit served by `AiToolkit.layer`: its tools' definitions (parameters, success Schema and
 * annotations carried to `inputSchema`, `outputSchema`, `title` and the hints), its handlers asking (a form, a step, a
 * sampling and the roots) through both eras and as a task, its declared failures as `isError` results, a missing
 * capability as -32021, and `needsApproval` as a confirmation form that a client without forms cannot skip.
 * Source: MCP 2026-07-28, server/tools, basic/patterns/mrtr; MCP 2025-11-25, basic/lifecycle; SEP-2663.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Elicitation, Mrtr, RequestState, Roots, Sampling } from "@mrtr/core"
import { AiToolkit, McpServer } from "@mrtr/server"
import { LEGACY_SCHEMA_ID, validateWire } from "@mrtr/test-support/wire"
import { Effect, Layer, Ref, Schema } from "effect"
import { Tool as AiTool, Toolkit } from "effect/ai"
import { Harness, Recorder, ScriptedUser } from "../src/index.ts"

// #region tools
class SoldOut extends Schema.TaggedError<SoldOut>()("SoldOut", { city: Schema.String }) {}

const Forecast = AiTool.make("forecast", {
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String.annotate({ description: "A city" }) }),
  success: Schema.Struct({ city: Schema.String, celsius: Schema.Finite })
})
  .annotate(AiTool.Title, "Forecast")
  .annotate(AiTool.Readonly, true)
  .annotate(AiTool.OpenWorld, false)
  .annotate(AiTool.Meta, { "example.com/cost": "free" })

const Book = AiTool.make("book", {
  description: "Books a trip, asking the traveller, a model and the roots",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.String,
  failure: Schema.Union([SoldOut, AiToolkit.AskFailure]),
  dependencies: [AiToolkit.Asks]
}).annotate(AiTool.Destructive, false)

const Cancel = AiTool.make("cancel_booking", {
  parameters: Schema.Struct({ booking: Schema.String }),
  success: Schema.String,
  needsApproval: true
}).annotate(AiTool.Destructive, true)

const Trips = Toolkit.make(Forecast, Book, Cancel)
// #endregion tools

const counter = Ref.makeUnsafe(0)
const cancelled = Ref.makeUnsafe<ReadonlyArray<string>>([])

// #region handlers
const handlers = Trips.toLayer({
  forecast: ({ city }) => Effect.succeed({ city, celsius: city.length + 10 }),
  book: Effect.fn(function*({ city }) {
    if (city === "Atlantis") return yield* new SoldOut({ city })
    const { name } = yield* Elicitation.form({
      key: "name",
      message: `Who travels to ${city}?`,
      schema: Schema.Struct({ name: Schema.String })
    })
    const seat = yield* Mrtr.step("seat", Ref.updateAndGet(counter, (n) => n + 1), Schema.Number)
    const [idea, roots] = yield* Mrtr.all([
      Sampling.createMessage({
        key: "idea",
        maxTokens: 20,
        messages: [{ role: "user", content: { type: "text", text: `An idea for ${city}` } }]
      }),
      Roots.list({ key: "roots" })
    ])
    return `${name} to ${city}, seat ${seat}: ${Sampling.textOf(idea)} (${roots[0]?.uri})`
  }),
  cancel_booking: ({ booking }) =>
    Ref.update(cancelled, (all) => [...all, booking]).pipe(Effect.as(`Cancelled ${booking}`))
})
// #endregion handlers

// #region server
const server = AiToolkit.layer(Trips, { tools: { book: { task: "optional" } } }).pipe(
  Layer.provide(handlers),
  Layer.provideMerge(McpServer.layer({
    name: "trips",
    version: "1.0.0",
    tasks: { pollIntervalMs: 20 },
    requestState: RequestState.RequestStateCodec.layer({
      keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(9) }])
    }).pipe(Layer.orDie)
  }))
)
// #endregion server

/** Answers by the question (a 2025-11-25 client sees no keys: the server's requests carry none). */
const user = ScriptedUser.layer({
  elicitation: {
    when: [
      [(params) => params.message.startsWith("Who"), ScriptedUser.accept({ name: "Ada" })],
      [(params) => params.message.startsWith("Allow"), ScriptedUser.accept({ allow: true })]
    ]
  },
  sampling: { otherwise: ScriptedUser.text("the old port") },
  roots: [{ uri: "file:///trips" }]
})

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

describe("AiToolkit: definitions", () => {
  it.effect("parameters, success Schema and annotations become the tools/list entries", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const listed = yield* client.listTools()
      const byName = Object.fromEntries(listed.tools.map((tool) => [tool.name, tool]))
      assert.deepStrictEqual(Object.keys(byName).sort(), ["book", "cancel_booking", "forecast"])
      assert.deepStrictEqual(byName.forecast, {
        name: "forecast",
        title: "Forecast",
        description: "The weather in a city",
        inputSchema: {
          type: "object",
          properties: { city: { type: "string", description: "A city" } },
          required: ["city"],
          additionalProperties: false
        },
        outputSchema: {
          type: "object",
          properties: { city: { type: "string" }, celsius: { type: "number" } },
          required: ["city", "celsius"],
          additionalProperties: true
        },
        annotations: { title: "Forecast", readOnlyHint: true, openWorldHint: false },
        _meta: { "example.com/cost": "free" }
      })
      // A string success has no outputSchema; only the hints set on the tool are sent.
      assert.notProperty(byName.book!, "outputSchema")
      assert.deepStrictEqual(byName.book!.annotations, { destructiveHint: false })
      assert.deepStrictEqual(byName.cancel_booking!.annotations, { destructiveHint: true })
      const requests = yield* Harness.requests
      const responses = (yield* Harness.entries).filter((e) => e.direction === "reply")
      assert.strictEqual(requests.at(-1)!.method, "tools/list")
      validateWire("ListToolsResult", (responses.at(-1)!.message as any).result)
    }).pipe(Effect.provide(Harness.layer({ server, user }))))
})

const eras = [
  { protocol: "2026-07-28", simulateHttp: true },
  { protocol: "2025-11-25", simulateHttp: true }
] as const

describe("AiToolkit: calls", () => {
  for (const { protocol, simulateHttp } of eras) {
    it.effect(`${protocol}: a structured success, an asking handler, a declared failure`, () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const forecast = yield* client.callTool({ name: "forecast", arguments: { city: "Oslo" } })
        assert.deepStrictEqual(forecast.structuredContent, { city: "Oslo", celsius: 14 })
        assert.deepStrictEqual(JSON.parse(textOf(forecast)), { city: "Oslo", celsius: 14 })
        assert.notProperty(forecast, "isError")

        const booked = yield* client.callTool({ name: "book", arguments: { city: "Porto" } })
        assert.match(textOf(booked), /^Ada to Porto, seat \d+: the old port \(file:\/\/\/trips\)$/)
        const questions = (yield* Recorder.questions).map((q) => q.kind).sort()
        assert.deepStrictEqual(questions, ["elicitation", "roots", "sampling"])
        const requests = yield* Harness.requests
        if (protocol === "2026-07-28") {
          // Three tools/call: the form, then the sampling and the roots in one round, then the result.
          const calls = requests.filter((r) => r.method === "tools/call" && r.params.name === "book")
          assert.strictEqual(calls.length, 3)
          for (const call of calls) validateWire("CallToolRequest", call)
          assert.isString(calls[1]!.params.requestState)
        } else {
          assert.strictEqual(requests[0]!.method, "initialize")
          const call = requests.find((r) => r.method === "tools/call" && r.params.name === "book")!
          validateWire("CallToolRequest", call, LEGACY_SCHEMA_ID)
        }

        const soldOut = yield* client.callTool({ name: "book", arguments: { city: "Atlantis" } })
        assert.isTrue(soldOut.isError)
        assert.deepStrictEqual(JSON.parse(textOf(soldOut)), { _tag: "SoldOut", city: "Atlantis" })
      }).pipe(Effect.provide(Harness.layer({ server, user, protocol, simulateHttp }))))

    it.effect(`${protocol}: a declined form is the tool's error result`, () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const result = yield* client.callTool({ name: "book", arguments: { city: "Porto" } })
        assert.isTrue(result.isError)
        assert.include(textOf(result), "declined")
      }).pipe(Effect.provide(Harness.layer({
        server,
        user: ScriptedUser.layer({ elicitation: { otherwise: ScriptedUser.decline } }),
        protocol,
        simulateHttp
      }))))
  }

  it.effect("bad arguments: an undeclared key and a wrong type are -32602, the handler never runs", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const before = yield* Ref.get(counter)
      const extra = yield* Effect.flip(client.callTool({ name: "book", arguments: { city: "Porto", when: "now" } }))
      assert.strictEqual((extra as any).code, -32602)
      assert.include((extra as any).message, "when")
      const wrong = yield* Effect.flip(client.callTool({ name: "forecast", arguments: { city: 42 } }))
      assert.strictEqual((wrong as any).code, -32602)
      assert.strictEqual(yield* Ref.get(counter), before)
    }).pipe(Effect.provide(Harness.layer({ server, user }))))

  it.effect("a client without sampling gets -32021 naming the capability, not the tool's error", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* Effect.flip(client.callTool({ name: "book", arguments: { city: "Porto" } }))
      assert.strictEqual((error as any).code, -32021)
      assert.deepStrictEqual((error as any).data?.requiredCapabilities, { sampling: {} })
    }).pipe(Effect.provide(Harness.layer({
      server,
      user: ScriptedUser.layer({ elicitation: { byKey: { name: ScriptedUser.accept({ name: "Ada" }) } } })
    }))))

  it.live("as a task: the handler's asks are answered through tasks/update", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "book", arguments: { city: "Lima" } })
      assert.match(textOf(result), /^Ada to Lima, seat \d+: the old port/)
      const methods = (yield* Harness.requests).map((r) => r.method)
      assert.include(methods, "tasks/update")
    }).pipe(Effect.provide(Harness.layer({ server, user, client: { tasks: "auto" }, simulateHttp: true }))), {
    timeout: 30_000
  })
})

describe("AiToolkit: needsApproval", () => {
  it.effect("the tool runs once the person allows it", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "cancel_booking", arguments: { booking: "B1" } })
      assert.strictEqual(textOf(result), "Cancelled B1")
      const [question] = yield* Recorder.questions
      assert.strictEqual(question!.key, "tool-approval")
      assert.include(yield* Ref.get(cancelled), "B1")
    }).pipe(Effect.provide(Harness.layer({ server, user }))))

  it.effect("refused: the tool does not run and the result says so", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "cancel_booking", arguments: { booking: "B2" } })
      assert.isTrue(result.isError)
      assert.include(textOf(result), "did not allow")
      assert.notInclude(yield* Ref.get(cancelled), "B2")
    }).pipe(Effect.provide(Harness.layer({
      server,
      user: ScriptedUser.layer({ elicitation: { byKey: { "tool-approval": ScriptedUser.accept({ allow: false }) } } })
    }))))

  for (const protocol of ["2026-07-28", "2025-11-25"] as const) {
    it.effect(`${protocol}: a client that cannot show the form never runs it unconfirmed`, () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const outcome = yield* Effect.result(client.callTool({ name: "cancel_booking", arguments: { booking: "B3" } }))
        if (protocol === "2026-07-28") {
          assert.strictEqual(outcome._tag, "Failure")
          assert.strictEqual((outcome as any).failure.code, -32021)
        } else {
          // 2025-11-25: the tool's error result naming the capability, as the official SDK's server answers.
          assert.strictEqual(outcome._tag, "Success")
          assert.isTrue((outcome as any).success.isError)
          assert.include(textOf((outcome as any).success), "elicitation")
        }
        assert.notInclude(yield* Ref.get(cancelled), "B3")
      }).pipe(Effect.provide(Harness.layer({ server, user: ScriptedUser.layer({}), protocol }))))
  }
})
