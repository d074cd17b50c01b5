/**
 * The metric every Redis-backed service of the server counts its failures
 * in, defined once here so that `Redis.ts` and the implementations under
 * `internal/redis/` share it without importing each other.
 */
import { Effect, Metric } from "effect"

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
