/**
 * The states a codec keeps until their retry (`internal/issuedStates.ts`,
 * `RequestStateCodecOptions.issuedCacheBytes`): a retry to the codec that
 * sealed its state skips the decryption, and every check after the
 * decryption (binding, expiry, single use) still holds for it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Logger, Metric, References, Schema } from "effect"
import { Aead, Digest, SecureRandom } from "effect/crypto"
import { TestClock } from "effect/testing"
import { Engine } from "../src/engine/index.ts"
import { Elicitation, Mrtr } from "../src/index.ts"
import { IssuedStates } from "../src/internal/issuedStates.ts"
import * as JournalWire from "../src/internal/journalWire.ts"
import { InvalidOption } from "../src/InvalidOption.ts"
import {
  type Binding,
  KeyRing,
  RequestStateCodec,
  type RequestStateCodecOptions,
  unsealedTotal
} from "../src/RequestState.ts"
import { aliceBinding, codecLayer, fixedKeys } from "./fixtures.ts"

const keyBytes = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff)

const binding: Binding = aliceBinding

/** A payload as the engine hands it to `seal`: a journal's compact form, serialized once. */
const encoded = (name: string) => {
  const wire = { n: 1, a: { user_name: ["abcdefghijklmnopqrstuv", { name }] }, q: { email: "0123456789abcdefghijkl" } }
  return new JournalWire.EncodedJson(wire, JSON.stringify(wire))
}

/** A codec whose `Aead` counts its decryptions. */
const countingCodec = (options: Partial<RequestStateCodecOptions> = {}) =>
  Effect.gen(function*() {
    const counter = { decryptions: 0 }
    const counting = Layer.effect(
      Aead.Aead,
      Effect.map(Effect.service(Aead.Aead), (inner) =>
        Aead.Aead.of({
          ...inner,
          decrypt: (key, ciphertext, decryptOptions) =>
            Effect.suspend(() => {
              counter.decryptions++
              return inner.decrypt(key, ciphertext, decryptOptions)
            })
        }))
    ).pipe(Layer.provide(Aead.layerWebCrypto), Layer.provideMerge(SecureRandom.layerWebCrypto))
    const keyRing = yield* KeyRing.fromBytes([{ id: "k", bytes: keyBytes }])
    const codec = yield* RequestStateCodec.make({ keyRing, ...options }).pipe(Effect.provide(counting))
    return { codec, counter }
  })

/** Asserts that `effect` (an unseal) fails with `InvalidRequestState` and logs exactly `reason` as the rejection's reason. */
const expectRefused = <A, E>(effect: Effect.Effect<A, E>, reason: string) =>
  Effect.gen(function*() {
    const reasons: Array<unknown> = []
    const logger = Logger.make((options) => {
      const annotations = options.fiber.getRef(References.CurrentLogAnnotations)
      if ("mrtr.requestState.reason" in annotations) reasons.push(annotations["mrtr.requestState.reason"])
    })
    const exit = yield* Effect.exit(effect).pipe(
      Effect.provide(Logger.layer([logger])),
      Effect.provideService(References.MinimumLogLevel, "Debug")
    )
    expect(isInvalidRequestState(exit)).toBe(true)
    expect(reasons).toEqual([reason])
  })

const isInvalidRequestState = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) &&
  exit.cause.reasons.some((r) => r._tag === "Fail" && (r.error as { _tag?: string })._tag === "InvalidRequestState")

describe("IssuedStates", () => {
  it.effect("a retry to the codec that sealed the state skips the decryption, once; another codec decrypts", () =>
    Effect.gen(function*() {
      const { codec, counter } = yield* countingCodec()
      const payload = encoded("Alice")
      const state = yield* codec.seal(payload, binding)
      expect(yield* codec.unseal(state, binding)).toEqual(payload.value)
      expect(counter.decryptions).toBe(0)
      // taken by its first retry: a second one decrypts, to the same payload
      expect(yield* codec.unseal(state, binding)).toEqual(payload.value)
      expect(counter.decryptions).toBe(1)
      // another instance with the same keys decrypts the same state
      const other = yield* countingCodec()
      const again = yield* codec.seal(payload, binding)
      expect(yield* other.codec.unseal(again, binding)).toEqual(payload.value)
      expect(other.counter.decryptions).toBe(1)
      // what the engine decodes from either is the same journal
      expect(JournalWire.decode(yield* codec.unseal(again, binding))).toEqual(
        JournalWire.decode(JSON.parse(payload.json))
      )
      expect(counter.decryptions).toBe(1)
    }))

  it.effect("a kept state retried with another binding is refused as any other state, and stays for its own", () =>
    Effect.gen(function*() {
      const { codec, counter } = yield* countingCodec()
      const state = yield* codec.seal(encoded("Alice"), binding)
      const others: ReadonlyArray<Binding> = [
        { ...binding, method: "prompts/get" },
        { ...binding, target: "other_tool" },
        { ...binding, argumentsDigest: "AAAAAAAAAAAAAAAAAAAAAA" },
        { ...binding, audience: "https://other.example.com/mcp" },
        { ...binding, principal: "user:mallory" },
        { ...binding, principal: undefined },
        {
          method: binding.method,
          target: binding.target,
          argumentsDigest: binding.argumentsDigest,
          audience: binding.audience
        }
      ]
      for (const other of others) {
        yield* expectRefused(codec.unseal(state, other), "decryption-failed")
      }
      expect(counter.decryptions).toBe(others.length)
      expect(yield* codec.unseal(state, binding)).toEqual(encoded("Alice").value)
      expect(counter.decryptions).toBe(others.length)
    }))

  it.effect("a tampered copy of a kept state is refused; the state itself is still served", () =>
    Effect.gen(function*() {
      const { codec, counter } = yield* countingCodec()
      const state = yield* codec.seal(encoded("Alice"), binding)
      const last = state.at(-2) === "A" ? "B" : "A"
      const tampered = state.slice(0, -2) + last + state.slice(-1)
      yield* expectRefused(codec.unseal(tampered, binding), "decryption-failed")
      expect(isInvalidRequestState(yield* Effect.exit(codec.unseal(`${state}x`, binding)))).toBe(true)
      expect(counter.decryptions).toBe(1)
      expect(yield* codec.unseal(state, binding)).toEqual(encoded("Alice").value)
      expect(counter.decryptions).toBe(1)
    }))

  it.effect("a kept state expires like any other", () =>
    Effect.gen(function*() {
      const { codec, counter } = yield* countingCodec({ ttl: "30 seconds" })
      const early = yield* codec.seal(encoded("Alice"), binding)
      const late = yield* codec.seal(encoded("Bob"), binding)
      yield* TestClock.adjust("29 seconds")
      expect(yield* codec.unseal(early, binding)).toEqual(encoded("Alice").value)
      yield* TestClock.adjust("1 second")
      yield* expectRefused(codec.unseal(late, binding), "expired")
      expect(counter.decryptions).toBe(0)
    }))

  it.effect("single use: a kept state is redeemed through the guard, once", () =>
    Effect.gen(function*() {
      const { codec, counter } = yield* countingCodec({ singleUse: true })
      const state = yield* codec.seal(encoded("Alice"), binding)
      expect(yield* codec.unseal(state, binding)).toEqual(encoded("Alice").value)
      expect(counter.decryptions).toBe(0)
      yield* expectRefused(codec.unseal(state, binding), "replayed")
      expect(counter.decryptions).toBe(1)
    }))

  it.effect("bounded: the oldest go first past the budget, 0 keeps none", () =>
    Effect.gen(function*() {
      const probe = yield* countingCodec()
      const sample = yield* probe.codec.seal(encoded("Alice"), binding)
      // the plaintext: {"exp":600000,"c":"<12>","p":<payload>} under the test clock (exp = 0 + 10 minutes)
      const plaintextLength = `{"exp":600000,"c":"123456789012","p":${encoded("Alice").json}}`.length
      const perEntry = sample.length + 2 * plaintextLength + 256
      const two = yield* countingCodec({ issuedCacheBytes: 2 * perEntry + 10 })
      const states = [
        yield* two.codec.seal(encoded("Alice"), binding),
        yield* two.codec.seal(encoded("Bobby"), binding),
        yield* two.codec.seal(encoded("Carol"), binding)
      ]
      yield* two.codec.unseal(states[2]!, binding)
      yield* two.codec.unseal(states[1]!, binding)
      expect(two.counter.decryptions).toBe(0)
      yield* two.codec.unseal(states[0]!, binding)
      expect(two.counter.decryptions).toBe(1)

      const none = yield* countingCodec({ issuedCacheBytes: 0 })
      yield* none.codec.unseal(yield* none.codec.seal(encoded("Alice"), binding), binding)
      expect(none.counter.decryptions).toBe(1)
    }))

  it.effect("a kept state gives the payload as it was sealed, whatever happens to its objects after", () =>
    Effect.gen(function*() {
      const { codec, counter } = yield* countingCodec()
      // a plain payload, changed after sealing
      const value = { n: 1, nested: { list: ["a"] } }
      const plain = yield* codec.seal(value, binding)
      value.n = 2
      value.nested.list.push("b")
      expect(yield* codec.unseal(plain, binding)).toEqual({ n: 1, nested: { list: ["a"] } })
      // the engine's payload, its nested objects changed after sealing
      const payload = encoded("Alice")
      const sealed = yield* codec.seal(payload, binding)
      const wire = payload.value as { a: { user_name: [string, { name: string }] }; q: Record<string, string> }
      wire.a.user_name[1].name = "Mallory"
      wire.q.email = "changed"
      const unsealed = yield* codec.unseal(sealed, binding)
      expect(unsealed).toEqual(JSON.parse(encoded("Alice").json))
      expect(unsealed).not.toBe(payload.value)
      expect(counter.decryptions).toBe(0)
    }))

  it.effect("through the engine, a step's value replays as journaled, not as its object is now (one codec for every round)", () =>
    Effect.gen(function*() {
      const config = { price: 100 }
      const handler = Effect.gen(function*() {
        const quote = yield* Mrtr.step("quote", Effect.sync(() => config), Schema.Unknown)
        yield* Elicitation.form({ key: "ok", message: "Buy?", schema: Schema.Struct({ ok: Schema.Boolean }) })
        return (quote as { price: number }).price
      })
      const request = {
        method: "tools/call",
        target: "buy",
        arguments: {},
        audience: "test",
        clientCapabilities: { elicitation: {} }
      }
      const outcome = yield* Effect.gen(function*() {
        const first = yield* Engine.run(handler, request)
        if (first._tag !== "InputRequired") throw new Error("expected input_required")
        config.price = 999
        return yield* Engine.run(handler, {
          ...request,
          requestState: first.result.requestState,
          inputResponses: { ok: { action: "accept", content: { ok: true } } }
        })
      }).pipe(Effect.provide(Layer.mergeAll(codecLayer(fixedKeys), Digest.layerWebCrypto)))
      expect(outcome._tag).toBe("Complete")
      if (outcome._tag === "Complete") expect(outcome.value).toBe(100)
    }))

  it.effect("fails with InvalidOption on a budget that is no non-negative integer", () =>
    Effect.gen(function*() {
      for (const issuedCacheBytes of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        const error = yield* Effect.flip(countingCodec({ issuedCacheBytes }))
        expect(error).toBeInstanceOf(InvalidOption)
        expect((error as InvalidOption).option).toBe("issuedCacheBytes")
      }
    }))

  it("counts its bytes, keeps no entry larger than the budget, and copies the binding", () => {
    const states = new IssuedStates<string>(1000)
    const mutable = { ...binding }
    states.remember("a", "A", mutable, 400)
    states.remember("b", "B", binding, 400)
    expect([states.size, states.bytes]).toEqual([2, 800])
    states.remember("c", "C", binding, 400)
    expect([states.size, states.bytes]).toEqual([2, 800])
    expect(states.take("a", binding)).toBeUndefined()
    states.remember("huge", "H", binding, 1001)
    expect(states.take("huge", binding)).toBeUndefined()
    expect(states.take("b", { ...binding, principal: "user:bob" })).toBeUndefined()
    expect(states.take("b", binding)).toBe("B")
    expect(states.take("c", binding)).toBe("C")
    expect([states.size, states.bytes]).toEqual([0, 0])
    const kept = new IssuedStates<string>(1000)
    kept.remember("x", "X", mutable, 100)
    mutable.target = "changed"
    expect(kept.take("x", mutable)).toBeUndefined()
    expect(kept.take("x", binding)).toBe("X")
    // the same string kept twice (a SecureRandom that repeats): the new entry replaces the old, cost and all
    const again = new IssuedStates<string>(1000)
    again.remember("a", "first", binding, 600)
    again.remember("a", "second", binding, 300)
    expect([again.size, again.bytes]).toEqual([1, 300])
    expect(again.take("a", binding)).toBe("second")
    expect(again.bytes).toBe(0)
  })

  it.effect("mrtr_request_state_unsealed_total counts kept and decrypted states", () =>
    Effect.gen(function*() {
      const count = (source: string) =>
        Effect.map(Metric.value(Metric.withAttributes(unsealedTotal, { source })), (state) => state.count)
      const kept0 = yield* count("kept")
      const decrypted0 = yield* count("decrypted")
      const { codec } = yield* countingCodec()
      const state = yield* codec.seal(encoded("Alice"), binding)
      yield* codec.unseal(state, binding)
      yield* codec.unseal(state, binding)
      expect((yield* count("kept")) - kept0).toBe(1)
      expect((yield* count("decrypted")) - decrypted0).toBe(1)
    }))
})
