/**
 * The agent's two bridges between MCP and `effect/ai`: the connected server's tools as a `Toolkit.WithHandler` a
 * `LanguageModel` calls (each call an `McpClient.callTool`, its asks answered inline by the client's handlers), and a
 * `SamplingHandler` answered by the app's own `LanguageModel`. Text results only: enough for the demo's tools.
 */
import { Errors, McpClient, SamplingHandler } from "@mrtr/client"
import type { CallToolResult, CreateMessageRequestParams, CreateMessageResult } from "@mrtr/protocol"
import type { JsonSchema, Layer } from "effect"
import { Effect, Schema, SchemaRepresentation } from "effect"
import { LanguageModel, type Prompt, Tool, Toolkit } from "effect/ai"

const parametersOf = (inputSchema: JsonSchema.JsonSchema) => {
  const { $defs, ...schema } = inputSchema as JsonSchema.JsonSchema & { readonly $defs?: JsonSchema.Definitions }
  return SchemaRepresentation.fromJsonSchemaDocument({
    dialect: "draft-2020-12",
    schema,
    definitions: $defs ?? {}
  }) as Schema.Codec<
    Record<string, unknown>,
    Record<string, unknown>
  >
}

const textOf = (result: CallToolResult): string =>
  result.content.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join("\n")

/**
 * The tools of the server `McpClient` is connected to, as a toolkit with handlers: a tool's error result, or a
 * failed call, is returned to the model as the tool's failure (`failureMode: "return"`) rather than ending the turn.
 */
export const toolkit = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const { tools } = yield* client.listTools()
  const dynamic = tools.map((tool) =>
    Tool.dynamic(tool.name, {
      description: tool.description ?? tool.title ?? tool.name,
      // An Effect Schema of the tool's JSON Schema: providers rewrite it for their own rules (OpenAI's strict mode).
      parameters: parametersOf(tool.inputSchema as JsonSchema.JsonSchema),
      success: Schema.String,
      failure: Schema.String,
      failureMode: "return"
    })
  )
  const kit = Toolkit.make(...dynamic)
  const handlers: Record<string, (params: unknown) => Effect.Effect<string, string>> = {}
  for (const tool of tools) {
    const encode = Schema.encodeUnknownEffect(parametersOf(tool.inputSchema as JsonSchema.JsonSchema))
    handlers[tool.name] = (params) =>
      encode(params).pipe(
        Effect.flatMap((args) => client.callTool({ name: tool.name, arguments: args })),
        Effect.mapError((error) => error.message),
        Effect.flatMap((result) =>
          result.isError === true ? Effect.fail(textOf(result)) : Effect.succeed(textOf(result))
        )
      )
  }
  const context = yield* kit.toHandlers(handlers as never)
  return yield* Effect.provideContext(
    kit as unknown as Effect.Effect<Toolkit.WithHandler<Record<string, Tool.Any>>>,
    context
  )
})

const promptOf = (params: CreateMessageRequestParams): Prompt.RawInput => {
  const messages: Array<Prompt.MessageEncoded> = []
  if (params.systemPrompt !== undefined) messages.push({ role: "system", content: params.systemPrompt })
  for (const message of params.messages) {
    const blocks = Array.isArray(message.content) ? message.content : [message.content]
    const text = blocks.map((block: { type: string; text?: string }) =>
      block.type === "text" ? block.text : `[${block.type}]`
    )
      .join("\n")
    messages.push(message.role === "user" ? { role: "user", content: text } : { role: "assistant", content: text })
  }
  return messages
}

/** `sampling/createMessage` answered by the `LanguageModel` in context (`model` is the name reported back). */
export const samplingFromModel = (
  model: string
): Layer.Layer<SamplingHandler.SamplingHandler, never, LanguageModel.LanguageModel> =>
  SamplingHandler.layer({
    createMessage: (params, context) =>
      LanguageModel.generateText({ prompt: promptOf(params) }).pipe(
        Effect.map((response): CreateMessageResult => ({
          role: "assistant",
          content: { type: "text", text: response.text },
          model,
          stopReason: response.finishReason === "length" ? "maxTokens" : "endTurn"
        })),
        Effect.mapError((error) =>
          new Errors.InputHandlerError({ kind: "sampling", key: context.key, reason: error.message })
        )
      )
  })
