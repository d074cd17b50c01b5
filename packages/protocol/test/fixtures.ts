/**
 * Sample values (decoded `Type`s) for every message schema of the package,
 * paired with the `$defs` entry of `schema-2026-07-28.json` they must encode to.
 */
import type { Schema } from "effect"
import * as P from "../src/index.ts"

/** A sample: an Effect schema, the official `$defs` name, and a typed value. */
export interface Sample {
  readonly label: string
  readonly schema: Schema.Codec<unknown, unknown>
  readonly def: string
  readonly value: unknown
}

const samples: Array<Sample> = []

/** Registers a typed sample (the value is checked against `schema.Type`). */
const sample = <S extends Schema.Codec<any, any>>(
  label: string,
  schema: S,
  def: string,
  value: S["Type"]
): S["Type"] => {
  samples.push({ label, schema: schema as unknown as Schema.Codec<unknown, unknown>, def, value })
  return value
}

// ---------------------------------------------------------------------------
// Common
// ---------------------------------------------------------------------------

export const clientInfo = sample("Implementation (full)", P.Schema.Implementation, "Implementation", {
  name: "acme-client",
  title: "ACME Client",
  version: "1.2.3",
  description: "A test client",
  icons: [{ src: "https://acme.example/icon.png", mimeType: "image/png", sizes: ["48x48", "any"], theme: "dark" }],
  websiteUrl: "https://acme.example"
})
export const serverInfo = sample("Implementation (minimal)", P.Schema.Implementation, "Implementation", {
  name: "acme-server",
  version: "0.1.0"
})

export const allClientCapabilities = sample(
  "ClientCapabilities (all)",
  P.Schema.ClientCapabilities,
  "ClientCapabilities",
  {
    experimental: { "com.acme/beta": { level: 2 } },
    roots: {},
    sampling: { context: {}, tools: {} },
    elicitation: { form: {}, url: {} },
    extensions: { "io.modelcontextprotocol/tasks": {} }
  }
)
sample("ClientCapabilities (none)", P.Schema.ClientCapabilities, "ClientCapabilities", {})

export const meta: P.Meta.RequestMeta = sample("RequestMeta (full)", P.Meta.RequestMeta, "RequestMetaObject", {
  [P.Meta.MetaKey.protocolVersion]: P.Meta.PROTOCOL_VERSION,
  [P.Meta.MetaKey.clientCapabilities]: { elicitation: {}, sampling: {} },
  [P.Meta.MetaKey.clientInfo]: clientInfo,
  [P.Meta.MetaKey.logLevel]: "warning",
  progressToken: "tok-1",
  "com.acme/trace": "abc"
})
export const minimalMeta = sample(
  "RequestMeta (minimal)",
  P.Meta.RequestMeta,
  "RequestMetaObject",
  P.Meta.makeRequestMeta({ clientCapabilities: {} })
)
const resultMeta = sample("ResultMeta", P.Meta.ResultMeta, "ResultMetaObject", {
  [P.Meta.MetaKey.serverInfo]: serverInfo,
  "com.acme/region": "eu"
})
sample("NotificationMeta", P.Meta.NotificationMeta, "NotificationMetaObject", {
  [P.Meta.MetaKey.subscriptionId]: 7
})
sample("LoggingLevel", P.Meta.LoggingLevel, "LoggingLevel", "critical")

// ---------------------------------------------------------------------------
// Content
// ---------------------------------------------------------------------------

const annotations = sample("Annotations", P.Schema.Annotations, "Annotations", {
  audience: ["user", "assistant"],
  priority: 0.5,
  lastModified: "2026-01-02T03:04:05Z"
})
export const text = sample("TextContent", P.Schema.TextContent, "TextContent", {
  type: "text",
  text: "Hello",
  annotations,
  _meta: { "com.acme/x": 1 }
})
const image = sample("ImageContent", P.Schema.ImageContent, "ImageContent", {
  type: "image",
  data: "iVBORw0KGgo=",
  mimeType: "image/png"
})
const audio = sample("AudioContent", P.Schema.AudioContent, "AudioContent", {
  type: "audio",
  data: "UklGRiQAAABXQVZF",
  mimeType: "audio/wav"
})
const resourceLink = sample("ResourceLink", P.Schema.ResourceLink, "ResourceLink", {
  type: "resource_link",
  uri: "file:///project/README.md",
  name: "README.md",
  title: "Readme",
  description: "Project readme",
  mimeType: "text/markdown",
  size: 1024,
  icons: [{ src: "data:image/png;base64,iVBORw0KGgo=" }],
  annotations: { priority: 1 }
})
const textContents = sample("TextResourceContents", P.Schema.TextResourceContents, "TextResourceContents", {
  uri: "file:///project/a.txt",
  mimeType: "text/plain",
  text: "contents"
})
const blobContents = sample("BlobResourceContents", P.Schema.BlobResourceContents, "BlobResourceContents", {
  uri: "file:///project/a.bin",
  blob: "AAECAw=="
})
const embedded = sample("EmbeddedResource", P.Schema.EmbeddedResource, "EmbeddedResource", {
  type: "resource",
  resource: textContents
})
sample("EmbeddedResource (blob)", P.Schema.EmbeddedResource, "EmbeddedResource", {
  type: "resource",
  resource: blobContents
})
for (const block of [text, image, audio, resourceLink, embedded]) {
  sample(`ContentBlock (${block.type})`, P.Schema.ContentBlock, "ContentBlock", block)
}
const toolUse = sample("ToolUseContent", P.Schema.ToolUseContent, "ToolUseContent", {
  type: "tool_use",
  id: "call-1",
  name: "get_weather",
  input: { city: "Paris" }
})
const toolResult = sample("ToolResultContent", P.Schema.ToolResultContent, "ToolResultContent", {
  type: "tool_result",
  toolUseId: "call-1",
  content: [{ type: "text", text: "18°C" }],
  structuredContent: { temperature: 18 },
  isError: false
})

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

export const weatherTool = sample("Tool (full)", P.Schema.Tool, "Tool", {
  name: "get_weather",
  title: "Weather",
  description: "Current weather for a city",
  icons: [{ src: "https://acme.example/sun.svg", mimeType: "image/svg+xml" }],
  inputSchema: {
    type: "object",
    $schema: "https://json-schema.org/draft/2020-12/schema",
    properties: {
      city: { type: "string", "x-mcp-header": "City" },
      units: { type: "string", enum: ["metric", "imperial"] }
    },
    required: ["city"]
  },
  outputSchema: {
    type: "object",
    properties: { temperature: { type: "number" } }
  },
  annotations: { title: "Weather", readOnlyHint: true, openWorldHint: true },
  _meta: { "com.acme/cost": 1 }
})
sample("ToolAnnotations", P.Schema.ToolAnnotations, "ToolAnnotations", {
  destructiveHint: false,
  idempotentHint: true
})
const minimalTool = sample("Tool (minimal)", P.Schema.Tool, "Tool", { name: "noop", inputSchema: { type: "object" } })
export const listTools = sample("ListToolsResult", P.Schema.ListToolsResult, "ListToolsResult", {
  resultType: "complete",
  tools: [weatherTool, minimalTool],
  nextCursor: "page-2",
  ttlMs: 60_000,
  cacheScope: "public",
  _meta: resultMeta
})
export const callToolParams = sample("CallToolRequestParams", P.Schema.CallToolRequestParams, "CallToolRequestParams", {
  _meta: meta,
  name: "get_weather",
  arguments: { city: "Paris", nested: { a: [1, 2.5, null] } },
  inputResponses: {
    confirm: { action: "accept", content: { ok: true } }
  },
  requestState: "opaque-state"
})
export const callToolResult = sample("CallToolResult", P.Schema.CallToolResult, "CallToolResult", {
  resultType: "complete",
  content: [text, resourceLink],
  structuredContent: { temperature: 18.5 },
  isError: false,
  _meta: resultMeta
})
sample("CallToolResult (minimal)", P.Schema.CallToolResult, "CallToolResult", { resultType: "complete", content: [] })

// ---------------------------------------------------------------------------
// Prompts
// ---------------------------------------------------------------------------

const promptArgument = sample("PromptArgument", P.Schema.PromptArgument, "PromptArgument", {
  name: "topic",
  title: "Topic",
  description: "What to write about",
  required: true
})
const prompt = sample("Prompt", P.Schema.Prompt, "Prompt", {
  name: "essay",
  title: "Essay",
  description: "Write an essay",
  arguments: [promptArgument],
  icons: [{ src: "https://acme.example/pen.png" }]
})
const promptMessage = sample("PromptMessage", P.Schema.PromptMessage, "PromptMessage", { role: "user", content: text })
sample("ListPromptsResult", P.Schema.ListPromptsResult, "ListPromptsResult", {
  resultType: "complete",
  prompts: [prompt],
  ttlMs: 0,
  cacheScope: "private"
})
sample("GetPromptRequestParams", P.Schema.GetPromptRequestParams, "GetPromptRequestParams", {
  _meta: minimalMeta,
  name: "essay",
  arguments: { topic: "MCP" }
})
export const getPromptResult = sample("GetPromptResult", P.Schema.GetPromptResult, "GetPromptResult", {
  resultType: "complete",
  description: "An essay prompt",
  messages: [promptMessage, { role: "assistant", content: embedded }]
})

// ---------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------

const resource = sample("Resource", P.Schema.Resource, "Resource", {
  uri: "file:///project/a.txt",
  name: "a.txt",
  mimeType: "text/plain",
  size: 8,
  annotations
})
const template = sample("ResourceTemplate", P.Schema.ResourceTemplate, "ResourceTemplate", {
  uriTemplate: "file:///project/{path}",
  name: "project-file",
  description: "Any project file"
})
sample("ListResourcesResult", P.Schema.ListResourcesResult, "ListResourcesResult", {
  resultType: "complete",
  resources: [resource],
  ttlMs: 1000,
  cacheScope: "private"
})
sample("ListResourceTemplatesResult", P.Schema.ListResourceTemplatesResult, "ListResourceTemplatesResult", {
  resultType: "complete",
  resourceTemplates: [template],
  nextCursor: "c",
  ttlMs: 5,
  cacheScope: "public"
})
sample("ReadResourceRequestParams", P.Schema.ReadResourceRequestParams, "ReadResourceRequestParams", {
  _meta: minimalMeta,
  uri: "file:///project/a.txt",
  requestState: "s1"
})
export const readResourceResult = sample("ReadResourceResult", P.Schema.ReadResourceResult, "ReadResourceResult", {
  resultType: "complete",
  contents: [textContents, blobContents],
  ttlMs: 30_000,
  cacheScope: "private"
})
sample("PaginatedRequestParams", P.Schema.PaginatedRequestParams, "PaginatedRequestParams", {
  _meta: minimalMeta,
  cursor: "page-2"
})
sample("RequestParams", P.Schema.RequestParams, "RequestParams", { _meta: minimalMeta })

// ---------------------------------------------------------------------------
// Discover, completion
// ---------------------------------------------------------------------------

export const serverCapabilities = sample("ServerCapabilities", P.Schema.ServerCapabilities, "ServerCapabilities", {
  tools: { listChanged: true },
  prompts: { listChanged: false },
  resources: { subscribe: true, listChanged: true },
  logging: {},
  completions: {},
  experimental: { "com.acme/beta": {} },
  extensions: { "io.modelcontextprotocol/tasks": {} }
})
export const discoverResult = sample("DiscoverResult", P.Schema.DiscoverResult, "DiscoverResult", {
  resultType: "complete",
  supportedVersions: [...P.Meta.SUPPORTED_PROTOCOL_VERSIONS],
  capabilities: serverCapabilities,
  instructions: "Use get_weather for weather questions.",
  ttlMs: 3_600_000,
  cacheScope: "public",
  _meta: { [P.Meta.MetaKey.serverInfo]: serverInfo }
})
sample("CompleteRequestParams (prompt)", P.Schema.CompleteRequestParams, "CompleteRequestParams", {
  _meta: minimalMeta,
  ref: { type: "ref/prompt", name: "essay", title: "Essay" },
  argument: { name: "topic", value: "M" },
  context: { arguments: { style: "formal" } }
})
sample("CompleteRequestParams (resource)", P.Schema.CompleteRequestParams, "CompleteRequestParams", {
  _meta: minimalMeta,
  ref: { type: "ref/resource", uri: "file:///project/{path}" },
  argument: { name: "path", value: "RE" }
})
export const completeResult = sample("CompleteResult", P.Schema.CompleteResult, "CompleteResult", {
  resultType: "complete",
  completion: { values: ["MCP", "MRTR"], total: 2, hasMore: false }
})

// ---------------------------------------------------------------------------
// Elicitation
// ---------------------------------------------------------------------------

const stringField = sample("StringSchema", P.Schema.StringSchema, "StringSchema", {
  type: "string",
  title: "Email",
  description: "Your email",
  minLength: 3,
  maxLength: 100,
  format: "email",
  default: "a@b.example"
})
const numberField = sample("NumberSchema", P.Schema.NumberSchema, "NumberSchema", {
  type: "integer",
  title: "Age",
  minimum: 0,
  maximum: 150,
  default: 30
})
const booleanField = sample("BooleanSchema", P.Schema.BooleanSchema, "BooleanSchema", {
  type: "boolean",
  description: "Subscribe?",
  default: false
})
const untitledSingle = sample(
  "UntitledSingleSelectEnumSchema",
  P.Schema.UntitledSingleSelectEnumSchema,
  "UntitledSingleSelectEnumSchema",
  {
    type: "string",
    enum: ["red", "green"],
    default: "red"
  }
)
const titledSingle = sample(
  "TitledSingleSelectEnumSchema",
  P.Schema.TitledSingleSelectEnumSchema,
  "TitledSingleSelectEnumSchema",
  {
    type: "string",
    title: "Color",
    oneOf: [{ const: "r", title: "Red" }, { const: "g", title: "Green" }]
  }
)
const untitledMulti = sample(
  "UntitledMultiSelectEnumSchema",
  P.Schema.UntitledMultiSelectEnumSchema,
  "UntitledMultiSelectEnumSchema",
  {
    type: "array",
    minItems: 1,
    maxItems: 2,
    items: { type: "string", enum: ["a", "b", "c"] },
    default: ["a"]
  }
)
const titledMulti = sample(
  "TitledMultiSelectEnumSchema",
  P.Schema.TitledMultiSelectEnumSchema,
  "TitledMultiSelectEnumSchema",
  {
    type: "array",
    items: { anyOf: [{ const: "a", title: "A" }, { const: "b", title: "B" }] }
  }
)
const legacyEnum = sample("LegacyTitledEnumSchema", P.Schema.LegacyTitledEnumSchema, "LegacyTitledEnumSchema", {
  type: "string",
  enum: ["s", "m"],
  enumNames: ["Small", "Medium"]
})
sample("SingleSelectEnumSchema", P.Schema.SingleSelectEnumSchema, "SingleSelectEnumSchema", titledSingle)
sample("MultiSelectEnumSchema", P.Schema.MultiSelectEnumSchema, "MultiSelectEnumSchema", untitledMulti)
sample("EnumSchema", P.Schema.EnumSchema, "EnumSchema", legacyEnum)
for (
  const field of [
    stringField,
    numberField,
    booleanField,
    untitledSingle,
    titledSingle,
    untitledMulti,
    titledMulti,
    legacyEnum
  ]
) {
  sample(
    `PrimitiveSchemaDefinition (${field.type})`,
    P.Schema.PrimitiveSchemaDefinition,
    "PrimitiveSchemaDefinition",
    field
  )
}
export const formParams = sample(
  "ElicitRequestFormParams",
  P.Schema.ElicitRequestFormParams,
  "ElicitRequestFormParams",
  {
    mode: "form",
    message: "Tell us about you",
    requestedSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        email: stringField,
        age: numberField,
        subscribe: booleanField,
        color: titledSingle,
        tags: untitledMulti
      },
      required: ["email"]
    }
  }
)
const urlParams = sample("ElicitRequestURLParams", P.Schema.ElicitRequestURLParams, "ElicitRequestURLParams", {
  mode: "url",
  message: "Sign in to continue",
  url: "https://auth.acme.example/login?state=xyz"
})
sample("ElicitRequestParams (form)", P.Schema.ElicitRequestParams, "ElicitRequestParams", formParams)
sample("ElicitRequestParams (url)", P.Schema.ElicitRequestParams, "ElicitRequestParams", urlParams)
export const elicitRequest = sample("ElicitRequest (form, no mode)", P.Schema.ElicitRequest, "ElicitRequest", {
  method: "elicitation/create",
  params: {
    message: "What is your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
  }
})
export const elicitUrlRequest = sample("ElicitRequest (url)", P.Schema.ElicitRequest, "ElicitRequest", {
  method: "elicitation/create",
  params: urlParams
})
export const elicitResult = sample("ElicitResult (accept)", P.Schema.ElicitResult, "ElicitResult", {
  action: "accept",
  content: { name: "Ada", age: 36, subscribe: true, tags: ["a", "b"] }
})
sample("ElicitResult (decline)", P.Schema.ElicitResult, "ElicitResult", { action: "decline" })
sample("ElicitResult (cancel)", P.Schema.ElicitResult, "ElicitResult", { action: "cancel" })

// ---------------------------------------------------------------------------
// Sampling, roots
// ---------------------------------------------------------------------------

const samplingMessage = sample("SamplingMessage", P.Schema.SamplingMessage, "SamplingMessage", {
  role: "user",
  content: { type: "text", text: "What is the capital of France?" }
})
sample("SamplingMessage (array content)", P.Schema.SamplingMessage, "SamplingMessage", {
  role: "assistant",
  content: [toolUse, { type: "text", text: "checking" }]
})
sample("SamplingMessage (tool result)", P.Schema.SamplingMessage, "SamplingMessage", {
  role: "user",
  content: toolResult
})
const modelPreferences = sample("ModelPreferences", P.Schema.ModelPreferences, "ModelPreferences", {
  hints: [{ name: "claude" }, {}],
  costPriority: 0.2,
  speedPriority: 0.5,
  intelligencePriority: 0.9
})
export const samplingParams = sample(
  "CreateMessageRequestParams (full)",
  P.Schema.CreateMessageRequestParams,
  "CreateMessageRequestParams",
  {
    messages: [samplingMessage],
    modelPreferences,
    systemPrompt: "You are helpful.",
    includeContext: "thisServer",
    temperature: 0.7,
    maxTokens: 100,
    stopSequences: ["\n\n"],
    metadata: { "com.acme/request": "r1" },
    tools: [weatherTool],
    toolChoice: { mode: "auto" }
  }
)
export const samplingRequest = sample("CreateMessageRequest", P.Schema.CreateMessageRequest, "CreateMessageRequest", {
  method: "sampling/createMessage",
  params: { messages: [samplingMessage], maxTokens: 50 }
})
export const samplingResult = sample("CreateMessageResult", P.Schema.CreateMessageResult, "CreateMessageResult", {
  role: "assistant",
  content: { type: "text", text: "Paris." },
  model: "test-model",
  stopReason: "endTurn"
})
sample("CreateMessageResult (tool use)", P.Schema.CreateMessageResult, "CreateMessageResult", {
  role: "assistant",
  content: [toolUse],
  model: "test-model",
  stopReason: "toolUse"
})
const root = sample("Root", P.Schema.Root, "Root", { uri: "file:///home/ada/project", name: "project" })
export const rootsRequest = sample("ListRootsRequest", P.Schema.ListRootsRequest, "ListRootsRequest", {
  method: "roots/list",
  params: {}
})
sample("ListRootsRequest (no params)", P.Schema.ListRootsRequest, "ListRootsRequest", { method: "roots/list" })
export const rootsResult = sample("ListRootsResult", P.Schema.ListRootsResult, "ListRootsResult", { roots: [root] })

// ---------------------------------------------------------------------------
// MRTR
// ---------------------------------------------------------------------------

for (const request of [elicitRequest, samplingRequest, rootsRequest]) {
  sample(`InputRequest (${request.method})`, P.Schema.InputRequest, "InputRequest", request)
}
export const inputRequests = sample("InputRequests", P.Schema.InputRequests, "InputRequests", {
  user_name: elicitRequest,
  greeting: samplingRequest,
  client_roots: rootsRequest
})
for (const response of [elicitResult, samplingResult, rootsResult]) {
  sample("InputResponse", P.Schema.InputResponse, "InputResponse", response)
}
export const inputResponses = sample("InputResponses", P.Schema.InputResponses, "InputResponses", {
  user_name: elicitResult,
  greeting: samplingResult,
  client_roots: rootsResult
})
sample("InputResponseRequestParams", P.Schema.InputResponseRequestParams, "InputResponseRequestParams", {
  _meta: minimalMeta,
  inputResponses,
  requestState: "state"
})
export const irrBoth = sample("InputRequiredResult (both)", P.Schema.InputRequiredResult, "InputRequiredResult", {
  resultType: "input_required",
  inputRequests,
  requestState: "eyJyb3VuZCI6MX0",
  _meta: resultMeta
})
export const irrRequestsOnly = sample(
  "InputRequiredResult (inputRequests)",
  P.Schema.InputRequiredResult,
  "InputRequiredResult",
  P.Schema.makeInputRequiredResult({ inputRequests: { user_name: elicitRequest } })
)
export const irrStateOnly = sample(
  "InputRequiredResult (requestState)",
  P.Schema.InputRequiredResult,
  "InputRequiredResult",
  P.Schema.makeInputRequiredResult({ requestState: "retry-me" })
)

// ---------------------------------------------------------------------------
// Subscriptions, notifications
// ---------------------------------------------------------------------------

const filter = sample("SubscriptionFilter", P.Schema.SubscriptionFilter, "SubscriptionFilter", {
  toolsListChanged: true,
  promptsListChanged: false,
  resourcesListChanged: true,
  resourceSubscriptions: ["file:///project/a.txt"]
})
sample(
  "SubscriptionsListenRequestParams",
  P.Schema.SubscriptionsListenRequestParams,
  "SubscriptionsListenRequestParams",
  {
    _meta: minimalMeta,
    notifications: filter
  }
)
export const listenResult = sample(
  "SubscriptionsListenResult",
  P.Schema.SubscriptionsListenResult,
  "SubscriptionsListenResult",
  {
    resultType: "complete",
    _meta: { [P.Meta.MetaKey.subscriptionId]: "listen-1", [P.Meta.MetaKey.serverInfo]: serverInfo }
  }
)
sample(
  "SubscriptionsAcknowledgedNotificationParams",
  P.Schema.SubscriptionsAcknowledgedNotificationParams,
  "SubscriptionsAcknowledgedNotificationParams",
  {
    notifications: { toolsListChanged: true },
    _meta: { [P.Meta.MetaKey.subscriptionId]: "listen-1" }
  }
)
sample("NotificationParams", P.Schema.NotificationParams, "NotificationParams", {
  _meta: { [P.Meta.MetaKey.subscriptionId]: 3 }
})
sample(
  "LoggingMessageNotificationParams",
  P.Schema.LoggingMessageNotificationParams,
  "LoggingMessageNotificationParams",
  {
    level: "info",
    logger: "weather",
    data: { msg: "fetched", ms: 12 }
  }
)
sample("ProgressNotificationParams", P.Schema.ProgressNotificationParams, "ProgressNotificationParams", {
  progressToken: "tok-1",
  progress: 0.5,
  total: 1,
  message: "halfway"
})
sample("CancelledNotificationParams", P.Schema.CancelledNotificationParams, "CancelledNotificationParams", {
  requestId: 12,
  reason: "user"
})
sample(
  "ResourceUpdatedNotificationParams",
  P.Schema.ResourceUpdatedNotificationParams,
  "ResourceUpdatedNotificationParams",
  {
    uri: "file:///project/a.txt"
  }
)
const toolsChanged = sample(
  "ToolListChangedNotification",
  P.Schema.ToolListChangedNotification,
  "ToolListChangedNotification",
  {
    jsonrpc: "2.0",
    method: "notifications/tools/list_changed",
    params: { _meta: { [P.Meta.MetaKey.subscriptionId]: "listen-1" } }
  }
)
const promptsChanged = sample(
  "PromptListChangedNotification",
  P.Schema.PromptListChangedNotification,
  "PromptListChangedNotification",
  {
    jsonrpc: "2.0",
    method: "notifications/prompts/list_changed"
  }
)
const resourcesChanged = sample(
  "ResourceListChangedNotification",
  P.Schema.ResourceListChangedNotification,
  "ResourceListChangedNotification",
  {
    jsonrpc: "2.0",
    method: "notifications/resources/list_changed",
    params: {}
  }
)
const updated = sample(
  "ResourceUpdatedNotification",
  P.Schema.ResourceUpdatedNotification,
  "ResourceUpdatedNotification",
  {
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: { uri: "file:///project/a.txt", _meta: { [P.Meta.MetaKey.subscriptionId]: "listen-1" } }
  }
)
const acked = sample(
  "SubscriptionsAcknowledgedNotification",
  P.Schema.SubscriptionsAcknowledgedNotification,
  "SubscriptionsAcknowledgedNotification",
  {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { notifications: filter }
  }
)
const logged = sample("LoggingMessageNotification", P.Schema.LoggingMessageNotification, "LoggingMessageNotification", {
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { level: "error", data: "boom" }
})
const progress = sample("ProgressNotification", P.Schema.ProgressNotification, "ProgressNotification", {
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: 1, progress: 3 }
})
const cancelled = sample("CancelledNotification", P.Schema.CancelledNotification, "CancelledNotification", {
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId: "r-1" }
})
for (
  const notification of [toolsChanged, promptsChanged, resourcesChanged, updated, acked, logged, progress, cancelled]
) {
  sample(`ServerNotification (${notification.method})`, P.Schema.ServerNotification, "ServerNotification", notification)
  sample(
    `JsonRpcNotification (${notification.method})`,
    P.JsonRpc.JsonRpcNotification,
    "JSONRPCNotification",
    notification
  )
}

// ---------------------------------------------------------------------------
// Full client requests
// ---------------------------------------------------------------------------

const requests = [
  sample("DiscoverRequest", P.Schema.DiscoverRequest, "DiscoverRequest", {
    jsonrpc: "2.0",
    id: 1,
    method: "server/discover",
    params: { _meta: minimalMeta }
  }),
  sample("ListToolsRequest", P.Schema.ListToolsRequest, "ListToolsRequest", {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/list",
    params: { _meta: meta }
  }),
  sample("CallToolRequest", P.Schema.CallToolRequest, "CallToolRequest", {
    jsonrpc: "2.0",
    id: "call-3",
    method: "tools/call",
    params: callToolParams
  }),
  sample("ListPromptsRequest", P.Schema.ListPromptsRequest, "ListPromptsRequest", {
    jsonrpc: "2.0",
    id: 4,
    method: "prompts/list",
    params: { _meta: minimalMeta, cursor: "x" }
  }),
  sample("GetPromptRequest", P.Schema.GetPromptRequest, "GetPromptRequest", {
    jsonrpc: "2.0",
    id: 5,
    method: "prompts/get",
    params: {
      _meta: minimalMeta,
      name: "essay",
      inputResponses: { user_context: { action: "accept", content: { context: "x" } } }
    }
  }),
  sample("ListResourcesRequest", P.Schema.ListResourcesRequest, "ListResourcesRequest", {
    jsonrpc: "2.0",
    id: 6,
    method: "resources/list",
    params: { _meta: minimalMeta }
  }),
  sample("ListResourceTemplatesRequest", P.Schema.ListResourceTemplatesRequest, "ListResourceTemplatesRequest", {
    jsonrpc: "2.0",
    id: 7,
    method: "resources/templates/list",
    params: { _meta: minimalMeta }
  }),
  sample("ReadResourceRequest", P.Schema.ReadResourceRequest, "ReadResourceRequest", {
    jsonrpc: "2.0",
    id: 8,
    method: "resources/read",
    params: { _meta: minimalMeta, uri: "file:///project/a.txt" }
  }),
  sample("CompleteRequest", P.Schema.CompleteRequest, "CompleteRequest", {
    jsonrpc: "2.0",
    id: 9,
    method: "completion/complete",
    params: { _meta: minimalMeta, ref: { type: "ref/prompt", name: "essay" }, argument: { name: "topic", value: "" } }
  }),
  sample("SubscriptionsListenRequest", P.Schema.SubscriptionsListenRequest, "SubscriptionsListenRequest", {
    jsonrpc: "2.0",
    id: 10,
    method: "subscriptions/listen",
    params: { _meta: minimalMeta, notifications: { toolsListChanged: true } }
  })
]
for (const request of requests) {
  sample(`ClientRequest (${request.method})`, P.Schema.ClientRequest, "ClientRequest", request)
  sample(`JsonRpcRequest (${request.method})`, P.JsonRpc.JsonRpcRequest, "JSONRPCRequest", request)
  sample(`JsonRpcMessage (${request.method})`, P.JsonRpc.JsonRpcMessage, "JSONRPCMessage", request)
}

// ---------------------------------------------------------------------------
// Generic results
// ---------------------------------------------------------------------------

sample("Result", P.Schema.Result, "Result", { resultType: "complete", extra: 1 })
sample("EmptyResult", P.Schema.EmptyResult, "EmptyResult", { resultType: "complete", _meta: resultMeta })

/** All registered samples. */
export const allSamples: ReadonlyArray<Sample> = samples
