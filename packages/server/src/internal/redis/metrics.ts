/**
 * The metric every Redis-backed service of the server counts its failures
 * in, defined once here so that `Redis.ts` and the implementations under
 * `internal/redis/` share it without importing each other.
 */
import { Metric } from "effect"

/** `mrtr_redis_errors_total`, by `operation`; see `Redis.redisErrorsTotal`. */
export const redisErrorsTotal = Metric.counter("mrtr_redis_errors_total", {
  description: "Redis operations of the MRTR server that failed (unreachable, timed out, or an error reply)",
  incremental: true
})
