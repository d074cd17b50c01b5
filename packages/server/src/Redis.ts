/**
 * Shared state of a fleet on Redis: the connection (`effect/persistence/Redis`
 * on `@effect/platform-node`'s `NodeRedis`, the `redis` client) and the
 * fleet-wide single-use `ReplayGuard` on it. Imported as
 * `@mrtr/server/Redis`; `McpServer.layer` loads it on demand when
 * `MRTR_REDIS_URL` is set, so a server that never uses Redis never loads the
 * `redis` client (an optional peer dependency).
 *
 * Gotchas:
 * - Redemption is one atomic `SET <prefix><jti> 1 NX PXAT <expiresAt>`: the
 *   first instance to redeem a state wins, every other one sees it redeemed,
 *   and Redis forgets the id exactly when the state expires.
 * - Unreachable Redis fails closed: a single-use state cannot be redeemed
 *   (`ReplayGuardUnavailable`, JSON-RPC -32603, counted in
 *   `mrtr_redis_errors_total`, logged at Warning) rather than accepted. The
 *   client is offline-queue free: a command sent while the connection is
 *   down fails at once instead of waiting for the reconnection, and every
 *   command is bounded by a timeout, so nothing hangs. The client reconnects
 *   by itself (exponential backoff up to 2 s); service resumes with it.
 * - At start-up an unreachable Redis fails the layer with a `RedisError`.
 * - Per-principal bounds of the in-memory guard do not apply: Redis'
 *   `maxmemory` bounds the guard (use `noeviction`, never an evicting policy,
 *   or a redeemed id could be forgotten and its state replayed).
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr ("One-time use must be enforced
 * server-side"); DESIGN.md, "Services a deployment swaps".
 *
 * @since 0.1.0
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { Config, Duration, Effect, Layer, Metric, Queue, Redacted, Schema } from "effect"
import * as Redis from "effect/persistence/Redis"
import { RequestState } from "@mrtr/core"
import { NotificationBus } from "./NotificationBus.ts"

/**
 * Name of the environment variable with the Redis URL
 * (`redis://[[user]:password@]host:port[/db]`, or `rediss://` for TLS).
 * When set, `McpServer.layer` shares single use (and future fleet state)
 * through this Redis.
 *
 * @since 0.1.0
 */
export const urlConfigName = "MRTR_REDIS_URL"

/**
 * Counter of failed Redis operations (unreachable, timed out, error reply),
 * by `operation` (`connect`, `redeem`, `publish`, `subscribe`).
 *
 * @since 0.1.0
 */
export const redisErrorsTotal = Metric.counter("mrtr_redis_errors_total", {
  description: "Redis operations of the MRTR server that failed (unreachable, timed out, or an error reply)",
  incremental: true
})

/**
 * Counter of single-use redemptions, by `outcome` (`first`, `replayed`) and
 * `store` (`redis`, `memory`); defined in `@mrtr/core`'s `ReplayGuard`.
 *
 * @since 0.1.0
 */
export const replayGuardRedemptionsTotal = RequestState.replayGuardRedemptionsTotal

/**
 * Options of the Redis connection ({@link layerClient}).
 *
 * - `url`: the Redis URL (see {@link urlConfigName}).
 * - `connectTimeout`: how long the initial connection (and each reconnection
 *   attempt) may take, default 2 seconds.
 *
 * @since 0.1.0
 */
export interface ClientOptions {
  readonly url: string
  readonly connectTimeout?: Duration.Input | undefined
}

/**
 * The `Redis` service of `effect/persistence/Redis` (and `NodeRedis`) on a
 * `redis` client configured for a fleet: no offline queue (a command while
 * disconnected fails at once), a bounded connection time, reconnection with
 * backoff once connected. Fails with a `RedisError` when Redis cannot be
 * reached at start-up (logged, counted under `operation: "connect"`).
 *
 * @since 0.1.0
 */
export const layerClient = (options: ClientOptions): Layer.Layer<Redis.Redis | NodeRedis.NodeRedis, Redis.RedisError> =>
  NodeRedis.layer({
    url: options.url,
    disableOfflineQueue: true,
    socket: { connectTimeout: Duration.toMillis(Duration.fromInputUnsafe(options.connectTimeout ?? "2 seconds")) }
  }).pipe(
    Layer.tapError((error) =>
      Effect.andThen(
        Metric.update(Metric.withAttributes(redisErrorsTotal, { operation: "connect" }), 1),
        Effect.logError("Redis is unreachable: the server cannot start with shared state", error.cause).pipe(
          Effect.annotateLogs({ "mrtr.redis.operation": "connect" })
        )
      )
    )
  )

/**
 * {@link layerClient} with the URL from `MRTR_REDIS_URL` (required here: a
 * missing value is a `ConfigError`).
 *
 * @since 0.1.0
 */
export const layerClientConfig: Layer.Layer<Redis.Redis | NodeRedis.NodeRedis, Redis.RedisError | Config.ConfigError> =
  Layer.unwrap(Effect.map(Config.Redacted(urlConfigName), (url) => layerClient({ url: Redacted.value(url) })))

/**
 * Options of the Redis `ReplayGuard` ({@link makeReplayGuard}).
 *
 * - `prefix`: prefix of the keys, default `"mrtr:jti:"`. Instances of one
 *   fleet must share it; servers of different audiences may too (ids are
 *   random 128-bit values).
 * - `timeout`: most time one redemption may wait for Redis, default 1
 *   second; past it the redemption fails with `ReplayGuardUnavailable`.
 *
 * @since 0.1.0
 */
export interface ReplayGuardOptions {
  readonly prefix?: string | undefined
  readonly timeout?: Duration.Input | undefined
}

const unavailable = (reason: string, cause: unknown) =>
  Effect.andThen(
    Metric.update(Metric.withAttributes(redisErrorsTotal, { operation: "redeem" }), 1),
    Effect.andThen(
      Effect.logWarning(`Redis is unavailable (${reason}): single-use requestState cannot be redeemed`, cause).pipe(
        Effect.annotateLogs({ "mrtr.redis.operation": "redeem" })
      ),
      Effect.fail(new RequestState.ReplayGuardUnavailable({ store: "redis", reason }))
    )
  )

const redeemed = (outcome: "first" | "replayed") =>
  Metric.update(Metric.withAttributes(replayGuardRedemptionsTotal, { outcome, store: "redis" }), 1)

/**
 * A fleet-wide `ReplayGuard` on the `Redis` service: `redeem(jti,
 * expiresAt)` is `SET <prefix><jti> 1 NX PXAT <expiresAt>`, `true` when the
 * key was set (the first redemption anywhere in the fleet), `false` when it
 * existed. Fails with `ReplayGuardUnavailable` (never `false`, never a
 * hang) when Redis does not answer within `timeout` or answers an error.
 *
 * @since 0.1.0
 */
export const makeReplayGuard = (
  options?: ReplayGuardOptions
): Effect.Effect<RequestState.ReplayGuard["Service"], never, Redis.Redis> =>
  Effect.map(Effect.service(Redis.Redis), (redis) => {
    const prefix = options?.prefix ?? "mrtr:jti:"
    const timeout = Duration.fromInputUnsafe(options?.timeout ?? "1 second")
    return RequestState.ReplayGuard.of({
      redeem: (jti, expiresAt) =>
        redis.send<string | null>("SET", prefix + jti, "1", "NX", "PXAT", String(Math.ceil(expiresAt))).pipe(
          Effect.timeoutOrElse({
            duration: timeout,
            orElse: () => unavailable(`no answer within ${Duration.format(timeout)}`, undefined)
          }),
          Effect.catchTag("RedisError", (error) => unavailable(String(error.cause), error.cause)),
          Effect.flatMap((reply) => {
            const first = reply === "OK"
            return Effect.as(redeemed(first ? "first" : "replayed"), first)
          })
        )
    })
  })

/**
 * The Redis `ReplayGuard` as a Layer on a provided `Redis` service.
 *
 * @since 0.1.0
 */
export const layerReplayGuard = (
  options?: ReplayGuardOptions
): Layer.Layer<RequestState.ReplayGuard, never, Redis.Redis> =>
  Layer.effect(RequestState.ReplayGuard, makeReplayGuard(options))

/**
 * The Redis `ReplayGuard` with its own connection to `url`.
 *
 * @since 0.1.0
 */
export const layerReplayGuardUrl = (
  url: string,
  options?: ReplayGuardOptions
): Layer.Layer<RequestState.ReplayGuard, Redis.RedisError> =>
  layerReplayGuard(options).pipe(Layer.provide(layerClient({ url })))

const BusMessage = Schema.fromJsonString(Schema.Struct({
  origin: Schema.String,
  _tag: Schema.Literal("ResourceUpdated"),
  uri: Schema.String
}))
const decodeBusMessage = Schema.decodeUnknownOption(BusMessage)
const encodeBusMessage = Schema.encodeSync(BusMessage)

/**
 * Options of the Redis {@link NotificationBus} ({@link layerNotificationBus}).
 *
 * - `channel`: the pub/sub channel, default `"mrtr:notifications"`; every
 *   instance of a fleet must use the same.
 *
 * @since 0.1.0
 */
export interface NotificationBusOptions {
  readonly channel?: string | undefined
}

/**
 * A fleet-wide {@link NotificationBus} on Redis pub/sub: `publish` is
 * `PUBLISH <channel> {"origin","_tag","uri"}`, `listen` subscribes to the
 * channel and skips the instance's own messages (and malformed ones). A
 * publish that fails is logged and counted (`operation: "publish"`), never
 * failed: the local delivery has happened already.
 *
 * @since 0.1.0
 */
export const layerNotificationBus = (
  options?: NotificationBusOptions
): Layer.Layer<NotificationBus, never, Redis.Redis> =>
  Layer.effect(
    NotificationBus,
    Effect.map(Effect.service(Redis.Redis), (redis) => {
      const channel = options?.channel ?? "mrtr:notifications"
      const origin = crypto.randomUUID()
      const failed = (operation: string) => (error: Redis.RedisError) =>
        Effect.andThen(
          Metric.update(Metric.withAttributes(redisErrorsTotal, { operation }), 1),
          Effect.logWarning(`Redis is unavailable: notification ${operation} failed`, error.cause).pipe(
            Effect.annotateLogs({ "mrtr.redis.operation": operation })
          )
        )
      return NotificationBus.of({
        publish: (notification) =>
          redis.send("PUBLISH", channel, encodeBusMessage({ origin, ...notification })).pipe(
            Effect.timeout("1 second"),
            Effect.catchTag("RedisError", failed("publish")),
            Effect.catchTag("TimeoutError", () => failed("publish")(new Redis.RedisError({ cause: "timeout" }))),
            Effect.asVoid
          ),
        listen: (deliver) =>
          Effect.flatMap(redis.subscribe(channel), (queue) =>
            Effect.forkScoped(
              Effect.forever(Effect.flatMap(Queue.take(queue), (message) => {
                const decoded = decodeBusMessage(message.message)
                if (decoded._tag === "None" || decoded.value.origin === origin) return Effect.void
                return deliver({ _tag: "ResourceUpdated", uri: decoded.value.uri })
              })).pipe(Effect.catch((error) => failed("subscribe")(error as Redis.RedisError)))
            )).pipe(Effect.asVoid)
      })
    })
  )

/**
 * The Redis {@link NotificationBus} with its own connection to `url`.
 *
 * @since 0.1.0
 */
export const layerNotificationBusUrl = (
  url: string,
  options?: NotificationBusOptions
): Layer.Layer<NotificationBus, Redis.RedisError> =>
  layerNotificationBus(options).pipe(Layer.provide(layerClient({ url })))
