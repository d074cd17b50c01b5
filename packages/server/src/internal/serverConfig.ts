/**
 * The `MRTR_*` variables `McpServer.layerConfig` reads, through
 * `effect/Config` (so a `ConfigProvider` may supply them): the key ring and
 * expiry of `requestState` (`@mrtr/core`'s `KeyRing.fromConfig` and
 * `RequestState.ttlFromConfig`), single use, and the task lease. The Redis
 * URL of a fleet is `Redis.layerFleetConfig`'s.
 */
import { RequestState } from "@mrtr/core"
import { Config, Duration, Effect } from "effect"

/** `MRTR_SINGLE_USE` (a boolean: `true`/`false`, `yes`/`no`, `1`/`0`; default false). */
export const singleUseConfigName = "MRTR_SINGLE_USE"

/** `MRTR_TASK_LEASE`: how long a task's owner holds it without renewing (a Duration such as `15 seconds`). */
export const taskLeaseConfigName = "MRTR_TASK_LEASE"

/** What `McpServer.layerConfig` configures from the environment. */
export interface ServerConfig {
  /** The request-state keys (`MRTR_REQUEST_STATE_KEYS`; a random key ring when absent). */
  readonly keyRing: RequestState.KeyRing
  /** The lifetime of a sealed state (`MRTR_REQUEST_STATE_TTL`). */
  readonly ttl: Duration.Duration
  /** Whether a state unseals at most once (`MRTR_SINGLE_USE`). */
  readonly singleUse: boolean

  /** `undefined` when the variable is absent. */
  readonly taskLeaseMs: number | undefined
}

/** Reads the variables; fails with a `ConfigError` naming the malformed one. */
export const read: Effect.Effect<ServerConfig, Config.ConfigError> = Effect.gen(function*() {
  const { singleUse, taskLease } = yield* Config.all({
    singleUse: Config.Boolean(singleUseConfigName).pipe(Config.withDefault(false)),
    taskLease: Config.Duration(taskLeaseConfigName).pipe(Config.option)
  })
  return {
    keyRing: yield* RequestState.KeyRing.fromConfig,
    ttl: yield* RequestState.ttlFromConfig,
    singleUse,
    taskLeaseMs: taskLease._tag === "Some" ? Duration.toMillis(taskLease.value) : undefined
  }
})
