/**
 * The MCP 2025-11-25 utilities that exist only on the legacy wire:
 * `logging/setLevel`, `resources/subscribe` / `resources/unsubscribe`,
 * `notifications/roots/list_changed` and `notifications/elicitation/complete`.
 *
 * Progress, log messages, cancellation and the list-changed notifications
 * have the same shape in both eras (see the 2026-07-28 `Schema` module);
 * on the legacy wire they simply carry no `_meta["io.modelcontextprotocol/…"]` keys.
 * Source: MCP 2025-11-25, server/utilities/logging, server/resources
 * (subscriptions), client/roots, client/elicitation (URL mode).
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { JsonObject } from "../internal/base.ts"
import { JSONRPC_VERSION, RequestId } from "../JsonRpc.ts"
import { LoggingLevel } from "../Meta.ts"
import { RequestMeta } from "./Lifecycle.ts"

/**
 * Legacy-only method names.
 *
 * Source: schema-2025-11-25.json `ClientRequest`, `ClientNotification`, `ServerNotification`.
 *
 * @category constants
 * @since 0.2.0
 */
export const Method = {
  initialize: "initialize",
  ping: "ping",
  loggingSetLevel: "logging/setLevel",
  resourcesSubscribe: "resources/subscribe",
  resourcesUnsubscribe: "resources/unsubscribe",
  notificationsInitialized: "notifications/initialized",
  notificationsRootsListChanged: "notifications/roots/list_changed",
  notificationsElicitationComplete: "notifications/elicitation/complete"
} as const

const request = <M extends string, P extends Schema.Top>(method: M, params: P) =>
  Schema.Struct({
    jsonrpc: Schema.Literal(JSONRPC_VERSION),
    id: RequestId,
    method: Schema.Literal(method),
    params
  })

const notification = <M extends string, P extends Schema.Top>(method: M, params: P) =>
  Schema.Struct({
    jsonrpc: Schema.Literal(JSONRPC_VERSION),
    method: Schema.Literal(method),
    params
  })

/**
 * `logging/setLevel` params: `{ level }` (a syslog level). A bad level is
 * answered `-32602`; the result is exactly `{}`.
 *
 * Source: MCP 2025-11-25, server/utilities/logging; schema `SetLevelRequestParams`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const SetLevelRequestParams = Schema.Struct({
  _meta: Schema.optionalKey(RequestMeta),
  level: LoggingLevel
})
/**
 * The decoded (`Type`) side of the `SetLevelRequestParams` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type SetLevelRequestParams = typeof SetLevelRequestParams.Type

/**
 * The `logging/setLevel` request.
 *
 * @category schemas
 * @since 0.2.0
 */
export const SetLevelRequest = request(Method.loggingSetLevel, SetLevelRequestParams)
/**
 * The decoded (`Type`) side of the `SetLevelRequest` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type SetLevelRequest = typeof SetLevelRequest.Type

/**
 * `resources/subscribe` and `resources/unsubscribe` params: `{ uri }`.
 * Needs the server capability `resources.subscribe`; the result is `{}`.
 *
 * Source: MCP 2025-11-25, server/resources (subscriptions); schema `SubscribeRequestParams`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const SubscribeRequestParams = Schema.Struct({
  _meta: Schema.optionalKey(RequestMeta),
  uri: Schema.String
})
/**
 * The decoded (`Type`) side of the `SubscribeRequestParams` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type SubscribeRequestParams = typeof SubscribeRequestParams.Type

/**
 * The `resources/subscribe` request.
 *
 * @category schemas
 * @since 0.2.0
 */
export const SubscribeRequest = request(Method.resourcesSubscribe, SubscribeRequestParams)
/**
 * The decoded (`Type`) side of the `SubscribeRequest` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type SubscribeRequest = typeof SubscribeRequest.Type

/**
 * The `resources/unsubscribe` request.
 *
 * @category schemas
 * @since 0.2.0
 */
export const UnsubscribeRequest = request(Method.resourcesUnsubscribe, SubscribeRequestParams)
/**
 * The decoded (`Type`) side of the `UnsubscribeRequest` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type UnsubscribeRequest = typeof UnsubscribeRequest.Type

/**
 * `notifications/roots/list_changed` (client → server): the client's roots
 * changed; the server may ask `roots/list` again.
 *
 * Source: MCP 2025-11-25, client/roots; schema `RootsListChangedNotification`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const RootsListChangedNotification = Schema.Struct({
  jsonrpc: Schema.Literal(JSONRPC_VERSION),
  method: Schema.Literal(Method.notificationsRootsListChanged),
  params: Schema.optionalKey(JsonObject)
})
/**
 * The decoded (`Type`) side of the `RootsListChangedNotification` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type RootsListChangedNotification = typeof RootsListChangedNotification.Type

/**
 * `notifications/elicitation/complete` (server → client): the out-of-band
 * (URL mode) elicitation `elicitationId` has completed. Sent only to the
 * client that was asked; clients ignore unknown ids.
 *
 * Source: MCP 2025-11-25, client/elicitation (URL mode); schema `ElicitationCompleteNotification`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ElicitationCompleteNotification = notification(
  Method.notificationsElicitationComplete,
  Schema.Struct({ elicitationId: Schema.String })
)
/**
 * The decoded (`Type`) side of the `ElicitationCompleteNotification` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type ElicitationCompleteNotification = typeof ElicitationCompleteNotification.Type
