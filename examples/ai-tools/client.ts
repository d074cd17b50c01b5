/**
 * An `effect/ai` app using the tools of `server.ts`: `McpToolkit` gives them to a `LanguageModel` (asks answered in
 * the call, or suspended and resumed later from a saved chat), and `LanguageModelSampling` answers the server's
 * sampling with the same model. The model here is a stand-in that calls the tool a prompt names; an app provides its
 * provider's `LanguageModel` Layer instead. `verify(url)` fails on any unexpected result.
 * Run it: `npx tsx examples/ai-tools/client.ts http://127.0.0.1:3000/mcp`.
 */
import { NodeRuntime } from "@effect/platform-node"
import { ElicitationHandler, HttpTransport, LanguageModelSampling, McpClient, McpToolkit } from "@mrtr/client"
import { Console, Effect, Layer, Ref, Stream } from "effect"
import { Chat, LanguageModel, type Response } from "effect/ai"

// #region model
// Stands in for a provider's LanguageModel: calls the tool the prompt names, then reports what the tool returned.
const respond = (options: LanguageModel.ProviderOptions): Array<Response.PartEncoded> => {
  const last = options.prompt.content.at(-1)
  const done = (text: string): Array<Response.PartEncoded> => [
    { type: "response-metadata", modelId: "stand-in-1" } as Response.PartEncoded,
    { type: "text", text },
    { type: "finish", reason: "stop", usage: { inputTokens: { total: 20 }, outputTokens: { total: 8 } } }
  ]
  if (last?.role === "tool") {
    return done(
      last.content.map((part) =>
        part.type === "tool-result"
          ? (part.modelOutput ?? []).map((o) => o.type === "text" ? o.text : "").join(" ")
          : ""
      ).join(" ")
    )
  }
  const text = last?.role === "user" ? last.content.map((p) => p.type === "text" ? p.text : "").join("") : ""
  if (text.startsWith("Summarize:")) return done("A short summary.")
  const [verb = "", ...rest] = text.split(" ")
  const tool = options.tools.find((t) => t.name.endsWith(verb === "delete" ? "delete_repo" : verb))
  if (tool === undefined) return done("I have no tool for that.")
  const arg = rest.join(" ")
  const params = verb === "weather" ? { city: arg } : verb === "delete" ? { repo: arg } : { text: arg }
  return [
    { type: "tool-call", id: `call-${tool.name}`, name: tool.name, params },
    { type: "finish", reason: "tool-calls", usage: { inputTokens: { total: 20 }, outputTokens: { total: 5 } } }
  ]
}

export const model = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) => Effect.sync(() => respond(options)),
    streamText: () => Stream.die("this stand-in model does not stream")
  })
)
// #endregion model

// #region toolkit
// The person at the keyboard confirms (a terminal prompt or a dialog in an app).
const person = ElicitationHandler.layer({
  form: () => Effect.succeed(ElicitationHandler.accept({ confirm: true }))
})

const inline = (url: string) =>
  McpToolkit.layer({ prefix: "repos_" }).pipe(
    Layer.provideMerge(
      McpClient.layer().pipe(
        Layer.provide(HttpTransport.layerNode({ url })),
        // The server's sampling requests go to the app's own model.
        Layer.provide(Layer.mergeAll(person, LanguageModelSampling.layer().pipe(Layer.provide(model))))
      )
    ),
    Layer.provideMerge(model)
  )

const ask = (prompt: string) =>
  Effect.gen(function*() {
    const mcp = yield* McpToolkit.McpToolkit
    const chat = yield* Chat.empty
    // `mcp.toolkit`: the server's tools, listed again when they changed.
    let turn = yield* chat.generateText({ prompt, toolkit: yield* mcp.toolkit })
    while (turn.toolCalls.length > 0) turn = yield* chat.generateText({ prompt: [], toolkit: yield* mcp.toolkit })
    return turn.text
  })
// #endregion toolkit

// #region suspend
// No ElicitationHandler: the client declares the capability, and a tool that asks ends the model's turn.
const suspending = (url: string) =>
  McpToolkit.layer({ prefix: "repos_", mode: "suspend" }).pipe(
    Layer.provideMerge(
      McpClient.layer({ capabilities: { elicitation: { form: {} } } }).pipe(
        Layer.provide(HttpTransport.layerNode({ url }))
      )
    ),
    Layer.provideMerge(model)
  )

// First request: the turn ends with the questions; save the chat anywhere (a database, a file).
const start = (prompt: string) =>
  Effect.gen(function*() {
    const mcp = yield* McpToolkit.McpToolkit
    const chat = yield* Chat.empty
    const turn = yield* chat.generateText({ prompt, toolkit: yield* mcp.toolkit })
    const questions = McpToolkit.suspended(turn.content) // show their inputRequests to the person
    return { saved: yield* chat.exportJson, questions }
  })

// A later request, maybe in another process: the answers continue the same MCP conversation.
const resume = (saved: string, confirm: boolean) =>
  Effect.gen(function*() {
    const mcp = yield* McpToolkit.McpToolkit
    const chat = yield* Chat.fromJson(saved)
    for (const question of McpToolkit.suspendedIn(yield* Ref.get(chat.history))) {
      const outcome = yield* mcp.resume(question, { confirm: { action: "accept", content: { confirm } } })
      yield* Ref.update(chat.history, (history) => McpToolkit.replaceResult(history, question.toolCallId!, outcome))
    }
    const turn = yield* chat.generateText({ prompt: [], toolkit: yield* mcp.toolkit })
    return turn.text
  })
// #endregion suspend

// #region sampling
// Sampling requests that prefer a small model get one; maxTokens, temperature and stopSequences reach the
// provider through `withSettings` (its own config override).
const small = model // another provider Layer in a real app
const sampling = LanguageModelSampling.layer({
  selectModel: (preferences) => preferences?.hints?.some((hint) => hint.name === "small") ? small : undefined,
  modelName: "my-model"
})
// #endregion sampling

const expect = (what: string, actual: unknown, expected: unknown) =>
  JSON.stringify(actual) === JSON.stringify(expected)
    ? Effect.void
    : Effect.fail(new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`))

/** Runs every flow against `url`; fails on any unexpected result. */
export const verify = (url: string) =>
  Effect.gen(function*() {
    yield* expect("weather, structured", yield* ask("weather Oslo"), JSON.stringify({ city: "Oslo", celsius: 21 }))
    yield* expect("delete, confirmed inline", yield* ask("delete old-repo"), "Deleted old-repo.")
    yield* expect("summarize, sampled by the app's model", yield* ask("summarize a long text"), "A short summary.")

    const { questions, saved } = yield* start("delete old-repo").pipe(Effect.provide(suspending(url)))
    yield* expect("suspended questions", questions.map((q) => Object.keys(q.inputRequests)), [["confirm"]])
    yield* expect("resumed", yield* resume(saved, false).pipe(Effect.provide(suspending(url))), "Kept old-repo.")

    const sampled = yield* ask("summarize a long text").pipe(
      Effect.provide(
        McpToolkit.layer().pipe(
          Layer.provideMerge(
            McpClient.layer().pipe(
              Layer.provide(HttpTransport.layerNode({ url })),
              Layer.provide(sampling.pipe(Layer.provide(model)))
            )
          ),
          Layer.provideMerge(model)
        )
      )
    )
    yield* expect("sampling with selectModel", sampled, "A short summary.")
    yield* Console.log("ai-tools: every flow verified")
  }).pipe(Effect.provide(inline(url)), Effect.scoped)

if (import.meta.url === `file://${process.argv[1]}`) {
  verify(process.argv[2] ?? "http://127.0.0.1:3000/mcp").pipe(NodeRuntime.runMain)
}
