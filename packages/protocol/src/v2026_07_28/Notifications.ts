/**
 * Server notifications: progress, log messages, cancellation,
 * list-changed, resource updates and the subscription acknowledgement.
 * Source: MCP 2026-07-28, basic/utilities (progress, cancellation),
 * server/utilities/logging, basic/patterns/subscriptions.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { ProgressToken } from "../internal/base.ts"
import { JSONRPC_VERSION, RequestId } from "../JsonRpc.ts"
import { LoggingLevel, NotificationMeta } from "../Meta.ts"
import { Method } from "./Methods.ts"
import { SubscriptionFilter } from "./Subscriptions.ts"

/**
 * Params of a notification with no other members: `{ _meta? }`.
 *
 * MCP 2026-07-28, schema `NotificationParams`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const NotificationParams = Schema.Struct({
  _meta: Schema.optionalKey(NotificationMeta)
})
/**
 * The decoded (`Type`) side of the `NotificationParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type NotificationParams = typeof NotificationParams.Type

/**
 * Params of `notifications/subscriptions/acknowledged`, the first message on a
 * listen stream: `{ notifications: SubscriptionFilter (what the server will send), _meta? }`.
 *
 * MCP 2026-07-28, schema `SubscriptionsAcknowledgedNotificationParams`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SubscriptionsAcknowledgedNotificationParams = Schema.Struct({
  notifications: SubscriptionFilter,
  _meta: Schema.optionalKey(NotificationMeta)
})
/**
 * The decoded (`Type`) side of the `SubscriptionsAcknowledgedNotificationParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type SubscriptionsAcknowledgedNotificationParams = typeof SubscriptionsAcknowledgedNotificationParams.Type

/**
 * Params of `notifications/message` (deprecated logging, SEP-2577):
 * `{ level: LoggingLevel, logger?, data: unknown (required, any JSON), _meta? }`.
 * Sent only when the request set `io.modelcontextprotocol/logLevel`.
 *
 * MCP 2026-07-28, schema `LoggingMessageNotificationParams`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const LoggingMessageNotificationParams = Schema.Struct({
  level: LoggingLevel,
  logger: Schema.optionalKey(Schema.String),
  data: Schema.Unknown,
  _meta: Schema.optionalKey(NotificationMeta)
})
/**
 * The decoded (`Type`) side of the `LoggingMessageNotificationParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type LoggingMessageNotificationParams = typeof LoggingMessageNotificationParams.Type

/**
 * Params of `notifications/progress`:
 * `{ progressToken, progress: number (increasing), total?, message?, _meta? }`.
 *
 * MCP 2026-07-28, schema `ProgressNotificationParams`; basic/patterns/progress.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ProgressNotificationParams = Schema.Struct({
  progressToken: ProgressToken,
  progress: Schema.Number,
  total: Schema.optionalKey(Schema.Number),
  message: Schema.optionalKey(Schema.String),
  _meta: Schema.optionalKey(NotificationMeta)
})
/**
 * The decoded (`Type`) side of the `ProgressNotificationParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ProgressNotificationParams = typeof ProgressNotificationParams.Type

/**
 * Params of `notifications/cancelled` (stdio only; on HTTP closing the stream
 * cancels): `{ requestId, reason?, _meta? }`.
 *
 * MCP 2026-07-28, schema `CancelledNotificationParams`; basic/patterns/cancellation.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CancelledNotificationParams = Schema.Struct({
  requestId: RequestId,
  reason: Schema.optionalKey(Schema.String),
  _meta: Schema.optionalKey(NotificationMeta)
})
/**
 * The decoded (`Type`) side of the `CancelledNotificationParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CancelledNotificationParams = typeof CancelledNotificationParams.Type

/**
 * Params of `notifications/resources/updated`: `{ uri, _meta? }`.
 *
 * MCP 2026-07-28, schema `ResourceUpdatedNotificationParams`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResourceUpdatedNotificationParams = Schema.Struct({
  uri: Schema.String,
  _meta: Schema.optionalKey(NotificationMeta)
})
/**
 * The decoded (`Type`) side of the `ResourceUpdatedNotificationParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ResourceUpdatedNotificationParams = typeof ResourceUpdatedNotificationParams.Type

/** @internal shared by the other schema modules; not re-exported by `Schema.ts`. */
export const jsonrpc = Schema.Literal(JSONRPC_VERSION)

/**
 * `{ jsonrpc: "2.0", method: "notifications/tools/list_changed", params? }`,
 * delivered only on `subscriptions/listen` streams that asked for `toolsListChanged`.
 *
 * MCP 2026-07-28, schema `ToolListChangedNotification`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolListChangedNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsToolsListChanged),
  params: Schema.optionalKey(NotificationParams)
})
/**
 * The decoded (`Type`) side of the `ToolListChangedNotification` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ToolListChangedNotification = typeof ToolListChangedNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/prompts/list_changed", params? }`.
 *
 * MCP 2026-07-28, schema `PromptListChangedNotification`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PromptListChangedNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsPromptsListChanged),
  params: Schema.optionalKey(NotificationParams)
})
/**
 * The decoded (`Type`) side of the `PromptListChangedNotification` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type PromptListChangedNotification = typeof PromptListChangedNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/resources/list_changed", params? }`.
 *
 * MCP 2026-07-28, schema `ResourceListChangedNotification`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResourceListChangedNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsResourcesListChanged),
  params: Schema.optionalKey(NotificationParams)
})
/**
 * The decoded (`Type`) side of the `ResourceListChangedNotification` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ResourceListChangedNotification = typeof ResourceListChangedNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri, _meta? } }`.
 *
 * MCP 2026-07-28, schema `ResourceUpdatedNotification`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResourceUpdatedNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsResourcesUpdated),
  params: ResourceUpdatedNotificationParams
})
/**
 * The decoded (`Type`) side of the `ResourceUpdatedNotification` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ResourceUpdatedNotification = typeof ResourceUpdatedNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params }`.
 *
 * MCP 2026-07-28, schema `SubscriptionsAcknowledgedNotification`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SubscriptionsAcknowledgedNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsSubscriptionsAcknowledged),
  params: SubscriptionsAcknowledgedNotificationParams
})
/**
 * The decoded (`Type`) side of the `SubscriptionsAcknowledgedNotification` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type SubscriptionsAcknowledgedNotification = typeof SubscriptionsAcknowledgedNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/message", params }`.
 *
 * MCP 2026-07-28, schema `LoggingMessageNotification`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const LoggingMessageNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsMessage),
  params: LoggingMessageNotificationParams
})
/**
 * The decoded (`Type`) side of the `LoggingMessageNotification` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type LoggingMessageNotification = typeof LoggingMessageNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/progress", params }`.
 *
 * MCP 2026-07-28, schema `ProgressNotification`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ProgressNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsProgress),
  params: ProgressNotificationParams
})
/**
 * The decoded (`Type`) side of the `ProgressNotification` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ProgressNotification = typeof ProgressNotification.Type

/**
 * `{ jsonrpc: "2.0", method: "notifications/cancelled", params }`.
 *
 * MCP 2026-07-28, schema `CancelledNotification`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CancelledNotification = Schema.Struct({
  jsonrpc,
  method: Schema.Literal(Method.notificationsCancelled),
  params: CancelledNotificationParams
})
/**
 * The decoded (`Type`) side of the `CancelledNotification` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CancelledNotification = typeof CancelledNotification.Type

/**
 * Any notification a 2026-07-28 server sends.
 *
 * MCP 2026-07-28, schema `ServerNotification`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ServerNotification = Schema.Union([
  CancelledNotification,
  ProgressNotification,
  ResourceListChangedNotification,
  SubscriptionsAcknowledgedNotification,
  ResourceUpdatedNotification,
  PromptListChangedNotification,
  ToolListChangedNotification,
  LoggingMessageNotification
])
/**
 * The decoded (`Type`) side of the `ServerNotification` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ServerNotification = typeof ServerNotification.Type
