/**
 * Test support for the `effect/ai` modules: a real `@mrtr/server` server (tools that ask, tools with every kind of
 * content, annotations, an output schema) reached in memory by a real `McpClient` of either era, and scripted
 * in-process `LanguageModel`s that record the requests they receive.
 */
import { Elicitation, RequestState, Sampling } from "@mrtr/core"
import { McpHandler, McpServer, Tool } from "@mrtr/server"
import { Effect, Layer, Ref, Schema, Stream } from "effect"
import { LanguageModel, type Response } from "effect/ai"
import { ClientTransport, McpClient, MemoryTransport } from "../src/index.ts"

const PNG = "iVBORw0KGgo="
const WAV = "UklGRg=="

/** How many times `delete_repo` really deleted (only after a confirmation). */
export const deletions = Ref.makeUnsafe(0)

export const tools = {
  weather: Tool.make("weather", {
    title: "Weather",
    description: "Current weather of a city",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    parameters: Schema.Struct({ city: Schema.String }),
    output: Schema.Struct({ city: Schema.String, celsius: Schema.Number }),
    handler: ({ city }) => Effect.succeed({ city, celsius: 21 })
  }),
  media: Tool.make("media", {
    description: "Every kind of content block",
    handler: () =>
      Effect.succeed({
        _meta: { "example.com/trace": "t-1" },
        content: [
          { type: "text" as const, text: "a chart and a sound" },
          { type: "image" as const, data: PNG, mimeType: "image/png" },
          { type: "audio" as const, data: WAV, mimeType: "audio/wav" },
          {
            type: "resource" as const,
            resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" }
          },
          {
            type: "resource" as const,
            resource: { uri: "file:///data.bin", mimeType: "application/octet-stream", blob: "AAEC" }
          },
          {
            type: "resource_link" as const,
            uri: "file:///report.pdf",
            name: "report",
            title: "Q3 report",
            mimeType: "application/pdf",
            description: "the quarterly report"
          }
        ]
      })
  }),
  broken: Tool.make("broken", {
    description: "Always fails",
    handler: () => Effect.succeed({ content: [{ type: "text" as const, text: "disk full" }], isError: true })
  }),
  greet: Tool.make("greet", {
    description: "Asks the person's name",
    handler: () =>
      Elicitation.form({ key: "name", message: "Your name?", schema: Schema.Struct({ name: Schema.String }) }).pipe(
        Effect.map(({ name }) => `Hello, ${name}!`)
      )
  }),
  delete_repo: Tool.make("delete_repo", {
    description: "Deletes a repository after the person confirms",
    annotations: { destructiveHint: true },
    parameters: Schema.Struct({ repo: Schema.String }),
    handler: Effect.fn(function*({ repo }) {
      const { confirm } = yield* Elicitation.form({
        key: "confirm",
        message: `Delete ${repo}?`,
        schema: Schema.Struct({ confirm: Schema.Boolean })
      })
      if (!confirm) return "kept"
      yield* Ref.update(deletions, (n) => n + 1)
      return `deleted ${repo}`
    })
  }),
  summarize: Tool.make("summarize", {
    description: "Asks the client's model for a summary",
    parameters: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) =>
      Sampling.createMessage({
        messages: [{ role: "user", content: { type: "text", text: `Summarize: ${text}` } }],
        maxTokens: 50
      }).pipe(Effect.map((result) => Array.isArray(result.content) ? "several blocks" : (result.content as any).text))
  })
}

/** The sampling request of `sample_all`: every field a server may send. */
export const fullSamplingRequest = {
  messages: [
    {
      role: "user" as const,
      content: [
        { type: "text" as const, text: "What is on these?" },
        { type: "image" as const, data: PNG, mimeType: "image/png" },
        { type: "audio" as const, data: WAV, mimeType: "audio/wav" }
      ]
    },
    {
      role: "assistant" as const,
      content: { type: "tool_use" as const, id: "u1", name: "lookup", input: { q: "chart" } }
    },
    {
      role: "user" as const,
      content: [
        {
          type: "tool_result" as const,
          toolUseId: "u1",
          content: [{ type: "text" as const, text: "a bar chart" }],
          structuredContent: { kind: "bar" }
        },
        { type: "text" as const, text: "Answer in one word." }
      ]
    }
  ],
  systemPrompt: "Be brief.",
  maxTokens: 64,
  temperature: 0.2,
  stopSequences: ["\n\n"],
  modelPreferences: { hints: [{ name: "small" }], costPriority: 0.9, speedPriority: 0.5, intelligencePriority: 0.1 },
  includeContext: "thisServer" as const,
  tools: [{
    name: "lookup",
    description: "Looks something up",
    inputSchema: { type: "object" as const, properties: { q: { type: "string" } }, required: ["q"] }
  }],
  toolChoice: { mode: "required" as const }
}

/** Samples with `request`; returns the `CreateMessageResult` it received, as JSON text. */
const samplingTool = (name: string, request: Sampling.CreateMessageOptions) =>
  Tool.make(name, {
    description: "Samples and returns what the client answered",
    handler: () => Sampling.createMessage(request).pipe(Effect.map((result) => JSON.stringify(result)))
  })

export const samplingTools = {
  sample_all: samplingTool("sample_all", fullSamplingRequest),
  sample_plain: samplingTool("sample_plain", {
    messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }],
    maxTokens: 10
  })
}

export const serverLayer = McpServer.tools(...Object.values(tools), ...Object.values(samplingTools)).pipe(
  Layer.provideMerge(McpServer.layer({
    name: "ai-test",
    version: "1.0.0",
    requestState: RequestState.RequestStateCodec.layer({
      keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(7) }])
    }).pipe(Layer.orDie)
  }))
)

const transport = (simulateHttp: boolean) =>
  Layer.effect(
    ClientTransport.ClientTransport,
    McpHandler.use((handler) => MemoryTransport.makeScoped(handler, { simulateHttp }))
  )

/** A client of `era` over the server in context, with `user`'s handlers and `options` (`simulateHttp`: headers, GET stream). */
export const clientOf = <R = never>(
  era: "2026-07-28" | "2025-11-25",
  user: Layer.Layer<R> = Layer.empty as any,
  options: McpClient.Options = {},
  simulateHttp = false
): Layer.Layer<McpClient.McpClient | R, never, McpHandler> =>
  McpClient.layer({ protocol: era, ...options }).pipe(Layer.provide(transport(simulateHttp)), Layer.provideMerge(user))

/** A `LanguageModel` answering each `generateText` with the next scripted turn; `requests` records what it got. */
export const scriptedModel = (turns: Array<Array<Response.PartEncoded>>) => {
  const requests: Array<LanguageModel.ProviderOptions> = []
  const layer = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          requests.push(options)
          const turn = turns.shift()
          if (turn === undefined) throw new Error("the scripted model has no more turns")
          return turn
        }),
      streamText: () => Stream.die("streamText is not scripted")
    })
  )
  return { requests, layer }
}

export const usage = { inputTokens: { total: 10, uncached: 10 }, outputTokens: { total: 5 } } as const

export const finish = (reason: "stop" | "tool-calls" | "length" = "stop"): Response.PartEncoded =>
  ({ type: "finish", reason, usage }) as Response.PartEncoded

export const toolCall = (id: string, name: string, params: unknown): Response.PartEncoded =>
  ({ type: "tool-call", id, name, params }) as Response.PartEncoded
