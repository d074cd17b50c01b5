/**
 * The explorer itself: a well-behaved handler passes in both eras and as a
 * task; a non-deterministic handler, one that forgets to catch a decline and
 * one with a side effect outside `Mrtr.step` are each caught on 2026-07-28,
 * on 2025-11-25 and as a task, shrunk and printed as a test that reproduces
 * the failure when run; a step that runs twice is caught; an uncaught decline
 * is told by the handler's failure, not by its text.
 */
import { assert, describe, it } from "@effect/vitest"
import { Elicitation, Mrtr, Roots, Sampling } from "@mrtr/core"
import { McpServer, Prompt, Tool } from "@mrtr/server"
import { Explore, ScriptedUser } from "@mrtr/testing"
import { Arbitrary, Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"

const Trip = Schema.Struct({
  nights: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 14 })),
  cabin: Schema.Literals(["economy", "business"]),
  email: Schema.optionalKey(Schema.String)
})

/** Asks for a trip, then a model's pick and the roots together, then a confirmation; every "no" is caught. */
const planTrip = Tool.make("plan_trip", {
  task: "optional",
  parameters: Schema.Struct({ city: Schema.String }),
  handler: Effect.fn(function*({ city }) {
    const trip = yield* Elicitation.form({ key: "trip", message: `Your trip to ${city}?`, schema: Trip }).pipe(
      Effect.catchTags({
        ElicitationDeclined: () => Effect.succeed(undefined),
        ElicitationCancelled: () => Effect.succeed(undefined)
      })
    )
    if (trip === undefined) return "No trip."
    const quote = yield* Mrtr.step(
      "quote",
      Effect.sync(() => ({ price: 100 * trip.nights, at: Date.now() })),
      Schema.Struct({ price: Schema.Number, at: Schema.Number })
    )
    const [pick, roots] = yield* Mrtr.all([
      Sampling.createMessage({
        key: "pick",
        messages: [{ role: "user", content: { type: "text", text: "A flight?" } }],
        maxTokens: 20
      }),
      Roots.list({ key: "roots" })
    ])
    const ok = yield* Elicitation.form({
      key: "confirm",
      message: `Book ${trip.nights} nights (${trip.cabin}) for ${quote.price}?`,
      schema: Schema.Struct({ book: Schema.Boolean })
    }).pipe(
      Effect.map((a) => a.book),
      Effect.catchTags({
        ElicitationDeclined: () => Effect.succeed(false),
        ElicitationCancelled: () => Effect.succeed(false)
      })
    )
    return ok
      ? `Booked ${trip.nights} nights, ${Sampling.textOf(pick) || "a tool call"}, ${roots.length} roots.`
      : "Not booked."
  })
})

/** Forgets to catch a decline of its confirmation. */
const forgetful = Tool.make("forgetful", {
  task: "optional",
  handler: Effect.fn(function*() {
    const { book } = yield* Elicitation.form({
      key: "confirm",
      message: "Book it?",
      schema: Schema.Struct({ book: Schema.Boolean })
    })
    return book ? "Booked." : "Not booked."
  })
})

/** Reads the clock outside Mrtr.step: its question changes on replay. */
const clockReader = Tool.make("clock_reader", {
  task: "optional",
  handler: Effect.fn(function*() {
    const { name } = yield* Elicitation.form({
      key: "name",
      message: "Your name?",
      schema: Schema.Struct({ name: Schema.String })
    })
    const at = new Date().toISOString()
    const { ok } = yield* Elicitation.form({
      key: "ok",
      message: `Quote valid from ${at}, ${name}: ok?`,
      schema: Schema.Struct({ ok: Schema.Boolean })
    })
      .pipe(Effect.catch(() => Effect.succeed({ ok: false })))
    return ok ? "ok" : "no"
  }, Effect.catch(() => Effect.succeed("no")))
})

/** A side effect outside Mrtr.step: every replay books again, and the confirmation counts the bookings. */
let bookings = 0
const sideEffect = Tool.make("side_effect", {
  task: "optional",
  handler: Effect.fn(function*() {
    bookings++
    const { ok } = yield* Elicitation.form({
      key: "ok",
      message: `Booking #${bookings}: confirm?`,
      schema: Schema.Struct({ ok: Schema.Boolean })
    })
      .pipe(Effect.catch(() => Effect.succeed({ ok: false })))
    return ok ? "confirmed" : "cancelled"
  })
})

/** Two steps share a name: the second never replays from the journal, so it runs again each round. */
let charged = 0
const twoSteps = Tool.make("two_steps", {
  handler: Effect.fn(function*() {
    const id = yield* Mrtr.step("charge", Effect.succeed(7), Schema.Number)
    const card = yield* Mrtr.step("charge", Effect.sync(() => `card-${++charged}`), Schema.String)
    const { ok } = yield* Elicitation.form({
      key: "ok",
      message: `Charge ${id} on the card?`,
      schema: Schema.Struct({ ok: Schema.Boolean })
    })
      .pipe(Effect.catch(() => Effect.succeed({ ok: false })))
    return ok ? card : "no"
  })
})

/** Forgets to catch a decline, and tells its errors in its own words: the explorer does not read them. */
const forgetfulQuiet = Tool.make("forgetful_quiet", {
  onError: () => "Something went wrong.",
  handler: Effect.fn(function*() {
    const { book } = yield* Elicitation.form({
      key: "confirm",
      message: "Book it?",
      schema: Schema.Struct({ book: Schema.Boolean })
    })
    return book ? "Booked." : "Not booked."
  })
})

class Refused extends Schema.TaggedError<Refused>()("Refused", { message: Schema.String }) {}

/** Catches the decline and fails with its own error, whose text is the engine's: not an uncaught decline. */
const mimic = Tool.make("mimic", {
  handler: Effect.fn(function*() {
    const { book } = yield* Elicitation.form({
      key: "confirm",
      message: "Book it?",
      schema: Schema.Struct({ book: Schema.Boolean })
    }).pipe(
      Effect.catchTags({
        ElicitationDeclined: () => Effect.fail(new Refused({ message: `The user declined the elicitation "confirm"` })),
        ElicitationCancelled: () => Effect.succeed({ book: false })
      })
    )
    return book ? "Booked." : "Not booked."
  })
})

/** A prompt that asks. */
const greeting = Prompt.make("greeting", {
  handler: Effect.fn(function*() {
    const { name } = yield* Elicitation.form({
      key: "name",
      message: "Name?",
      schema: Schema.Struct({ name: Schema.String })
    }).pipe(
      Effect.catch(() => Effect.succeed({ name: "stranger" }))
    )
    return `Hello, ${name}!`
  })
})

const server = McpServer.tools(planTrip, forgetful, clockReader, sideEffect, twoSteps, forgetfulQuiet, mimic).pipe(
  Layer.merge(McpServer.prompts(greeting)),
  Layer.provideMerge(McpServer.layer({ name: "explored", version: "1.0.0" }))
)

const failure = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.flip(effect).pipe(Effect.map((error) => error as Explore.ExplorationFailed))

/** Runs the test an exploration printed (its `Explore.replay(...)`, as pasted in a test file of this server). */
const runPrinted = (test: string): Effect.Effect<Explore.Trace, unknown> => {
  const replay = test.slice(test.indexOf("Explore.replay("), test.length - 1)
  return new Function("Explore", "ScriptedUser", "server", `return ${replay}`)(Explore, ScriptedUser, server)
}

const modes = ["2026-07-28", "2025-11-25", "task"] as const

describe("Explore", () => {
  it.live(
    "explores a well-behaved tool in both eras and as a task, with drawn arguments and a property",
    () =>
      Effect.gen(function*() {
        const result = yield* Explore.check({
          server,
          tool: "plan_trip",
          arguments: Schema.Struct({ city: Schema.String }),
          runs: 60,
          seed: 7,
          modes,
          // Drawn texts include lone surrogates, which the server refuses as invalid params (-32602).
          property: ({ ending }) =>
            ending._tag === "Result"
              ? ending.result.isError !== true
              : ending._tag === "Error" && ending.error.code === -32602
        })
        const coverage = result.coverage
        assert.strictEqual(coverage.conversations, 60)
        const trip = coverage.keys.trip!
        assert.isAbove(trip.accepted, 0)
        assert.isAbove(trip.declined + trip.cancelled, 0)
        assert.isAbove(trip.invalid + trip.unanswered + trip.wrongKind, 0)
        assert.isAbove(trip.askedAgain, 0)
        assert.isAbove(coverage.keys.confirm!.accepted, 0)
        assert.isAbove(coverage.keys.pick!.accepted, 0)
        for (const mode of ["2025-11-25", "task"]) {
          assert.isTrue(Object.keys(coverage.endings).some((e) => e.includes(mode)), mode)
        }
        assert.include(Explore.formatCoverage(coverage), "trip (elicitation): accepted")
      }),
    60_000
  )

  it.live("explores a prompt", () =>
    Effect.gen(function*() {
      const result = yield* Explore.check({ server, prompt: "greeting", runs: 20, seed: 1 })
      assert.isAbove(result.coverage.keys.name!.declined, 0)
    }))

  it.live("catches a decline the handler does not catch, with the ask's key, shrunk", () =>
    Effect.gen(function*() {
      const error = yield* failure(Explore.check({ server, tool: "forgetful", runs: 50, seed: 3 }))
      assert.strictEqual(error.violation.property, "uncaught-decline")
      assert.strictEqual(error.violation.key, "confirm")
      const trace = error.trace as Explore.Trace
      assert.strictEqual(trace.asked.length, 1) // shrunk to the one answer that matters
      assert.include(error.message, "Seed: 3")
      assert.include(error.test, "Explore.replay({")
      assert.include(error.test, `"confirm": ScriptedUser.decline`)
      // The test below is this printed test, pasted.
      const pasted = fs.readFileSync(new URL(import.meta.url), "utf8").split("// #region printed\n")[1]!.split(
        "// #endregion printed"
      )[0]!
      const words = (text: string) => text.replace(/\s+/g, "")
      assert.include(words(error.test), words(pasted))
    }))

  it.live("catches a step that runs more than once per conversation", () =>
    Effect.gen(function*() {
      const error = yield* failure(
        Explore.check({ server, tool: "two_steps", runs: 10, seed: 11, modes: ["2026-07-28"] })
      )
      assert.strictEqual(error.violation.property, "step-once")
      assert.include(error.violation.message, `"charge"`)
    }))

  it.live("checks the test's own property, and draws arguments from an Arbitrary", () =>
    Effect.gen(function*() {
      const error = yield* failure(Explore.check({
        server,
        tool: "plan_trip",
        arguments: Arbitrary.map(Arbitrary.schema(Schema.Literals(["Oslo", "Rome"])), (city) => ({ city })),
        runs: 50,
        seed: 13,
        modes: ["2026-07-28"],
        // Wrong on purpose: a trip not confirmed is "Not booked."
        property: ({ ending }) =>
          ending._tag === "Result" && (ending.result.content[0].text as string).startsWith("Booked")
      }))
      assert.strictEqual(error.violation.property, "property")
      const trace = error.trace as Explore.Trace
      // Shrunk to the simplest answers: the first option of everything, and a confirmation of `false`.
      assert.deepStrictEqual(trace.asked.map((a) => [a.key, a.choice]), [["trip", "accept"], ["pick", "accept"], [
        "roots",
        "accept"
      ], [
        "confirm",
        "accept"
      ]])
      assert.deepStrictEqual(trace.asked[0]!.answer, { action: "accept", content: { nights: 1, cabin: "economy" } })
      assert.deepStrictEqual(trace.asked[3]!.answer, { action: "accept", content: { book: false } })
      assert.include(["Oslo", "Rome"], (trace.arguments as { city: string }).city)
    }))

  for (const mode of modes) {
    describe(mode, () => {
      it.live("catches a decline the handler does not catch: shrunk, printed, and the printed test fails the same", () =>
        Effect.gen(function*() {
          const error = yield* failure(Explore.check({ server, tool: "forgetful", runs: 50, seed: 3, modes: [mode] }))
          assert.strictEqual(error.violation.property, "uncaught-decline")
          assert.strictEqual(error.violation.key, "confirm")
          const trace = error.trace as Explore.Trace
          assert.strictEqual(trace.mode, mode)
          assert.strictEqual(trace.asked.length, 1) // shrunk to the one answer that matters
          assert.include(["decline", "cancel"], trace.asked[0]!.choice)
          assert.include(error.test, `protocol: "${mode}"`)
          const again = yield* failure(runPrinted(error.test))
          assert.strictEqual(again.violation.property, "uncaught-decline")
          assert.strictEqual(again.violation.key, "confirm")
        }))

      it.live("catches a handler that reads the clock outside Mrtr.step, on its first such round", () =>
        Effect.gen(function*() {
          const error = yield* failure(
            Explore.check({ server, tool: "clock_reader", runs: 20, seed: 5, modes: [mode] })
          )
          assert.strictEqual(error.violation.property, "determinism")
          assert.strictEqual(error.violation.key, "ok")
          assert.include(error.violation.message, "round 2")
          const trace = error.trace as Explore.Trace
          assert.deepStrictEqual(trace.asked.map((a) => a.choice), ["accept"]) // the name, simplest
          const again = yield* failure(runPrinted(error.test))
          assert.strictEqual(again.violation.property, "determinism")
          assert.strictEqual(again.violation.key, "ok")
        }))

      it.live("catches a side effect outside Mrtr.step", () =>
        Effect.gen(function*() {
          const error = yield* failure(Explore.check({ server, tool: "side_effect", runs: 10, seed: 9, modes: [mode] }))
          assert.strictEqual(error.violation.property, "determinism")
          assert.strictEqual(error.violation.key, "ok")
          assert.include(error.violation.message, "round 1")
          const again = yield* failure(runPrinted(error.test))
          assert.strictEqual(again.violation.property, "determinism")
        }))
    })
  }

  it.live("tells an uncaught decline by the handler's failure, whatever text the tool's error shows", () =>
    Effect.gen(function*() {
      const error = yield* failure(Explore.check({ server, tool: "forgetful_quiet", runs: 50, seed: 3 }))
      assert.strictEqual(error.violation.property, "uncaught-decline")
      assert.strictEqual(error.violation.key, "confirm")
      assert.include(error.violation.message, "Something went wrong.")
    }))

  it.live("a decline the handler catches is not reported, even as an error with the engine's words", () =>
    Effect.gen(function*() {
      for (const [protocol, key] of [["2026-07-28", "confirm"], ["2025-11-25", "elicitation-1"]] as const) {
        const trace = yield* Explore.replay({
          server,
          tool: "mimic",
          protocol,
          user: ScriptedUser.layer({ elicitation: { byKey: { [key]: ScriptedUser.decline } } })
        })
        assert.deepStrictEqual(trace.violations, [])
        const ending = trace.ending as Extract<Explore.Ending, { _tag: "Result" }>
        assert.isTrue(ending.result.isError)
        assert.deepStrictEqual(ending.result.content, [
          { type: "text", text: `The user declined the elicitation "confirm"` }
        ])
      }
      yield* Explore.check({ server, tool: "mimic", runs: 20, seed: 3 })
    }))

  // The test the explorer printed for `forgetful` (seed 3), pasted: it reproduces the failure.
  it.live("a printed counterexample reproduces the failure", () =>
    Effect.gen(function*() {
      const error = yield* failure(
        // #region printed
        Explore.replay({
          server,
          tool: "forgetful",
          arguments: {},
          protocol: "2026-07-28",
          user: ScriptedUser.layer({
            elicitation: {
              byKey: {
                "confirm": ScriptedUser.decline
              }
            },
            sampling: { tools: true, byKey: {} },
            roots: []
          })
        })
        // #endregion printed
      )
      assert.strictEqual(error.violation.property, "uncaught-decline")
      assert.strictEqual(error.violation.key, "confirm")
    }))
})
