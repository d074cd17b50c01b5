/**
 * The Redis replay guard's share of `mrtr_replay_guard_entries{store="redis"}`:
 * each instance counts the ids it redeemed first, bucketed by the second
 * their state expires, and subtracts a bucket once that second has passed
 * (on each redemption, and every second by a fiber in the guard's scope when
 * it has one). Cheap: no Redis command, at most one bucket per second of
 * the states' TTL. Approximate: the fleet's sum is the keys Redis holds,
 * except the share of an instance that restarted.
 */
import { RequestState } from "@mrtr/core"
import { Effect, Metric, Schedule, Scope } from "effect"

const entries = Metric.withAttributes(RequestState.replayGuardEntries, { store: "redis" })

/** A counter of this instance's live redeemed ids; `run` keeps it current while the current scope (if any) is open. */
export const makeEntryCounter = Effect.gen(function*() {
  const buckets = new Map<number, number>()
  const drain = Effect.clockWith((clock) => {
    const now = Math.floor(clock.currentTimeMillisUnsafe() / 1000)
    let gone = 0
    for (const [second, count] of buckets) {
      if (second >= now) continue
      gone += count
      buckets.delete(second)
    }
    return gone === 0 ? Effect.void : Metric.modify(entries, -gone)
  })
  const scope = yield* Effect.serviceOption(Scope.Scope)
  if (scope._tag === "Some") {
    yield* Effect.forkIn(Effect.repeat(drain, Schedule.spaced("1 second")), scope.value)
  }
  return {
    /** One more id, held until `expiresAt` (epoch ms). */
    added: (expiresAt: number) =>
      Effect.andThen(
        drain,
        Effect.andThen(
          Effect.sync(() => {
            const second = Math.floor(expiresAt / 1000)
            buckets.set(second, (buckets.get(second) ?? 0) + 1)
          }),
          Metric.modify(entries, 1)
        )
      )
  }
})
