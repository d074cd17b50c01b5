/**
 * The time a client spends signing in rather than waiting for the MCP
 * server's answer: the OAuth sign-in a `401` (or a `403
 * insufficient_scope`) starts, the person at the consent page above all
 * (minutes), and the authorization server's exchanges, each bounded on its
 * own (`Authorization`'s `timeout`). The bounds meant for the MCP server's
 * answers (`requestTimeout`, the `server/discover` probe's `probeTimeout`)
 * do not count it: a bound asks `signInMillis(now)` and moves its end by the
 * time signed in since it started.
 *
 * Gotchas: the times are the fiber's `Clock`'s (a `TestClock` moves them);
 * overlapping sign-ins (concurrent requests waiting for one) count once.
 *
 * Source: MCP 2026-07-28 basic/authorization, basic/lifecycle (timeouts).
 */
import { Clock, Effect } from "effect"

/** Counts the time spent signing in (see the module header). */
export class SignInTime {
  private active = 0
  private since = 0
  private total = 0

  /** The milliseconds spent signing in so far, an ongoing sign-in included up to `now`. */
  readonly signInMillis = (now: number): number => this.total + (this.active > 0 ? Math.max(0, now - this.since) : 0)

  /** `effect`, its whole run counted as signing in. */
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
