/**
 * The field mappings behind `LanguageModelSampling`: a `sampling/createMessage`
 * request to an `effect/ai` `Prompt` and tools, and a model's response back
 * to a `CreateMessageResult`.
 *
 * Gotchas: MCP carries tool results inside `user` messages while `effect/ai`
 * keeps them in `tool` messages, so a user message is split (its tool
 * results first, then the rest); a tool result names its call only by id,
 * so its tool name is found in the earlier `tool_use` with that id. A model
 * response's reasoning parts have no MCP counterpart and are left out.
 *
 * Source: MCP 2026-07-28, client/sampling (messages, content, tools,
 * `toolChoice`, `stopReason`).
 */
import type {
  CreateMessageRequestParams,
  SamplingMessageContentBlock,
  Tool as McpToolDefinition,
  ToolChoice
} from "@mrtr/protocol/Schema"
import type { JsonSchema } from "effect"
import { Prompt, type Response, Tool } from "effect/ai"
import { Base64 } from "effect/encoding"
import { modelPartOf, parametersOf } from "./toolkitMapping.ts"

type Block = SamplingMessageContentBlock

const blocksOf = (content: Block | ReadonlyArray<Block>): ReadonlyArray<Block> =>
  Array.isArray(content) ? content : [content as Block]

/** The `effect/ai` prompt of a sampling request: the system prompt, then each message (tool results as `tool` messages). */
export const promptOf = (
  params: CreateMessageRequestParams,
  context: ReadonlyArray<Prompt.Message> = []
): Prompt.Prompt => {
  const toolNames = new Map<string, string>()
  const messages: Array<Prompt.Message> = []
  if (params.systemPrompt !== undefined) messages.push(Prompt.makeMessage("system", { content: params.systemPrompt }))
  for (const message of context) messages.push(message)
  for (const message of params.messages) {
    const blocks = blocksOf(message.content)
    if (message.role === "assistant") {
      const content: Array<Prompt.AssistantMessagePart> = []
      for (const block of blocks) {
        switch (block.type) {
          case "text":
            content.push(Prompt.textPart({ text: block.text }))
            break
          case "image":
          case "audio":
            content.push(Prompt.filePart({ mediaType: block.mimeType, data: block.data }))
            break
          case "tool_use":
            toolNames.set(block.id, block.name)
            content.push(
              Prompt.toolCallPart({ id: block.id, name: block.name, params: block.input, providerExecuted: false })
            )
            break
          case "tool_result":
            // An assistant's own tool result (unusual): kept as the model would have produced it.
            content.push(toolResultOf(block, toolNames))
            break
        }
      }
      messages.push(Prompt.makeMessage("assistant", { content }))
      continue
    }
    const results: Array<Prompt.ToolResultPart> = []
    const content: Array<Prompt.UserMessagePart> = []
    for (const block of blocks) {
      switch (block.type) {
        case "text":
          content.push(Prompt.textPart({ text: block.text }))
          break
        case "image":
        case "audio":
          content.push(Prompt.filePart({ mediaType: block.mimeType, data: block.data }))
          break
        case "tool_result":
          results.push(toolResultOf(block, toolNames))
          break
        case "tool_use":
          // A user message cannot call a tool: said in words rather than dropped.
          content.push(Prompt.textPart({ text: `(tool call ${block.name} ${JSON.stringify(block.input)})` }))
          break
      }
    }
    if (results.length > 0) messages.push(Prompt.makeMessage("tool", { content: results }))
    if (content.length > 0) messages.push(Prompt.makeMessage("user", { content }))
  }
  return Prompt.fromMessages(messages)
}

const toolResultOf = (
  block: Extract<Block, { readonly type: "tool_result" }>,
  toolNames: ReadonlyMap<string, string>
): Prompt.ToolResultPart =>
  Prompt.toolResultPart({
    id: block.toolUseId,
    name: toolNames.get(block.toolUseId) ?? "",
    isFailure: block.isError === true,
    result: block.structuredContent ?? block.content,
    modelOutput: block.content.map(modelPartOf),
    providerExecuted: false
  })

/**
 * The server's offered tools as `effect/ai` dynamic tools, never run by the client: parameters imported from the
 * `inputSchema` as `McpToolkit` imports them (so a provider builds its own JSON Schema and decodes the model's
 * arguments), else the JSON Schema as it is, not strict.
 */
export const toolsOf = (tools: ReadonlyArray<McpToolDefinition>): Record<string, Tool.Any> => {
  const out: Record<string, Tool.Any> = {}
  for (const tool of tools) {
    const imported = parametersOf(tool.inputSchema as Record<string, unknown>)
    const description = tool.description === undefined ? {} : { description: tool.description }
    out[tool.name] = imported._tag === "Imported"
      ? Tool.dynamic(tool.name, { parameters: imported.schema, ...description }) as unknown as Tool.Any
      : Tool.dynamic(tool.name, { parameters: tool.inputSchema as JsonSchema.JsonSchema, ...description })
        .annotate(Tool.Strict, false) as unknown as Tool.Any
  }
  return out
}

/** MCP `toolChoice` as `effect/ai`'s (`auto` when absent). */
export const toolChoiceOf = (choice: ToolChoice | undefined): "auto" | "required" | "none" => choice?.mode ?? "auto"

/** An `effect/ai` finish reason as MCP's `stopReason`. */
export const stopReasonOf = (reason: Response.FinishReason): string => {
  switch (reason) {
    case "stop":
      return "endTurn"
    case "length":
      return "maxTokens"
    case "tool-calls":
      return "toolUse"
    case "content-filter":
      return "refusal"
    default:
      return reason
  }
}

/** The content of a model's response as MCP blocks: text, generated images and audio, tool calls (unexecuted). */
export const contentOf = (parts: ReadonlyArray<Response.AllParts<any>>): Array<Block> => {
  const out: Array<Block> = []
  for (const part of parts) {
    switch (part.type) {
      case "text":
        if (part.text.length > 0) out.push({ type: "text", text: part.text })
        break
      case "file": {
        const data = Base64.encode(part.data)
        if (part.mediaType.startsWith("image/")) out.push({ type: "image", data, mimeType: part.mediaType })
        else if (part.mediaType.startsWith("audio/")) out.push({ type: "audio", data, mimeType: part.mediaType })
        break
      }
      case "tool-call":
        out.push({
          type: "tool_use",
          id: part.id,
          name: part.name,
          input: (typeof part.params === "object" && part.params !== null ? part.params : {}) as Record<string, unknown>
        })
        break
    }
  }
  return out
}
