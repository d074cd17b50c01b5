/**
 * Effect Schemas for the messages of MCP revision 2026-07-28, including the
 * Multi Round-Trip Requests (MRTR) types.
 *
 * Field names and optionality follow `schema-2026-07-28.json`. Each schema
 * decodes the wire (JSON) form into a typed value and encodes it back; the
 * TypeScript type of every schema is exported under the same name
 * (`export type Tool = typeof Tool.Type`).
 *
 * Conventions:
 *
 * - Every server `Result` has a `resultType` and an optional `_meta`
 *   (`ResultMeta`). Complete results use the literal `"complete"`; decoding a
 *   result without `resultType` (a pre-2026 server) yields `"complete"`, as
 *   the spec requires of clients. Encoding always writes it.
 * - Cacheable results (`DiscoverResult`, the four list results,
 *   `ReadResourceResult`) carry `ttlMs` (integer milliseconds, ≥ 0) and
 *   `cacheScope` (`"public" | "private"`). On decode a missing or negative
 *   `ttlMs` becomes `0` and a missing `cacheScope` becomes `"private"`.
 * - `InputRequiredResult` (`resultType: "input_required"`) may be returned by
 *   `tools/call`, `prompts/get` and `resources/read` only.
 * - Unknown object members are dropped on decode, except inside `_meta`,
 *   tool `arguments`, `inputSchema`/`outputSchema`, `structuredContent` and
 *   other free-form JSON objects, which are kept verbatim.
 *
 * The schemas live one module per spec page under `schema/` (2026-07-28)
 * and `legacy/` (2025-11-25); this module re-exports the 2026-07-28 ones
 * under their historical names.
 *
 * @since 0.1.0
 */
import { ClientCapabilities, Icon, Implementation, JsonObject, ProgressToken } from "./internal/base.ts"

export {
  /**
   * Capabilities a client declares per request (see `internal/base.ts`).
   *
   * MCP 2026-07-28, schema `ClientCapabilities`.
   *
   * @category schemas
   * @since 0.1.0
   */
  ClientCapabilities,
  /**
   * An icon `{ src, mimeType?, sizes?, theme? }`.
   *
   * MCP 2026-07-28, schema `Icon`.
   *
   * @category schemas
   * @since 0.1.0
   */
  Icon,
  /**
   * `{ name, version, title?, description?, icons?, websiteUrl? }`.
   *
   * MCP 2026-07-28, schema `Implementation`.
   *
   * @category schemas
   * @since 0.1.0
   */
  Implementation,
  /**
   * A free-form JSON object (`JSONObject` / `MetaObject`).
   *
   * @category schemas
   * @since 0.1.0
   */
  JsonObject,
  /**
   * `string | integer` token for `notifications/progress`.
   *
   * MCP 2026-07-28, schema `ProgressToken`.
   *
   * @category schemas
   * @since 0.1.0
   */
  ProgressToken
}

export {
  Method,
  INPUT_REQUIRED_METHODS,
  CACHEABLE_METHODS,
  REMOVED_METHODS
} from "./v2026_07_28/Methods.ts"
export {
  ResultType,
  Result,
  EmptyResult,
  CacheScope,
  TtlMs
} from "./v2026_07_28/Results.ts"
export {
  Role,
  Annotations,
  TextContent,
  ImageContent,
  AudioContent,
  ResourceLink,
  TextResourceContents,
  BlobResourceContents,
  ResourceContents,
  EmbeddedResource,
  ContentBlock,
  ToolUseContent,
  ToolResultContent,
  SamplingMessageContentBlock
} from "./v2026_07_28/Content.ts"
export {
  ToolAnnotations,
  ToolInputSchema,
  ToolOutputSchema,
  Tool
} from "./v2026_07_28/Tool.ts"
export {
  StringSchema,
  NumberSchema,
  BooleanSchema,
  UntitledSingleSelectEnumSchema,
  TitledSingleSelectEnumSchema,
  UntitledMultiSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  LegacyTitledEnumSchema,
  SingleSelectEnumSchema,
  MultiSelectEnumSchema,
  EnumSchema,
  PrimitiveSchemaDefinition,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitRequestParams,
  ElicitRequest,
  ElicitValue,
  ElicitResult
} from "./v2026_07_28/Elicitation.ts"
export {
  SamplingMessage,
  ModelHint,
  ModelPreferences,
  ToolChoice,
  CreateMessageRequestParams,
  CreateMessageRequest,
  CreateMessageResult
} from "./v2026_07_28/Sampling.ts"
export {
  Root,
  ListRootsRequest,
  ListRootsResult
} from "./v2026_07_28/Roots.ts"
export {
  InputRequest,
  InputRequests,
  InputResponse,
  InputResponses,
  InputResponseRequestParams,
  InputRequiredResult,
  type InputRequiredResultFields,
  makeInputRequiredResult,
  isInputRequiredResult
} from "./v2026_07_28/Mrtr.ts"
export {
  RequestParams,
  Cursor,
  PaginatedRequestParams,
  ServerCapabilities,
  DiscoverResult
} from "./v2026_07_28/Lifecycle.ts"
export {
  ListToolsResult,
  CallToolRequestParams,
  CallToolResult,
  CallToolResultOrInputRequired
} from "./v2026_07_28/Tools.ts"
export {
  PromptArgument,
  Prompt,
  PromptMessage,
  ListPromptsResult,
  GetPromptRequestParams,
  GetPromptResult,
  GetPromptResultOrInputRequired
} from "./v2026_07_28/Prompts.ts"
export {
  Resource,
  ResourceTemplate,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceRequestParams,
  ReadResourceResult,
  ReadResourceResultOrInputRequired
} from "./v2026_07_28/Resources.ts"
export {
  PromptReference,
  ResourceTemplateReference,
  CompleteRequestParams,
  CompleteResult
} from "./v2026_07_28/Completion.ts"
export {
  SubscriptionFilter,
  SubscriptionsListenRequestParams,
  SubscriptionsListenResultMeta,
  SubscriptionsListenResult
} from "./v2026_07_28/Subscriptions.ts"
export {
  NotificationParams,
  SubscriptionsAcknowledgedNotificationParams,
  LoggingMessageNotificationParams,
  ProgressNotificationParams,
  CancelledNotificationParams,
  ResourceUpdatedNotificationParams,
  ToolListChangedNotification,
  PromptListChangedNotification,
  ResourceListChangedNotification,
  ResourceUpdatedNotification,
  SubscriptionsAcknowledgedNotification,
  LoggingMessageNotification,
  ProgressNotification,
  CancelledNotification,
  ServerNotification
} from "./v2026_07_28/Notifications.ts"
export {
  DiscoverRequest,
  ListToolsRequest,
  CallToolRequest,
  ListPromptsRequest,
  GetPromptRequest,
  ListResourcesRequest,
  ListResourceTemplatesRequest,
  ReadResourceRequest,
  CompleteRequest,
  SubscriptionsListenRequest,
  ClientRequest
} from "./v2026_07_28/Requests.ts"
