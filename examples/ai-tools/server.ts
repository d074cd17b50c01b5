/**
 * A server for an `effect/ai` app: a read-only tool with structured output, a destructive tool that asks the person
 * to confirm, and a tool that asks the client's model for a summary (sampling). `client.ts` gives these tools to a
 * model through `McpToolkit` and answers the sampling with its own `LanguageModel`.
 * Run it: `npx tsx examples/ai-tools/server.ts`.
 */
// #region server
import { NodeRuntime } from "@effect/platform-node"
import { Elicitation, Sampling } from "@mrtr/core"
import { HttpTransport, McpServer, Tool } from "@mrtr/server"
import { Console, Effect, Layer, Schema } from "effect"

const weather = Tool.make("weather", {
  description: "Current weather of a city",
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: true },
  parameters: Schema.Struct({ city: Schema.String }),
  output: Schema.Struct({ city: Schema.String, celsius: Schema.Number }),
  handler: ({ city }) => Effect.succeed({ city, celsius: 21 })
})

const deleteRepo = Tool.make("delete_repo", {
  description: "Deletes a repository once the person confirms",
  annotations: { destructiveHint: true },
  parameters: Schema.Struct({ repo: Schema.String }),
  handler: Effect.fn(function*({ repo }) {
    const { confirm } = yield* Elicitation.form({
      key: "confirm",
      message: `Delete ${repo}? This cannot be undone.`,
      schema: Schema.Struct({ confirm: Schema.Boolean })
    })
    return confirm ? `Deleted ${repo}.` : `Kept ${repo}.`
  })
})

const summarize = Tool.make("summarize", {
  description: "Summarizes a text with the client's model",
  parameters: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) =>
    Sampling.createMessage({
      messages: [{ role: "user", content: { type: "text", text: `Summarize: ${text}` } }],
      systemPrompt: "Answer in one sentence.",
      maxTokens: 100,
      modelPreferences: { hints: [{ name: "small" }], speedPriority: 0.8 }
    }).pipe(Effect.map(Sampling.textOf))
})

export const server = McpServer.tools(weather, deleteRepo, summarize).pipe(
  Layer.provideMerge(McpServer.layer({ name: "repos", version: "1.0.0" }))
)
// #endregion server

/** Streamable HTTP on 127.0.0.1 (`port` 0: any free port). */
export const serve = (port: number) => HttpTransport.layer({ port }).pipe(Layer.provide(server))

if (import.meta.url === `file://${process.argv[1]}`) {
  Effect.gen(function*() {
    yield* Console.log(`listening ${yield* HttpTransport.url}`)
    return yield* Effect.never
  }).pipe(Effect.provide(serve(Number(process.argv[2] ?? 3000))), NodeRuntime.runMain)
}
