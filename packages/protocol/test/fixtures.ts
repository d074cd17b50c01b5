/**
 * Sample values (decoded `Type`s) for every message schema of the package,
 * paired with the `$defs` entry of `schema-2026-07-28.json` they must encode to.
 */
import { Schema } from "effect"
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
const sample = <S extends Schema.Codec<any, any>>(label: string, schema: S, def: string, value: S["Type"]): S["Type"] => {
  samples.push({ label, schema: schema as unknown as Schema.Codec<unknown, unknown>, def, value })
  return value
}

// ---------------------------------------------------------------------------
// Common
// ---------------------------------------------------------------------------

export const clientInfo = sample("Implementation (full)", P.Implementation, "Implementation", {
  name: "acme-client",
  title: "ACME Client",
  version: "1.2.3",
  description: "A test client",
  icons: [{ src: "https://acme.example/icon.png", mimeType: "image/png", sizes: ["48x48", "any"], theme: "dark" }],
  websiteUrl: "https://acme.example"
})
export const serverInfo = sample("Implementation (minimal)", P.Implementation, "Implementation", {
  name: "acme-server",
  version: "0.1.0"
})

export const allClientCapabilities = sample("ClientCapabilities (all)", P.ClientCapabilities, "ClientCapabilities", {
  experimental: { "com.acme/beta": { level: 2 } },
  roots: {},
  sampling: { context: {}, tools: {} },
  elicitation: { form: {}, url: {} },
  extensions: { "io.modelcontextprotocol/tasks": {} }
})
sample("ClientCapabilities (none)", P.ClientCapabilities, "ClientCapabilities", {})

export const meta: P.RequestMeta = sample("RequestMeta (full)", P.RequestMeta, "RequestMetaObject", {
  [P.MetaKey.protocolVersion]: P.PROTOCOL_VERSION,
  [P.MetaKey.clientCapabilities]: { elicitation: {}, sampling: {} },
  [P.MetaKey.clientInfo]: clientInfo,
  [P.MetaKey.logLevel]: "warning",
  progressToken: "tok-1",
  "com.acme/trace": "abc"
})
export const minimalMeta = sample(
  "RequestMeta (minimal)",
  P.RequestMeta,
  "RequestMetaObject",
  P.makeRequestMeta({ clientCapabilities: {} })
)
const resultMeta = sample("ResultMeta", P.ResultMeta, "ResultMetaObject", {
  [P.MetaKey.serverInfo]: serverInfo,
  "com.acme/region": "eu"
})
sample("NotificationMeta", P.NotificationMeta, "NotificationMetaObject", {
  [P.MetaKey.subscriptionId]: 7
})
sample("LoggingLevel", P.LoggingLevel, "LoggingLevel", "critical")

// ---------------------------------------------------------------------------
// Content
// ---------------------------------------------------------------------------

const annotations = sample("Annotations", P.Annotations, "Annotations", {
  audience: ["user", "assistant"],
  priority: 0.5,
  lastModified: "2026-01-02T03:04:05Z"
})
export const text = sample("TextContent", P.TextContent, "TextContent", {
  type: "text",
  text: "Hello",
  annotations,
  _meta: { "com.acme/x": 1 }
})
const image = sample("ImageContent", P.ImageContent, "ImageContent", {
  type: "image",
  data: "iVBORw0KGgo=",
  mimeType: "image/png"
})
const audio = sample("AudioContent", P.AudioContent, "AudioContent", {
  type: "audio",
  data: "UklGRiQAAABXQVZF",
  mimeType: "audio/wav"
})
const resourceLink = sample("ResourceLink", P.ResourceLink, "ResourceLink", {
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
const textContents = sample("TextResourceContents", P.TextResourceContents, "TextResourceContents", {
  uri: "file:///project/a.txt",
  mimeType: "text/plain",
  text: "contents"
})
const blobContents = sample("BlobResourceContents", P.BlobResourceContents, "BlobResourceContents", {
  uri: "file:///project/a.bin",
  blob: "AAECAw=="
})
const embedded = sample("EmbeddedResource", P.EmbeddedResource, "EmbeddedResource", {
  type: "resource",
  resource: textContents
})
sample("EmbeddedResource (blob)", P.EmbeddedResource, "EmbeddedResource", { type: "resource", resource: blobContents })
for (const block of [text, image, audio, resourceLink, embedded]) {
  sample(`ContentBlock (${block.type})`, P.ContentBlock, "ContentBlock", block)
}
const toolUse = sample("ToolUseContent", P.ToolUseContent, "ToolUseContent", {
  type: "tool_use",
  id: "call-1",
  name: "get_weather",
  input: { city: "Paris" }
})
const toolResult = sample("ToolResultContent", P.ToolResultContent, "ToolResultContent", {
  type: "tool_result",
  toolUseId: "call-1",
  content: [{ type: "text", text: "18°C" }],
  structuredContent: { temperature: 18 },
  isError: false
})

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

export const weatherTool = sample("Tool (full)", P.Tool, "Tool", {
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
sample("ToolAnnotations", P.ToolAnnotations, "ToolAnnotations", {
  destructiveHint: false,
  idempotentHint: true
})
const minimalTool = sample("Tool (minimal)", P.Tool, "Tool", { name: "noop", inputSchema: { type: "object" } })
export const listTools = sample("ListToolsResult", P.ListToolsResult, "ListToolsResult", {
  resultType: "complete",
  tools: [weatherTool, minimalTool],
  nextCursor: "page-2",
  ttlMs: 60_000,
  cacheScope: "public",
  _meta: resultMeta
})
export const callToolParams = sample("CallToolRequestParams", P.CallToolRequestParams, "CallToolRequestParams", {
  _meta: meta,
  name: "get_weather",
  arguments: { city: "Paris", nested: { a: [1, 2.5, null] } },
  inputResponses: {
    confirm: { action: "accept", content: { ok: true } }
  },
  requestState: "opaque-state"
})
export const callToolResult = sample("CallToolResult", P.CallToolResult, "CallToolResult", {
  resultType: "complete",
  content: [text, resourceLink],
  structuredContent: { temperature: 18.5 },
  isError: false,
  _meta: resultMeta
})
sample("CallToolResult (minimal)", P.CallToolResult, "CallToolResult", { resultType: "complete", content: [] })

// ---------------------------------------------------------------------------
// Prompts
// ---------------------------------------------------------------------------

const promptArgument = sample("PromptArgument", P.PromptArgument, "PromptArgument", {
  name: "topic",
  title: "Topic",
  description: "What to write about",
  required: true
})
const prompt = sample("Prompt", P.Prompt, "Prompt", {
  name: "essay",
  title: "Essay",
  description: "Write an essay",
  arguments: [promptArgument],
  icons: [{ src: "https://acme.example/pen.png" }]
})
const promptMessage = sample("PromptMessage", P.PromptMessage, "PromptMessage", { role: "user", content: text })
sample("ListPromptsResult", P.ListPromptsResult, "ListPromptsResult", {
  resultType: "complete",
  prompts: [prompt],
  ttlMs: 0,
  cacheScope: "private"
})
sample("GetPromptRequestParams", P.GetPromptRequestParams, "GetPromptRequestParams", {
  _meta: minimalMeta,
  name: "essay",
  arguments: { topic: "MCP" }
})
export const getPromptResult = sample("GetPromptResult", P.GetPromptResult, "GetPromptResult", {
  resultType: "complete",
  description: "An essay prompt",
  messages: [promptMessage, { role: "assistant", content: embedded }]
})

// ---------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------

const resource = sample("Resource", P.Resource, "Resource", {
  uri: "file:///project/a.txt",
  name: "a.txt",
  mimeType: "text/plain",
  size: 8,
  annotations
})
const template = sample("ResourceTemplate", P.ResourceTemplate, "ResourceTemplate", {
  uriTemplate: "file:///project/{path}",
  name: "project-file",
  description: "Any project file"
})
sample("ListResourcesResult", P.ListResourcesResult, "ListResourcesResult", {
  resultType: "complete",
  resources: [resource],
  ttlMs: 1000,
  cacheScope: "private"
})
sample("ListResourceTemplatesResult", P.ListResourceTemplatesResult, "ListResourceTemplatesResult", {
  resultType: "complete",
  resourceTemplates: [template],
  nextCursor: "c",
  ttlMs: 5,
  cacheScope: "public"
})
sample("ReadResourceRequestParams", P.ReadResourceRequestParams, "ReadResourceRequestParams", {
  _meta: minimalMeta,
  uri: "file:///project/a.txt",
  requestState: "s1"
})
export const readResourceResult = sample("ReadResourceResult", P.ReadResourceResult, "ReadResourceResult", {
  resultType: "complete",
  contents: [textContents, blobContents],
  ttlMs: 30_000,
  cacheScope: "private"
})
sample("PaginatedRequestParams", P.PaginatedRequestParams, "PaginatedRequestParams", {
  _meta: minimalMeta,
  cursor: "page-2"
})
sample("RequestParams", P.RequestParams, "RequestParams", { _meta: minimalMeta })

// ---------------------------------------------------------------------------
// Discover, completion
// ---------------------------------------------------------------------------

export const serverCapabilities = sample("ServerCapabilities", P.ServerCapabilities, "ServerCapabilities", {
  tools: { listChanged: true },
  prompts: { listChanged: false },
  resources: { subscribe: true, listChanged: true },
  logging: {},
  completions: {},
  experimental: { "com.acme/beta": {} },
  extensions: { "io.modelcontextprotocol/tasks": {} }
})
export const discoverResult = sample("DiscoverResult", P.DiscoverResult, "DiscoverResult", {
  resultType: "complete",
  supportedVersions: [...P.SUPPORTED_PROTOCOL_VERSIONS],
  capabilities: serverCapabilities,
  instructions: "Use get_weather for weather questions.",
  ttlMs: 3_600_000,
  cacheScope: "public",
  _meta: { [P.MetaKey.serverInfo]: serverInfo }
})
sample("CompleteRequestParams (prompt)", P.CompleteRequestParams, "CompleteRequestParams", {
  _meta: minimalMeta,
  ref: { type: "ref/prompt", name: "essay", title: "Essay" },
  argument: { name: "topic", value: "M" },
  context: { arguments: { style: "formal" } }
})
sample("CompleteRequestParams (resource)", P.CompleteRequestParams, "CompleteRequestParams", {
  _meta: minimalMeta,
  ref: { type: "ref/resource", uri: "file:///project/{path}" },
  argument: { name: "path", value: "RE" }
})
export const completeResult = sample("CompleteResult", P.CompleteResult, "CompleteResult", {
  resultType: "complete",
  completion: { values: ["MCP", "MRTR"], total: 2, hasMore: false }
})

// ---------------------------------------------------------------------------
// Elicitation
// ---------------------------------------------------------------------------

const stringField = sample("StringSchema", P.StringSchema, "StringSchema", {
  type: "string",
  title: "Email",
  description: "Your email",
  minLength: 3,
  maxLength: 100,
  format: "email",
  default: "a@b.example"
})
const numberField = sample("NumberSchema", P.NumberSchema, "NumberSchema", {
  type: "integer",
  title: "Age",
  minimum: 0,
  maximum: 150,
  default: 30
})
const booleanField = sample("BooleanSchema", P.BooleanSchema, "BooleanSchema", {
  type: "boolean",
  description: "Subscribe?",
  default: false
})
const untitledSingle = sample("UntitledSingleSelectEnumSchema", P.UntitledSingleSelectEnumSchema, "UntitledSingleSelectEnumSchema", {
  type: "string",
  enum: ["red", "green"],
  default: "red"
})
const titledSingle = sample("TitledSingleSelectEnumSchema", P.TitledSingleSelectEnumSchema, "TitledSingleSelectEnumSchema", {
  type: "string",
  title: "Color",
  oneOf: [{ const: "r", title: "Red" }, { const: "g", title: "Green" }]
})
const untitledMulti = sample("UntitledMultiSelectEnumSchema", P.UntitledMultiSelectEnumSchema, "UntitledMultiSelectEnumSchema", {
  type: "array",
  minItems: 1,
  maxItems: 2,
  items: { type: "string", enum: ["a", "b", "c"] },
  default: ["a"]
})
const titledMulti = sample("TitledMultiSelectEnumSchema", P.TitledMultiSelectEnumSchema, "TitledMultiSelectEnumSchema", {
  type: "array",
  items: { anyOf: [{ const: "a", title: "A" }, { const: "b", title: "B" }] }
})
const legacyEnum = sample("LegacyTitledEnumSchema", P.LegacyTitledEnumSchema, "LegacyTitledEnumSchema", {
  type: "string",
  enum: ["s", "m"],
  enumNames: ["Small", "Medium"]
})
sample("SingleSelectEnumSchema", P.SingleSelectEnumSchema, "SingleSelectEnumSchema", titledSingle)
sample("MultiSelectEnumSchema", P.MultiSelectEnumSchema, "MultiSelectEnumSchema", untitledMulti)
sample("EnumSchema", P.EnumSchema, "EnumSchema", legacyEnum)
for (const field of [stringField, numberField, booleanField, untitledSingle, titledSingle, untitledMulti, titledMulti, legacyEnum]) {
  sample(`PrimitiveSchemaDefinition (${field.type})`, P.PrimitiveSchemaDefinition, "PrimitiveSchemaDefinition", field)
}
export const formParams = sample("ElicitRequestFormParams", P.ElicitRequestFormParams, "ElicitRequestFormParams", {
  mode: "form",
  message: "Tell us about you",
  requestedSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { email: stringField, age: numberField, subscribe: booleanField, color: titledSingle, tags: untitledMulti },
    required: ["email"]
  }
})
const urlParams = sample("ElicitRequestURLParams", P.ElicitRequestURLParams, "ElicitRequestURLParams", {
  mode: "url",
  message: "Sign in to continue",
  url: "https://auth.acme.example/login?state=xyz"
})
sample("ElicitRequestParams (form)", P.ElicitRequestParams, "ElicitRequestParams", formParams)
sample("ElicitRequestParams (url)", P.ElicitRequestParams, "ElicitRequestParams", urlParams)
export const elicitRequest = sample("ElicitRequest (form, no mode)", P.ElicitRequest, "ElicitRequest", {
  method: "elicitation/create",
  params: {
    message: "What is your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
  }
})
export const elicitUrlRequest = sample("ElicitRequest (url)", P.ElicitRequest, "ElicitRequest", {
  method: "elicitation/create",
  params: urlParams
})
export const elicitResult = sample("ElicitResult (accept)", P.ElicitResult, "ElicitResult", {
  action: "accept",
  content: { name: "Ada", age: 36, subscribe: true, tags: ["a", "b"] }
})
sample("ElicitResult (decline)", P.ElicitResult, "ElicitResult", { action: "decline" })
sample("ElicitResult (cancel)", P.ElicitResult, "ElicitResult", { action: "cancel" })

// ---------------------------------------------------------------------------
// Sampling, roots
// ---------------------------------------------------------------------------

const samplingMessage = sample("SamplingMessage", P.SamplingMessage, "SamplingMessage", {
  role: "user",
  content: { type: "text", text: "What is the capital of France?" }
})
sample("SamplingMessage (array content)", P.SamplingMessage, "SamplingMessage", {
  role: "assistant",
  content: [toolUse, { type: "text", text: "checking" }]
})
sample("SamplingMessage (tool result)", P.SamplingMessage, "SamplingMessage", { role: "user", content: toolResult })
const modelPreferences = sample("ModelPreferences", P.ModelPreferences, "ModelPreferences", {
  hints: [{ name: "claude" }, {}],
  costPriority: 0.2,
  speedPriority: 0.5,
  intelligencePriority: 0.9
})
export const samplingParams = sample("CreateMessageRequestParams (full)", P.CreateMessageRequestParams, "CreateMessageRequestParams", {
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
})
export const samplingRequest = sample("CreateMessageRequest", P.CreateMessageRequest, "CreateMessageRequest", {
  method: "sampling/createMessage",
  params: { messages: [samplingMessage], maxTokens: 50 }
})
export const samplingResult = sample("CreateMessageResult", P.CreateMessageResult, "CreateMessageResult", {
  role: "assistant",
  content: { type: "text", text: "Paris." },
  model: "test-model",
  stopReason: "endTurn"
})
sample("CreateMessageResult (tool use)", P.CreateMessageResult, "CreateMessageResult", {
  role: "assistant",
  content: [toolUse],
  model: "test-model",
  stopReason: "toolUse"
})
const root = sample("Root", P.Root, "Root", { uri: "file:///home/ada/project", name: "project" })
export const rootsRequest = sample("ListRootsRequest", P.ListRootsRequest, "ListRootsRequest", {
  method: "roots/list",
  params: {}
})
sample("ListRootsRequest (no params)", P.ListRootsRequest, "ListRootsRequest", { method: "roots/list" })
export const rootsResult = sample("ListRootsResult", P.ListRootsResult, "ListRootsResult", { roots: [root] })

// ---------------------------------------------------------------------------
// MRTR
// ---------------------------------------------------------------------------

for (const request of [elicitRequest, samplingRequest, rootsRequest]) {
  sample(`InputRequest (${request.method})`, P.InputRequest, "InputRequest", request)
}
export const inputRequests = sample("InputRequests", P.InputRequests, "InputRequests", {
  user_name: elicitRequest,
  greeting: samplingRequest,
  client_roots: rootsRequest
})
for (const response of [elicitResult, samplingResult, rootsResult]) {
  sample("InputResponse", P.InputResponse, "InputResponse", response)
}
export const inputResponses = sample("InputResponses", P.InputResponses, "InputResponses", {
  user_name: elicitResult,
  greeting: samplingResult,
  client_roots: rootsResult
})
sample("InputResponseRequestParams", P.InputResponseRequestParams, "InputResponseRequestParams", {
  _meta: minimalMeta,
  inputResponses,
  requestState: "state"
})
export const irrBoth = sample("InputRequiredResult (both)", P.InputRequiredResult, "InputRequiredResult", {
  resultType: "input_required",
  inputRequests,
  requestState: "eyJyb3VuZCI6MX0",
  _meta: resultMeta
})
export const irrRequestsOnly = sample("InputRequiredResult (inputRequests)", P.InputRequiredResult, "InputRequiredResult", P.makeInputRequiredResult({ inputRequests: { user_name: elicitRequest } }))
export const irrStateOnly = sample("InputRequiredResult (requestState)", P.InputRequiredResult, "InputRequiredResult", P.makeInputRequiredResult({ requestState: "retry-me" }))

// ---------------------------------------------------------------------------
// Subscriptions, notifications
// ---------------------------------------------------------------------------

const filter = sample("SubscriptionFilter", P.SubscriptionFilter, "SubscriptionFilter", {
  toolsListChanged: true,
  promptsListChanged: false,
  resourcesListChanged: true,
  resourceSubscriptions: ["file:///project/a.txt"]
})
sample("SubscriptionsListenRequestParams", P.SubscriptionsListenRequestParams, "SubscriptionsListenRequestParams", {
  _meta: minimalMeta,
  notifications: filter
})
export const listenResult = sample("SubscriptionsListenResult", P.SubscriptionsListenResult, "SubscriptionsListenResult", {
  resultType: "complete",
  _meta: { [P.MetaKey.subscriptionId]: "listen-1", [P.MetaKey.serverInfo]: serverInfo }
})
sample("SubscriptionsAcknowledgedNotificationParams", P.SubscriptionsAcknowledgedNotificationParams, "SubscriptionsAcknowledgedNotificationParams", {
  notifications: { toolsListChanged: true },
  _meta: { [P.MetaKey.subscriptionId]: "listen-1" }
})
sample("NotificationParams", P.NotificationParams, "NotificationParams", { _meta: { [P.MetaKey.subscriptionId]: 3 } })
sample("LoggingMessageNotificationParams", P.LoggingMessageNotificationParams, "LoggingMessageNotificationParams", {
  level: "info",
  logger: "weather",
  data: { msg: "fetched", ms: 12 }
})
sample("ProgressNotificationParams", P.ProgressNotificationParams, "ProgressNotificationParams", {
  progressToken: "tok-1",
  progress: 0.5,
  total: 1,
  message: "halfway"
})
sample("CancelledNotificationParams", P.CancelledNotificationParams, "CancelledNotificationParams", {
  requestId: 12,
  reason: "user"
})
sample("ResourceUpdatedNotificationParams", P.ResourceUpdatedNotificationParams, "ResourceUpdatedNotificationParams", {
  uri: "file:///project/a.txt"
})
const toolsChanged = sample("ToolListChangedNotification", P.ToolListChangedNotification, "ToolListChangedNotification", {
  jsonrpc: "2.0",
  method: "notifications/tools/list_changed",
  params: { _meta: { [P.MetaKey.subscriptionId]: "listen-1" } }
})
const promptsChanged = sample("PromptListChangedNotification", P.PromptListChangedNotification, "PromptListChangedNotification", {
  jsonrpc: "2.0",
  method: "notifications/prompts/list_changed"
})
const resourcesChanged = sample("ResourceListChangedNotification", P.ResourceListChangedNotification, "ResourceListChangedNotification", {
  jsonrpc: "2.0",
  method: "notifications/resources/list_changed",
  params: {}
})
const updated = sample("ResourceUpdatedNotification", P.ResourceUpdatedNotification, "ResourceUpdatedNotification", {
  jsonrpc: "2.0",
  method: "notifications/resources/updated",
  params: { uri: "file:///project/a.txt", _meta: { [P.MetaKey.subscriptionId]: "listen-1" } }
})
const acked = sample("SubscriptionsAcknowledgedNotification", P.SubscriptionsAcknowledgedNotification, "SubscriptionsAcknowledgedNotification", {
  jsonrpc: "2.0",
  method: "notifications/subscriptions/acknowledged",
  params: { notifications: filter }
})
const logged = sample("LoggingMessageNotification", P.LoggingMessageNotification, "LoggingMessageNotification", {
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { level: "error", data: "boom" }
})
const progress = sample("ProgressNotification", P.ProgressNotification, "ProgressNotification", {
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: 1, progress: 3 }
})
const cancelled = sample("CancelledNotification", P.CancelledNotification, "CancelledNotification", {
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId: "r-1" }
})
for (const notification of [toolsChanged, promptsChanged, resourcesChanged, updated, acked, logged, progress, cancelled]) {
  sample(`ServerNotification (${notification.method})`, P.ServerNotification, "ServerNotification", notification)
  sample(`JsonRpcNotification (${notification.method})`, P.JsonRpcNotification, "JSONRPCNotification", notification)
}

// ---------------------------------------------------------------------------
// Full client requests
// ---------------------------------------------------------------------------

const requests = [
  sample("DiscoverRequest", P.DiscoverRequest, "DiscoverRequest", {
    jsonrpc: "2.0",
    id: 1,
    method: "server/discover",
    params: { _meta: minimalMeta }
  }),
  sample("ListToolsRequest", P.ListToolsRequest, "ListToolsRequest", {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/list",
    params: { _meta: meta }
  }),
  sample("CallToolRequest", P.CallToolRequest, "CallToolRequest", {
    jsonrpc: "2.0",
    id: "call-3",
    method: "tools/call",
    params: callToolParams
  }),
  sample("ListPromptsRequest", P.ListPromptsRequest, "ListPromptsRequest", {
    jsonrpc: "2.0",
    id: 4,
    method: "prompts/list",
    params: { _meta: minimalMeta, cursor: "x" }
  }),
  sample("GetPromptRequest", P.GetPromptRequest, "GetPromptRequest", {
    jsonrpc: "2.0",
    id: 5,
    method: "prompts/get",
    params: { _meta: minimalMeta, name: "essay", inputResponses: { user_context: { action: "accept", content: { context: "x" } } } }
  }),
  sample("ListResourcesRequest", P.ListResourcesRequest, "ListResourcesRequest", {
    jsonrpc: "2.0",
    id: 6,
    method: "resources/list",
    params: { _meta: minimalMeta }
  }),
  sample("ListResourceTemplatesRequest", P.ListResourceTemplatesRequest, "ListResourceTemplatesRequest", {
    jsonrpc: "2.0",
    id: 7,
    method: "resources/templates/list",
    params: { _meta: minimalMeta }
  }),
  sample("ReadResourceRequest", P.ReadResourceRequest, "ReadResourceRequest", {
    jsonrpc: "2.0",
    id: 8,
    method: "resources/read",
    params: { _meta: minimalMeta, uri: "file:///project/a.txt" }
  }),
  sample("CompleteRequest", P.CompleteRequest, "CompleteRequest", {
    jsonrpc: "2.0",
    id: 9,
    method: "completion/complete",
    params: { _meta: minimalMeta, ref: { type: "ref/prompt", name: "essay" }, argument: { name: "topic", value: "" } }
  }),
  sample("SubscriptionsListenRequest", P.SubscriptionsListenRequest, "SubscriptionsListenRequest", {
    jsonrpc: "2.0",
    id: 10,
    method: "subscriptions/listen",
    params: { _meta: minimalMeta, notifications: { toolsListChanged: true } }
  })
]
for (const request of requests) {
  sample(`ClientRequest (${request.method})`, P.ClientRequest, "ClientRequest", request)
  sample(`JsonRpcRequest (${request.method})`, P.JsonRpcRequest, "JSONRPCRequest", request)
  sample(`JsonRpcMessage (${request.method})`, P.JsonRpcMessage, "JSONRPCMessage", request)
}

// ---------------------------------------------------------------------------
// Generic results
// ---------------------------------------------------------------------------

sample("Result", P.Result, "Result", { resultType: "complete", extra: 1 })
sample("EmptyResult", P.EmptyResult, "EmptyResult", { resultType: "complete", _meta: resultMeta })

/** All registered samples. */
export const allSamples: ReadonlyArray<Sample> = samples
