/**
 * `LanguageModelSampling`: a real server's `sampling/createMessage` answered by an in-process `LanguageModel`, over
 * both eras: the request the model receives (every field), the result the server receives (content, model,
 * `stopReason`, unexecuted tool calls), the capability declared from the Layer, and the telemetry span.
 * Source: MCP 2026-07-28, client/sampling; 2025-11-25, client/sampling.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream, Tracer } from "effect"
import { AiError, LanguageModel, Prompt, type Response } from "effect/ai"
import { LanguageModelSampling, McpClient } from "../src/index.ts"
import { clientOf, finish, scriptedModel, serverLayer, toolCall, usage } from "./aiServer.ts"

const eras = ["2026-07-28", "2025-11-25"] as const

/** Calls the server tool `name` with a client whose sampling is `options` over `model`; returns what the server got. */
const sampleWith = (
  era: (typeof eras)[number],
  name: string,
  model: Layer.Layer<LanguageModel.LanguageModel>,
  options: LanguageModelSampling.Options = {}
) =>
  McpClient.McpClient.use((client) => client.callTool({ name })).pipe(
    Effect.provide(
      clientOf(era, LanguageModelSampling.layer(options).pipe(Layer.provide(model))).pipe(
        Layer.provideMerge(serverLayer)
      )
    ),
    Effect.scoped
  )

const textOf = (result: { readonly content: ReadonlyArray<any>; readonly isError?: boolean | undefined }) => {
  assert.notStrictEqual(result.isError, true, JSON.stringify(result.content))
  return JSON.parse(result.content[0].text)
}

const metadata = (modelId: string): Response.PartEncoded => ({ type: "response-metadata", modelId } as any)

describe("LanguageModelSampling", () => {
  for (const era of eras) {
    describe(era, () => {
      it.effect("every field of the request reaches the model; text, model and stopReason reach the server", () =>
        Effect.gen(function*() {
          const model = scriptedModel([[
            { type: "text", text: "Chart." } as any,
            metadata("scripted-1"),
            finish("stop")
          ]])
          const settings: Array<LanguageModelSampling.Settings> = []
          const preferences: Array<unknown> = []
          const result = yield* sampleWith(era, "sample_all", model.layer, {
            selectModel: (prefs) => {
              preferences.push(prefs)
              return undefined
            },
            withSettings: (s) => (effect) => Effect.andThen(Effect.sync(() => settings.push(s)), effect),
            includeContext: (which) =>
              Effect.succeed([
                Prompt.makeMessage("user", { content: [Prompt.textPart({ text: `context of ${which}` })] })
              ])
          })
          assert.deepStrictEqual(textOf(result), {
            role: "assistant",
            content: { type: "text", text: "Chart." },
            model: "scripted-1",
            stopReason: "endTurn"
          })
          const request = model.requests[0]!
          const messages = request.prompt.content.map((message) => ({
            role: message.role,
            content: typeof message.content === "string" ?
              message.content :
              message.content.map((part: any) =>
                part.type === "text"
                  ? part.text
                  : part.type === "file"
                  ? [part.mediaType, part.data]
                  : part.type === "tool-call"
                  ? ["call", part.id, part.name, part.params]
                  : [
                    "result",
                    part.id,
                    part.name,
                    part.isFailure,
                    part.result,
                    part.modelOutput.map((p: any) => p.text)
                  ]
              )
          }))
          assert.deepStrictEqual(messages, [
            { role: "system", content: "Be brief." },
            { role: "user", content: ["context of thisServer"] },
            {
              role: "user",
              content: ["What is on these?", ["image/png", "iVBORw0KGgo="], ["audio/wav", "UklGRg=="]]
            },
            { role: "assistant", content: [["call", "u1", "lookup", { q: "chart" }]] },
            { role: "tool", content: [["result", "u1", "lookup", false, { kind: "bar" }, ["a bar chart"]]] },
            { role: "user", content: ["Answer in one word."] }
          ])
          assert.deepStrictEqual(request.tools.map((tool) => tool.name), ["lookup"])
          assert.strictEqual(request.toolChoice, "required")
          assert.deepStrictEqual(settings, [{ maxTokens: 64, temperature: 0.2, stopSequences: ["\n\n"] }])
          assert.deepStrictEqual(preferences, [{
            hints: [{ name: "small" }],
            costPriority: 0.9,
            speedPriority: 0.5,
            intelligencePriority: 0.1
          }])
        }))

      it.effect("the model's tool calls go back to the server unexecuted, stopReason toolUse", () =>
        Effect.gen(function*() {
          const model = scriptedModel([[
            { type: "text", text: "Let me look." } as any,
            toolCall("t1", "lookup", { q: "moon" }),
            finish("tool-calls")
          ]])
          const result = yield* sampleWith(era, "sample_all", model.layer, {
            modelName: "fallback-model",
            includeContext: () => Effect.succeed([])
          })
          assert.deepStrictEqual(textOf(result), {
            role: "assistant",
            content: [
              { type: "text", text: "Let me look." },
              { type: "tool_use", id: "t1", name: "lookup", input: { q: "moon" } }
            ],
            model: "fallback-model",
            stopReason: "toolUse"
          })
        }))

      it.effect("selectModel picks another model's Layer; length is maxTokens", () =>
        Effect.gen(function*() {
          const fallback = scriptedModel([])
          const small = scriptedModel([[{ type: "text", text: "Par" } as any, finish("length")]])
          const result = yield* sampleWith(era, "sample_plain", fallback.layer, {
            selectModel: () => small.layer
          })
          assert.deepStrictEqual(textOf(result), {
            role: "assistant",
            content: { type: "text", text: "Par" },
            model: "unknown",
            stopReason: "maxTokens"
          })
          assert.strictEqual(fallback.requests.length, 0)
          assert.strictEqual(small.requests.length, 1)
          assert.deepStrictEqual(small.requests[0]!.tools, [])
        }))
    })
  }

  it.effect("the other values of each field: toolChoice none and auto, includeContext allServers, media, refusal", () =>
    Effect.gen(function*() {
      const PNG = "iVBORw0KGgo="
      const WAV = "UklGRg=="
      const model = scriptedModel([
        [
          { type: "file", mediaType: "image/png", data: PNG } as any,
          { type: "file", mediaType: "audio/wav", data: WAV } as any,
          finish("content-filter" as any)
        ],
        [{ type: "text", text: "fine" } as any, finish("stop")]
      ])
      const contexts: Array<string> = []
      const create = LanguageModelSampling.createMessage({
        includeContext: (which) => Effect.sync(() => void contexts.push(which)).pipe(Effect.as([]))
      })
      const context = { key: "s", method: "sampling/createMessage", target: "t", round: 1 }
      const tools = [{
        name: "lookup",
        inputSchema: { type: "object" as const, properties: { q: { type: "string" } } }
      }]
      const first = yield* create({
        messages: [{ role: "user", content: { type: "text", text: "Draw it" } }],
        maxTokens: 5,
        includeContext: "allServers",
        tools,
        toolChoice: { mode: "none" }
      }, context).pipe(Effect.provide(model.layer))
      // Generated images and audio go back as image and audio blocks; a filtered answer is a refusal.
      assert.deepStrictEqual(first, {
        role: "assistant",
        content: [{ type: "image", data: PNG, mimeType: "image/png" }, {
          type: "audio",
          data: WAV,
          mimeType: "audio/wav"
        }],
        model: "unknown",
        stopReason: "refusal"
      })
      assert.strictEqual(model.requests[0]!.toolChoice, "none")
      assert.deepStrictEqual(contexts, ["allServers"])
      const second = yield* create({
        messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
        maxTokens: 5,
        includeContext: "none",
        tools
      }, context).pipe(Effect.provide(model.layer))
      assert.deepStrictEqual(second, {
        role: "assistant",
        content: { type: "text", text: "fine" },
        model: "unknown",
        stopReason: "endTurn"
      })
      assert.strictEqual(model.requests[1]!.toolChoice, "auto")
      assert.deepStrictEqual(contexts, ["allServers"]) // "none" asks for no context
    }))

  it.effect("the capability is declared from the Layer's options", () =>
    Effect.gen(function*() {
      const model = scriptedModel([]).layer
      const declared = (options: LanguageModelSampling.Options) =>
        McpClient.McpClient.use((client) => client.clientCapabilities).pipe(
          Effect.provide(
            clientOf("2026-07-28", LanguageModelSampling.layer(options).pipe(Layer.provide(model))).pipe(
              Layer.provideMerge(serverLayer)
            )
          ),
          Effect.scoped
        )
      assert.deepStrictEqual((yield* declared({})).sampling, { tools: {} })
      assert.deepStrictEqual((yield* declared({ tools: false })).sampling, {})
      assert.deepStrictEqual(
        (yield* declared({ includeContext: () => Effect.succeed([]) })).sampling,
        { context: {}, tools: {} }
      )
    }))

  it.effect("a server that needs sampling.context is refused when no includeContext hook is given", () =>
    Effect.gen(function*() {
      const model = scriptedModel([])
      const failure = yield* sampleWith("2026-07-28", "sample_all", model.layer).pipe(Effect.flip)
      assert.strictEqual(failure._tag, "McpError")
      assert.strictEqual((failure as any).code, -32021)
      assert.strictEqual(model.requests.length, 0)
    }))

  it.effect("a model failure fails the sampling, never a made-up answer", () =>
    Effect.gen(function*() {
      const failing = Layer.effect(
        LanguageModel.LanguageModel,
        LanguageModel.make({
          generateText: () =>
            Effect.fail(
              AiError.make({ module: "Test", method: "generateText", reason: new AiError.RateLimitError({}) })
            ),
          streamText: () => Stream.die("unused")
        })
      )
      const failure = yield* sampleWith("2026-07-28", "sample_plain", failing).pipe(Effect.flip)
      assert.strictEqual(failure._tag, "InputHandlerError")
      assert.include(failure.message, "the model failed")
    }))

  it.effect("usage and the request's settings are recorded on a span with effect/ai's GenAI attributes", () =>
    Effect.gen(function*() {
      const spans: Array<Tracer.NativeSpan> = []
      const tracer = Tracer.make({
        span(options) {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        }
      })
      const model = scriptedModel([[{ type: "text", text: "Paris" } as any, metadata("m-9"), finish("stop")]])
      yield* sampleWith("2026-07-28", "sample_plain", model.layer).pipe(Effect.provideService(Tracer.Tracer, tracer))
      const span = spans.find((s) => s.name === "LanguageModelSampling.createMessage")!
      assert.isDefined(span)
      const attributes = Object.fromEntries(span.attributes)
      assert.strictEqual(attributes["gen_ai.request.max_tokens"], 10)
      assert.strictEqual(attributes["gen_ai.response.model"], "m-9")
      assert.deepStrictEqual(attributes["gen_ai.response.finish_reasons"], ["stop"])
      assert.strictEqual(attributes["gen_ai.usage.input_tokens"], usage.inputTokens.total)
      assert.strictEqual(attributes["gen_ai.usage.output_tokens"], usage.outputTokens.total)
      assert.isTrue(spans.some((s) => s.name === "LanguageModel.generateText"))
    }))
})
