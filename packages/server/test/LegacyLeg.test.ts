/**
 * The bound on a 2025-11-25 leg (`internal/v2025_11_25/shim.ts` `awaitLeg`): a
 * plain timer under effect's default clock, `Effect.timeoutOrElse` under
 * another (`TestClock`); either way the answer wins before the bound, the
 * client's error is the leg's failure, and the bound's own failure comes
 * after it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { LegRejected } from "../src/internal/v2025_11_25/session.ts"
import { awaitLeg } from "../src/internal/v2025_11_25/shim.ts"

const timedOut = () => Effect.fail("timed out" as const)

describe("awaitLeg", () => {
  it.live("under the default clock: the answer before the bound, the bound's failure after it, the client's error as is", () =>
    Effect.gen(function*() {
      const answered = Deferred.makeUnsafe<unknown, LegRejected>()
      const fiber = yield* Effect.forkChild(awaitLeg(answered, 200, timedOut))
      yield* Deferred.succeed(answered, { action: "accept" })
      expect(yield* Fiber.join(fiber)).toEqual({ action: "accept" })

      const silent = Deferred.makeUnsafe<unknown, LegRejected>()
      const started = Date.now()
      const exit = yield* Effect.exit(awaitLeg(silent, 100, timedOut))
      expect(Date.now() - started).toBeGreaterThanOrEqual(90)
      expect(exit).toEqual(Exit.fail("timed out"))

      const rejected = Deferred.makeUnsafe<unknown, LegRejected>()
      yield* Deferred.fail(rejected, new LegRejected({ code: -1, message: "no" }))
      const error = yield* Effect.flip(awaitLeg(rejected, 100, timedOut))
      expect(error).toBeInstanceOf(LegRejected)
      expect((error as LegRejected).error).toEqual({ code: -1, message: "no" })
    }))

  it.live("an interrupted wait leaves no timer behind: the deferred is not failed later", () =>
    Effect.gen(function*() {
      const deferred = Deferred.makeUnsafe<unknown, LegRejected>()
      const fiber = yield* Effect.forkChild(awaitLeg(deferred, 50, timedOut))
      yield* Effect.sleep("10 millis")
      yield* Fiber.interrupt(fiber)
      yield* Effect.sleep("100 millis")
      expect(yield* Deferred.isDone(deferred)).toBe(false)
    }))

  it.effect("under TestClock the bound follows the clock", () =>
    Effect.gen(function*() {
      const deferred = Deferred.makeUnsafe<unknown, LegRejected>()
      const fiber = yield* Effect.forkChild(awaitLeg(deferred, 60_000, timedOut))
      yield* TestClock.adjust("59 seconds")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail("timed out"))
    }))

  it.live("a bound longer than one timer takes (30 days, Infinity) does not fire at once", () =>
    Effect.gen(function*() {
      for (const ms of [30 * 24 * 3600 * 1000, Number.POSITIVE_INFINITY]) {
        const deferred = Deferred.makeUnsafe<unknown, LegRejected>()
        const fiber = yield* Effect.forkChild(awaitLeg(deferred, ms, timedOut))
        yield* Effect.sleep("50 millis")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* Deferred.succeed(deferred, "late answer")
        expect(yield* Fiber.join(fiber)).toBe("late answer")
      }
    }))
})
