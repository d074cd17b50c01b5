/**
 * The time a client spends waiting for its user rather than for a server:
 * the OAuth sign-in (a browser page read, a password typed, a consent given).
 * The request bounds meant for the server's answers (`requestTimeout`, the
 * `server/discover` probe's `probeTimeout`) do not count it: a bound asks
 * `waitedMillis(now)` and moves its end by the time waited since it started.
 *
 * Gotchas: the times are the fiber's `Clock`'s (a `TestClock` moves them);
 * overlapping waits (concurrent requests, one sign-in) count once.
 *
 * Source: MCP 2026-07-28 basic/authorization, basic/lifecycle (timeouts).
 */
import { Clock, Effect } from "effect"

/** Counts the time spent waiting for the user (see the module header). */
export class UserWait {
  private active = 0
  private since = 0
  private total = 0

  /** The milliseconds waited so far, an ongoing wait included up to `now`. */
  readonly waitedMillis = (now: number): number => this.total + (this.active > 0 ? Math.max(0, now - this.since) : 0)

  /** `effect`, its whole run counted as waiting for the user. */
  during<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> {
    return Effect.acquireUseRelease(
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          if (this.active++ === 0) this.since = now
        })),
      () => effect,
      () =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.sync(() => {
            if (--this.active === 0) this.total += Math.max(0, now - this.since)
          }))
    )
  }
}
