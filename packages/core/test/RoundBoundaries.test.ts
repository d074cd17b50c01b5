/**
 * Where a round ends: concurrent asks land in one round however much work
 * separates them, a round always ends (no hang) whatever interrupts an ask or
 * a step, and misuse is a defect with a message rather than a hang.
 */
import { NodeCrypto } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import type { ClientCapabilities, InputResponses } from "@mrtr/protocol/Schema"
import { Cause, Effect, Exit, Fiber, Layer, Schedule, Schema, Stream } from "effect"
import { Digest } from "effect/crypto"
import { Engine } from "../src/engine/index.ts"
import { Elicitation, Mrtr } from "../src/index.ts"
import { codecLayer, fixedKeys } from "./fixtures.ts"

const ALL: ClientCapabilities = { elicitation: {}, sampling: {}, roots: {} }
const Name = Schema.Struct({ name: Schema.String })
const base = { method: "tools/call", target: "t", arguments: { a: 1 }, audience: "s", clientCapabilities: ALL }

// The server's synchronous digest, and WebCrypto's asynchronous one.
const digests = [["node", NodeCrypto.layerDigest], ["webcrypto", Digest.layerWebCrypto]] as const

const round = <A, E>(
  digest: Layer.Layer<Digest.Digest>,
  handler: Effect.Effect<A, E, any>,
  request: Partial<Engine.Request> = {}
) =>
  Engine.run(handler, { ...base, ...request }).pipe(
    Effect.provide(Layer.mergeAll(codecLayer(fixedKeys), digest))
  ) as Effect.Effect<Engine.Outcome<A>, E | Engine.RunError>

const keysOf = (outcome: Engine.Outcome<unknown>) =>
  outcome._tag === "InputRequired" ? Object.keys(outcome.result.inputRequests ?? {}).sort() : ["<complete>"]

/** A form ask; `fresh` makes its question new to the digest cache. */
const ask = (key: string, fresh: boolean) =>
  Elicitation.form({ key, message: fresh ? `${key} ${crypto.randomUUID()}?` : `${key}?`, schema: Name })

const yields = (n: number) => Effect.forEach(Array.from({ length: n }), () => Effect.yieldNow, { discard: true })
const pureWork = (n: number) =>
  Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) => Effect.succeed(i), { discard: true })
const accept = (name: string) => ({ action: "accept", content: { name } })

/** `n` operations of nothing before `effect`: moves it across the scheduler's 2048-operation yield. */
const pad = <A, E, R>(n: number, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  n === 0 ? effect : Effect.flatMap(Effect.void, () => pad(n - 1, effect))

describe("concurrent asks land in one round", () => {
  for (const [digestName, digest] of digests) {
    for (const fresh of [false, true]) {
      const label = `${digestName}, ${fresh ? "new" : "known"} questions`
      for (const n of [1, 3, 5]) {
        it.live(`after ${n} scheduler yields (${label})`, () =>
          Effect.gen(function*() {
            const outcome = yield* round(
              digest,
              Mrtr.all([ask("a", fresh), yields(n).pipe(Effect.andThen(ask("b", fresh)))])
            )
            expect(keysOf(outcome)).toEqual(["a", "b"])
          }))
      }
      for (const n of [3000, 20000]) {
        it.live(`after ${n} operations of pure work (${label})`, () =>
          Effect.gen(function*() {
            const outcome = yield* round(
              digest,
              Mrtr.all([ask("a", fresh), pureWork(n).pipe(Effect.andThen(ask("b", fresh)))])
            )
            expect(keysOf(outcome)).toEqual(["a", "b"])
          }))
      }
      it.live(`after a step that sleeps, then two yields (${label})`, () =>
        Effect.gen(function*() {
          const outcome = yield* round(
            digest,
            Mrtr.all([
              ask("a", fresh),
              Mrtr.step("s", Effect.sleep("5 millis").pipe(Effect.as(1)), Schema.Number).pipe(
                Effect.andThen(yields(2)),
                Effect.andThen(ask("b", fresh))
              )
            ])
          )
          expect(keysOf(outcome)).toEqual(["a", "b"])
        }))
    }

    it.live(`after replayed answers, each followed by work (${digestName})`, () =>
      Effect.gen(function*() {
        for (const work of [yields(1), pureWork(1500)]) {
          const handler = Mrtr.all([
            ask("a", false),
            Effect.forEach(
              [0, 1, 2, 3, 4, 5],
              (i) => ask(`b${i}`, false).pipe(Effect.tap(() => work)),
              { discard: true }
            ).pipe(Effect.andThen(ask("c", false)))
          ])
          const inputResponses = Object.fromEntries(
            [0, 1, 2, 3, 4, 5].map((i) => [`b${i}`, accept(`n${i}`)])
          ) as InputResponses
          // the first request puts the questions in the digest cache, as earlier requests do on a server
          yield* round(digest, handler, { inputResponses })
          const outcome = yield* round(digest, handler, { inputResponses })
          expect(keysOf(outcome)).toEqual(["a", "c"])
        }
      }))
  }
})

describe("a round always ends", () => {
  const cases: ReadonlyArray<
    readonly [string, Layer.Layer<Digest.Digest>, () => Effect.Effect<unknown, unknown, any>]
  > = [
    ["an ask of a new question", NodeCrypto.layerDigest, () => ask("dropped", true)],
    ["an ask of a new question", Digest.layerWebCrypto, () => ask("dropped", true)],
    ["a step", NodeCrypto.layerDigest, () => Mrtr.step("s", Effect.never, Schema.Number)]
  ]
  for (const [what, digest, make] of cases) {
    it.live(
      `when the handler's own race drops ${what} at any operation, including at a scheduler yield`,
      () =>
        Effect.gen(function*() {
          const hung: Array<number> = []
          for (let n = 0; n < 2100 && hung.length === 0; n++) {
            const handler = Mrtr.all([ask("kept", false), Effect.raceFirst(Effect.yieldNow, pad(n, make()))])
            const outcome = yield* round(digest, handler).pipe(Effect.timeoutOption("1 second"))
            if (outcome._tag === "None") hung.push(n)
            else expect(keysOf(outcome.value)).toEqual(["kept"])
          }
          expect(hung).toEqual([])
        }),
      60_000
    )
  }

  it.live(
    "when the ask is in an uninterruptible region (the acquire of acquireUseRelease)",
    () =>
      Effect.gen(function*() {
        const handler = Effect.acquireUseRelease(ask("a", false), (a) => Effect.succeed(a.name), () => Effect.void)
        const outcome = yield* round(NodeCrypto.layerDigest, handler).pipe(Effect.timeoutOption("2 seconds"))
        expect(outcome._tag).toBe("Some")
        if (outcome._tag === "Some") expect(keysOf(outcome.value)).toEqual(["a"])
      }),
    10_000
  )

  it.live("and leaves no timer behind when the request is interrupted while it waits", () =>
    Effect.gen(function*() {
      const pending = () => process.getActiveResourcesInfo().filter((r) => r === "Immediate" || r === "Timeout").length
      const before = pending()
      let released = 0
      let started = false
      const handler = Effect.gen(function*() {
        started = true
        yield* Effect.addFinalizer(() => Effect.sync(() => released++))
        return yield* Mrtr.all([ask("a", true), Mrtr.step("long", Effect.never, Schema.Number)])
      })
      const fiber = yield* Effect.forkChild(Effect.scoped(round(NodeCrypto.layerDigest, handler)))
      while (!started) yield* Effect.yieldNow
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      expect(released).toBe(1)
      expect(pending()).toBeLessThanOrEqual(before)
    }))
})

describe("a round ends while the handler's own background work goes on", () => {
  const cases: ReadonlyArray<readonly [string, Effect.Effect<unknown>]> = [
    ["a busy loop of scheduler yields", Effect.forever(Effect.yieldNow)],
    ["a loop of pure operations", Effect.forever(Effect.void)],
    ["a repeat without pause", Effect.repeat(Effect.void, Schedule.forever)],
    ["a repeat every millisecond", Effect.repeat(Effect.void, Schedule.spaced("1 millis"))],
    ["an endless stream", Stream.runDrain(Stream.iterate(0, (n) => n + 1))]
  ]
  for (const [what, background] of cases) {
    it.live(what, () =>
      Effect.gen(function*() {
        const handler = Effect.gen(function*() {
          yield* Effect.forkChild(background)
          return yield* ask("a", false)
        })
        const outcome = yield* round(NodeCrypto.layerDigest, handler).pipe(Effect.timeoutOption("5 seconds"))
        expect(outcome._tag).toBe("Some")
        if (outcome._tag === "Some") expect(keysOf(outcome.value)).toEqual(["a"])
      }), 10_000)
  }
})

describe("what the handler gave up on is not asked", () => {
  it.live("an ask that loses the handler's own race is withdrawn; the same ask still awaited elsewhere stays", () =>
    Effect.gen(function*() {
      const dropped = yield* round(
        NodeCrypto.layerDigest,
        Mrtr.all([
          ask("kept", false),
          Effect.raceFirst(ask("dropped", false), yields(1)).pipe(Effect.andThen(ask("instead", false)))
        ])
      )
      expect(keysOf(dropped)).toEqual(["instead", "kept"])
      const shared = yield* round(
        NodeCrypto.layerDigest,
        Mrtr.all([
          ask("shared", false),
          Effect.raceFirst(ask("shared", false), yields(1))
        ])
      )
      expect(keysOf(shared)).toEqual(["shared"])
    }))
})

describe("a changed question is asked again", () => {
  it.effect("even when the caller's own form object changes between rounds", () =>
    Effect.gen(function*() {
      const field = { type: "boolean" as const, description: "Transfer 10 EUR to Bob?" }
      const form = {
        schema: Schema.Struct({ ok: Schema.Boolean }),
        requestedSchema: Object.freeze({ type: "object" as const, properties: { ok: field } })
      }
      const handler = Effect.gen(function*() {
        const a = yield* Elicitation.form({ key: "confirm", message: "Please confirm", schema: form })
        const b = yield* Elicitation.form({ key: "sure", message: "Sure?", schema: form })
        return [a.ok, b.ok]
      })
      const digest = NodeCrypto.layerDigest
      const r1 = yield* round(digest, handler)
      if (r1._tag !== "InputRequired") throw new Error("expected input_required")
      const r2 = yield* round(digest, handler, {
        requestState: r1.result.requestState,
        inputResponses: { confirm: { action: "accept", content: { ok: true } } }
      })
      expect(keysOf(r2)).toEqual(["sure"])
      if (r2._tag !== "InputRequired") throw new Error("expected input_required")
      field.description = "Transfer 10000 EUR to Mallory?"
      const r3 = yield* round(digest, handler, {
        requestState: r2.result.requestState,
        inputResponses: { sure: { action: "accept", content: { ok: true } } }
      })
      expect(keysOf(r3)).toEqual(["confirm"])
    }))
})

describe("misuse is a defect with a message, not a hang", () => {
  const squashed = (exit: Exit.Exit<unknown, unknown>) =>
    Exit.isFailure(exit) ? String(Cause.squash(exit.cause)) : "success"

  it.live(
    "an ask in a finalizer or an interruption handler does not join the round it interrupts",
    () =>
      Effect.gen(function*() {
        for (
          const handler of [
            ask("a", false).pipe(Effect.ensuring(Effect.ignore(ask("feedback", false)))),
            ask("a", false).pipe(Effect.onInterrupt(() => Effect.ignore(ask("why", false)))),
            Effect.acquireUseRelease(Effect.void, () => ask("a", false), () => Effect.ignore(ask("cleanup", false)))
          ]
        ) {
          const outcome = yield* round(NodeCrypto.layerDigest, handler).pipe(Effect.timeoutOption("2 seconds"))
          expect(outcome._tag).toBe("Some")
          if (outcome._tag === "Some") expect(keysOf(outcome.value)).toEqual(["a"])
        }
      }),
    10_000
  )

  it.live(
    "an ask in a finalizer of the request's Scope: a defect when the Scope closes, not a stuck close",
    () =>
      Effect.gen(function*() {
        const handler = Effect.gen(function*() {
          yield* Effect.addFinalizer(() => Effect.ignore(ask("bye", false)))
          return yield* ask("a", false)
        })
        const exit = yield* Effect.scoped(round(NodeCrypto.layerDigest, handler)).pipe(
          Effect.exit,
          Effect.timeoutOption("2 seconds")
        )
        expect(exit._tag).toBe("Some")
        if (exit._tag === "Some") expect(squashed(exit.value)).toMatch(/The ask "bye" runs after its round was decided/)
      }),
    10_000
  )

  it.live("an ask inside a step", () =>
    Effect.gen(function*() {
      const handler = Mrtr.step("s", ask("a", false), Name)
      const exit = yield* round(NodeCrypto.layerDigest, handler).pipe(Effect.exit, Effect.timeoutOption("2 seconds"))
      expect(exit._tag).toBe("Some")
      if (exit._tag !== "Some") return
      expect(Exit.isFailure(exit.value)).toBe(true)
      if (Exit.isFailure(exit.value)) {
        expect(String(Cause.squash(exit.value.cause))).toMatch(/The ask "a" runs inside Mrtr\.step/)
      }
    }), 10_000)
})
