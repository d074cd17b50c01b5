import { describe, expect, it } from "@effect/vitest"
import type { ClientCapabilities } from "@mrtr/protocol/Schema"
import { Effect, Layer, Schema } from "effect"
import { Digest } from "effect/crypto"
import { Canonical, Engine, Journal } from "../src/engine/index.ts"
import { Elicitation, RequestState } from "../src/index.ts"
import * as JournalWire from "../src/internal/journalWire.ts"
import { codecLayer, fixedKeys } from "./fixtures.ts"

const ALL: ClientCapabilities = { elicitation: {}, sampling: {}, roots: {} }
const D = "A".repeat(22)

const roundTrip = (journal: Journal.Journal) =>
  JournalWire.decode(JSON.parse(JSON.stringify(JournalWire.encode(journal))))

describe("the sealed journal's compact form (state format v2)", () => {
  it("round-trips every kind of answer, steps, pending digests and waited rounds", () => {
    const journal: Journal.Journal = {
      v: 1,
      round: 3,
      answers: {
        name: { d: D, r: { action: "accept", content: { name: "Ada" } } },
        // key order of a plain accept is not kept; everything else is verbatim
        late: { d: D, r: { content: { n: 1 }, action: "accept" } },
        meta: { d: D, r: { action: "accept", content: { x: 1 }, _meta: { k: "v" } } },
        url: { d: D, r: { action: "accept" } },
        no: { d: D, r: { action: "decline" } },
        sampled: { d: D, r: { role: "assistant", content: { type: "text", text: "hi" }, model: "m" } },
        list: { d: D, r: [1, 2] },
        nil: { d: D, r: null },
        ["__proto__"]: { d: D, r: { action: "accept", content: { p: true } } }
      },
      steps: { fetched: { rows: [1, 2, 3] }, ["constructor"]: 1 },
      pending: { next: D, ["toString"]: D },
      waited: 2
    }
    const decoded = roundTrip(journal)!
    expect(decoded).toBeDefined()
    expect(Schema.is(Journal.Journal)(decoded)).toBe(true)
    expect(decoded.round).toBe(3)
    expect(decoded.waited).toBe(2)
    expect(Object.getPrototypeOf(decoded.answers)).toBe(null)
    expect(Object.keys(decoded.answers).sort()).toEqual(Object.keys(journal.answers).sort())
    for (const key of Object.keys(journal.answers)) expect(decoded.answers[key]).toEqual(journal.answers[key])
    expect(Object.hasOwn(decoded.answers, "__proto__")).toBe(true)
    expect({ ...decoded.steps }).toEqual({ ...journal.steps })
    expect({ ...decoded.pending }).toEqual({ ...journal.pending })
    expect(roundTrip(Journal.empty)).toEqual({ ...Journal.empty })
  })

  it("an accepted answer costs its key, digest and content: a few bytes beyond the answer's own JSON", () => {
    const answer = { action: "accept", content: { value: "answer number 1" } }
    const one = JSON.stringify(JournalWire.encode({ ...Journal.empty, round: 1, answers: { q0: { d: D, r: answer } } }))
    const two = JSON.stringify(JournalWire.encode({
      ...Journal.empty,
      round: 1,
      answers: { q0: { d: D, r: answer }, q1: { d: D, r: answer } }
    }))
    // `,"q1":["<22>",{"value":"answer number 1"}]`: the content, the key and the digest
    expect(two.length - one.length).toBe(1 + 5 + 1 + 24 + 1 + JSON.stringify(answer.content).length + 1)
    expect(two.length - one.length).toBeLessThan(JSON.stringify(answer).length + 30)
  })

  it("refuses whatever the encoder never writes", () => {
    for (
      const value of [
        null,
        [],
        "x",
        {},
        { n: -1 },
        { n: 1.5 },
        { n: "1" },
        { n: 1, w: 0 },
        { n: 1, w: -2 },
        { n: 1, a: [] },
        { n: 1, a: { k: {} } },
        { n: 1, a: { k: [] } },
        { n: 1, a: { k: [1, {}] } },
        { n: 1, a: { k: [D] } },
        { n: 1, a: { k: [D, {}, 1] } },
        { n: 1, a: { k: [D, {}, 0, 0] } },
        { n: 1, q: { k: 1 } },
        { n: 1, q: [] },
        { n: 1, s: [] },
        { n: 1, extra: true },
        // the long form of the previous format
        { v: 1, round: 1, answers: {}, steps: {}, pending: {} }
      ]
    ) expect(JournalWire.decode(value)).toBeUndefined()
  })

  it.effect("an authentic state holding a journal in any other form is InvalidRequestState before the handler runs", () =>
    Effect.gen(function*() {
      const codec = yield* RequestState.RequestStateCodec
      const request = { method: "tools/call", target: "t", arguments: { a: 1 }, audience: "s", clientCapabilities: ALL }
      const argumentsDigest = yield* Canonical.digestOf(request.arguments)
      const binding = { method: request.method, target: request.target, argumentsDigest, audience: request.audience }
      let ran = 0
      const handler = Effect.gen(function*() {
        ran++
        return yield* Elicitation.form({ key: "q", message: "Q", schema: Schema.Struct({ name: Schema.String }) })
      })
      for (const payload of [{ v: 1, round: 1, answers: {}, steps: {}, pending: {} }, { n: "x" }, null]) {
        const requestState = yield* codec.seal(payload, binding)
        const error = yield* Effect.flip(Engine.run(handler, { ...request, requestState }))
        expect(error._tag).toBe("InvalidRequestState")
      }
      expect(ran).toBe(0)
      // and the engine's own state of the same binding is accepted
      const first = yield* Engine.run(handler, request)
      expect(first._tag).toBe("InputRequired")
    }).pipe(Effect.provide(Layer.mergeAll(codecLayer(fixedKeys), Digest.layerWebCrypto))))
})
