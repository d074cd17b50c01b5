/**
 * `McpToolkit` on the real `@effect/ai-openai` provider, over HTTP against the local OpenAI-compatible stub: the
 * request body's `tools[].parameters` is each MCP tool's `inputSchema` as OpenAI's strict mode takes it (optional
 * properties required and nullable, objects closed), a schema written by hand (open objects, as a Python server
 * writes them) included; the arguments of the model's tool call are decoded (`null` for an absent optional property)
 * and reach the server's tool; a schema that cannot be imported is sent as it is, not strict, and a call of that tool
 * fails the turn with the provider's typed `AiError` (`UnsupportedSchemaError`), the server's tool not called. And a server's sampling
 * with tools answered by the same provider: the offered tool's schema, `toolChoice`, `maxTokens` and `temperature` in
 * the request body; the model's call back to the server as an unexecuted `tool_use` with its decoded input.
 * Source: MCP 2026-07-28, server/tools; OpenAI Responses API (function tools, strict mode).
 */
import { OpenAiLanguageModel } from "@effect/ai-openai"
import { assert, describe, it } from "@effect/vitest"
import { LanguageModelSampling, McpClient, McpToolkit, MemoryTransport } from "@mrtr/client"
import { Sampling } from "@mrtr/core"
import { AiToolkit, McpHandler, McpServer, Tool as ServerTool } from "@mrtr/server"
import { Effect, Layer, Ref } from "effect"
import { LanguageModel, Tool, Toolkit } from "effect/ai"
import { stubConfig } from "./client.ts"
import * as Model from "./model.ts"
import * as Stub from "./stub.ts"

/** A search tool's schema as a hand-written server sends it: objects open, optional properties left out of `required`. */
const searchSchema = {
  type: "object",
  properties: {
    query: { type: "string", description: "What to look for" },
    kind: { type: "string", enum: ["repo", "issue"] },
    limit: { type: "integer", minimum: 1, maximum: 50 },
    tags: { type: "array", items: { type: "string" } },
    owner: { type: "object", properties: { login: { type: "string" } }, required: ["login"] }
  },
  required: ["query", "kind"]
}

/** Conditional keywords the import cannot represent: left out of what the model is told. */
const moveSchema = {
  type: "object",
  properties: { to: { type: "string" }, force: { type: "boolean" } },
  required: ["to"],
  if: { properties: { force: { const: true } } },
  then: { required: ["to", "force"] }
}

/** A reference to a definition that does not exist: the schema is sent as it is. */
const brokenSchema = {
  type: "object",
  properties: { x: { $ref: "#/$defs/Missing" } }
}

const received = Ref.makeUnsafe<Array<readonly [string, unknown]>>([])

const record = (name: string) => (params: unknown) =>
  Ref.update(received, (all) => [...all, [name, params] as const]).pipe(Effect.as(JSON.stringify(params)))

const Search = Tool.dynamic("search", { description: "Searches repositories", parameters: searchSchema })
const Move = Tool.dynamic("move", { parameters: moveSchema })
const Broken = Tool.dynamic("broken", { parameters: brokenSchema })
const Ping = Tool.dynamic("ping", { parameters: { type: "object" } })
const Served = Toolkit.make(Search, Move, Broken, Ping)

const server = AiToolkit.layer(Served).pipe(
  Layer.provide(Served.toLayer({
    search: record("search"),
    move: record("move"),
    broken: record("broken"),
    ping: record("ping")
  })),
  Layer.provideMerge(McpServer.layer({ name: "hand-written", version: "1.0.0" }))
)

const toolkit = McpToolkit.layer().pipe(
  Layer.provide(McpClient.layer()),
  Layer.provide(Layer.unwrap(Effect.map(McpHandler, (handler) => MemoryTransport.layer(handler)))),
  Layer.provide(server)
)

const byName = (request: Stub.ResponsesRequest) =>
  Object.fromEntries((request.tools ?? []).map((tool) => [tool.name, tool]))

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: "null" }] })

describe("McpToolkit on @effect/ai-openai", () => {
  it.live(
    "sends each tool's JSON Schema; the model's arguments are decoded and reach the server",
    () =>
      Effect.gen(function*() {
        const script: ReadonlyArray<Stub.Step> = [{
          name: "the tools, as OpenAI takes them",
          check: (request) => {
            const tools = byName(request)
            assert.deepStrictEqual(Object.keys(tools).sort(), ["broken", "move", "ping", "search"])
            assert.deepStrictEqual(tools.search, {
              type: "function",
              name: "search",
              description: "Searches repositories",
              strict: true,
              parameters: {
                type: "object",
                properties: {
                  query: { type: "string", description: "What to look for" },
                  kind: { type: "string", enum: ["repo", "issue"] },
                  // OpenAI's transformer restates the bounds in words too.
                  limit: nullable({
                    type: "integer",
                    minimum: 1,
                    maximum: 50,
                    description: "a value greater than or equal to 1 and a value less than or equal to 50"
                  }),
                  tags: nullable({ type: "array", items: { type: "string" } }),
                  owner: nullable({
                    type: "object",
                    properties: { login: { type: "string" } },
                    required: ["login"],
                    additionalProperties: false
                  })
                },
                required: ["query", "kind", "limit", "tags", "owner"],
                additionalProperties: false
              }
            })
            assert.deepStrictEqual(tools.move.parameters, {
              type: "object",
              properties: { to: { type: "string" }, force: nullable({ type: "boolean" }) },
              required: ["to", "force"],
              additionalProperties: false
            })
            assert.strictEqual(tools.move.strict, true)
            assert.deepStrictEqual(tools.ping.parameters, {
              type: "object",
              properties: {},
              additionalProperties: false
            })
            // Not importable: the server's schema as it is, not strict.
            assert.deepStrictEqual(tools.broken.parameters, brokenSchema)
            assert.strictEqual(tools.broken.strict, false)
          },
          output: [
            ...Stub.functionCall("search", { query: "effect", kind: "repo", limit: null, tags: ["ai"], owner: null }),
            // A model that does not keep to strict mode (a local server) leaves them out: the same arguments.
            ...Stub.functionCall("search", { query: "mcp", kind: "issue" }, "call_search_2"),
            ...Stub.functionCall("move", { to: "archive", force: true }),
            ...Stub.functionCall("ping", {})
          ]
        }]
        const stub = yield* Effect.acquireRelease(Effect.promise(() => Stub.start(script)), (stub) =>
          Effect.promise(() => stub.close()))
        yield* Ref.set(received, [])
        const response = yield* Effect.gen(function*() {
          const mcp = yield* McpToolkit.McpToolkit
          return yield* LanguageModel.generateText({ prompt: "find effect repos", toolkit: yield* mcp.toolkit })
        }).pipe(
          Effect.provide(toolkit),
          Effect.provide(Model.layer),
          Effect.provide(stubConfig(stub.baseUrl))
        )
        assert.deepStrictEqual(stub.failures, [])
        assert.deepStrictEqual(response.toolResults.map((result) => [result.name, result.isFailure]), [
          ["search", false],
          ["search", false],
          ["move", false],
          ["ping", false]
        ])
        // `null` is OpenAI's absent: the server gets the arguments its schema describes.
        assert.deepStrictEqual(yield* Ref.get(received), [
          ["search", { query: "effect", kind: "repo", tags: ["ai"] }],
          ["search", { query: "mcp", kind: "issue" }],
          ["move", { to: "archive", force: true }],
          ["ping", {}]
        ])
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a call of a tool whose schema could not be imported fails the turn with the provider's typed error",
    () =>
      Effect.gen(function*() {
        const stub = yield* Effect.acquireRelease(
          Effect.promise(() =>
            Stub.start([{ name: "a call of broken", check: () => {}, output: Stub.functionCall("broken", { x: 1 }) }])
          ),
          (stub) => Effect.promise(() => stub.close())
        )
        yield* Ref.set(received, [])
        const failure = yield* Effect.gen(function*() {
          const mcp = yield* McpToolkit.McpToolkit
          return yield* LanguageModel.generateText({ prompt: "x", toolkit: yield* mcp.toolkit })
        }).pipe(
          Effect.provide(toolkit),
          Effect.provide(Model.layer),
          Effect.provide(stubConfig(stub.baseUrl)),
          Effect.flip
        )
        assert.strictEqual(failure._tag, "AiError")
        assert.strictEqual((failure as { reason: { _tag: string } }).reason._tag, "UnsupportedSchemaError")
        assert.deepStrictEqual(yield* Ref.get(received), [])
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "sampling with tools: the provider's request has the tool, toolChoice and settings; the call goes back",
    () =>
      Effect.gen(function*() {
        const askModel = ServerTool.make("ask_model", {
          handler: () =>
            Sampling.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "Where is the moon?" } }],
              systemPrompt: "Use the tool.",
              maxTokens: 77,
              temperature: 0.3,
              tools: [{
                name: "lookup",
                description: "Looks something up",
                inputSchema: {
                  type: "object",
                  properties: { q: { type: "string" }, limit: { type: "integer" } },
                  required: ["q"]
                }
              }],
              toolChoice: { mode: "required" }
            }).pipe(Effect.map((result) => JSON.stringify(result)))
        })
        const script: ReadonlyArray<Stub.Step> = [{
          name: "the sampling request, with the server's tool",
          check: (request) => {
            assert.deepStrictEqual(request.tools, [{
              type: "function",
              name: "lookup",
              description: "Looks something up",
              strict: true,
              parameters: {
                type: "object",
                properties: {
                  q: { type: "string" },
                  // An integer is a safe integer (Effect's `Schema.Int`).
                  limit: nullable({ type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 })
                },
                required: ["q", "limit"],
                additionalProperties: false
              }
            }])
            assert.strictEqual(request.tool_choice, "required")
            assert.strictEqual(request.max_output_tokens, 77)
            assert.strictEqual(request.temperature, 0.3)
            assert.deepStrictEqual(Stub.texts(request), ["Use the tool.", "Where is the moon?"])
          },
          output: Stub.functionCall("lookup", { q: "moon", limit: null })
        }]
        const stub = yield* Effect.acquireRelease(
          Effect.promise(() => Stub.start(script)),
          (stub) => Effect.promise(() => stub.close())
        )
        // #region settings
        // A sampling request's maxTokens and temperature, through @effect/ai-openai's own config override.
        const sampling = LanguageModelSampling.layer({
          withSettings: (settings) => (effect) =>
            OpenAiLanguageModel.withConfigOverride(effect, {
              max_output_tokens: settings.maxTokens,
              temperature: settings.temperature
            }) as typeof effect
        })
        // #endregion settings
        const result = yield* McpClient.McpClient.use((client) => client.callTool({ name: "ask_model" })).pipe(
          Effect.provide(
            McpClient.layer().pipe(
              Layer.provide(Layer.unwrap(Effect.map(McpHandler, (handler) => MemoryTransport.layer(handler)))),
              Layer.provide(sampling),
              Layer.provide(
                McpServer.tools(askModel).pipe(
                  Layer.provideMerge(McpServer.layer({ name: "sampler", version: "1.0.0" }))
                )
              )
            )
          ),
          Effect.provide(Model.layer),
          Effect.provide(stubConfig(stub.baseUrl))
        )
        assert.deepStrictEqual(stub.failures, [])
        assert.deepStrictEqual(JSON.parse((result.content[0] as { text: string }).text), {
          role: "assistant",
          content: { type: "tool_use", id: "call_lookup", name: "lookup", input: { q: "moon" } },
          model: "stub-model",
          stopReason: "toolUse"
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
