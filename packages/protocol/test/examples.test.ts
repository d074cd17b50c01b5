/**
 * (b) Decoding examples.
 *
 * 1. Every `$defs` entry of schema-2026-07-28.json that carries `examples`
 *    and has an Effect Schema here is decoded with it. (The schema file in
 *    packages/test-support/spec carries no `examples` at all, so this loop currently
 *    checks nothing; it is kept so that a newer schema file is picked up.)
 * 2. Messages shaped like the examples on the 2026-07-28 spec pages
 *    (basic/patterns/mrtr, basic/transports/streamable-http), written here
 *    with our own values, are first checked against the official JSON Schema
 *    with ajv and then decoded.
 * 3. Results from pre-2026 servers (no resultType / ttlMs / cacheScope)
 *    decode with the documented defaults.
 */
import { describe, expect, it } from "@effect/vitest"
import { schemaJson, validateWire } from "@mrtr/test-support/wire"
import { Schema } from "effect"
import * as P from "../src/index.ts"

const schemasByDef: Readonly<Record<string, Schema.Codec<unknown, unknown>>> = Object.fromEntries(
  Object.entries({
    Implementation: P.Schema.Implementation,
    ClientCapabilities: P.Schema.ClientCapabilities,
    ServerCapabilities: P.Schema.ServerCapabilities,
    TextContent: P.Schema.TextContent,
    ImageContent: P.Schema.ImageContent,
    AudioContent: P.Schema.AudioContent,
    ResourceLink: P.Schema.ResourceLink,
    EmbeddedResource: P.Schema.EmbeddedResource,
    ContentBlock: P.Schema.ContentBlock,
    Tool: P.Schema.Tool,
    ListToolsResult: P.Schema.ListToolsResult,
    CallToolRequestParams: P.Schema.CallToolRequestParams,
    CallToolResult: P.Schema.CallToolResult,
    Prompt: P.Schema.Prompt,
    GetPromptResult: P.Schema.GetPromptResult,
    ListPromptsResult: P.Schema.ListPromptsResult,
    Resource: P.Schema.Resource,
    ResourceTemplate: P.Schema.ResourceTemplate,
    ListResourcesResult: P.Schema.ListResourcesResult,
    ListResourceTemplatesResult: P.Schema.ListResourceTemplatesResult,
    ReadResourceResult: P.Schema.ReadResourceResult,
    DiscoverResult: P.Schema.DiscoverResult,
    CompleteResult: P.Schema.CompleteResult,
    ElicitRequest: P.Schema.ElicitRequest,
    ElicitRequestFormParams: P.Schema.ElicitRequestFormParams,
    ElicitRequestURLParams: P.Schema.ElicitRequestURLParams,
    ElicitResult: P.Schema.ElicitResult,
    CreateMessageRequest: P.Schema.CreateMessageRequest,
    CreateMessageResult: P.Schema.CreateMessageResult,
    ListRootsRequest: P.Schema.ListRootsRequest,
    ListRootsResult: P.Schema.ListRootsResult,
    InputRequest: P.Schema.InputRequest,
    InputRequests: P.Schema.InputRequests,
    InputResponse: P.Schema.InputResponse,
    InputResponses: P.Schema.InputResponses,
    InputRequiredResult: P.Schema.InputRequiredResult,
    ProgressNotificationParams: P.Schema.ProgressNotificationParams,
    ProgressNotification: P.Schema.ProgressNotification,
    LoggingMessageNotificationParams: P.Schema.LoggingMessageNotificationParams,
    JSONRPCRequest: P.JsonRpc.JsonRpcRequest,
    JSONRPCNotification: P.JsonRpc.JsonRpcNotification,
    JSONRPCErrorResponse: P.JsonRpc.JsonRpcErrorResponse,
    JSONRPCMessage: P.JsonRpc.JsonRpcMessage,
    CallToolRequest: P.Schema.CallToolRequest,
    DiscoverRequest: P.Schema.DiscoverRequest,
    ListToolsRequest: P.Schema.ListToolsRequest,
    ReadResourceRequest: P.Schema.ReadResourceRequest
  }).map(([k, v]) => [k, v as unknown as Schema.Codec<unknown, unknown>])
)

describe("examples embedded in schema-2026-07-28.json", () => {
  const withExamples = Object.entries(schemaJson.$defs).filter(
    ([, def]) => Array.isArray((def as { examples?: unknown }).examples)
  )

  it(`decodes every example of a $defs entry we have a schema for (${withExamples.length} entries carry examples)`, () => {
    let decoded = 0
    for (const [name, def] of withExamples) {
      const schema = schemasByDef[name]
      if (schema === undefined) continue
      for (const example of (def as { examples: ReadonlyArray<unknown> }).examples) {
        expect(() => Schema.decodeUnknownSync(schema)(example), name).not.toThrow()
        decoded++
      }
    }
    expect(decoded).toBeGreaterThanOrEqual(0)
  })
})

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "ExampleClient", version: "2.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {}
}

const specShaped: ReadonlyArray<readonly [string, string, Schema.Codec<unknown, unknown>, unknown]> = [
  [
    "mrtr: InputRequests with a form elicitation and a sampling request",
    "InputRequests",
    schemasByDef.InputRequests!,
    {
      login: {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Which account should be used?",
          requestedSchema: { type: "object", properties: { account: { type: "string" } }, required: ["account"] }
        }
      },
      summary: {
        method: "sampling/createMessage",
        params: {
          messages: [{ role: "user", content: { type: "text", text: "Summarise the report" } }],
          systemPrompt: "Be brief.",
          maxTokens: 200
        }
      }
    }
  ],
  [
    "mrtr: InputResponses answering them",
    "InputResponses",
    schemasByDef.InputResponses!,
    {
      login: { action: "accept", content: { account: "ada" } },
      summary: {
        role: "assistant",
        content: { type: "text", text: "All good." },
        model: "some-model-2026",
        stopReason: "endTurn"
      }
    }
  ],
  [
    "mrtr: a JSON-RPC response carrying an InputRequiredResult",
    "CallToolResultResponse",
    Schema.Struct({
      jsonrpc: Schema.Literal("2.0"),
      id: P.JsonRpc.RequestId,
      result: P.Schema.InputRequiredResult
    }) as never,
    {
      jsonrpc: "2.0",
      id: 41,
      result: {
        resultType: "input_required",
        inputRequests: {
          summary: {
            method: "sampling/createMessage",
            params: {
              messages: [{ role: "user", content: { type: "text", text: "Summarise" } }],
              modelPreferences: { hints: [{ name: "fast" }], intelligencePriority: 0.3, speedPriority: 0.9 },
              maxTokens: 64
            }
          }
        },
        requestState: "sealed-state-blob"
      }
    }
  ],
  [
    "streamable-http: tools/call request with _meta",
    "CallToolRequest",
    schemasByDef.CallToolRequest!,
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "forecast", arguments: { location: "Lyon" }, _meta: meta }
    }
  ],
  [
    "streamable-http: resources/read request with _meta",
    "ReadResourceRequest",
    schemasByDef.ReadResourceRequest!,
    { jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "file:///srv/app/settings.json", _meta: meta } }
  ],
  [
    "streamable-http: a tool whose argument is mirrored into a header",
    "Tool",
    schemasByDef.Tool!,
    {
      name: "run_query",
      description: "Run a query in a region",
      inputSchema: {
        type: "object",
        properties: {
          zone: { type: "string", description: "Where to run", "x-mcp-header": "Zone" },
          sql: { type: "string" }
        },
        required: ["zone", "sql"]
      }
    }
  ],
  [
    "streamable-http: HeaderMismatch error response",
    "HeaderMismatchError",
    schemasByDef.JSONRPCErrorResponse!,
    {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32020, message: "Header mismatch: Mcp-Name header value 'a' does not match body value 'b'" }
    }
  ],
  [
    "versioning: UnsupportedProtocolVersionError",
    "UnsupportedProtocolVersionError",
    schemasByDef.JSONRPCErrorResponse!,
    {
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32022, message: "Unsupported", data: { supported: ["2026-07-28"], requested: "2030-01-01" } }
    }
  ],
  [
    "lifecycle: server/discover result",
    "DiscoverResult",
    schemasByDef.DiscoverResult!,
    {
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      ttlMs: 0,
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "ExampleServer", version: "1.0.0" } }
    }
  ]
]

describe("examples shaped like the 2026-07-28 spec pages", () => {
  for (const [label, def, schema, value] of specShaped) {
    it(label, () => {
      validateWire(def, value)
      const decoded = Schema.decodeUnknownSync(schema)(value)
      expect(JSON.parse(JSON.stringify(Schema.encodeSync(schema)(decoded)))).toEqual(value)
    })
  }
})

describe("results from older servers decode with defaults", () => {
  it("a missing resultType is treated as complete", () => {
    const decoded = Schema.decodeUnknownSync(P.Schema.CallToolResultOrInputRequired)({
      content: [{ type: "text", text: "Headers test completed" }]
    })
    expect(decoded.resultType).toBe("complete")
    expect(Schema.decodeUnknownSync(P.Schema.Result)({ foo: 1 })).toEqual({ resultType: "complete", foo: 1 })
  })

  it("missing ttlMs / cacheScope default to 0 / private; a negative ttlMs means 0", () => {
    expect(Schema.decodeUnknownSync(P.Schema.ListToolsResult)({ tools: [] })).toEqual({
      resultType: "complete",
      tools: [],
      ttlMs: 0,
      cacheScope: "private"
    })
    expect(Schema.decodeUnknownSync(P.Schema.ReadResourceResult)({ contents: [], ttlMs: -1 }).ttlMs).toBe(0)
  })

  it("a JSON-RPC error with id: null decodes as an id-less error", () => {
    const decoded = Schema.decodeUnknownSync(P.JsonRpc.JsonRpcErrorResponse)({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error" }
    })
    expect(decoded).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } })
  })

  it("unknown extra members of roots capabilities are kept", () => {
    const decoded = Schema.decodeUnknownSync(P.Meta.RequestMeta)({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { sampling: {}, elicitation: {}, roots: { listChanged: true } }
    })
    expect(decoded["io.modelcontextprotocol/clientCapabilities"].roots).toEqual({ listChanged: true })
  })
})
