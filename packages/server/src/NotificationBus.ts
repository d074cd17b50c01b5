/**
 * The bus that carries server notifications between the instances of a
 * fleet, so that a listener connected to one instance hears what happened on
 * another: today `McpServer.resourceUpdated(uri)`, which reaches the
 * 2025-11-25 sessions subscribed to `uri` on every instance.
 *
 * `NotificationBus.local` (the default) delivers in process only; the Redis
 * bus of `@mrtr/server/Redis` (`layerNotificationBus`, used by
 * `McpServer.layer` when `MRTR_REDIS_URL` is set) publishes on a Redis
 * pub/sub channel.
 *
 * Gotchas: delivery is at most once (Redis pub/sub keeps nothing: an
 * instance whose subscriber is reconnecting misses what is published
 * meanwhile); an instance does not hear its own publications back (it has
 * delivered them locally already). List changes stay per instance: every
 * instance of a fleet registers the same tools.
 * Source: MCP 2025-11-25 server/resources (subscriptions); DESIGN.md,
 * "Services a deployment swaps".
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, type Scope } from "effect"

/**
 * A notification carried between instances: a resource (`uri`) was updated.
 *
 * @since 0.1.0
 */
export interface ResourceUpdated {
  readonly _tag: "ResourceUpdated"
  readonly uri: string
}

/**
 * The bus: `publish` sends a notification to the other instances (never
 * fails: a bus that cannot publish logs and counts it), `listen(deliver)`
 * calls `deliver` for each notification published by another instance, for
 * the lifetime of the current scope.
 *
 * @since 0.1.0
 */
export class NotificationBus extends Context.Service<NotificationBus, {
  readonly publish: (notification: ResourceUpdated) => Effect.Effect<void>
  readonly listen: (deliver: (notification: ResourceUpdated) => Effect.Effect<void>) => Effect.Effect<void, never, Scope.Scope>
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
