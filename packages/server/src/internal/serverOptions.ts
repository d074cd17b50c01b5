/**
 * Checks the options of `McpServer.layer` before anything is built, so a bad
 * one is a typed failure of the Layer (`InvalidOption`, naming the option and
 * the value) rather than a throw, a NaN bound or a server that never expires
 * anything. Durations are parsed here, once.
 */
import { InvalidOption } from "@mrtr/core"
import { Duration, Effect } from "effect"
import type { TaskOptions } from "./taskRunner.ts"

const LAYER = "McpServer.layer"

/** The options checked here (a subset of `McpServer.Options`, so this module needs nothing of `McpServer.ts`). */
export interface CheckedOptions {
  /** `McpServer.Options.name`: a non-empty string. */
  readonly name: string
  /** `McpServer.Options.version`: a non-empty string. */
  readonly version: string
  /** `McpServer.Options.cache`. @default { ttlMs: 0, cacheScope: "private" } */
  readonly cache?: { readonly ttlMs: number; readonly cacheScope: "public" | "private" } | undefined
  /** `McpServer.Options.maxRounds`. @default 16 */
  readonly maxRounds?: number | undefined
  /** `McpServer.Options.maxJournalBytes`. @default 32_768 */
  readonly maxJournalBytes?: number | undefined
  /** `McpServer.Options.legacy` (see `McpServer.LegacyOptions`). @default {} */
  readonly legacy?:
    | {
      readonly maxSessions?: number | undefined
      readonly maxSessionsPerPrincipal?: number | undefined
      readonly sessionIdleTimeout?: Duration.Input | undefined
      readonly maxPendingInputs?: number | undefined
      readonly inputTimeout?: Duration.Input | undefined
    }
    | false
    | undefined
  /** `McpServer.Options.tasks`. @default {} */
  readonly tasks?: TaskOptions | undefined
}

/** The bounds of the 2025-11-25 wire, in the units the sessions use. */
export interface LegacyLimits {
  readonly maxSessions: number
  readonly maxSessionsPerShare: number
  readonly idleTimeoutMs: number
  readonly maxPendingLegs: number
  readonly legTimeoutMs: number
}

const positiveInteger = (option: string, value: number | undefined): Effect.Effect<void, InvalidOption> =>
  value === undefined || (Number.isSafeInteger(value) && value > 0)
    ? Effect.void
    : Effect.fail(InvalidOption.of(LAYER, option, value, "a positive integer"))

const nonNegative = (option: string, value: number | undefined): Effect.Effect<void, InvalidOption> =>
  value === undefined || (Number.isFinite(value) && value >= 0)
    ? Effect.void
    : Effect.fail(InvalidOption.of(LAYER, option, value, "a finite number ≥ 0"))

const positive = (option: string, value: number | undefined): Effect.Effect<void, InvalidOption> =>
  value === undefined || (Number.isFinite(value) && value > 0)
    ? Effect.void
    : Effect.fail(InvalidOption.of(LAYER, option, value, "a finite number > 0"))

const millisOf = (option: string, value: Duration.Input | undefined, fallback: Duration.Input) => {
  const given = value ?? fallback
  const parsed = Duration.fromInput(given)
  return parsed._tag === "Some" && Duration.isFinite(parsed.value) && Duration.toMillis(parsed.value) > 0
    ? Effect.succeed(Duration.toMillis(parsed.value))
    : Effect.fail(InvalidOption.of(LAYER, option, given, "a finite, positive duration"))
}

const nonEmpty = (option: string, value: string): Effect.Effect<void, InvalidOption> =>
  typeof value === "string" && value.trim() !== ""
    ? Effect.void
    : Effect.fail(InvalidOption.of(LAYER, option, value, "a non-empty string"))

/**
 * Checks `options` and returns the 2025-11-25 limits (`undefined` when that
 * wire is off); fails with the first `InvalidOption`.
 */
export const check = Effect.fnUntraced(function*(options: CheckedOptions) {
  yield* nonEmpty("name", options.name)
  yield* nonEmpty("version", options.version)
  if (options.cache !== undefined) {
    yield* nonNegative("cache.ttlMs", options.cache.ttlMs)
    if (options.cache.cacheScope !== "public" && options.cache.cacheScope !== "private") {
      return yield* InvalidOption.of(LAYER, "cache.cacheScope", options.cache.cacheScope, `"public" or "private"`)
    }
  }
  yield* positiveInteger("maxRounds", options.maxRounds)
  yield* positiveInteger("maxJournalBytes", options.maxJournalBytes)
  const tasks = options.tasks ?? {}
  if (tasks.ttlMs !== null) yield* positive("tasks.ttlMs", tasks.ttlMs)
  yield* positive("tasks.pollIntervalMs", tasks.pollIntervalMs)
  yield* positive("tasks.leaseMs", tasks.leaseMs)
  yield* positive("tasks.heartbeatMs", tasks.heartbeatMs)
  if (options.legacy === false) return undefined
  const legacy = options.legacy ?? {}
  yield* positiveInteger("legacy.maxSessions", legacy.maxSessions)
  yield* positiveInteger("legacy.maxSessionsPerPrincipal", legacy.maxSessionsPerPrincipal)
  yield* positiveInteger("legacy.maxPendingInputs", legacy.maxPendingInputs)
  const maxSessions = legacy.maxSessions ?? 1000
  const limits: LegacyLimits = {
    maxSessions,
    maxSessionsPerShare: Math.min(maxSessions, legacy.maxSessionsPerPrincipal ?? 100),
    idleTimeoutMs: yield* millisOf("legacy.sessionIdleTimeout", legacy.sessionIdleTimeout, "30 minutes"),
    maxPendingLegs: legacy.maxPendingInputs ?? 64,
    legTimeoutMs: yield* millisOf("legacy.inputTimeout", legacy.inputTimeout, "5 minutes")
  }
  return limits
})
