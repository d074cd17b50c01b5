/**
 * `subscriptions/listen` of the 2026-07-28 wire: a long-lived stream of
 * list-changed notifications, filtered by what the client asked for, and the
 * Tasks extension's `notifications/tasks` for the tasks named in
 * `notifications.taskIds` (which needs the request's declaration: -32021).
 * Gotcha: the 2025-11-25 wire sends the same notifications on a session's
 * GET stream instead (`legacy/dispatch.ts`).
 * Source: MCP 2026-07-28, basic/patterns/subscriptions.
 */
import { type PubSub, Stream } from "effect"
import { declaresTasks, McpError, MetaKey, tasksRequiredCapabilities } from "@mrtr/protocol"
import type { Reply, WireMessage } from "../Transport.ts"
import type { Parsed } from "./envelope.ts"
import { errorReply, isRecord } from "./errors.ts"
import type { ListChanged } from "./registry.ts"

/** The `notifications/tasks` of the tasks `taskIds` that `principal` may see, tagged with `meta`. */
export type TaskNotifications = (
  taskIds: ReadonlySet<string>,
  principal: string | undefined,
  meta: Record<string, unknown>
) => Stream.Stream<Record<string, unknown>>

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
  const filter = isRecord(parsed.params.notifications) ? parsed.params.notifications : {}
  const honoured: Record<string, unknown> = {}
  for (const key of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"]) {
    if (filter[key] === true) honoured[key] = true
  }
  const subscription = { [MetaKey.subscriptionId]: parsed.id }
  const taskIds = Array.isArray(filter.taskIds) ? filter.taskIds.filter((id): id is string => typeof id === "string") : []
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
    params: { notifications: honoured, _meta: subscription }
  }
  return {
    _tag: "Stream",
    messages: Stream.concat(
      Stream.succeed(ack),
      Stream.merge(
        Stream.fromPubSub(changes).pipe(
          Stream.filter(wanted),
          Stream.map((kind): WireMessage => ({
            jsonrpc: "2.0",
            method: `notifications/${kind}/list_changed`,
            params: { _meta: subscription }
          }))
        ),
        taskIds.length === 0 || taskNotifications === undefined
          ? Stream.empty
          : taskNotifications(new Set(taskIds), principal, subscription) as Stream.Stream<WireMessage>
      )
    )
  }
}
