/**
 * The client the official MCP conformance suite drives
 * (`conformance client --command "npx tsx examples/conformance-client/index.ts" --scenario <name>`).
 *
 * The runner starts a mock server and runs `<command> <serverUrl>` with
 * `MCP_CONFORMANCE_SCENARIO` set (and `MCP_CONFORMANCE_CONTEXT`, JSON, for
 * scenarios that pass data). Each scenario has a driver below that makes the
 * requests the scenario checks, through `@mrtr/client` over Streamable HTTP.
 * Exit status 0 when the driver finished, 1 otherwise.
 *
 * Scenarios (2026-07-28): `sep-2322-client-request-state`, `request-metadata`,
 * `http-standard-headers`, `http-custom-headers`, `http-invalid-tool-headers`,
 * `tools_call`, `json-schema-ref-no-deref`, and every `auth/*` one: the
 * client then runs with `Authorization.layer` (headless user agent, the CIMD
 * URL the suite expects, the pre-registered credentials of
 * `MCP_CONFORMANCE_CONTEXT` when it has them) and makes two requests
 * (`tools/list`, `tools/call test-tool`); a refused sign-in exits 1, which
 * the rejection scenarios expect.
 * Scenarios (2025-11-25, `MCP_CONFORMANCE_PROTOCOL_VERSION=2025-11-25`):
 * `initialize`, `tools_call`, `elicitation-sep1034-client-defaults`,
 * `sse-retry`. The client always runs with `protocol: "auto"`: it tells the
 * era from its `server/discover` probe (the `initialize` mock answers it with
 * `{}`, which is no `DiscoverResult`, so the client initializes) and answers
 * the server's in-flight requests with the same handlers.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr, basic (request `_meta`),
 * basic/transports/streamable-http, basic/authorization; MCP 2025-11-25,
 * basic/lifecycle, basic/transports (resumability), client/elicitation
 * (SEP-1034 defaults); `docs/architecture.md`, "The client".
 *
 * @since 0.1.0
 */
import { NodeRuntime } from "@effect/platform-node"
import {
  Authorization,
  ElicitationHandler,
  HttpTransport,
  McpClient,
  RootsHandler,
  SamplingHandler
} from "@mrtr/client"
import type { Tool } from "@mrtr/protocol/Schema"
import { Deferred, Effect, Fiber, Layer } from "effect"

const serverUrl = process.argv[2]
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ""

interface ToolCall {
  readonly name: string
  readonly arguments?: Record<string, unknown>
}

const context = (): {
  readonly toolCalls?: ReadonlyArray<ToolCall>
  readonly client_id?: string
  readonly client_secret?: string
  readonly issuer?: string
} => {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT
  return raw === undefined ? {} : JSON.parse(raw)
}

/** Arguments that satisfy a tool's `inputSchema` (required primitives only). */
const sampleArguments = (tool: Tool): Record<string, unknown> => {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { readonly type?: unknown }>
  const out: Record<string, unknown> = {}
  for (const [name, schema] of Object.entries(properties)) {
    switch (schema.type) {
      case "string":
        out[name] = "us-east1"
        break
      case "integer":
        out[name] = 1
        break
      case "number":
        out[name] = 1.5
        break
      case "boolean":
        out[name] = true
        break
    }
  }
  return out
}

const log = (message: string) => Effect.sync(() => console.error(`[conformance-client] ${message}`))

// -- Drivers ------------------------------------------------------------------

/**
 * B3: list, echo_state (first round), unrelated (while echo_state waits for
 * its answer), echo_state retry, no_state (+ retry), no_result_type.
 */
const requestState = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  yield* client.listTools()
  const asked = yield* Deferred.make<void>()
  const proceed = yield* Deferred.make<void>()
  const waitingUser = ElicitationHandler.layer({
    form: () =>
      Deferred.succeed(asked, undefined).pipe(
        Effect.andThen(Deferred.await(proceed)),
        Effect.as(ElicitationHandler.accept({ confirmed: true }))
      )
  })
  const echo = yield* client.callTool({ name: "test_mrtr_echo_state" }).pipe(
    Effect.provide(waitingUser),
    Effect.forkChild
  )
  yield* Deferred.await(asked)
  // Another request while echo_state's round is pending: it must carry none of its MRTR fields.
  yield* client.callTool({ name: "test_mrtr_unrelated" })
  yield* Deferred.succeed(proceed, undefined)
  const echoed = yield* Fiber.join(echo)
  yield* log(`test_mrtr_echo_state: ${JSON.stringify(echoed.content)}`)
  const noState = yield* client.callTool({ name: "test_mrtr_no_state" })
  yield* log(`test_mrtr_no_state: ${JSON.stringify(noState.content)}`)
  const noResultType = yield* client.callTool({ name: "test_mrtr_no_result_type" })
  yield* log(`test_mrtr_no_result_type: ${JSON.stringify(noResultType.content)}`)
})

/** Per-request `_meta` and `MCP-Protocol-Version` (the mock rejects the first request with -32022). */
const requestMetadata = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const discovered = yield* client.discover()
  yield* log(`discover: ${JSON.stringify(discovered.supportedVersions)}`)
  const listed = yield* client.listTools()
  yield* log(`tools/list: ${listed.tools.length} tools`)
})

/** `Mcp-Method` on every request, `Mcp-Name` on tools/call, resources/read, prompts/get. */
const standardHeaders = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const { tools } = yield* client.listTools()
  for (const tool of tools) yield* client.callTool({ name: tool.name, arguments: sampleArguments(tool) })
  const { resources } = yield* client.listResources()
  for (const resource of resources) yield* client.readResource({ uri: resource.uri })
  const { prompts } = yield* client.listPrompts()
  for (const prompt of prompts) yield* client.getPrompt({ name: prompt.name })
})

/** `Mcp-Param-*` headers for `x-mcp-header` arguments, with the calls the scenario prescribes. */
const customHeaders = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  yield* client.listTools()
  for (const call of context().toolCalls ?? []) {
    yield* client.callTool({ name: call.name, ...(call.arguments === undefined ? {} : { arguments: call.arguments }) })
  }
})

/** Tools with invalid `x-mcp-header` annotations are excluded; the valid one is still called. */
const invalidToolHeaders = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const { tools } = yield* client.listTools()
  yield* log(`kept tools: ${tools.map((t) => t.name).join(", ")}`)
  for (const tool of tools) yield* client.callTool({ name: tool.name, arguments: sampleArguments(tool) })
  // Calling an excluded tool fails before anything is sent.
  const refused = yield* client.callTool({ name: "invalid_number_header", arguments: { score: 1.5 } }).pipe(Effect.flip)
  yield* log(`invalid_number_header refused: ${refused._tag}`)
})

/** 2025-11-25 `initialize`: connect (probe, initialize, initialized), then list the tools. */
const initialize = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const connection = yield* client.connection
  yield* log(`connected: MCP ${connection.protocolVersion} (${connection.era})`)
  const { tools } = yield* client.listTools()
  yield* log(`tools/list: ${tools.length} tools`)
})

/** `tools_call` (both eras): `add_numbers` with numeric `a` and `b`. */
const toolsCall = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  yield* client.listTools()
  const result = yield* client.callTool({ name: "add_numbers", arguments: { a: 5, b: 3 } })
  yield* log(`add_numbers: ${JSON.stringify(result.content)}`)
})

/** 2025-11-25 SEP-1034: the tool elicits an all-optional form; the user accepts it with the schema's defaults. */
const elicitationDefaults = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  yield* client.listTools()
  const result = yield* client.callTool({ name: "test_client_elicitation_defaults" })
  yield* log(`test_client_elicitation_defaults: ${JSON.stringify(result.content)}`)
})

/** 2025-11-25 `sse-retry`: the call's stream closes after a priming event; the transport resumes it with `Last-Event-ID` after `retry`. */
const sseRetry = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  yield* client.listTools()
  const result = yield* client.callTool({ name: "test_reconnection" })
  yield* log(`test_reconnection: ${JSON.stringify(result.content)}`)
})

/** `json-schema-ref-no-deref`: list tools; a network `$ref` in a schema is never fetched. */
const listOnly = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const { tools } = yield* client.listTools()
  yield* log(`tools/list: ${tools.map((t) => t.name).join(", ")}`)
})

/** Every `auth/*` scenario: two authenticated requests (the migration scenario needs the second). */
const authFlow = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const { tools } = yield* client.listTools()
  yield* log(`tools/list: ${tools.map((t) => t.name).join(", ")}`)
  const result = yield* client.callTool({ name: "test-tool", arguments: {} })
  yield* log(`test-tool: ${JSON.stringify(result.content)}`)
})

const drivers: Record<string, Effect.Effect<void, unknown, McpClient.McpClient>> = {
  initialize,
  "tools_call": toolsCall,
  "elicitation-sep1034-client-defaults": elicitationDefaults,
  "sse-retry": sseRetry,
  "json-schema-ref-no-deref": listOnly,
  "sep-2322-client-request-state": requestState,
  "request-metadata": requestMetadata,
  "http-standard-headers": standardHeaders,
  "http-custom-headers": customHeaders,
  "http-invalid-tool-headers": invalidToolHeaders
}

// -- Main ---------------------------------------------------------------------

/** The user: accepts every form with the defaults of its schema, answers sampling, has no roots. */
const user = Layer.mergeAll(
  ElicitationHandler.layer({
    form: (params) => {
      const content: Record<string, string | number | boolean> = {}
      for (const [name, schema] of Object.entries(params.requestedSchema.properties)) {
        const s = schema as { readonly type?: string; readonly default?: unknown }
        if (typeof s.default === "string" || typeof s.default === "number" || typeof s.default === "boolean") {
          content[name] = s.default
        } else if (s.type === "boolean") content[name] = true
        else if (s.type === "number" || s.type === "integer") content[name] = 0
        else if (s.type === "string") content[name] = ""
      }
      return Effect.succeed(ElicitationHandler.accept(content))
    }
  }),
  SamplingHandler.layer({
    createMessage: () =>
      Effect.succeed({
        role: "assistant" as const,
        content: { type: "text" as const, text: "ok" },
        model: "conformance-client",
        stopReason: "endTurn"
      })
  }),
  RootsHandler.layerStatic([])
)

const main = Effect.gen(function*() {
  if (serverUrl === undefined) return yield* Effect.fail(new Error("usage: index.ts <serverUrl>"))
  const auth = scenario.startsWith("auth/")
  const driver = auth ? authFlow : drivers[scenario]
  if (driver === undefined) return yield* Effect.fail(new Error(`unknown scenario '${scenario}'`))
  yield* log(`scenario ${scenario} against ${serverUrl}`)
  const transport = HttpTransport.layerNode({ url: serverUrl })
  const { client_id, client_secret, issuer } = context()
  const authorization = Authorization.layer({
    clientName: "mrtr-conformance-client",
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    clientId: client_id,
    clientSecret: client_secret,
    clientIssuer: issuer
  }).pipe(Layer.provide(Authorization.layerHeadlessUserAgent()))
  yield* driver.pipe(
    Effect.provide(
      // The runner starts every scenario at once: on a busy machine a first answer may take more than the
      // default 10 s probe; the runner's own bound (per scenario) is the one that should end a stuck run.
      McpClient.layer({ clientInfo: { name: "mrtr-conformance-client", version: "0.1.0" }, probeTimeout: "60 seconds" })
        .pipe(
          Layer.provide(auth ? transport.pipe(Layer.provide(authorization)) : transport),
          Layer.provide(user)
        )
    )
  )
  yield* log("done")
})

main.pipe(
  Effect.tapCause((cause) => Effect.sync(() => console.error(cause))),
  NodeRuntime.runMain
)
