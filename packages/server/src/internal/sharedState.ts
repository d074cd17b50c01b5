/**
 * Which `ReplayGuard`, `NotificationBus`, `InteractionStore` and `TaskStore`
 * the server's default configuration uses: the Redis ones (`../Redis.ts`,
 * loaded on demand so the `redis` client is only imported when it is used)
 * when `MRTR_REDIS_URL` is set, else the in-memory ones; whether single use
 * is on by configuration (`MRTR_SINGLE_USE`); the task lease
 * (`MRTR_TASK_LEASE`).
 * Source: `docs/architecture.md`, "Services a deployment swaps".
 */
import { Config, type Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import type { RedisError } from "effect/persistence/Redis"
import { InteractionStore, RequestState } from "@mrtr/core"
import { NotificationBus } from "../NotificationBus.ts"
import * as TaskStore from "../TaskStore.ts"
import { SessionDirectory } from "../SessionDirectory.ts"

/** `MRTR_SINGLE_USE` (a boolean: `true`/`false`, `yes`/`no`, `1`/`0`; default false). */
export const singleUseConfigName = "MRTR_SINGLE_USE"

/** `MRTR_REDIS_URL`, the Redis of the fleet's shared state (see `../Redis.ts`). */
export const redisUrlConfigName = "MRTR_REDIS_URL"

/** Single use from configuration. */
export const singleUseConfig: Config.Config<boolean> = Config.Boolean(singleUseConfigName).pipe(
  Config.withDefault(false)
)

const redisUrl = Config.option(Config.Redacted(redisUrlConfigName)).pipe(
  Config.map(Option.filter((url) => Redacted.value(url).trim() !== ""))
)

type RedisModule = typeof import("../Redis.ts")

/**
 * `local` without `MRTR_REDIS_URL` (or with it empty); else the Redis layer
 * `shared` builds on the URL, the Redis module (and its `redis` client)
 * loaded only then.
 */
const byRedisUrl = <I>(
  local: Layer.Layer<I>,
  shared: (Redis: RedisModule, url: string) => Layer.Layer<I, RedisError>
): Layer.Layer<I, Config.ConfigError | RedisError> =>
  Layer.unwrap(
    Effect.flatMap(redisUrl, (url) =>
      Option.isNone(url)
        ? Effect.succeed(local)
        : Effect.map(Effect.promise(() => import("../Redis.ts")), (Redis) => shared(Redis, Redacted.value(url.value))))
  )

/** The service `key` when the application provides it, else `fallback`. */
const providedOr = <I, S, E>(key: Context.Key<I, S>, fallback: Layer.Layer<I, E>): Layer.Layer<I, E> =>
  Layer.unwrap(
    Effect.map(Effect.serviceOption(key), (provided) => Option.isSome(provided) ? Layer.succeed(key, provided.value) : fallback)
  )

/**
 * The notification bus: one the application provides wins; else Redis
 * pub/sub when `MRTR_REDIS_URL` is set (and not empty); else in process.
 */
export const notificationBusLayer: Layer.Layer<NotificationBus, Config.ConfigError | RedisError> = providedOr(
  NotificationBus,
  byRedisUrl(NotificationBus.local, (Redis, url) => Redis.layerNotificationBusUrl(url))
)

/**
 * The replay guard single use redeems through: a `ReplayGuard` the
 * application provides wins; else Redis when `MRTR_REDIS_URL` is set (and not
 * empty); else in memory.
 */
export const replayGuardLayer: Layer.Layer<RequestState.ReplayGuard, Config.ConfigError | RedisError> = providedOr(
  RequestState.ReplayGuard,
  byRedisUrl(RequestState.ReplayGuard.layerMemory, (Redis, url) => Redis.layerReplayGuardUrl(url))
)

/**
 * The interaction store of the interaction page: one the application
 * provides (to `InteractionPage.layer`) wins; else Redis when
 * `MRTR_REDIS_URL` is set (and not empty), so a page completed on one
 * instance resumes the conversation on another; else in memory.
 */
export const interactionStoreLayer: Layer.Layer<
  InteractionStore.InteractionStore,
  Config.ConfigError | RedisError
> = providedOr(
  InteractionStore.InteractionStore,
  byRedisUrl(InteractionStore.InteractionStore.layerMemory(), (Redis, url) => Redis.layerInteractionStoreUrl(url))
)

/**
 * The task store of the default configuration: Redis when `MRTR_REDIS_URL`
 * is set (and not empty), so every instance of a fleet sees, answers and
 * resumes every task; else in memory.
 */
export const taskStoreLayer: Layer.Layer<TaskStore.TaskStore, Config.ConfigError | RedisError> = byRedisUrl(
  TaskStore.layerMemory(),
  (Redis, url) => Redis.layerTaskStoreUrl(url)
)

/**
 * `MRTR_TASK_LEASE`: how long a task's owner holds it without renewing (a
 * duration, e.g. `15 seconds`; see `TaskOptions.leaseMs`); absent: the
 * server's option or its default.
 */
export const taskLeaseConfigName = "MRTR_TASK_LEASE"

/** The task lease from configuration, in milliseconds, if set. */
export const taskLeaseConfig: Config.Config<Option.Option<number>> = Config.option(
  Config.Duration(taskLeaseConfigName)
).pipe(Config.map(Option.map(Duration.toMillis)))

/**
 * The directory of 2025-11-25 sessions: one the application provides wins;
 * else Redis when `MRTR_REDIS_URL` is set (and not empty), so sessions work
 * behind a balancer without affinity; else this process only.
 */
export const sessionDirectoryLayer: Layer.Layer<SessionDirectory, Config.ConfigError | RedisError> = providedOr(
  SessionDirectory,
  byRedisUrl(SessionDirectory.local, (Redis, url) => Redis.layerSessionDirectoryUrl(url))
)
