/**
 * `McpToolkit`: a real server's tools given to an in-process `LanguageModel` through `effect/ai`, over both eras;
 * every field mapped (parameters, annotations, content blocks, structured content, `isError`), asks answered inline
 * or suspended and resumed, and an ask nobody can answer failing the call.
 * Source: MCP 2026-07-28, server/tools, basic/patterns/mrtr; 2025-11-25, server/tools.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpServer, Tool as ServerTool } from "@mrtr/server"
import { Context, Effect, Layer, Ref, Schedule, Schema, Stream } from "effect"
import { Chat, LanguageModel, OpenAiStructuredOutput, Prompt, Tool } from "effect/ai"
import { ElicitationHandler, McpToolkit } from "../src/index.ts"
import { clientOf, deletions, finish, scriptedModel, serverLayer, toolCall, tools } from "./aiServer.ts"
import { clientLayer, fakeServer } from "./fixtures.ts"

const eras = ["2026-07-28", "2025-11-25"] as const

const withToolkit = <A, E, R>(
  era: (typeof eras)[number],
  body: Effect.Effect<A, E, R>,
  options: McpToolkit.Options = {},
  user: Layer.Layer<any, never, never> = Layer.empty as Layer.Layer<any, never, never>,
  clientOptions = {},
  simulateHttp = false
) =>
  body.pipe(
    Effect.provide(
      McpToolkit.layer(options).pipe(
        Layer.provideMerge(clientOf(era, user, clientOptions, simulateHttp)),
        Layer.provideMerge(serverLayer)
      )
    ),
    Effect.scoped
  ) as Effect.Effect<A, E, Exclude<R, McpToolkit.McpToolkit | LanguageModel.LanguageModel | McpServer.McpServer>>

const accept = (content: Record<string, string | number | boolean>) =>
  ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept(content)) })

describe("McpToolkit", () => {
  for (const era of eras) {
    describe(era, () => {
      it.effect("every server tool becomes a tool: name, description, JSON Schema parameters, annotations", () =>
        withToolkit(
          era,
          Effect.gen(function*() {
            const toolkit = yield* McpToolkit.McpToolkit.use((mcp) => mcp.toolkit)
            assert.deepStrictEqual(Object.keys(toolkit.tools).sort(), [
              "broken",
              "delete_repo",
              "greet",
              "media",
              "sample_all",
              "sample_plain",
              "summarize",
              "weather"
            ])
            const weather = toolkit.tools.weather!
            assert.strictEqual(weather.description, "Current weather of a city")
            // The JSON Schema of the imported Schema: the provider's transformer closes the object (OpenAI's,
            // Anthropic's); effect/ai's default document leaves excess properties to decoding, which drops them.
            assert.deepStrictEqual(Tool.getJsonSchema(weather), {
              type: "object",
              properties: { city: { type: "string" } },
              required: ["city"],
              additionalProperties: true
            })
            assert.deepStrictEqual(
              Tool.getJsonSchema(weather, { transformer: OpenAiStructuredOutput.toCodecOpenAI }),
              tools.weather.definition.inputSchema
            )
            assert.strictEqual(Context.getUnsafe(weather.annotations, Tool.Title), "Weather")
            assert.strictEqual(Context.get(weather.annotations, Tool.Readonly), true)
            assert.strictEqual(Context.get(weather.annotations, Tool.Destructive), false)
            assert.strictEqual(Context.get(weather.annotations, Tool.Idempotent), true)
            assert.strictEqual(Context.get(weather.annotations, Tool.OpenWorld), false)
            // The parameters are an Effect Schema imported from the inputSchema: a provider builds its own JSON
            // Schema of it (strict mode left to the provider) and decodes the model's arguments with it.
            assert.isTrue(Schema.isSchema(weather.parametersSchema))
            assert.isUndefined(weather.jsonSchema)
            assert.isUndefined(Tool.getStrictMode(weather))
            // ... and back: the effect/ai annotations stand for the same MCP hints.
            assert.deepStrictEqual(McpToolkit.annotationsOf(weather), {
              title: "Weather",
              ...tools.weather.definition.annotations
            })
            // A tool without hints keeps effect/ai's defaults, which are MCP's.
            assert.deepStrictEqual(McpToolkit.annotationsOf(toolkit.tools.media!), {
              readOnlyHint: false,
              destructiveHint: true,
              idempotentHint: false,
              openWorldHint: true
            })
          })
        ))

      it.effect("the model's call runs the tool; the result is kept whole and the model sees every block", () =>
        withToolkit(
          era,
          Effect.gen(function*() {
            const mcp = yield* McpToolkit.McpToolkit
            const model = scriptedModel([
              [toolCall("c1", "media", {}), toolCall("c2", "weather", { city: "Oslo" }), finish("tool-calls")],
              [{ type: "text", text: "done" } as any, finish()]
            ])
            const toolkit = yield* mcp.toolkit
            const response = yield* LanguageModel.generateText({ prompt: "show me", toolkit }).pipe(
              Effect.provide(model.layer)
            )
            // The request the model received: both tools' JSON Schemas.
            assert.deepStrictEqual(
              model.requests[0]!.tools.map((tool) => tool.name).sort(),
              ["broken", "delete_repo", "greet", "media", "sample_all", "sample_plain", "summarize", "weather"]
            )
            const [media, weather] = response.toolResults
            assert.strictEqual(media!.isFailure, false)
            assert.deepStrictEqual((media!.result as McpToolkit.McpToolResult).content, [
              { type: "text", text: "a chart and a sound" },
              { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
              { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
              { type: "resource", resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" } },
              {
                type: "resource",
                resource: { uri: "file:///data.bin", mimeType: "application/octet-stream", blob: "AAEC" }
              },
              {
                type: "resource_link",
                uri: "file:///report.pdf",
                name: "report",
                title: "Q3 report",
                mimeType: "application/pdf",
                description: "the quarterly report"
              }
            ])
            assert.strictEqual((media!.result as McpToolkit.McpToolResult)._meta?.["example.com/trace"], "t-1")
            // What goes back to the model on the next turn.
            const history = Prompt.fromResponseParts(response.content)
            const chat = yield* Chat.fromPrompt(history)
            const sent = yield* Ref.get(chat.history)
            const results = sent.content.flatMap((m) => m.role === "tool" ? m.content : [])
            const mediaOutput = (results.find((p) => p.type === "tool-result" && p.id === "c1") as any).modelOutput
            assert.deepStrictEqual(
              mediaOutput.map((p: any) => p.type === "text" ? p.text : [p.mediaType, p.fileName]),
              [
                "a chart and a sound",
                ["image/png", undefined],
                ["audio/wav", undefined],
                "Resource file:///notes.md (text/markdown):\n# Notes",
                ["application/octet-stream", "data.bin"],
                "Resource link: report <file:///report.pdf>\ntitle: Q3 report\ntype: application/pdf\ndescription: the quarterly report"
              ]
            )
            assert.strictEqual(weather!.isFailure, false)
            assert.deepStrictEqual((weather!.result as McpToolkit.McpToolResult).structuredContent, {
              city: "Oslo",
              celsius: 21
            })
            // The tool's success Schema types structuredContent with the import of its outputSchema.
            const success = Schema.decodeUnknownExit(toolkit.tools.weather!.successSchema as Schema.Codec<unknown>)
            assert.strictEqual(
              success({ content: [], structuredContent: { city: "Oslo", celsius: 21 } })._tag,
              "Success"
            )
            assert.strictEqual(success({ content: [], structuredContent: { city: 1 } })._tag, "Failure")
          })
        ))

      it.effect("isError is the tool's failure, with the result kept", () =>
        withToolkit(
          era,
          Effect.gen(function*() {
            const mcp = yield* McpToolkit.McpToolkit
            const model = scriptedModel([[toolCall("c1", "broken", {}), finish("tool-calls")]])
            const response = yield* LanguageModel.generateText({ prompt: "go", toolkit: yield* mcp.toolkit }).pipe(
              Effect.provide(model.layer)
            )
            const [result] = response.toolResults
            assert.strictEqual(result!.isFailure, true)
            const error = result!.result as McpToolkit.McpToolError
            assert.strictEqual(error._tag, "McpToolError")
            assert.strictEqual(error.reason, "isError")
            assert.deepStrictEqual(error.result?.content, [{ type: "text", text: "disk full" }])
          })
        ))

      it.effect("inline: the app's ElicitationHandler answers inside the one tool call", () =>
        withToolkit(
          era,
          Effect.gen(function*() {
            const mcp = yield* McpToolkit.McpToolkit
            const model = scriptedModel([[toolCall("c1", "greet", {}), finish("tool-calls")]])
            const response = yield* LanguageModel.generateText({ prompt: "greet me", toolkit: yield* mcp.toolkit })
              .pipe(
                Effect.provide(model.layer)
              )
            assert.deepStrictEqual((response.toolResults[0]!.result as McpToolkit.McpToolResult).content, [
              { type: "text", text: "Hello, Ada!" }
            ])
          }),
          {},
          accept({ name: "Ada" })
        ))

      it.effect("a destructive tool whose confirmation nobody can show never runs: a typed failure", () =>
        withToolkit(
          era,
          Effect.gen(function*() {
            const mcp = yield* McpToolkit.McpToolkit
            const before = yield* Ref.get(deletions)
            const model = scriptedModel([[toolCall("c1", "delete_repo", { repo: "prod" }), finish("tool-calls")]])
            const response = yield* LanguageModel.generateText({ prompt: "delete prod", toolkit: yield* mcp.toolkit })
              .pipe(
                Effect.provide(model.layer)
              )
            const [result] = response.toolResults
            assert.strictEqual(result!.isFailure, true)
            const error = result!.result as McpToolkit.McpToolError
            if (era === "2026-07-28") {
              // The client declared no elicitation: the server refuses the ask with -32021.
              assert.strictEqual(error.reason, "request")
              assert.strictEqual(error.code, -32021)
            } else {
              // A 2025-11-25 server turns the missing capability into the tool's error result.
              assert.strictEqual(error.reason, "isError")
              assert.include(error.description, "elicitation.form")
            }
            assert.strictEqual(yield* Ref.get(deletions), before)
          })
        ))
    })
  }

  it.effect("prefix, include and exclude", () =>
    withToolkit(
      "2026-07-28",
      Effect.gen(function*() {
        const toolkit = yield* McpToolkit.McpToolkit.use((mcp) => mcp.toolkit)
        assert.deepStrictEqual(Object.keys(toolkit.tools).sort(), ["srv_greet", "srv_weather"])
        const definition = yield* McpToolkit.McpToolkit.use((mcp) => mcp.definition("srv_weather"))
        assert.strictEqual(definition._tag === "Some" && definition.value.name, "weather")
      }),
      { prefix: "srv_", include: ["weather", "greet", "media"], exclude: (tool) => tool.name === "media" }
    ))

  it.effect("the list is read again when the server's tool list changes", () =>
    withToolkit(
      "2026-07-28",
      Effect.gen(function*() {
        const mcp = yield* McpToolkit.McpToolkit
        const before = yield* mcp.toolkit
        assert.isUndefined(before.tools.extra)
        const server = yield* McpServer.McpServer
        yield* server.addTool(ServerTool.make("extra", { handler: () => Effect.succeed("more") }))
        const after = yield* mcp.toolkit
        assert.isDefined(after.tools.extra)
        yield* server.removeTool("extra")
      })
    ))

  it.effect("needsApproval maps onto effect/ai's tool-approval parts", () =>
    withToolkit(
      "2026-07-28",
      Effect.gen(function*() {
        const mcp = yield* McpToolkit.McpToolkit
        const model = scriptedModel([[toolCall("c1", "delete_repo", { repo: "prod" }), finish("tool-calls")]])
        const before = yield* Ref.get(deletions)
        const response = yield* LanguageModel.generateText({ prompt: "delete prod", toolkit: yield* mcp.toolkit }).pipe(
          Effect.provide(model.layer)
        )
        assert.deepStrictEqual(
          response.content.filter((p) => p.type === "tool-approval-request").map((p: any) => p.toolCallId),
          ["c1"]
        )
        assert.strictEqual(response.toolResults.length, 0)
        assert.strictEqual(yield* Ref.get(deletions), before)
      }),
      { needsApproval: (tool) => tool.annotations?.destructiveHint === true }
    ))

  it.effect("suspend: the call ends with the questions; resume continues the same conversation", () =>
    withToolkit(
      "2026-07-28",
      Effect.gen(function*() {
        const mcp = yield* McpToolkit.McpToolkit
        const model = scriptedModel([
          [toolCall("c1", "delete_repo", { repo: "old" }), finish("tool-calls")],
          [{ type: "text", text: "Deleted." } as any, finish()]
        ])
        const chat = yield* Chat.empty
        const before = yield* Ref.get(deletions)
        const first = yield* chat.generateText({ prompt: "delete old", toolkit: yield* mcp.toolkit }).pipe(
          Effect.provide(model.layer)
        )
        const [pending] = McpToolkit.suspended(first.content)
        assert.isDefined(pending)
        assert.strictEqual(pending!.toolCallId, "c1")
        assert.deepStrictEqual(Object.keys(pending!.inputRequests), ["confirm"])
        assert.strictEqual(yield* Ref.get(deletions), before)

        // Persisted and read back (another request, another process).
        const stored = JSON.stringify(Schema.encodeSync(McpToolkit.McpToolInputRequired)(pending!))
        const restored = Schema.decodeUnknownSync(McpToolkit.McpToolInputRequired)(JSON.parse(stored))
        const outcome = yield* mcp.resume(restored, { confirm: { action: "accept", content: { confirm: true } } })
        assert.deepStrictEqual((outcome as McpToolkit.McpToolResult).content, [{ type: "text", text: "deleted old" }])
        assert.strictEqual(yield* Ref.get(deletions), before + 1)

        yield* Ref.update(chat.history, (history) => McpToolkit.replaceResult(history, "c1", outcome))
        yield* chat.generateText({ prompt: [], toolkit: yield* mcp.toolkit }).pipe(Effect.provide(model.layer))
        const toolMessage = model.requests[1]!.prompt.content.find((m) => m.role === "tool")!
        const part = toolMessage.content[0] as Prompt.ToolResultPart
        assert.strictEqual(part.isFailure, false)
        assert.deepStrictEqual(part.modelOutput, [Prompt.textPart({ text: "deleted old" })])
      }),
      { mode: "suspend" },
      undefined,
      { capabilities: { elicitation: { form: {} } } }
    ))

  it.effect("suspend on a 2025-11-25 server: the question cannot wait, so the call fails and nothing runs", () =>
    withToolkit(
      "2025-11-25",
      Effect.gen(function*() {
        const mcp = yield* McpToolkit.McpToolkit
        const before = yield* Ref.get(deletions)
        const model = scriptedModel([[toolCall("c1", "delete_repo", { repo: "prod" }), finish("tool-calls")]])
        const response = yield* LanguageModel.generateText({ prompt: "delete prod", toolkit: yield* mcp.toolkit }).pipe(
          Effect.provide(model.layer)
        )
        assert.strictEqual(response.toolResults[0]!.isFailure, true)
        assert.deepStrictEqual(McpToolkit.suspended(response.content), [])
        assert.strictEqual(yield* Ref.get(deletions), before)
      }),
      { mode: "suspend" },
      undefined,
      { capabilities: { elicitation: { form: {} } } }
    ))

  it.effect("streamText uses the same toolkit", () =>
    withToolkit(
      "2026-07-28",
      Effect.gen(function*() {
        const mcp = yield* McpToolkit.McpToolkit
        const model = Layer.effect(
          LanguageModel.LanguageModel,
          LanguageModel.make({
            generateText: () => Effect.die("generateText is not scripted"),
            streamText: () =>
              Stream.make(
                { type: "tool-call", id: "s1", name: "weather", params: { city: "Rome" } } as any,
                finish("tool-calls") as any
              )
          })
        )
        const parts = yield* LanguageModel.streamText({ prompt: "weather in Rome?", toolkit: yield* mcp.toolkit }).pipe(
          Stream.runCollect,
          Effect.provide(model)
        )
        const result = parts.find((part) => part.type === "tool-result") as any
        assert.deepStrictEqual(result.result.structuredContent, { city: "Rome", celsius: 21 })
      })
    ))

  it.live("the list is read again after notifications/tools/list_changed (2025-11-25 session)", () =>
    withToolkit(
      "2025-11-25",
      Effect.gen(function*() {
        const mcp = yield* McpToolkit.McpToolkit
        assert.isUndefined((yield* mcp.toolkit).tools.late)
        const server = yield* McpServer.McpServer
        yield* server.addTool(ServerTool.make("late", { handler: () => Effect.succeed("here") }))
        // The notification arrives asynchronously: the next turns see the tool once it has.
        const seen = yield* mcp.toolkit.pipe(
          Effect.flatMap((toolkit) => toolkit.tools.late === undefined ? Effect.fail("not yet") : Effect.succeed(true)),
          Effect.retry({ times: 50, schedule: Schedule.spaced("20 millis") })
        )
        assert.isTrue(seen)
        yield* server.removeTool("late")
      }),
      {},
      undefined,
      {},
      true
    ))
})

describe("McpToolkit against a server that breaks the rules", () => {
  const listing = {
    resultType: "complete",
    ttlMs: 60_000,
    cacheScope: "private",
    tools: [
      {
        name: "report",
        inputSchema: { type: "object" },
        outputSchema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] }
      },
      { name: "ns.tool/a", inputSchema: { type: "object" } },
      { name: "ns_tool_a", inputSchema: { type: "object" } },
      { name: "x".repeat(80), inputSchema: { type: "object" } },
      { name: "typed", inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } }
    ]
  }
  const server = fakeServer((request) =>
    request.method === "tools/list"
      ? listing
      : request.params.name === "report"
      ? { resultType: "complete", content: [{ type: "text", text: "{}" }], structuredContent: { total: "many" } }
      : { resultType: "complete", content: [{ type: "text", text: "ok" }] }
  )
  const layer = McpToolkit.layer().pipe(Layer.provideMerge(clientLayer(server)))

  it.effect("names outside [a-zA-Z0-9_-] are rewritten; a taken or too long name is skipped", () =>
    Effect.gen(function*() {
      const toolkit = yield* McpToolkit.McpToolkit.use((mcp) => mcp.toolkit)
      assert.deepStrictEqual(Object.keys(toolkit.tools).sort(), ["ns_tool_a", "report", "typed"])
      const definition = yield* McpToolkit.McpToolkit.use((mcp) => mcp.definition("ns_tool_a"))
      assert.strictEqual(definition._tag === "Some" && definition.value.name, "ns.tool/a")
      // The list's ttlMs keeps it: no second tools/list.
      yield* McpToolkit.McpToolkit.use((mcp) => mcp.toolkit)
      assert.strictEqual(server.received.filter((r) => r.method === "tools/list").length, 1)
      assert.deepStrictEqual(server.invalid, [])
    }).pipe(Effect.provide(layer)))

  it.effect("structuredContent that does not match the outputSchema is the tool's failure", () =>
    Effect.gen(function*() {
      const toolkit = yield* McpToolkit.McpToolkit.use((mcp) => mcp.toolkit)
      const results = yield* Effect.flatMap(toolkit.handle("report", {}), Stream.runCollect)
      const last = results.at(-1)!
      assert.strictEqual(last.isFailure, true)
      const error = last.result as McpToolkit.McpToolError
      assert.strictEqual(error.reason, "structuredContent")
      assert.include(error.description, "/total")
      assert.deepStrictEqual(error.result?.structuredContent, { total: "many" })
    }).pipe(Effect.provide(layer)))

  it.effect("arguments that are not a JSON object fail without a call", () =>
    Effect.gen(function*() {
      const toolkit = yield* McpToolkit.McpToolkit.use((mcp) => mcp.toolkit)
      const calls = server.received.filter((r) => r.method === "tools/call").length
      const results = yield* Effect.flatMap(toolkit.handle("ns_tool_a", [1, 2] as any), Stream.runCollect)
      // The imported Schema refuses them before the handler runs.
      assert.strictEqual(results.at(-1)!.isFailure, true)
      assert.strictEqual((results.at(-1)!.result as any).reason._tag, "ToolParameterValidationError")
      assert.strictEqual(server.received.filter((r) => r.method === "tools/call").length, calls)
    }).pipe(Effect.provide(layer)))

  it.effect("arguments the imported schema refuses are the tool's failure, without a tools/call", () =>
    Effect.gen(function*() {
      const toolkit = yield* McpToolkit.McpToolkit.use((mcp) => mcp.toolkit)
      const calls = () => server.received.filter((r) => r.method === "tools/call")
      const before = calls().length
      const refused = yield* Effect.flatMap(toolkit.handle("typed", { n: "three" } as any), Stream.runCollect)
      assert.strictEqual(refused.at(-1)!.isFailure, true)
      assert.strictEqual((refused.at(-1)!.result as any).reason._tag, "ToolParameterValidationError")
      assert.strictEqual(calls().length, before)
      // A key the schema does not declare is left out (the object is offered closed); the rest is sent.
      const sent = yield* Effect.flatMap(toolkit.handle("typed", { n: 3, extra: true } as any), Stream.runCollect)
      assert.strictEqual(sent.at(-1)!.isFailure, false)
      assert.deepStrictEqual((calls().at(-1)!.params as any).arguments, { n: 3 })
    }).pipe(Effect.provide(layer)))
})

describe("McpToolkit follows a server whose tool list changes", () => {
  // The list may be kept a minute (ttlMs): only the server's notification can make the toolkit list again sooner.
  const changing = McpServer.tools(tools.weather).pipe(
    Layer.provideMerge(McpServer.layer({
      name: "changing",
      version: "1.0.0",
      cache: { ttlMs: 60_000, cacheScope: "private" }
    }))
  )
  const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, ok: (a: A) => boolean) =>
    effect.pipe(
      Effect.flatMap((a) => ok(a) ? Effect.succeed(a) : Effect.fail("not yet" as const)),
      Effect.retry({ times: 100, schedule: Schedule.spaced("20 millis") })
    )
  const cases = [
    ["2026-07-28", false, "subscriptions/listen, in memory"],
    ["2026-07-28", true, "subscriptions/listen, HTTP semantics"],
    ["2025-11-25", true, "notifications/tools/list_changed on the session's GET stream"]
  ] as const
  for (const [era, simulateHttp, how] of cases) {
    it.live(`${era} (${how}): a tool added, then removed, is seen on the next turns`, () =>
      Effect.gen(function*() {
        const mcp = yield* McpToolkit.McpToolkit
        assert.deepStrictEqual(Object.keys((yield* mcp.toolkit).tools), ["weather"])
        const server = yield* McpServer.McpServer
        yield* server.addTool(ServerTool.make("late", { handler: () => Effect.succeed("here") }))
        const added = yield* eventually(mcp.toolkit, (toolkit) => toolkit.tools.late !== undefined)
        assert.deepStrictEqual(Object.keys(added.tools).sort(), ["late", "weather"])
        yield* server.removeTool("late")
        const removed = yield* eventually(mcp.toolkit, (toolkit) => toolkit.tools.late === undefined)
        assert.deepStrictEqual(Object.keys(removed.tools), ["weather"])
      }).pipe(
        Effect.provide(
          McpToolkit.layer().pipe(
            Layer.provideMerge(clientOf(era, undefined, {}, simulateHttp)),
            Layer.provideMerge(changing)
          )
        ),
        Effect.scoped
      ))
  }
})

describe("McpToolkit against a server whose list never ends", () => {
  const server = fakeServer((request) =>
    request.method === "tools/list"
      ? {
        resultType: "complete",
        ttlMs: 60_000,
        cacheScope: "private",
        tools: [{ name: `tool_${String((request.params as any).cursor ?? "0")}`, inputSchema: { type: "object" } }],
        nextCursor: String(Number((request.params as any).cursor ?? "0") + 1)
      }
      : { resultType: "complete", content: [{ type: "text", text: "ok" }] }
  )
  const layer = McpToolkit.layer().pipe(Layer.provideMerge(clientLayer(server)))

  it.effect("stops after 100 pages and keeps the tools of those pages", () =>
    Effect.gen(function*() {
      const toolkit = yield* McpToolkit.McpToolkit.use((mcp) => mcp.toolkit)
      assert.strictEqual(server.received.filter((r) => r.method === "tools/list").length, 100)
      assert.strictEqual(Object.keys(toolkit.tools).length, 100)
      assert.isDefined(toolkit.tools["tool_99"])
    }).pipe(Effect.provide(layer)))
})
