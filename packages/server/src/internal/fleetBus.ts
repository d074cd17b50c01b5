/**
 * Connects one server instance to the fleet's `NotificationBus`: its list
 * changes go out (a registry listener), and what the other instances publish
 * comes in to this instance's listeners: resource updates to its 2025-11-25
 * sessions, list changes to its `subscriptions/listen` streams and sessions,
 * task status changes to its `notifications/tasks` streams.
 *
 * Gotcha: a list change heard from the bus is delivered to the listeners
 * directly, never through the registry (whose listener would publish it
 * again); a kind this version does not know (a newer instance in a rolling
 * upgrade) is ignored.
 * Source: `docs/architecture.md`, "Services a deployment swaps".
 */
import { Effect, PubSub, type Scope } from "effect"
import type { NotificationBus, TaskStatus } from "../NotificationBus.ts"
import type { ListChanged } from "./registry.ts"

/** What the instance offers the bus. */
export interface Local {
  /** The registry's synchronous listeners (a publishing one is added). */
  readonly listeners: Set<(kind: ListChanged) => Effect.Effect<void>>
  /** The registry's changes, read by the `subscriptions/listen` streams. */
  readonly changes: PubSub.PubSub<ListChanged>
  /** The 2025-11-25 sessions, when that wire is served. */
  readonly legacy?: {
    readonly listChanged: (kind: ListChanged) => Effect.Effect<void>
    readonly resourceUpdated: (uri: string) => Effect.Effect<void>
  } | undefined
  readonly deliverTask: (change: TaskStatus) => Effect.Effect<void>
}

/** Publishes the instance's list changes on `bus` and delivers the other instances' notifications, for the scope. */
export const connect = (bus: NotificationBus["Service"], local: Local): Effect.Effect<void, never, Scope.Scope> => {
  local.listeners.add((kind) => bus.publish({ _tag: "ListChanged", kind }))
  return bus.listen((notification) => {
    switch (notification._tag) {
      case "ResourceUpdated":
        return local.legacy === undefined ? Effect.void : local.legacy.resourceUpdated(notification.uri)
      case "ListChanged":
        return Effect.andThen(
          PubSub.publish(local.changes, notification.kind),
          local.legacy === undefined ? Effect.void : local.legacy.listChanged(notification.kind)
        )
      case "TaskStatus":
        return local.deliverTask(notification)
      default:
        return Effect.void
    }
  })
}
