/**
 * A time bound on an effect that costs one fiber and one `setTimeout`: the
 * client's `requestTimeout` (re-armed while the stream speaks) and
 * `callTimeout`, which every MRTR round pays.
 *
 * `Effect.timeout` and `Effect.raceFirst` fork the effect and a sleeping
 * fiber, then interrupt the loser: two fibers, an interruption and effect's
 * timer per bound: about 15 µs of the client's own 60 µs per round in
 * process (both bounds), of which this saves about half. Here the effect runs in one child fiber and the bound is a plain
 * timer whose callback asks `left()` how long remains (a bound that moves
 * re-arms it) and, when nothing remains, interrupts the child and fails.
 *
 * Gotchas:
 * - Only under effect's default `Clock`: under another (`TestClock`, a
 *   user's) the same bound runs as a race against `Clock.sleep`, so tests
 *   that move a `TestClock` still see it.
 * - An expired bound fails at once: the child (detached) is interrupted
 *   and its finalizers run after, as `Effect.timeout`'s loser's do; an
 *   interrupted caller interrupts the child the same way.
 * - A timeout below zero (`-Infinity` included) expires at once; only an
 *   infinite one turns a bound off (`boundMillis`).
 */
import { Clock, Duration, Effect } from "effect"
import { RequestTimeout } from "../Errors.ts"

/**
 * The milliseconds a timeout `duration` allows, or `undefined` for none
 * (infinite). Anything below zero (a negative number, `-Infinity`) allows
 * nothing: the bound expires at once, like a zero one, never turns it off.
 */
export const boundMillis = (duration: Duration.Duration): number | undefined => {
  const millis = Duration.toMillis(duration)
  if (millis === Infinity) return undefined
  return millis > 0 ? millis : 0
}

/**
 * The `callTimeout` bound of a client whose default is `fallback`:
 * `effect` bounded by `callOptions.callTimeout` (else `fallback`),
 * interrupted when it expires and failed with `RequestTimeout` (`bound:
 * "call"`, `millis`). The duration is read when the effect runs: one that is
 * no duration is a defect of the call, not a throw of the caller.
 */
export const callTimeoutWith = (fallback: Duration.Duration) =>
<A, E>(
  method: string,
  callOptions: { readonly callTimeout?: Duration.Input | undefined } | undefined,
  effect: Effect.Effect<A, E>
): Effect.Effect<A, E | RequestTimeout> =>
  Effect.suspend(() => {
    const millis = boundMillis(Duration.fromInputUnsafe(callOptions?.callTimeout ?? fallback))
    if (millis === undefined) return effect
    return bounded(effect, millis, () => 0, () => new RequestTimeout({ method, bound: "call", millis }))
  })

/**
 * `effect` bounded by `millis` of the clock's time, not counting the time
 * `signInMillis` reports as spent signing in meanwhile: failed with
 * `expired()` past it. Without `signInMillis`, a plain `bounded`.
 */
export const boundedExceptSignIn = <A, E, E2>(
  effect: Effect.Effect<A, E>,
  millis: number,
  signInMillis: ((now: number) => number) | undefined,
  expired: () => E2
): Effect.Effect<A, E | E2> =>
  signInMillis === undefined
    ? bounded(effect, millis, () => 0, expired)
    : Effect.clockWith((clock) => {
      const start = clock.currentTimeMillisUnsafe()
      const before = signInMillis(start)
      return bounded(effect, millis, (now) => start + millis + (signInMillis(now) - before) - now, expired)
    })

/** Effect's default clock, read once from an empty context. */
let defaultClock: Clock.Clock | undefined
const isDefaultClock = (clock: Clock.Clock): boolean =>
  clock === (defaultClock ??= Effect.runSync(Effect.clockWith(Effect.succeed)))

/** The largest delay `setTimeout` takes, in ms (a longer one fires at once). */
const MAX_TIMER_MILLIS = 2 ** 31 - 1

/**
 * `effect`, failed with `expired()` once `left()` reports no time left.
 * `left()` (ms remaining, `<= 0`: expired) is asked first after `firstMs`,
 * then again after whatever it reported; it is given the clock's time in
 * ms.
 */
export const bounded = <A, E, E2>(
  effect: Effect.Effect<A, E>,
  firstMs: number,
  left: (now: number) => number,
  expired: () => E2
): Effect.Effect<A, E | E2> =>
  Effect.withFiber((parent) => {
    const clock = parent.getRef(Clock.Clock)
    if (!isDefaultClock(clock)) return raced(effect, firstMs, left, expired, clock)
    // Detached, so that a bound that expires returns at once (a child would be awaited when its
    // parent ends); forked and watched without an interruption in between, so it cannot be left running.
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Effect.forkDetach(restore(effect), { startImmediately: true }), (child) =>
        restore(Effect.callback<A, E | E2>((resume) => {
          let timer: ReturnType<typeof setTimeout> | undefined
          const arm = (ms: number) => {
            timer = setTimeout(onTimer, Math.min(Math.max(ms, 1), MAX_TIMER_MILLIS))
          }
          const onTimer = () => {
            const remaining = left(clock.currentTimeMillisUnsafe())
            if (remaining > 0) {
              return arm(remaining)
            }
            removeObserver()
            child.interruptUnsafe(parent.id)
            resume(Effect.fail(expired()))
          }
          const removeObserver = child.addObserver((exit) => {
            if (timer !== undefined) {
              clearTimeout(timer)
            }
            resume(exit)
          })
          // a child done at once (its effect synchronous) already resumed through the observer
          if (child.pollUnsafe() === undefined) {
            arm(firstMs)
          }
          return Effect.sync(() => {
            if (timer !== undefined) {
              clearTimeout(timer)
            }
            removeObserver()
            child.interruptUnsafe(parent.id)
          })
        })))
    )
  })

/** The same bound as a race against `clock.sleep` (any clock). */
const raced = <A, E, E2>(
  effect: Effect.Effect<A, E>,
  firstMs: number,
  left: (now: number) => number,
  expired: () => E2,
  clock: Clock.Clock
): Effect.Effect<A, E | E2> => {
  const watchdog: Effect.Effect<never, E2> = Effect.gen(function*() {
    let wait = firstMs
    while (true) {
      yield* clock.sleep(Duration.millis(wait))
      wait = left(clock.currentTimeMillisUnsafe())
      if (wait <= 0) return yield* Effect.fail(expired())
    }
  })
  return Effect.raceFirst(effect, watchdog)
}
