import { describe, expect, it } from "@effect/vitest"
import type { ClientCapabilities, InputResponses } from "@mrtr/protocol/Schema"
import { Effect, Exit, Layer, Schema } from "effect"
import { Digest } from "effect/crypto"
import { Engine } from "../src/engine/index.ts"
import { Elicitation, RequestState, RoundLimitExceeded, Task } from "../src/index.ts"
import { codecLayer, fixedKeys } from "./fixtures.ts"

const ALL: ClientCapabilities = { elicitation: {}, sampling: {}, roots: {} }
const Name = Schema.Struct({ name: Schema.String })

const request: Engine.Request = {
  method: "tools/call",
  target: "test_tool",
  arguments: {},
  audience: "test-server",
  clientCapabilities: ALL
}

/** `drive` with the services of a fresh codec (fixed keys) and WebCrypto digests. */
const drive = <A, B, E, E2>(
  handler: Effect.Effect<A, E, any>,
  driver: Engine.Driver<A, B, E2, never>,
  overrides: Partial<Engine.Request> = {},
  limits = { maxRounds: 16, maxJournalBytes: 32 * 1024 }
) =>
  Effect.gen(function*() {
    const codec = yield* RequestState.RequestStateCodec
    const digest = yield* Digest.Digest
    return yield* Engine.drive({ codec, digest, limits }, handler, { ...request, ...overrides }, driver)
  }).pipe(Effect.provide(Layer.mergeAll(codecLayer(fixedKeys), Digest.layerWebCrypto))) as Effect.Effect<
    B,
    E | E2 | Engine.RunError
  >

const threeNames = Effect.gen(function*() {
  const a = yield* Elicitation.form({ key: "a", message: "A?", schema: Name })
  const b = yield* Elicitation.form({ key: "b", message: `B after ${a.name}?`, schema: Name })
  const c = yield* Elicitation.form({ key: "c", message: `C after ${b.name}?`, schema: Name })
  return [a.name, b.name, c.name].join(",")
})

describe("Engine.drive", () => {
  it.effect("runs round after round in process while fulfil answers, then completes", () =>
    Effect.gen(function*() {
      const asked: Array<Array<string>> = []
      const value = yield* drive(threeNames, {
        fulfil: (suspended) => {
          const keys = Object.keys(suspended.result.inputRequests ?? {})
          asked.push(keys)
          // Unsealed (`seal: false`): the journal travels in process.
          expect(suspended.result.requestState).toBeUndefined()
          const answers: Record<string, unknown> = {}
          for (const key of keys) answers[key] = { action: "accept", content: { name: key.toUpperCase() } }
          return Effect.succeed(Engine.answered(answers as InputResponses))
        },
        complete: (value, round) => Effect.succeed({ value, round })
      }, { seal: false })
      expect(asked).toEqual([["a"], ["b"], ["c"]])
      expect(value).toEqual({ value: "A,B,C", round: 3 })
    }))

  it.effect("End ends the call with the suspended round's value (a sealed state for the client)", () =>
    Effect.gen(function*() {
      let completed = false
      const value = yield* drive<string, unknown, unknown, never>(threeNames, {
        fulfil: (suspended) => Effect.succeed(Engine.end<unknown>(suspended.result)),
        complete: () => Effect.sync(() => (completed = true))
      })
      expect(completed).toBe(false)
      expect(value).toMatchObject({
        resultType: "input_required",
        inputRequests: { a: { method: "elicitation/create" } }
      })
      expect(typeof (value as { requestState?: unknown }).requestState).toBe("string")
    }))

  it.effect("a handler that asks nothing completes at once, without fulfil", () =>
    Effect.gen(function*() {
      const value = yield* drive(Effect.succeed(42), {
        fulfil: () => Effect.die("fulfil called"),
        complete: (value, round) => Effect.succeed([value, round])
      })
      expect(value).toEqual([42, 0])
    }))

  it.effect("the round limit bounds the rounds run in process", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(drive(
        threeNames,
        {
          fulfil: (suspended) => {
            const answers: Record<string, unknown> = {}
            for (const key of Object.keys(suspended.result.inputRequests ?? {})) {
              answers[key] = { action: "accept", content: { name: key } }
            }
            return Effect.succeed(Engine.answered(answers as InputResponses))
          },
          complete: () => Effect.void
        },
        { seal: false },
        { maxRounds: 2, maxJournalBytes: 32 * 1024 }
      ))
      expect(exit).toEqual(Exit.fail(new RoundLimitExceeded({ maxRounds: 2 })))
    }))

  it.effect("Task.detach goes to detach with the journal so far; without a detach it is a defect", () =>
    Effect.gen(function*() {
      const handler = Effect.gen(function*() {
        const a = yield* Elicitation.form({ key: "a", message: "A?", schema: Name })
        yield* Task.detach
        return a.name
      })
      const first = { a: { action: "accept", content: { name: "x" } } } as unknown as InputResponses
      const detached = yield* drive<string, unknown, unknown, never>(handler, {
        fulfil: () => Effect.die("fulfil called"),
        complete: () => Effect.succeed("complete"),
        detach: (journal, round) => Effect.succeed({ keys: Object.keys(journal.answers), round })
      }, { detach: true, inputResponses: first })
      expect(detached).toEqual({ keys: ["a"], round: 0 })
      const exit = yield* Effect.exit(drive(handler, {
        fulfil: () => Effect.die("fulfil called"),
        complete: () => Effect.succeed("complete")
      }, { detach: true, inputResponses: first }))
      expect(Exit.hasDies(exit)).toBe(true)
    }))

  it.effect("a ReplayCheck sees each suspended round with its replay from the journal it left, without answers", () =>
    Effect.gen(function*() {
      const seen: Array<{ round: number; pending: unknown; replayed: unknown; conversationRound: number }> = []
      let replaying = false
      // Reads a variable outside Mrtr.step, which only the replays change: its second question differs on replay.
      const drifting = Effect.gen(function*() {
        const a = yield* Elicitation.form({ key: "a", message: "A?", schema: Name })
        const b = yield* Elicitation.form({ key: "b", message: `B after ${a.name}, ${replaying}?`, schema: Name })
        return b.name
      })
      const check = (suspended: Engine.Suspended, replay: Effect.Effect<Engine.Outcome<unknown>, unknown>) =>
        Effect.map(
          Effect.acquireUseRelease(
            Effect.sync(() => (replaying = true)),
            () => replay,
            () => Effect.sync(() => (replaying = false))
          ),
          (outcome) =>
            void seen.push({
              round: suspended.round,
              pending: suspended.journal.pending,
              replayed: outcome._tag === "InputRequired" ? outcome.journal.pending : outcome._tag,
              conversationRound: outcome.round
            })
        ).pipe(Effect.orDie)
      const value = yield* drive(drifting, {
        fulfil: (suspended) => {
          const answers: Record<string, unknown> = {}
          for (const key of Object.keys(suspended.result.inputRequests ?? {})) {
            answers[key] = { action: "accept", content: { name: key } }
          }
          return Effect.succeed(Engine.answered(answers as InputResponses))
        },
        complete: (value) => Effect.succeed(value)
      }, { seal: false }).pipe(Effect.provideService(Engine.ReplayCheck, check))
      expect(value).toBe("b")
      expect(seen.map((s) => s.round)).toEqual([1, 2])
      // Round 1 asks the same on replay; round 2's question reads the variable.
      expect(seen[0]!.replayed).toEqual(seen[0]!.pending)
      expect(Object.keys(seen[1]!.replayed as object)).toEqual(["b"])
      expect(seen[1]!.replayed).not.toEqual(seen[1]!.pending)
      // The replay runs as the round it replays: the same round number.
      expect(seen.map((s) => s.conversationRound)).toEqual([1, 2])
    }))

  it.effect("without a ReplayCheck each round runs once", () =>
    Effect.gen(function*() {
      let runs = 0
      const counted = Effect.gen(function*() {
        runs++
        return (yield* Elicitation.form({ key: "a", message: "A?", schema: Name })).name
      })
      yield* drive(counted, {
        fulfil: () => Effect.succeed(Engine.answered({ a: { action: "accept", content: { name: "x" } } } as never)),
        complete: (value) => Effect.succeed(value)
      }, { seal: false })
      expect(runs).toBe(2)
    }))
})
