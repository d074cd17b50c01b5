/**
 * `subscriptions/listen` of the 2026-07-28 wire: a long-lived stream of
 * list-changed notifications, filtered by what the client asked for, and the
 * Tasks extension's `notifications/tasks` for the tasks named in
 * `notifications.taskIds` (which needs the request's declaration: -32021).
 * A filter that is missing or of the wrong shape (`notifications` not an
 * object, a flag that is not a boolean, `resourceSubscriptions` or `taskIds`
 * not an array of strings) is -32602 Invalid params; unknown keys are
 * ignored (a later revision's opt-ins).
 * Gotcha: the 2025-11-25 wire sends the same notifications on a session's
 * GET stream instead (`legacy/broadcast.ts`).
 * Source: MCP 2026-07-28, basic/patterns/subscriptions.
 */
import { McpError } from "@mrtr/protocol/ErrorCode"
import { MetaKey } from "@mrtr/protocol/Meta"
import { SubscriptionFilter } from "@mrtr/protocol/Schema"
import { declaresTasks, tasksRequiredCapabilities } from "@mrtr/protocol/Tasks"
import { Effect, Exit, PubSub, Schema, Stream } from "effect"
import type { Reply, WireMessage } from "../Transport.ts"
import type { Parsed } from "./envelope.ts"
import { errorReply } from "./errors.ts"
import type { ListChanged } from "./registry.ts"

/** The `notifications/tasks` of the tasks `taskIds` that `principal` may see, tagged with `meta`. */
export type TaskNotifications = (
  taskIds: ReadonlySet<string>,
  principal: string | undefined,
  meta: Record<string, unknown>
) => Stream.Stream<Record<string, unknown>>

/** `SubscriptionFilter` with the Tasks extension's `taskIds`. */
const decodeFilter = Schema.decodeUnknownExit(Schema.Struct({
  ...SubscriptionFilter.fields,
  taskIds: Schema.optionalKey(Schema.Array(Schema.String))
}))

/**
 * Answers `subscriptions/listen`: the acknowledgement (with the filter the
 * server honours, `taskIds` included), then each registry change the client
 * opted into and each change of the named tasks, tagged with the listen
 * request's id. The stream ends when the client goes away.
 */
export const listen = (
  parsed: Parsed,
  changes: PubSub.PubSub<ListChanged>,
  principal?: string | undefined,
  taskNotifications?: TaskNotifications | undefined
): Reply => {
  const notifications = parsed.params.notifications
  const decoded = decodeFilter(notifications)
  if (Exit.isFailure(decoded)) {
    return errorReply(
      parsed.id,
      McpError.invalidParams(
        notifications === undefined
          ? "subscriptions/listen needs params.notifications (the notification types to receive)"
          : "Invalid params.notifications: flags must be booleans, resourceSubscriptions and taskIds arrays of strings"
      )
    )
  }
  const filter = decoded.value
  const honoured: Record<string, unknown> = {}
  for (const key of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const) {
    if (filter[key] === true) honoured[key] = true
  }
  const subscriptionMeta = { [MetaKey.subscriptionId]: parsed.id }
  const taskIds = filter.taskIds ?? []
  if (filter.taskIds !== undefined) {
    if (!declaresTasks(parsed.clientCapabilities)) {
      return errorReply(parsed.id, McpError.missingRequiredClientCapability(tasksRequiredCapabilities))
    }
    honoured.taskIds = taskIds
  }
  const wanted = (kind: ListChanged) => honoured[`${kind}ListChanged`] === true
  const ack: WireMessage = {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { notifications: honoured, _meta: subscriptionMeta }
  }
  return {
    _tag: "Stream",
    // Subscribed before the acknowledgement is sent: a change the client makes once acknowledged is never missed.
    messages: Stream.unwrap(Effect.map(PubSub.subscribe(changes), (subscription) =>
      Stream.concat(
        Stream.succeed(ack),
        Stream.merge(
          Stream.fromSubscription(subscription).pipe(
            Stream.filter(wanted),
            Stream.map((kind): WireMessage => ({
              jsonrpc: "2.0",
              method: `notifications/${kind}/list_changed`,
              params: { _meta: subscriptionMeta }
            }))
          ),
          taskIds.length === 0 || taskNotifications === undefined
            ? Stream.empty
            : taskNotifications(new Set(taskIds), principal, subscriptionMeta) as Stream.Stream<WireMessage>
        )
      )))
  }
}
