import { assert, describe, it } from "@effect/vitest"
import type { ClientCapabilities, InputRequiredResult, InputResponses } from "@mrtr/protocol/Schema"
import { makeInputRequiredResult } from "@mrtr/protocol/Schema"
import { validateWire } from "@mrtr/test-support/wire"
import { Effect, Exit, Layer, Schema } from "effect"
import { Digest } from "effect/crypto"
import { Canonical, Engine } from "../src/engine/index.ts"
import {
  Elicitation,
  ElicitationCancelled,
  ElicitationDeclined,
  ElicitationSchema,
  JournalTooLarge,
  MissingClientCapability,
  Mrtr,
  Roots,
  RoundLimitExceeded,
  Sampling
} from "../src/index.ts"
import { codecLayer, fixedKeys } from "./fixtures.ts"

const ALL: ClientCapabilities = { elicitation: {}, sampling: {}, roots: {} }

const Name = Schema.Struct({ name: Schema.String })
const Color = Schema.Struct({ color: Schema.Literals(["red", "green", "blue"]) })
const Confirm = Schema.Struct({ ok: Schema.Boolean })

const base = {
  method: "tools/call",
  target: "test_tool",
  arguments: { a: 1 },
  audience: "test-server",
  clientCapabilities: ALL
}

/** One round on a brand-new engine (fresh codec instance, same key bytes): nothing shared but the state. */
const round = <A, E>(
  handler: Effect.Effect<A, E, any>,
  request: Partial<Engine.Request> = {}
) =>
  Engine.run(handler, { ...base, ...request }).pipe(
    Effect.provide(Layer.mergeAll(codecLayer(fixedKeys), Digest.layerWebCrypto))
  ) as Effect.Effect<Engine.Outcome<A>, E | Engine.RunError>

const expectInputRequired = <A>(outcome: Engine.Outcome<A>): InputRequiredResult => {
  assert.strictEqual(outcome._tag, "InputRequired")
  if (outcome._tag !== "InputRequired") throw new Error("unreachable")
  validateWire("InputRequiredResult", outcome.result)
  return outcome.result
}

const expectComplete = <A>(outcome: Engine.Outcome<A>): A => {
  assert.strictEqual(outcome._tag, "Complete")
  if (outcome._tag !== "Complete") throw new Error("unreachable")
  return outcome.value
}

const accept = (content: Record<string, unknown>) => ({
  action: "accept" as const,
  content: content as Record<string, string>
})

describe("Engine.run", () => {
  it.effect("completes at once when the handler asks nothing", () =>
    Effect.gen(function*() {
      const outcome = yield* round(Effect.succeed(42))
      assert.deepStrictEqual(outcome, { _tag: "Complete", value: 42, round: 0 })
    }))

  it.effect("a three-round handler resumes across rounds, each on a fresh engine", () =>
    Effect.gen(function*() {
      const handler = Effect.gen(function*() {
        const { name } = yield* Elicitation.form({ key: "name", message: "Name?", schema: Name })
        const { color } = yield* Elicitation.form({ key: "color", message: `Color, ${name}?`, schema: Color })
        const { ok } = yield* Elicitation.form({ key: "ok", message: `${name} likes ${color}?`, schema: Confirm })
        return `${name}:${color}:${ok}`
      })
      const r1 = expectInputRequired(yield* round(handler))
      assert.deepStrictEqual(Object.keys(r1.inputRequests ?? {}), ["name"])
      assert.strictEqual(r1.inputRequests?.name?.method, "elicitation/create")

      const r2 = expectInputRequired(
        yield* round(handler, { requestState: r1.requestState, inputResponses: { name: accept({ name: "Ada" }) } })
      )
      assert.deepStrictEqual(Object.keys(r2.inputRequests ?? {}), ["color"])
      assert.strictEqual((r2.inputRequests?.color?.params as any).message, "Color, Ada?")
      assert.notStrictEqual(r2.requestState, r1.requestState)

      const r3 = expectInputRequired(
        yield* round(handler, { requestState: r2.requestState, inputResponses: { color: accept({ color: "blue" }) } })
      )
      assert.deepStrictEqual(Object.keys(r3.inputRequests ?? {}), ["ok"])

      const done = yield* round(handler, {
        requestState: r3.requestState,
        inputResponses: { ok: accept({ ok: true }) }
      })
      assert.deepStrictEqual(done, { _tag: "Complete", value: "Ada:blue:true", round: 3 })
    }))

  it.effect("a step before the first ask runs exactly once over a five-round conversation", () =>
    Effect.gen(function*() {
      let runs = 0
      const handler = Effect.gen(function*() {
        const ticket = yield* Mrtr.step("ticket", Effect.sync(() => ++runs * 100), Schema.Number)
        const answers: Array<string> = []
        for (let i = 1; i <= 5; i++) {
          const { name } = yield* Elicitation.form({ key: `q${i}`, message: `Question ${i}`, schema: Name })
          answers.push(name)
        }
        return { ticket, answers }
      })
      let outcome = yield* round(handler)
      for (let i = 1; i <= 5; i++) {
        const irr = expectInputRequired(outcome)
        outcome = yield* round(handler, {
          requestState: irr.requestState,
          inputResponses: { [`q${i}`]: accept({ name: `n${i}` }) } as InputResponses
        })
      }
      assert.deepStrictEqual(expectComplete(outcome), { ticket: 100, answers: ["n1", "n2", "n3", "n4", "n5"] })
      assert.strictEqual(runs, 1)
    }))

  it.effect(
    "an ask interrupted while its question is being digested does not hold the round open",
    () =>
      Effect.gen(function*() {
        // Questions never asked before, so their digests run (asynchronously, on WebCrypto).
        const nonce = crypto.randomUUID()
        const handler = Mrtr.all([
          Elicitation.form({ key: "kept", message: `Kept ${nonce}?`, schema: Name }),
          // the handler's own race drops this ask while its digest is in flight
          Effect.raceFirst(
            Elicitation.form({ key: "dropped", message: `Dropped ${nonce}?`, schema: Color }),
            Effect.yieldNow
          )
        ])
        const r1 = expectInputRequired(yield* round(handler))
        assert.deepStrictEqual(Object.keys(r1.inputRequests ?? {}), ["kept"])
      }),
    5_000
  )

  it.effect("an accepted answer that breaks a format of the form is asked again", () =>
    Effect.gen(function*() {
      const Contact = Schema.Struct({ email: Schema.String.annotate({ format: "email" }) })
      const handler = Elicitation.form({ key: "contact", message: "Email?", schema: Contact })
      const bad = expectInputRequired(
        yield* round(handler, { inputResponses: { contact: accept({ email: "<script>" }) } })
      )
      assert.deepStrictEqual(Object.keys(bad.inputRequests ?? {}), ["contact"])
      const good = yield* round(handler, { inputResponses: { contact: accept({ email: "ada@example.org" }) } })
      assert.deepStrictEqual(expectComplete(good), { email: "ada@example.org" })
    }))

  it.effect("two concurrent asks make one round with two keys", () =>
    Effect.gen(function*() {
      const handler = Effect.gen(function*() {
        const [a, b] = yield* Mrtr.all([
          Elicitation.form({ key: "a", message: "A?", schema: Name }),
          Sampling.createMessage({
            key: "b",
            messages: [{ role: "user", content: { type: "text", text: "hi" } }],
            maxTokens: 10
          })
        ])
        return `${a.name}/${(b.content as any).text}`
      })
      const r1 = expectInputRequired(yield* round(handler))
      assert.deepStrictEqual(Object.keys(r1.inputRequests ?? {}).sort(), ["a", "b"])
      const done = yield* round(handler, {
        requestState: r1.requestState,
        inputResponses: {
          a: accept({ name: "x" }),
          b: { role: "assistant", content: { type: "text", text: "y" }, model: "m" }
        }
      })
      assert.deepStrictEqual(done, { _tag: "Complete", value: "x/y", round: 1 })
    }))

  it.effect("Effect.all with unbounded concurrency also batches, and derived keys follow program order", () =>
    Effect.gen(function*() {
      const handler = Effect.all([
        Elicitation.form({ message: "A?", schema: Name }),
        Elicitation.form({ message: "B?", schema: Name }),
        Roots.list()
      ], { concurrency: "unbounded" })
      const r1 = expectInputRequired(yield* round(handler))
      assert.deepStrictEqual(Object.keys(r1.inputRequests ?? {}).sort(), ["elicitation-1", "elicitation-2", "roots-1"])
      assert.strictEqual((r1.inputRequests?.["elicitation-1"]?.params as any).message, "A?")
      assert.strictEqual((r1.inputRequests?.["elicitation-2"]?.params as any).message, "B?")
    }))

  it.effect("sequential asks make two rounds", () =>
    Effect.gen(function*() {
      const handler = Effect.gen(function*() {
        const a = yield* Elicitation.form({ key: "a", message: "A?", schema: Name })
        const b = yield* Elicitation.form({ key: "b", message: "B?", schema: Name })
        return a.name + b.name
      })
      const r1 = expectInputRequired(yield* round(handler))
      assert.deepStrictEqual(Object.keys(r1.inputRequests ?? {}), ["a"])
      const r2 = expectInputRequired(
        yield* round(handler, { requestState: r1.requestState, inputResponses: { a: accept({ name: "1" }) } })
      )
      assert.deepStrictEqual(Object.keys(r2.inputRequests ?? {}), ["b"])
      const done = yield* round(handler, {
        requestState: r2.requestState,
        inputResponses: { b: accept({ name: "2" }) }
      })
      assert.strictEqual(expectComplete(done), "12")
    }))

  it.effect("a step running concurrently with an ask finishes before the round closes", () =>
    Effect.gen(function*() {
      let runs = 0
      const real = Mrtr.all([
        Elicitation.form({ key: "a", message: "A?", schema: Name }),
        Mrtr.step(
          "slow",
          Effect.callback<number>((resume) => {
            const t = setTimeout(() => resume(Effect.succeed(++runs)), 20)
            return Effect.sync(() => clearTimeout(t))
          }),
          Schema.Number
        ),
        Effect.callback<void>((resume) => {
          const t = setTimeout(() => resume(Effect.void), 5)
          return Effect.sync(() => clearTimeout(t))
        }).pipe(Effect.andThen(Elicitation.form({ key: "late", message: "Late?", schema: Name })))
      ])
      const r1 = expectInputRequired(yield* round(real))
      assert.strictEqual(runs, 1)
      assert.deepStrictEqual(Object.keys(r1.inputRequests ?? {}).sort(), ["a", "late"])
      const done = yield* round(real, {
        requestState: r1.requestState,
        inputResponses: { a: accept({ name: "x" }), late: accept({ name: "y" }) }
      })
      assert.deepStrictEqual(expectComplete(done), [{ name: "x" }, 1, { name: "y" }])
      assert.strictEqual(runs, 1)
    }))

  it.effect("a changed question is asked again instead of reusing the stale answer", () =>
    Effect.gen(function*() {
      let topic = "cats"
      const handler = Effect.gen(function*() {
        const { name } = yield* Elicitation.form({ key: "q", message: `Favourite ${topic}?`, schema: Name })
        const { ok } = yield* Elicitation.form({ key: "sure", message: "Sure?", schema: Confirm })
        return `${name}:${ok}`
      })
      const r1 = expectInputRequired(yield* round(handler))
      const r2 = expectInputRequired(
        yield* round(handler, { requestState: r1.requestState, inputResponses: { q: accept({ name: "Tom" }) } })
      )
      assert.deepStrictEqual(Object.keys(r2.inputRequests ?? {}), ["sure"])
      topic = "dogs"
      const r3 = expectInputRequired(
        yield* round(handler, { requestState: r2.requestState, inputResponses: { sure: accept({ ok: true }) } })
      )
      assert.deepStrictEqual(Object.keys(r3.inputRequests ?? {}), ["q"])
      assert.strictEqual((r3.inputRequests?.q?.params as any).message, "Favourite dogs?")
      // An answer sent for the old question in the same retry is not taken either.
      const r4 = expectInputRequired(
        yield* round(handler, { requestState: r3.requestState, inputResponses: {} })
      )
      assert.deepStrictEqual(Object.keys(r4.inputRequests ?? {}), ["q"])
      const done = yield* round(handler, {
        requestState: r4.requestState,
        inputResponses: { q: accept({ name: "Rex" }) }
      })
      assert.strictEqual(expectComplete(done), "Rex:true")
    }))

  it.effect("a form's question is built once per message and frozen; a changed message or schema is a new question", () =>
    Effect.gen(function*() {
      let message = "Name?"
      let schema: typeof Name | typeof Color = Name
      // the question the client is sent in round one (the engine's own object)
      const ask = () =>
        Effect.map(
          round(Effect.suspend(() => Elicitation.form({ key: "q", message, schema: schema as typeof Name }))),
          (outcome) => expectInputRequired(outcome).inputRequests!.q!
        )
      const first = yield* ask()
      assert.isTrue(Canonical.isFrozenJson(first))
      assert.strictEqual(yield* ask(), first)
      message = "Your name?"
      const renamed = yield* ask()
      assert.notStrictEqual(renamed, first)
      assert.strictEqual((renamed.params as { message: string }).message, "Your name?")
      schema = Color
      const recolored = yield* ask()
      assert.deepStrictEqual(
        (recolored.params as { requestedSchema: unknown }).requestedSchema,
        ElicitationSchema.makeUnsafe(Color).requestedSchema
      )
      // more messages than a form keeps: still the right question each time
      for (let i = 0; i < 70; i++) {
        message = `Question ${i}?`
        assert.strictEqual(((yield* ask()).params as { message: string }).message, `Question ${i}?`)
      }
      // a long message (it may quote the request's arguments) is not kept: a fresh question each time
      message = `Delete ${"x".repeat(2000)}?`
      const long = yield* ask()
      assert.isFalse(Canonical.isFrozenJson(long))
      assert.notStrictEqual(yield* ask(), long)
      assert.strictEqual((long.params as { message: string }).message, message)
      // a hand-made FormSchema (not frozen by the runtime) is not frozen for it
      const handMade = {
        schema: Name,
        requestedSchema: {
          type: "object" as const,
          properties: { name: { type: "string" as const } },
          required: ["name"]
        }
      }
      const outcome = yield* round(Elicitation.form({ key: "q", message: "Hand?", schema: handMade }))
      assert.isFalse(Canonical.isFrozenJson(expectInputRequired(outcome).inputRequests!.q))
      assert.isFalse(Object.isFrozen(handMade.requestedSchema))
    }))

  it.effect("an answer of the wrong kind or shape is asked again", () =>
    Effect.gen(function*() {
      const handler = Elicitation.form({ key: "user_name", message: "Name?", schema: Name })
      const wrong: Array<unknown> = [
        12345,
        null,
        "Alice",
        { action: "accept", content: { name: 42 } },
        { action: "accept", content: { nom: "Alice" } },
        { action: "maybe" },
        { roots: [] },
        { role: "assistant", content: { type: "text", text: "x" }, model: "m" }
      ]
      const r1 = expectInputRequired(yield* round(handler))
      for (const response of wrong) {
        const again = expectInputRequired(
          yield* round(handler, {
            requestState: r1.requestState,
            inputResponses: { user_name: response } as InputResponses
          })
        )
        assert.deepStrictEqual(Object.keys(again.inputRequests ?? {}), ["user_name"])
        // and also without any state, as a first request
        const fresh = expectInputRequired(
          yield* round(handler, { inputResponses: { user_name: response } as InputResponses })
        )
        assert.deepStrictEqual(Object.keys(fresh.inputRequests ?? {}), ["user_name"])
      }
      const sampling = Sampling.createMessage({ key: "s", messages: [], maxTokens: 5 })
      const s1 = expectInputRequired(
        yield* round(sampling, { inputResponses: { s: accept({ name: "not a sample" }) } as InputResponses })
      )
      assert.deepStrictEqual(Object.keys(s1.inputRequests ?? {}), ["s"])
      const roots = Roots.list({ key: "r" })
      const x1 = expectInputRequired(
        yield* round(roots, { inputResponses: { r: { roots: "nope" } } as unknown as InputResponses })
      )
      assert.deepStrictEqual(Object.keys(x1.inputRequests ?? {}), ["r"])
    }))

  it.effect("unknown keys in inputResponses are ignored", () =>
    Effect.gen(function*() {
      const handler = Elicitation.form({ key: "user_name", message: "Name?", schema: Name })
      const done = yield* round(handler, {
        inputResponses: {
          user_name: accept({ name: "Alice" }),
          unknown_extra_key: accept({ x: 1 }),
          another_unexpected: { roots: [] }
        } as InputResponses
      })
      assert.deepStrictEqual(expectComplete(done), { name: "Alice" })
    }))

  it.effect("keys of an accepted answer that nothing decodes are not kept: the state stays small, replays the same", () =>
    Effect.gen(function*() {
      const handler = Effect.gen(function*() {
        const { name } = yield* Elicitation.form({ key: "name", message: "Name?", schema: Name })
        yield* Elicitation.url({ key: "login", message: "Sign in", url: "https://example.com/login" })
        const { ok } = yield* Elicitation.form({ key: "sure", message: `Sure, ${name}?`, schema: Confirm })
        return `${name}:${ok}`
      })
      const junk = "x".repeat(40_000)
      const clientCapabilities = { elicitation: { form: {}, url: {} } }
      const r1 = expectInputRequired(yield* round(handler, { clientCapabilities }))
      // a junk field in the content, a junk key beside it, and a junk _meta: none of it decodes
      const r2 = expectInputRequired(
        yield* round(handler, {
          clientCapabilities,
          requestState: r1.requestState,
          inputResponses: {
            name: { action: "accept", content: { name: "Ada", junk }, junk, _meta: { junk } } as never
          }
        })
      )
      assert.deepStrictEqual(Object.keys(r2.inputRequests ?? {}), ["login"])
      const r3 = expectInputRequired(
        yield* round(handler, {
          clientCapabilities,
          requestState: r2.requestState,
          inputResponses: { login: { action: "accept", content: { junk }, junk } as never }
        })
      )
      assert.deepStrictEqual(Object.keys(r3.inputRequests ?? {}), ["sure"])
      assert.isBelow(r3.requestState!.length, 1_000)
      const done = yield* round(handler, {
        clientCapabilities,
        requestState: r3.requestState,
        inputResponses: { sure: accept({ ok: true }) }
      })
      assert.strictEqual(expectComplete(done), "Ada:true")
    }))

  it.effect("decline and cancel reach the handler as typed failures; a decline carrying content is a decline", () =>
    Effect.gen(function*() {
      const handler = Elicitation.form({ key: "k", message: "Name?", schema: Name }).pipe(
        Effect.map((v) => `accepted ${v.name}`),
        Effect.catchTag("ElicitationDeclined", (e) => Effect.succeed(`declined ${e.key} ${JSON.stringify(e.content)}`)),
        Effect.catchTag("ElicitationCancelled", (e) => Effect.succeed(`cancelled ${e.key}`))
      )
      const declined = yield* round(handler, { inputResponses: { k: { action: "decline" } } })
      assert.strictEqual(expectComplete(declined), "declined k undefined")
      const declinedWithContent = yield* round(handler, {
        inputResponses: { k: { action: "decline", content: { name: "Eve" } } }
      })
      assert.strictEqual(expectComplete(declinedWithContent), `declined k {"name":"Eve"}`)
      const cancelled = yield* round(handler, { inputResponses: { k: { action: "cancel" } } })
      assert.strictEqual(expectComplete(cancelled), "cancelled k")

      const uncaught = yield* Effect.exit(round(Elicitation.form({ key: "k", message: "Name?", schema: Name }), {
        inputResponses: { k: { action: "decline", content: { name: "Eve" } } }
      }))
      assert.deepStrictEqual(uncaught, Exit.fail(new ElicitationDeclined({ key: "k", content: { name: "Eve" } })))
      const uncaughtCancel = yield* Effect.exit(round(Elicitation.form({ key: "k", message: "Name?", schema: Name }), {
        inputResponses: { k: { action: "cancel" } }
      }))
      assert.deepStrictEqual(uncaughtCancel, Exit.fail(new ElicitationCancelled({ key: "k" })))
    }))

  it.effect("a decline is replayed from the journal in later rounds", () =>
    Effect.gen(function*() {
      const handler = Effect.gen(function*() {
        const first = yield* Elicitation.form({ key: "a", message: "A?", schema: Name }).pipe(
          Effect.map((v) => v.name),
          Effect.catchTag("ElicitationDeclined", () => Effect.succeed("anonymous"))
        )
        const second = yield* Elicitation.form({ key: "b", message: `B for ${first}?`, schema: Name })
        return `${first}/${second.name}`
      })
      const r1 = expectInputRequired(yield* round(handler))
      const r2 = expectInputRequired(
        yield* round(handler, { requestState: r1.requestState, inputResponses: { a: { action: "decline" } } })
      )
      assert.strictEqual((r2.inputRequests?.b?.params as any).message, "B for anonymous?")
      const done = yield* round(handler, {
        requestState: r2.requestState,
        inputResponses: { b: accept({ name: "z" }) }
      })
      assert.strictEqual(expectComplete(done), "anonymous/z")
    }))

  it.effect("a missing capability is a typed failure the handler may catch, and fails the request when uncaught", () =>
    Effect.gen(function*() {
      const fallback = Mrtr.all([
        Elicitation.form({ key: "elicit_input", message: "Name?", schema: Name }).pipe(
          Effect.catchTag("MissingClientCapability", () => Effect.succeed(undefined))
        ),
        Sampling.createMessage({ key: "sample_input", messages: [], maxTokens: 5 })
      ])
      const r1 = expectInputRequired(yield* round(fallback, { clientCapabilities: { sampling: {} } }))
      assert.deepStrictEqual(Object.keys(r1.inputRequests ?? {}), ["sample_input"])

      const uncaught = yield* Effect.exit(
        round(Sampling.createMessage({ key: "s", messages: [], maxTokens: 5 }), { clientCapabilities: {} })
      )
      assert.deepStrictEqual(
        uncaught,
        Exit.fail(new MissingClientCapability({ key: "s", requiredCapabilities: { sampling: {} } }))
      )
      const url = yield* Effect.exit(
        round(Elicitation.url({ key: "login", message: "Sign in", url: "https://example.com/login" }), {
          clientCapabilities: { elicitation: {} }
        })
      )
      assert.deepStrictEqual(
        url,
        Exit.fail(new MissingClientCapability({ key: "login", requiredCapabilities: { elicitation: { url: {} } } }))
      )
      const tools = yield* Effect.exit(
        round(
          Sampling.createMessage({
            key: "t",
            messages: [],
            maxTokens: 5,
            tools: [{ name: "x", inputSchema: { type: "object" } }]
          } as any),
          { clientCapabilities: { sampling: {} } }
        )
      )
      assert.deepStrictEqual(
        tools,
        Exit.fail(new MissingClientCapability({ key: "t", requiredCapabilities: { sampling: { tools: {} } } }))
      )
    }))

  it.effect("url-mode elicitation succeeds on accept without content", () =>
    Effect.gen(function*() {
      const handler = Elicitation.url({ key: "login", message: "Sign in", url: "https://example.com/login" }).pipe(
        Effect.as("signed in")
      )
      const caps = { elicitation: { form: {}, url: {} } }
      const r1 = expectInputRequired(yield* round(handler, { clientCapabilities: caps }))
      assert.deepStrictEqual(r1.inputRequests?.login, {
        method: "elicitation/create",
        params: { mode: "url", message: "Sign in", url: "https://example.com/login" }
      })
      const done = yield* round(handler, {
        clientCapabilities: caps,
        requestState: r1.requestState,
        inputResponses: { login: { action: "accept" } }
      })
      assert.strictEqual(expectComplete(done), "signed in")
    }))

  it.effect("roots and sampling answers are decoded and returned", () =>
    Effect.gen(function*() {
      const handler = Effect.gen(function*() {
        const roots = yield* Roots.list({ key: "roots" })
        const sample = yield* Sampling.createMessage({ key: "s", messages: [], maxTokens: 5 })
        return { roots: roots.map((r) => r.uri), model: sample.model }
      })
      const done = yield* round(handler, {
        inputResponses: {
          roots: { roots: [{ uri: "file:///a", name: "A" }] },
          s: { role: "assistant", content: { type: "text", text: "hi" }, model: "m1", stopReason: "endTurn" }
        }
      })
      assert.deepStrictEqual(expectComplete(done), { roots: ["file:///a"], model: "m1" })
    }))

  it.effect("the round cap ends a conversation with a clear error", () =>
    Effect.gen(function*() {
      const endless = Effect.gen(function*() {
        for (let i = 0;; i++) yield* Elicitation.form({ key: `q${i}`, message: `Q${i}`, schema: Name })
      })
      const limited = <A, E>(effect: Effect.Effect<A, E>) =>
        Effect.provideService(effect, Engine.Limits, { maxRounds: 3, maxJournalBytes: 32 * 1024 })
      let outcome = yield* limited(round(endless))
      for (let i = 0; i < 2; i++) {
        const irr = expectInputRequired(outcome)
        outcome = yield* limited(
          round(endless, { requestState: irr.requestState, inputResponses: { [`q${i}`]: accept({ name: "x" }) } })
        )
      }
      const irr = expectInputRequired(outcome)
      const exit = yield* Effect.exit(
        limited(round(endless, { requestState: irr.requestState, inputResponses: { q2: accept({ name: "x" }) } }))
      )
      assert.deepStrictEqual(exit, Exit.fail(new RoundLimitExceeded({ maxRounds: 3 })))
    }))

  it.effect("the journal size cap ends a conversation with a clear error", () =>
    Effect.gen(function*() {
      const big = Effect.gen(function*() {
        yield* Mrtr.step("blob", Effect.succeed("x".repeat(5000)), Schema.String)
        return yield* Elicitation.form({ key: "q", message: "Q", schema: Name })
      })
      const error = yield* Effect.flip(
        Effect.provideService(round(big), Engine.Limits, { maxRounds: 16, maxJournalBytes: 1024 })
      )
      assert.instanceOf(error, JournalTooLarge)
      assert.match(error.message, /exceeds the cap of 1024 bytes/)
    }))

  it.effect("seal: false: no requestState, the journal carries the conversation round to round; caps still hold", () =>
    Effect.gen(function*() {
      const two = Effect.gen(function*() {
        const { name } = yield* Elicitation.form({ key: "name", message: "Name?", schema: Name })
        const { color } = yield* Elicitation.form({ key: "color", message: "Color?", schema: Color })
        return `${name} likes ${color}`
      })
      const first = yield* round(two, { seal: false })
      const firstResult = expectInputRequired(first)
      assert.isUndefined(firstResult.requestState)
      assert.deepStrictEqual(Object.keys(firstResult.inputRequests ?? {}), ["name"])
      if (first._tag !== "InputRequired") return
      const second = yield* round(two, {
        seal: false,
        journal: first.journal,
        inputResponses: { name: accept({ name: "Ada" }) }
      })
      const secondResult = expectInputRequired(second)
      assert.isUndefined(secondResult.requestState)
      assert.deepStrictEqual(Object.keys(secondResult.inputRequests ?? {}), ["color"])
      if (second._tag !== "InputRequired") return
      assert.strictEqual(
        expectComplete(
          yield* round(two, {
            seal: false,
            journal: second.journal,
            inputResponses: { color: accept({ color: "red" }) }
          })
        ),
        "Ada likes red"
      )
      // the same journal, sealed, is what a sealing round would have sent
      const sealed = expectInputRequired(
        yield* round(two, { journal: first.journal, inputResponses: { name: accept({ name: "Ada" }) } })
      )
      assert.strictEqual(typeof sealed.requestState, "string")
      const big = Effect.gen(function*() {
        yield* Mrtr.step("blob", Effect.succeed("x".repeat(5000)), Schema.String)
        return yield* Elicitation.form({ key: "q", message: "Q", schema: Name })
      })
      const error = yield* Effect.flip(
        Effect.provideService(round(big, { seal: false }), Engine.Limits, { maxRounds: 16, maxJournalBytes: 1024 })
      )
      assert.instanceOf(error, JournalTooLarge)
    }))

  it.effect("a forged or foreign requestState is rejected before the handler runs", () =>
    Effect.gen(function*() {
      let ran = 0
      const handler = Effect.gen(function*() {
        ran++
        return yield* Elicitation.form({ key: "q", message: "Q", schema: Name })
      })
      const r1 = expectInputRequired(yield* round(handler))
      ran = 0
      for (
        const request of [
          { requestState: r1.requestState + "-TAMPERED" },
          { requestState: "not even close" },
          { requestState: r1.requestState, target: "other_tool" },
          { requestState: r1.requestState, arguments: { a: 2 } },
          { requestState: r1.requestState, method: "prompts/get" },
          { requestState: r1.requestState, audience: "other-server" },
          { requestState: r1.requestState, principal: "mallory" }
        ]
      ) {
        const exit = yield* Effect.exit(round(handler, request))
        assert.strictEqual(exit._tag, "Failure")
        assert.include(JSON.stringify(exit), "InvalidRequestState")
      }
      assert.strictEqual(ran, 0)
    }))

  it("an InputRequiredResult with neither inputRequests nor requestState cannot be built", () => {
    // @ts-expect-error neither field
    assert.throws(() => makeInputRequiredResult({}))
    // an empty map and no state: the type allows an (empty) map, the constructor refuses it
    assert.throws(() => makeInputRequiredResult({ inputRequests: {} }))
    assert.strictEqual(makeInputRequiredResult({ requestState: "s" }).resultType, "input_required")
  })
})

describe("Engine.run against mutated states", () => {
  it.effect(
    "thousands of mutated states never reach the handler and all fail identically",
    () =>
      Effect.gen(function*() {
        let ran = 0
        const handler = Effect.gen(function*() {
          ran++
          const { name } = yield* Elicitation.form({ key: "q", message: "Q", schema: Name })
          return name
        })
        const r1 = expectInputRequired(yield* round(handler))
        const state = r1.requestState!
        ran = 0
        // a seeded xorshift PRNG, so a failure is reproducible
        let seed = 0x2f6b3c1d
        const next = (n: number) => {
          seed ^= seed << 13
          seed ^= seed >>> 17
          seed ^= seed << 5
          return Math.abs(seed) % n
        }
        const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
        const mutate = (s: string): string => {
          switch (next(5)) {
            case 0: { // replace one character
              const i = next(s.length)
              return s.slice(0, i) + alphabet.charAt(next(alphabet.length)) + s.slice(i + 1)
            }
            case 1: // truncate
              return s.slice(0, next(s.length))
            case 2: // extend
              return s + alphabet.charAt(next(alphabet.length)).repeat(1 + next(8))
            case 3: { // swap two characters
              const i = next(s.length)
              const j = next(s.length)
              const chars = s.split("")
              ;[chars[i], chars[j]] = [chars[j]!, chars[i]!]
              return chars.join("")
            }
            default: { // drop one character
              const i = next(s.length)
              return s.slice(0, i) + s.slice(i + 1)
            }
          }
        }
        const errors = new Set<string>()
        let attempts = 0
        for (let i = 0; i < 2000; i++) {
          const forged = mutate(state)
          if (forged === state) continue
          attempts++
          const error = yield* Effect.flip(round(handler, {
            requestState: forged,
            inputResponses: { q: accept({ name: "Mallory" }) }
          }))
          errors.add(JSON.stringify({ tag: (error as any)._tag, message: (error as any).message }))
        }
        assert.isAbove(attempts, 1900)
        assert.strictEqual(ran, 0)
        assert.deepStrictEqual([...errors], [
          JSON.stringify({ tag: "InvalidRequestState", message: "Invalid requestState" })
        ])
      }),
    { timeout: 60_000 }
  )
})

describe("Engine: a refused form answer is asked again with the reason", () => {
  const Form = Schema.Struct({
    name: Schema.String.check(Schema.isMinLength(2), Schema.isMaxLength(5)),
    email: Schema.optionalKey(Schema.String.annotate({ format: "email" })),
    site: Schema.optionalKey(Schema.String.annotate({ format: "uri" })),
    born: Schema.optionalKey(Schema.String.annotate({ format: "date" })),
    at: Schema.optionalKey(Schema.String.annotate({ format: "date-time" })),
    age: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 120 }))),
    ratio: Schema.optionalKey(Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 }))),
    size: Schema.optionalKey(Schema.Literals(["s", "m"])),
    tags: Schema.optionalKey(Schema.Array(Schema.Literals(["a", "b"])).check(Schema.isMaxLength(1))),
    ok: Schema.optionalKey(Schema.Boolean)
  })
  const handler = Elicitation.form({ key: "f", message: "Fill in", schema: Form })
  // one refused answer per kind of check the form subset allows (there is no `pattern` in it)
  const refused: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
    ["required", {}, "\"name\" is required"],
    ["type", { name: 7 }, "\"name\" must be text"],
    ["minLength", { name: "A" }, "\"name\" must be at least 2 characters long"],
    ["maxLength", { name: "Alexandra" }, "\"name\" must be at most 5 characters long"],
    ["format email", { name: "Ada", email: "not-an-email" }, "\"email\" must be an email address"],
    ["format uri", { name: "Ada", site: "nope" }, "\"site\" must be an absolute URI"],
    ["format date", { name: "Ada", born: "2023-02-29" }, "\"born\" must be a calendar date"],
    ["format date-time", { name: "Ada", at: "2026-01-01T10:00:00+99:99" }, "\"at\" must be a date and time"],
    ["minimum", { name: "Ada", age: -3 }, "\"age\" must be at least 0"],
    ["maximum", { name: "Ada", ratio: 2 }, "\"ratio\" must be at most 1"],
    ["integer", { name: "Ada", age: 2.5 }, "\"age\" must be a whole number"],
    ["enum", { name: "Ada", size: "xl" }, "\"size\" must be one of: s, m"],
    ["multi-select", { name: "Ada", tags: ["a", "b"] }, "\"tags\" allows at most 1 choice"],
    ["boolean", { name: "Ada", ok: "yes" }, "\"ok\" must be yes or no"],
    ["lone surrogate", { name: "A\ud800" }, "\"name\" holds text that is not valid Unicode"]
  ]
  // answers that are not even an ElicitResult (a field of null, content that is not an object, an unknown action)
  const malformed: ReadonlyArray<readonly [string, unknown, string]> = [
    ["a field of null", { action: "accept", content: { name: null } }, "\"name\" must be text"],
    [
      "an extra field of null",
      { action: "accept", content: { name: "A", extra: null } },
      "\"name\" must be at least 2"
    ],
    ["content null", { action: "accept", content: null }, "the answer holds no form fields"],
    ["content an array", { action: "accept", content: [] }, "the answer holds no form fields"],
    ["content a string", { action: "accept", content: "x" }, "the answer holds no form fields"],
    ["an unknown action", { action: "ACCEPT", content: { name: "Ada" } }, "action must be accept, decline or cancel"]
  ]
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    ...refused.map(([kind, content, reason]) => [kind, accept(content), reason] as const),
    ...malformed
  ]
  for (const [kind, answer, reason] of cases) {
    it.effect(`${kind}: the reason is shown, and the next answer is accepted on replay`, () =>
      Effect.gen(function*() {
        const first = expectInputRequired(yield* round(handler))
        const asked = first.inputRequests!.f!
        const second = expectInputRequired(
          yield* round(handler, { inputResponses: { f: answer }, requestState: first.requestState } as any)
        )
        const reasked = second.inputRequests!.f! as { params: { message: string; requestedSchema: unknown } }
        assert.include(reasked.params.message, reason)
        assert.isTrue(reasked.params.message.startsWith(Elicitation.refusedPrefix))
        assert.isTrue(reasked.params.message.endsWith("\n\nFill in"))
        assert.deepStrictEqual(reasked.params.requestedSchema, (asked as any).params.requestedSchema)
        // not part of the digest: the handler's question on replay takes the next answer
        const third = yield* round(handler, {
          inputResponses: { f: accept({ name: "Ada" }) },
          requestState: second.requestState
        })
        assert.deepStrictEqual(expectComplete(third), { name: "Ada" })
      }))
  }
})
