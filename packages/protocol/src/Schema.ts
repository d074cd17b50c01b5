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
  /**
   * @category schemas
   * @since 0.1.0
   */
  CompleteRequestParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  CompleteResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  PromptReference,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ResourceTemplateReference
} from "./v2026_07_28/Completion.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  Annotations,
  /**
   * @category schemas
   * @since 0.1.0
   */
  AudioContent,
  /**
   * @category schemas
   * @since 0.1.0
   */
  BlobResourceContents,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ContentBlock,
  /**
   * @category schemas
   * @since 0.1.0
   */
  EmbeddedResource,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ImageContent,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ResourceContents,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ResourceLink,
  /**
   * @category schemas
   * @since 0.1.0
   */
  Role,
  /**
   * @category schemas
   * @since 0.1.0
   */
  SamplingMessageContentBlock,
  /**
   * @category schemas
   * @since 0.1.0
   */
  TextContent,
  /**
   * @category schemas
   * @since 0.1.0
   */
  TextResourceContents,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ToolResultContent,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ToolUseContent
} from "./v2026_07_28/Content.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  BooleanSchema,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ElicitRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ElicitRequestFormParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ElicitRequestParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ElicitRequestURLParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ElicitResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ElicitValue,
  /**
   * @category schemas
   * @since 0.1.0
   */
  EnumSchema,
  /**
   * @category schemas
   * @since 0.1.0
   */
  LegacyTitledEnumSchema,
  /**
   * @category schemas
   * @since 0.1.0
   */
  MultiSelectEnumSchema,
  /**
   * @category schemas
   * @since 0.1.0
   */
  NumberSchema,
  /**
   * @category schemas
   * @since 0.1.0
   */
  PrimitiveSchemaDefinition,
  /**
   * @category schemas
   * @since 0.1.0
   */
  SingleSelectEnumSchema,
  /**
   * @category schemas
   * @since 0.1.0
   */
  StringSchema,
  /**
   * @category schemas
   * @since 0.1.0
   */
  TitledMultiSelectEnumSchema,
  /**
   * @category schemas
   * @since 0.1.0
   */
  TitledSingleSelectEnumSchema,
  /**
   * @category schemas
   * @since 0.1.0
   */
  UntitledMultiSelectEnumSchema,
  /**
   * @category schemas
   * @since 0.1.0
   */
  UntitledSingleSelectEnumSchema
} from "./v2026_07_28/Elicitation.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  Cursor,
  /**
   * @category schemas
   * @since 0.1.0
   */
  DiscoverResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  PaginatedRequestParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  RequestParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ServerCapabilities
} from "./v2026_07_28/Lifecycle.ts"
export {
  /**
   * @category constants
   * @since 0.1.0
   */
  CACHEABLE_METHODS,
  /**
   * @category constants
   * @since 0.1.0
   */
  INPUT_REQUIRED_METHODS,
  /**
   * @category schemas
   * @since 0.1.0
   */
  Method,
  /**
   * @category constants
   * @since 0.1.0
   */
  REMOVED_METHODS
} from "./v2026_07_28/Methods.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  InputRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  InputRequests,
  /**
   * @category schemas
   * @since 0.1.0
   */
  InputRequiredResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  type InputRequiredResultFields,
  /**
   * @category schemas
   * @since 0.1.0
   */
  InputResponse,
  /**
   * @category schemas
   * @since 0.1.0
   */
  InputResponseRequestParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  InputResponses,
  /**
   * @category models
   * @since 0.1.0
   */
  isInputRequiredResult,
  /**
   * @category models
   * @since 0.1.0
   */
  makeInputRequiredResult
} from "./v2026_07_28/Mrtr.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  CancelledNotification,
  /**
   * @category schemas
   * @since 0.1.0
   */
  CancelledNotificationParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  LoggingMessageNotification,
  /**
   * @category schemas
   * @since 0.1.0
   */
  LoggingMessageNotificationParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  NotificationParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ProgressNotification,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ProgressNotificationParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  PromptListChangedNotification,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ResourceListChangedNotification,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ResourceUpdatedNotification,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ResourceUpdatedNotificationParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ServerNotification,
  /**
   * @category schemas
   * @since 0.1.0
   */
  SubscriptionsAcknowledgedNotification,
  /**
   * @category schemas
   * @since 0.1.0
   */
  SubscriptionsAcknowledgedNotificationParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ToolListChangedNotification
} from "./v2026_07_28/Notifications.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  GetPromptRequestParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  GetPromptResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  GetPromptResultOrInputRequired,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ListPromptsResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  Prompt,
  /**
   * @category schemas
   * @since 0.1.0
   */
  PromptArgument,
  /**
   * @category schemas
   * @since 0.1.0
   */
  PromptMessage
} from "./v2026_07_28/Prompts.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  CallToolRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ClientRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  CompleteRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  DiscoverRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  GetPromptRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ListPromptsRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ListResourcesRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ListResourceTemplatesRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ListToolsRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ReadResourceRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  SubscriptionsListenRequest
} from "./v2026_07_28/Requests.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  ListResourcesResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ListResourceTemplatesResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ReadResourceRequestParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ReadResourceResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ReadResourceResultOrInputRequired,
  /**
   * @category schemas
   * @since 0.1.0
   */
  Resource,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ResourceTemplate
} from "./v2026_07_28/Resources.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  CacheScope,
  /**
   * @category schemas
   * @since 0.1.0
   */
  EmptyResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  Result,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ResultType,
  /**
   * @category schemas
   * @since 0.1.0
   */
  TtlMs
} from "./v2026_07_28/Results.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  ListRootsRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ListRootsResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  Root
} from "./v2026_07_28/Roots.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  CreateMessageRequest,
  /**
   * @category schemas
   * @since 0.1.0
   */
  CreateMessageRequestParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  CreateMessageResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ModelHint,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ModelPreferences,
  /**
   * @category schemas
   * @since 0.1.0
   */
  SamplingMessage,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ToolChoice
} from "./v2026_07_28/Sampling.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  SubscriptionFilter,
  /**
   * @category schemas
   * @since 0.1.0
   */
  SubscriptionsListenRequestParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  SubscriptionsListenResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  SubscriptionsListenResultMeta
} from "./v2026_07_28/Subscriptions.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  Tool,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ToolAnnotations,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ToolInputSchema,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ToolOutputSchema
} from "./v2026_07_28/Tool.ts"
export {
  /**
   * @category schemas
   * @since 0.1.0
   */
  CallToolRequestParams,
  /**
   * @category schemas
   * @since 0.1.0
   */
  CallToolResult,
  /**
   * @category schemas
   * @since 0.1.0
   */
  CallToolResultOrInputRequired,
  /**
   * @category schemas
   * @since 0.1.0
   */
  ListToolsResult
} from "./v2026_07_28/Tools.ts"
