/**
 * `subscriptions/listen`: the filter, the request and its result.
 * Gotcha: 2025-11-25 has `resources/subscribe` and a GET stream instead (`legacy/Utilities.ts`).
 * Source: MCP 2026-07-28, basic/patterns/subscriptions.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { Implementation } from "../internal/base.ts"
import { RequestId } from "../JsonRpc.ts"
import { RequestMeta } from "../Meta.ts"
import { CompleteResultType } from "./Results.ts"

/**
 * Notification types a client opts in to on a `subscriptions/listen` stream:
 * `{ toolsListChanged?, promptsListChanged?, resourcesListChanged?, resourceSubscriptions?: string[] (URIs) }`.
 * The server MUST NOT send types that were not requested.
 *
 * MCP 2026-07-28, schema `SubscriptionFilter`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SubscriptionFilter = Schema.Struct({
  toolsListChanged: Schema.optionalKey(Schema.Boolean),
  promptsListChanged: Schema.optionalKey(Schema.Boolean),
  resourcesListChanged: Schema.optionalKey(Schema.Boolean),
  resourceSubscriptions: Schema.optionalKey(Schema.Array(Schema.String))
})
/**
 * The decoded (`Type`) side of the `SubscriptionFilter` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type SubscriptionFilter = typeof SubscriptionFilter.Type

/**
 * Params of `subscriptions/listen`: `{ _meta, notifications: SubscriptionFilter }`.
 * The response is a long-lived SSE stream that starts with
 * `notifications/subscriptions/acknowledged`.
 *
 * MCP 2026-07-28, schema `SubscriptionsListenRequestParams`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SubscriptionsListenRequestParams = Schema.Struct({
  _meta: RequestMeta,
  notifications: SubscriptionFilter
})
/**
 * The decoded (`Type`) side of the `SubscriptionsListenRequestParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type SubscriptionsListenRequestParams = typeof SubscriptionsListenRequestParams.Type

/**
 * `_meta` of a `SubscriptionsListenResult`:
 * `{ "io.modelcontextprotocol/subscriptionId": RequestId (required), "io.modelcontextprotocol/serverInfo"?, ... }`.
 *
 * MCP 2026-07-28, schema `SubscriptionsListenResultMetaObject`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SubscriptionsListenResultMeta = Schema.StructWithRest(
  Schema.Struct({
    "io.modelcontextprotocol/subscriptionId": RequestId,
    "io.modelcontextprotocol/serverInfo": Schema.optionalKey(Implementation)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
/**
 * The decoded (`Type`) side of the `SubscriptionsListenResultMeta` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type SubscriptionsListenResultMeta = typeof SubscriptionsListenResultMeta.Type

/**
 * Result of `subscriptions/listen`, sent only when the server ends the
 * subscription gracefully: `{ resultType: "complete", _meta: SubscriptionsListenResultMeta }`.
 *
 * MCP 2026-07-28, schema `SubscriptionsListenResult`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SubscriptionsListenResult = Schema.Struct({
  resultType: CompleteResultType,
  _meta: SubscriptionsListenResultMeta
})
/**
 * The decoded (`Type`) side of the `SubscriptionsListenResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type SubscriptionsListenResult = typeof SubscriptionsListenResult.Type
