/**
 * A terminal agent: a model chooses the tools of an MCP server (the demo's trip planner), the person answers the
 * forms those tools ask at the terminal, and the server's sampling requests go to the same model. The model, the
 * server and the terminal are Layers: `main.ts` wires the configured provider, the tests an in-process model or the
 * real provider against a local stub, and a scripted terminal.
 */
import type { ClientTransport } from "@mrtr/client"
import { LanguageModelSampling, McpClient, McpToolkit, MemoryTransport, RootsHandler } from "@mrtr/client"
import type { Root } from "@mrtr/protocol/Schema"
import { McpHandler } from "@mrtr/server"
import { Effect, Layer, Terminal } from "effect"
import { Chat, type LanguageModel, type Prompt, type Toolkit } from "effect/ai"
import * as Demo from "../demo/server.ts"
import * as TerminalForms from "./terminal.ts"

/** What the model is told before the person's first message. */
export const SYSTEM = "You are a travel agent at a terminal. Use the tools to act for the person: they plan and book " +
  "rail trips and ask the person what they need. Answer briefly once the tools have done the work."

/** The most model calls one message of the person may take (each tool round is one). */
export const MAX_STEPS = 8

// #region respond
/**
 * One message of the person: the model answers, calling tools as it sees fit (each call an MCP `tools/call` whose
 * forms the person answers here), until it answers without calling any. The chat keeps the history.
 */
export const respond = Effect.fn("respond")(function*(
  chat: Chat.Chat,
  tools: Toolkit.WithHandler<Record<string, McpToolkit.McpTool>>,
  message: string
) {
  const terminal = yield* Terminal.Terminal
  let prompt: Prompt.RawInput = message
  for (let step = 0; step < MAX_STEPS; step++) {
    // A Toolkit of MCP tools needs no service of its own (its handlers hold the client): only the model.
    const response = yield* chat.generateText({ prompt, toolkit: tools })
    for (const result of response.toolResults) {
      yield* terminal.display(`[${result.name}${result.isFailure ? " failed" : ""}] ${textOf(result.result)}\n`)
    }
    if (response.toolCalls.length === 0) return response.text
    prompt = [] // the tool results are in the history: the model continues from them
  }
  return `(stopped after ${MAX_STEPS} model calls)`
})
// #endregion respond

/**
 * The conversation at the terminal: `you> ` then the agent's answer, until the input ends or the person types
 * `exit`.
 */
export const session = Effect.gen(function*() {
  const terminal = yield* Terminal.Terminal
  const mcp = yield* McpToolkit.McpToolkit
  const tools = yield* mcp.toolkit
  const chat = yield* Chat.fromPrompt([{ role: "system", content: SYSTEM }])
  yield* terminal.display(`Tools: ${Object.keys(tools.tools).join(", ")}. Type "exit" to leave.\n`)
  while (true) {
    const line = yield* terminal.display("you> ").pipe(
      Effect.andThen(terminal.readLine),
      Effect.orElseSucceed(() => "exit")
    )
    if (line.trim() === "exit") return
    if (line.trim() === "") continue
    const answer = yield* respond(chat, tools, line)
    yield* terminal.display(`agent> ${answer}\n`)
  }
})

/** What the terminal shows of a tool's result: its text blocks, or the failure's message. */
const textOf = (result: unknown): string => {
  if (typeof result === "object" && result !== null && "content" in result && Array.isArray(result.content)) {
    return result.content.map((block: { type: string; text?: string }) => block.text ?? `[${block.type}]`).join("\n")
  }
  return result instanceof Error ? result.message : JSON.stringify(result)
}

/** The demo server in this process, reached through the in-memory transport. */
export const demoInProcess: Layer.Layer<ClientTransport.ClientTransport> = Layer.unwrap(
  Effect.map(McpHandler, (handler) => MemoryTransport.layer(handler))
).pipe(Layer.provide(Demo.layer), Layer.orDie)

/**
 * The MCP client of the agent: forms at the terminal, sampling by the model (reported as `modelName`), the
 * working directory as its one root, over `transport`.
 */
export const client = (
  transport: Layer.Layer<ClientTransport.ClientTransport>,
  modelName: string,
  roots: ReadonlyArray<Root> = [{ uri: `file://${process.cwd()}`, name: "working directory" }]
): Layer.Layer<McpToolkit.McpToolkit, never, Terminal.Terminal | LanguageModel.LanguageModel> =>
  McpToolkit.layer().pipe(
    Layer.provide(McpClient.layer({ clientInfo: { name: "mrtr-agent", version: "1.0.0" } })),
    Layer.provide(transport),
    Layer.provide(TerminalForms.layer),
    Layer.provide(LanguageModelSampling.layer({ modelName })),
    Layer.provide(RootsHandler.layerStatic(roots))
  )
