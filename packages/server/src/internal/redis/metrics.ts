/**
 * How every Redis-backed service of the server meets a failing Redis: the
 * metric it counts failures in, the report (count and log), and a command
 * bounded by a timeout whose failures become the service's own typed error;
 * defined once here so that `Redis.ts` and the implementations under
 * `internal/redis/` share them without importing each other.
 */
import { Duration, Effect, Metric } from "effect"
import type * as Redis from "effect/persistence/Redis"

/** `mrtr_redis_errors_total`, by `operation`; see `Redis.redisErrorsTotal`. */
export const redisErrorsTotal = Metric.counter("mrtr_redis_errors_total", {
  description: "Redis operations of the MRTR server that failed (unreachable, timed out, or an error reply)",
  incremental: true
})

/**
 * What every Redis-backed service does when Redis fails an `operation`:
 * counts it in `mrtr_redis_errors_total{operation}` and logs `message` at
 * `level` (Warning by default) with the cause, annotated
 * `mrtr.redis.operation`. The caller then fails with its own typed error.
 */
export const reportFailure = (
  operation: string,
  message: string,
  cause: unknown,
  level: "Warning" | "Error" = "Warning"
): Effect.Effect<void> =>
  Effect.andThen(
    Metric.update(Metric.withAttributes(redisErrorsTotal, { operation }), 1),
    (level === "Error" ? Effect.logError(message, cause) : Effect.logWarning(message, cause)).pipe(
      Effect.annotateLogs({ "mrtr.redis.operation": operation })
    )
  )

/**
 * `redis.send` bounded by `timeout`: a command without an answer in time, or
 * failing with a `RedisError`, becomes `failed(reason, cause)` (the caller's
 * typed failure, which reports it with {@link reportFailure}).
 */
export const boundedSend = <E>(
  redis: Redis.Redis["Service"],
  timeout: Duration.Duration,
  failed: (reason: string, cause: unknown) => Effect.Effect<never, E>
) =>
<A>(command: string, ...args: ReadonlyArray<string>): Effect.Effect<A, E> =>
  redis.send<A>(command, ...args).pipe(
    Effect.catchTag("RedisError", (error) => failed(String(error.cause), error.cause)),
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () => failed(`no answer within ${Duration.format(timeout)}`, undefined)
    })
  )
