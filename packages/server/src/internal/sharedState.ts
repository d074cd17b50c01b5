/**
 * Which `ReplayGuard`, `NotificationBus`, `InteractionStore` and `TaskStore`
 * the server's default configuration uses: the Redis ones (`../Redis.ts`,
 * loaded on demand so the `redis` client is only imported when it is used)
 * when `MRTR_REDIS_URL` is set, else the in-memory ones; whether single use
 * is on by configuration (`MRTR_SINGLE_USE`); the task lease
 * (`MRTR_TASK_LEASE`).
 * Source: DESIGN.md, "Services a deployment swaps".
 */
import { Config, Duration, Effect, Layer, Option, Redacted } from "effect"
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

/**
 * The notification bus: one the application provides wins; else Redis
 * pub/sub when `MRTR_REDIS_URL` is set (and not empty); else in process.
 */
export const notificationBusLayer: Layer.Layer<NotificationBus, Config.ConfigError | RedisError> = Layer.unwrap(
  Effect.flatMap(Effect.serviceOption(NotificationBus), (provided) =>
    Option.isSome(provided)
      ? Effect.succeed(Layer.succeed(NotificationBus, provided.value))
      : Effect.flatMap(redisUrl, (url) =>
        Option.isNone(url)
          ? Effect.succeed(NotificationBus.local)
          : Effect.map(
            Effect.promise(() => import("../Redis.ts")),
            (Redis) => Redis.layerNotificationBusUrl(Redacted.value(url.value))
          )))
)

const configuredGuard: Layer.Layer<RequestState.ReplayGuard, Config.ConfigError | RedisError> = Layer.unwrap(
  Effect.flatMap(redisUrl, (url) =>
    Option.isNone(url)
      ? Effect.succeed(RequestState.ReplayGuard.layerMemory)
      : Effect.map(
        Effect.promise(() => import("../Redis.ts")),
        (Redis) => Redis.layerReplayGuardUrl(Redacted.value(url.value))
      ))
)

/**
 * The replay guard single use redeems through: a `ReplayGuard` the
 * application provides wins; else Redis when `MRTR_REDIS_URL` is set (and not
 * empty); else in memory.
 */
export const replayGuardLayer: Layer.Layer<RequestState.ReplayGuard, Config.ConfigError | RedisError> = Layer.unwrap(
  Effect.map(
    Effect.serviceOption(RequestState.ReplayGuard),
    (provided) => Option.isSome(provided) ? Layer.succeed(RequestState.ReplayGuard, provided.value) : configuredGuard
  )
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
> = Layer.unwrap(
  Effect.flatMap(Effect.serviceOption(InteractionStore.InteractionStore), (provided) =>
    Option.isSome(provided)
      ? Effect.succeed(Layer.succeed(InteractionStore.InteractionStore, provided.value))
      : Effect.flatMap(redisUrl, (url) =>
        Option.isNone(url)
          ? Effect.succeed(InteractionStore.InteractionStore.layerMemory())
          : Effect.map(
            Effect.promise(() => import("../Redis.ts")),
            (Redis) => Redis.layerInteractionStoreUrl(Redacted.value(url.value))
          )))
)

/**
 * The task store of the default configuration: Redis when `MRTR_REDIS_URL`
 * is set (and not empty), so every instance of a fleet sees, answers and
 * resumes every task; else in memory.
 */
export const taskStoreLayer: Layer.Layer<TaskStore.TaskStore, Config.ConfigError | RedisError> = Layer.unwrap(
  Effect.flatMap(redisUrl, (url) =>
    Option.isNone(url)
      ? Effect.succeed(TaskStore.layerMemory())
      : Effect.map(
        Effect.promise(() => import("../Redis.ts")),
        (Redis) => Redis.layerTaskStoreUrl(Redacted.value(url.value))
      ))
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
export const sessionDirectoryLayer: Layer.Layer<SessionDirectory, Config.ConfigError | RedisError> = Layer.unwrap(
  Effect.flatMap(Effect.serviceOption(SessionDirectory), (provided) =>
    Option.isSome(provided)
      ? Effect.succeed(Layer.succeed(SessionDirectory, provided.value))
      : Effect.flatMap(redisUrl, (url) =>
        Option.isNone(url)
          ? Effect.succeed(SessionDirectory.local)
          : Effect.map(
            Effect.promise(() => import("../Redis.ts")),
            (Redis) => Redis.layerSessionDirectoryUrl(Redacted.value(url.value))
          )))
)
