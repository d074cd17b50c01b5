/**
 * Method names of MCP 2026-07-28, and which methods may be answered
 * `input_required`, are cacheable, or were removed with the 2025-11-25
 * lifecycle.
 * Source: MCP 2026-07-28, schema `ClientRequest` / `ServerNotification`; basic/versioning.
 *
 * @since 0.2.0
 */

/**
 * Method names of MCP 2026-07-28.
 *
 * MCP 2026-07-28, schema `ClientRequest` / `ServerNotification` / `InputRequest`.
 *
 * @category constants
 * @since 0.1.0
 */
export const Method = {
  discover: "server/discover",
  toolsList: "tools/list",
  toolsCall: "tools/call",
  promptsList: "prompts/list",
  promptsGet: "prompts/get",
  resourcesList: "resources/list",
  resourcesTemplatesList: "resources/templates/list",
  resourcesRead: "resources/read",
  completionComplete: "completion/complete",
  subscriptionsListen: "subscriptions/listen",
  elicitationCreate: "elicitation/create",
  samplingCreateMessage: "sampling/createMessage",
  rootsList: "roots/list",
  notificationsCancelled: "notifications/cancelled",
  notificationsProgress: "notifications/progress",
  notificationsMessage: "notifications/message",
  notificationsToolsListChanged: "notifications/tools/list_changed",
  notificationsPromptsListChanged: "notifications/prompts/list_changed",
  notificationsResourcesListChanged: "notifications/resources/list_changed",
  notificationsResourcesUpdated: "notifications/resources/updated",
  notificationsSubscriptionsAcknowledged: "notifications/subscriptions/acknowledged"
} as const

/**
 * The only requests that may be answered with an `InputRequiredResult`.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (supported requests).
 *
 * @category constants
 * @since 0.1.0
 */
export const INPUT_REQUIRED_METHODS: ReadonlyArray<string> = [Method.toolsCall, Method.promptsGet, Method.resourcesRead]

/**
 * Requests whose complete results are `CacheableResult`s (`ttlMs`, `cacheScope`).
 *
 * MCP 2026-07-28, schema `CacheableResult` (SEP-2549).
 *
 * @category constants
 * @since 0.1.0
 */
export const CACHEABLE_METHODS: ReadonlyArray<string> = [
  Method.discover,
  Method.toolsList,
  Method.promptsList,
  Method.resourcesList,
  Method.resourcesTemplatesList,
  Method.resourcesRead
]

/**
 * Methods of earlier revisions that 2026-07-28 removed; a server answers them
 * with -32601 (HTTP 404).
 *
 * MCP 2026-07-28, changelog / basic/lifecycle (SEP-2575).
 *
 * @category constants
 * @since 0.1.0
 */
export const REMOVED_METHODS: ReadonlyArray<string> = [
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
  "notifications/initialized",
  "notifications/roots/list_changed",
  "notifications/elicitation/complete"
]
