/**
 * The bus that carries server notifications between the instances of a
 * fleet, so that a listener connected to one instance hears what happened on
 * another:
 *
 * - `ResourceUpdated`: `McpServer.resourceUpdated(uri)`, which reaches the
 *   2025-11-25 sessions subscribed to `uri` on every instance;
 * - `ListChanged`: a tool, prompt or resource added or removed at run time
 *   (`addTool`, `removeTool`, ...), which reaches the 2026-07-28
 *   `subscriptions/listen` streams and the 2025-11-25 sessions of every
 *   instance as `notifications/<kind>/list_changed`;
 * - `TaskStatus`: a task's status change (Tasks extension), which reaches the
 *   `subscriptions/listen` streams naming the task on every instance as
 *   `notifications/tasks`.
 *
 * `NotificationBus.local` (the default) delivers in process only; the Redis
 * bus of `@mrtr/server/Redis` (`layerNotificationBus`, part of
 * `Redis.layerFleet`, given to `McpServer.layer` as `shared`) publishes on a
 * Redis pub/sub channel.
 *
 * Gotchas: delivery is at most once (Redis pub/sub keeps nothing: an
 * instance whose subscriber is reconnecting misses what is published
 * meanwhile; for tasks `tasks/get` stays the truth); an instance does not
 * hear its own publications back (it has delivered them locally already).
 * An instance that starts announces its own registrations (`McpServer.tools`
 * and the like add them one by one), so listeners on the other instances
 * hear a `list_changed` at each (re)start: clients list again, which is
 * right after a deploy that changed the tools. The kinds are a tagged union:
 * a listener ignores a `_tag` it does not know (a newer instance in a rolling
 * upgrade), and the Redis bus drops messages it cannot decode.
 * Source: MCP 2025-11-25 server/resources (subscriptions); MCP 2026-07-28
 * basic/patterns/subscriptions; ext-tasks §Task Status Notifications;
 * `docs/architecture.md`, "Services a deployment swaps".
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, type Scope } from "effect"

/**
 * A notification carried between instances: a resource (`uri`) was updated.
 *
 * @category models
 * @since 0.1.0
 */
export interface ResourceUpdated {
  readonly _tag: "ResourceUpdated"
  readonly uri: string
}

/**
 * A notification carried between instances: the list of `kind` changed
 * (a tool, prompt or resource was added or removed).
 *
 * @category models
 * @since 0.2.0
 */
export interface ListChanged {
  readonly _tag: "ListChanged"
  readonly kind: "tools" | "prompts" | "resources"
}

/**
 * A notification carried between instances: the task `taskId` changed;
 * `task` is its `DetailedTask` after the change (wire fields, ISO times),
 * `principal` who created it (only their streams hear it; absent for an
 * unauthenticated task).
 *
 * @category models
 * @since 0.2.0
 */
export interface TaskStatus {
  readonly _tag: "TaskStatus"
  readonly taskId: string
  readonly principal?: string | undefined
  readonly task: Readonly<Record<string, unknown>>
}

/**
 * Every kind the bus carries.
 *
 * @category models
 * @since 0.2.0
 */
export type Notification = ResourceUpdated | ListChanged | TaskStatus

/**
 * The bus: `publish` sends a notification to the other instances (never
 * fails: a bus that cannot publish logs and counts it), `listen(deliver)`
 * calls `deliver` for each notification published by another instance, for
 * the lifetime of the current scope.
 *
 * @category services
 * @since 0.1.0
 */
export class NotificationBus extends Context.Service<NotificationBus, {
  readonly publish: (notification: Notification) => Effect.Effect<void>
  readonly listen: (
    deliver: (notification: Notification) => Effect.Effect<void>
  ) => Effect.Effect<void, never, Scope.Scope>
}>()("@mrtr/server/NotificationBus") {
  /**
   * The single-instance bus: publishes nowhere, hears nothing.
   *
   * @since 0.1.0
   */
  static readonly local: Layer.Layer<NotificationBus> = Layer.succeed(NotificationBus, {
    publish: () => Effect.void,
    listen: () => Effect.void
  })
}
