/**
 * The diagnostic fixtures of the `server-stateless` scenario (SEP-2575):
 * a tool that needs an undeclared capability, a tool that streams progress
 * before it asks, a tool that logs, and hooks that change the tool and prompt
 * lists so that `subscriptions/listen` streams see `list_changed`.
 */
import { Elicitation, Sampling } from "@mrtr/core"
import { McpServer, Prompt, RequestContext, Tool } from "@mrtr/server"
import { Effect, Schema } from "effect"

/** Needs `sampling`; called without it, the uncaught ask ends the request with -32021. */
const missingCapability = Tool.make("test_missing_capability", {
  description: "Asks the client's model (sampling); a request that did not declare sampling gets -32021",
  handler: () =>
    Sampling.createMessage({
      key: "sample",
      messages: [{ role: "user", content: { type: "text", text: "Say hello" } }],
      maxTokens: 20
    }).pipe(Effect.map((result) => `sampled with ${result.model}`))
})

/** Reports progress on its own stream, then asks; the stream never carries a server-to-client request. */
const streamingElicitation = Tool.make("test_streaming_elicitation", {
  description: "Reports progress, then asks for confirmation (elicitation, key confirm) via MRTR",
  handler: () =>
    Effect.gen(function*() {
      yield* RequestContext.progress(1, { total: 2, message: "Preparing the question" })
      yield* RequestContext.log("info", "Asking for confirmation", "conformance-server")
      const { ok } = yield* Elicitation.form({
        key: "confirm",
        message: "Continue?",
        schema: Schema.Struct({ ok: Schema.Boolean })
      })
      yield* RequestContext.progress(2, { total: 2, message: "Answered" })
      return ok ? "Confirmed" : "Not confirmed"
    })
})

/** Logs through `RequestContext.log`, which emits nothing unless the request set a log level. */
const loggingTool = Tool.make("test_logging_tool", {
  description: "Emits log messages (only when the request sets io.modelcontextprotocol/logLevel)",
  handler: () =>
    Effect.gen(function*() {
      yield* RequestContext.log("info", "Logging tool started", "conformance-server")
      yield* RequestContext.log("warning", "Logging tool is about to finish", "conformance-server")
      return "Logging tool finished"
    })
})

/**
 * SEP-2243 (`http-custom-header-server-validation`): `region` is mirrored in an
 * `Mcp-Param-Region` header; the server rejects a missing, malformed or
 * mismatching header with -32020 before the tool runs.
 */
const customHeaders = Tool.make("test_custom_headers", {
  description: "Echoes its region argument, which clients mirror in the Mcp-Param-Region header",
  parameters: Schema.Struct({
    region: Schema.String.annotate({ description: "Where to run", "x-mcp-header": "Region" })
  }),
  handler: ({ region }) => Effect.succeed(`region=${region}`)
})

/** A tool that exists only to be added and removed by `test_trigger_tool_change`. */
const dynamicTool = Tool.make("test_dynamic_tool", {
  description: "Added and removed at run time by test_trigger_tool_change",
  handler: () => Effect.succeed("dynamic tool")
})

/** A prompt that exists only to be added and removed by `test_trigger_prompt_change`. */
const dynamicPrompt = Prompt.make("test_dynamic_prompt", {
  description: "Added and removed at run time by test_trigger_prompt_change",
  handler: () => Effect.succeed("dynamic prompt")
})

let dynamicToolPresent = false
let dynamicPromptPresent = false

/** Toggles `test_dynamic_tool`; listen streams that asked for `toolsListChanged` get the change. */
const triggerToolChange = Tool.make("test_trigger_tool_change", {
  description: "Adds or removes test_dynamic_tool, so the tool list changes",
  handler: () =>
    Effect.gen(function*() {
      const server = yield* McpServer.McpServer
      dynamicToolPresent = !dynamicToolPresent
      yield* dynamicToolPresent ? server.addTool(dynamicTool) : server.removeTool(dynamicTool.name)
      return `test_dynamic_tool ${dynamicToolPresent ? "added" : "removed"}`
    })
})

/** Toggles `test_dynamic_prompt`; listen streams that asked for `promptsListChanged` get the change. */
const triggerPromptChange = Tool.make("test_trigger_prompt_change", {
  description: "Adds or removes test_dynamic_prompt, so the prompt list changes",
  handler: () =>
    Effect.gen(function*() {
      const server = yield* McpServer.McpServer
      dynamicPromptPresent = !dynamicPromptPresent
      yield* dynamicPromptPresent ? server.addPrompt(dynamicPrompt) : server.removePrompt(dynamicPrompt.name)
      return `test_dynamic_prompt ${dynamicPromptPresent ? "added" : "removed"}`
    })
})

export const tools = [
  missingCapability,
  streamingElicitation,
  loggingTool,
  triggerToolChange,
  triggerPromptChange,
  customHeaders
] as const
