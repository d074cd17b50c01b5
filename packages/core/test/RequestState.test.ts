import { describe, expect, it, vi } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Logger, Metric, References, Result } from "effect"
import { Aead, SecureRandom } from "effect/crypto"
import { Base64Url } from "effect/encoding"
import { TestClock } from "effect/testing"
import * as ClientAddress from "../src/ClientAddress.ts"
import { InvalidOption } from "../src/InvalidOption.ts"
import {
  type Binding,
  InvalidKeyRing,
  InvalidRequestState,
  KeyRing,
  ReplayGuard,
  ReplayGuardFull,
  replayGuardFullTotal,
  RequestStateCodec,
  type RequestStateCodecOptions,
  RequestStateTooLarge
} from "../src/RequestState.ts"
import { aliceBinding } from "./fixtures.ts"

// -----------------------------------------------------------------------------
// helpers
// -----------------------------------------------------------------------------

/** mulberry32: a small seeded PRNG, so every mutation is reproducible from its seed. */
const prng = (seed: number) => {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[int(xs.length)]!
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => int(256))
  return { next, int, pick, bytes }
}

const seeded = prng(0x5eed)
const keyBytesA = seeded.bytes(32)
const keyBytesB = seeded.bytes(32)
const keyBytesC = seeded.bytes(32)

const binding: Binding = aliceBinding

const journal = {
  v: 1,
  round: 1,
  answers: {
    user_name: {
      d: "abcdefghijklmnopqrstuv",
      r: { action: "accept", content: { name: "Alice", email: "alice@example.com", age: 31 } }
    }
  },
  steps: {},
  pending: {}
}

const ringOf = (...keys: ReadonlyArray<{ readonly id?: string; readonly bytes: Uint8Array }>) => KeyRing.fromBytes(keys)

const codecOf = <E>(options: RequestStateCodecOptions<E>) =>
  Effect.provide(Effect.service(RequestStateCodec), RequestStateCodec.layer(options))

/** The codec of a fresh copy of the module (imported after `vi.resetModules()`), keyed "k" with `keyBytesA`. */
const codecOfCopy = (copy: typeof import("../src/RequestState.ts")) =>
  Effect.provide(
    Effect.service(copy.RequestStateCodec),
    copy.RequestStateCodec.layer({ keyRing: copy.KeyRing.fromBytes([{ id: "k", bytes: keyBytesA }]) })
  )

const publicShape = (error: unknown) => ({
  tag: (error as { _tag?: unknown })._tag,
  message: (error as Error).message,
  keys: Object.keys(error as object),
  json: JSON.stringify(error),
  isInvalid: error instanceof InvalidRequestState
})

const invalidShape = publicShape(new InvalidRequestState())

/** Runs `unseal` and returns the failure, or fails the test if it succeeded. */
const rejection = (
  codec: RequestStateCodec["Service"],
  state: string,
  b: Binding
) =>
  Effect.map(Effect.exit(codec.unseal(state, b)), (exit) => {
    if (Exit.isSuccess(exit)) throw new Error(`unseal unexpectedly succeeded for ${JSON.stringify(state)}`)
    const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
    if (failure === undefined || failure._tag !== "Fail") throw new Error("unseal died instead of failing")
    return failure.error
  })

/** Captures the `mrtr.requestState.reason` of every Debug log line. */
const captureReasons = () => {
  const reasons: Array<unknown> = []
  const logger = Logger.make((options) => {
    const annotations = options.fiber.getRef(References.CurrentLogAnnotations)
    if ("mrtr.requestState.reason" in annotations) reasons.push(annotations["mrtr.requestState.reason"])
  })
  const provide = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.provide(Logger.layer([logger])),
      Effect.provideService(References.MinimumLogLevel, "Debug")
    )
  return { reasons, provide }
}

const splitState = (state: string) => {
  const [version, keyId, body] = state.split(".") as [string, string, string]
  return { version, keyId, body, bytes: Result.getOrThrow(Base64Url.decode(body)) }
}

const cryptoLayer = Aead.layerWebCrypto.pipe(Layer.provideMerge(SecureRandom.layerWebCrypto))

// -----------------------------------------------------------------------------
// tests
// -----------------------------------------------------------------------------

describe("RequestState", () => {
  describe("the memory replay guard's shares by client address", () => {
    it.effect("requests without a principal are bounded per client address: one address cannot lock the others out", () =>
      Effect.gen(function*() {
        const guard = yield* ReplayGuard.makeMemory({ maxEntries: 5, maxEntriesPerPrincipal: 2 })
        const from = (address: string | undefined) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          Effect.provideService(effect, ClientAddress.ClientAddress, address)
        const later = Date.now() + 60_000
        expect(yield* from("10.0.0.1")(guard.redeem("a1", later))).toBe(true)
        expect(yield* from("10.0.0.1")(guard.redeem("a2", later))).toBe(true)
        const full = yield* Effect.flip(from("10.0.0.1")(guard.redeem("a3", later)))
        expect(full).toBeInstanceOf(ReplayGuardFull)
        expect((full as ReplayGuardFull).scope).toBe("address")
        expect(full.message).toContain("from this address")
        // Another address, and a replay from the full one, are answered as ever.
        expect(yield* from("10.0.0.2")(guard.redeem("b1", later))).toBe(true)
        expect(yield* from("10.0.0.1")(guard.redeem("a1", later))).toBe(false)
        // No address known (stdio, memory): the anonymous pool alone bounds it.
        expect(yield* guard.redeem("n1", later)).toBe(true)
        expect(yield* guard.redeem("n2", later)).toBe(true)
        expect(((yield* Effect.flip(guard.redeem("n3", later))) as ReplayGuardFull).scope).toBe("anonymous")
        // A principal's share is its own, whatever the address.
        expect(yield* from("10.0.0.1")(guard.redeem("p1", later, "alice"))).toBe(true)
      }))
  })

  describe("values a server keeps sealed (sealStored)", () => {
    it.effect("round-trip with no expiry or single use; never accepted as a requestState, nor the reverse; bound to their binding", () =>
      Effect.gen(function*() {
        const codec = yield* codecOf({
          keyRing: ringOf({ id: "k1", bytes: keyBytesA }),
          ttl: "1 second",
          singleUse: true
        })
        const stored = yield* codec.sealStored(journal, binding)
        expect(stored).toMatch(/^v2\.k1\.[A-Za-z0-9_-]+$/)
        expect(stored).not.toContain("Alice")
        yield* TestClock.adjust("1 hour")
        // Opened as often as needed, long after a requestState's ttl.
        expect(yield* codec.unsealStored(stored, binding)).toEqual(journal)
        expect(yield* codec.unsealStored(stored, binding)).toEqual(journal)
        expect(publicShape(yield* rejection(codec, stored, binding))).toEqual(invalidShape)
        const state = yield* codec.seal(journal, binding)
        expect(publicShape(yield* Effect.flip(codec.unsealStored(state, binding)))).toEqual(invalidShape)
        const other = { ...binding, target: "another" }
        expect(publicShape(yield* Effect.flip(codec.unsealStored(stored, other)))).toEqual(invalidShape)
        for (const bad of ["", "v2.k1", "v2.zz." + stored.split(".")[2], stored.slice(0, -4), stored + "."]) {
          expect(publicShape(yield* Effect.flip(codec.unsealStored(bad, binding)))).toEqual(invalidShape)
        }
        // Another key ring holding the key still opens it (rotation).
        const rotated = yield* codecOf({
          keyRing: ringOf({ id: "k2", bytes: keyBytesB }, { id: "k1", bytes: keyBytesA })
        })
        expect(yield* rotated.unsealStored(stored, binding)).toEqual(journal)
      }))
  })

  describe("round trip", () => {
    it.effect("seals into v2.<keyId>.<base64url> and unseals the payload", () =>
      Effect.gen(function*() {
        const codec = yield* codecOf({ keyRing: ringOf({ id: "k1", bytes: keyBytesA }) })
        const state = yield* codec.seal(journal, binding)
        expect(state).toMatch(/^v2\.k1\.[A-Za-z0-9_-]+$/)
        // nonce (24) + tag (16) + plaintext
        const { body, bytes } = splitState(state)
        expect(Base64Url.encode(bytes)).toBe(body)
        expect(bytes.length).toBeGreaterThan(24 + 16 + JSON.stringify(journal).length)
        expect(yield* codec.unseal(state, binding)).toEqual(journal)
        // fresh nonce per seal
        expect(yield* codec.seal(journal, binding)).not.toBe(state)
      }))

    it.effect("round trips scalar and null payloads, and bindings without a principal", () =>
      Effect.gen(function*() {
        const codec = yield* codecOf({ keyRing: ringOf({ bytes: keyBytesA }) })
        const { principal: _, ...anonymous } = binding
        for (const payload of [null, 0, "", "日本語 ✓", [1, [2, { a: null }]], { nested: { deep: true } }]) {
          expect(yield* codec.unseal(yield* codec.seal(payload, anonymous), anonymous)).toEqual(payload)
        }
        const explicitUndefined: Binding = { ...anonymous, principal: undefined }
        expect(yield* codec.unseal(yield* codec.seal(1, anonymous), explicitUndefined)).toBe(1)
      }))

    it.effect("a non-JSON payload is a defect, not a typed failure", () =>
      Effect.gen(function*() {
        const codec = yield* codecOf({ keyRing: ringOf({ bytes: keyBytesA }) })
        const cyclic: Record<string, unknown> = {}
        cyclic.self = cyclic
        const exit = yield* Effect.exit(codec.seal(cyclic, binding))
        expect(Exit.isFailure(exit) && exit.cause.reasons.every((r) => r._tag === "Die")).toBe(true)
        const big = yield* Effect.exit(codec.seal(10n, binding))
        expect(Exit.isFailure(big) && big.cause.reasons.every((r) => r._tag === "Die")).toBe(true)
      }))

    it.effect("matches the documented envelope, built by hand with effect/crypto", () =>
      Effect.gen(function*() {
        const codec = yield* codecOf({ keyRing: ringOf({ id: "hand", bytes: keyBytesA }) })
        const aead = yield* Aead.Aead
        const key = yield* Aead.key(Aead.xchacha20Poly1305, keyBytesA)
        const encoder = new TextEncoder()
        const handSeal = (plaintext: string, b: Binding, version = "v2") =>
          Effect.gen(function*() {
            const nonce = seeded.bytes(24)
            const aad = encoder.encode(JSON.stringify([
              "mrtr/requestState",
              version,
              "hand",
              b.method,
              b.target,
              b.argumentsDigest,
              b.audience,
              b.principal ?? null
            ]))
            const ciphertext = yield* aead.encrypt(key, encoder.encode(plaintext), { nonce, aad })
            const body = new Uint8Array(24 + ciphertext.length)
            body.set(nonce)
            body.set(ciphertext, 24)
            return `${version}.hand.${Base64Url.encode(body)}`
          })
        const exp = (yield* TestClock.testClockWith((clock) => clock.currentTimeMillis)) + 60_000
        // a well-formed hand-made state unseals: the format is what the module header says
        expect(yield* codec.unseal(yield* handSeal(JSON.stringify({ exp, p: { ok: true } }), binding), binding))
          .toEqual({ ok: true })
        // a state of the previous format (v1: the long-form journal), authentic otherwise, is refused cleanly
        const v1 = yield* handSeal(
          JSON.stringify({ exp, p: { v: 1, round: 1, answers: {}, steps: {}, pending: {} } }),
          binding,
          "v1"
        )
        expect(publicShape(yield* rejection(codec, v1, binding))).toEqual(invalidShape)
        // authentic but not JSON, or not the expected shape: rejected like anything else
        for (
          const plaintext of [
            "not json",
            "",
            "\u0000",
            JSON.stringify([exp]),
            JSON.stringify({ p: 1 }),
            JSON.stringify({ exp: "later", p: 1 }),
            JSON.stringify({ exp, jti: 7, p: 1 }),
            "null"
          ]
        ) {
          const error = yield* rejection(codec, yield* handSeal(plaintext, binding), binding)
          expect(publicShape(error)).toEqual(invalidShape)
        }
        // invalid UTF-8 inside an authentic ciphertext
        const nonce = seeded.bytes(24)
        const aad = encoder.encode(JSON.stringify([
          "mrtr/requestState",
          "v2",
          "hand",
          binding.method,
          binding.target,
          binding.argumentsDigest,
          binding.audience,
          binding.principal ?? null
        ]))
        const ciphertext = yield* aead.encrypt(key, Uint8Array.of(0x7b, 0xff, 0x7d), { nonce, aad })
        const body = new Uint8Array(24 + ciphertext.length)
        body.set(nonce)
        body.set(ciphertext, 24)
        expect(publicShape(yield* rejection(codec, `v2.hand.${Base64Url.encode(body)}`, binding))).toEqual(invalidShape)
      }).pipe(Effect.provide(cryptoLayer)))
  })

  describe("portability", () => {
    it.effect("without a native Buffer, the effect/encoding codec interoperates", () =>
      Effect.gen(function*() {
        // a fresh copy of the module that sees no `Buffer` at load time
        const portable = yield* Effect.promise(async () => {
          vi.resetModules()
          vi.stubGlobal("Buffer", undefined)
          try {
            return await import("../src/RequestState.ts")
          } finally {
            vi.unstubAllGlobals()
          }
        })
        const nativeCodec = yield* codecOf({ keyRing: ringOf({ id: "k", bytes: keyBytesA }) })
        const portableCodec = yield* codecOfCopy(portable)
        for (let n = 0; n < 30; n++) {
          const payload = { ...journal, filler: "y".repeat(n) }
          const fromPortable = yield* portableCodec.seal(payload, binding)
          const fromNative = yield* nativeCodec.seal(payload, binding)
          expect(yield* nativeCodec.unseal(fromPortable, binding)).toEqual(payload)
          expect(yield* portableCodec.unseal(fromNative, binding)).toEqual(payload)
          // non-canonical or padded bodies are refused by both
          for (
            const state of [fromNative + "=", fromNative + "\n", fromNative.slice(0, -1) + "\n" + fromNative.slice(-1)]
          ) {
            const exit = yield* Effect.exit(portableCodec.unseal(state, binding))
            expect(Exit.isFailure(exit)).toBe(true)
            expect(publicShape(yield* rejection(nativeCodec, state, binding))).toEqual(invalidShape)
          }
        }
      }))
  })

  describe("portability of the cipher", () => {
    it.effect("without node:crypto, the pure TypeScript XChaCha20-Poly1305 interoperates with the native one", () =>
      Effect.gen(function*() {
        // fresh copies of the modules that see no `process.getBuiltinModule` at load time
        const { native, portable } = yield* Effect.promise(async () => {
          vi.resetModules()
          const original = Object.getOwnPropertyDescriptor(process, "getBuiltinModule")
          Object.defineProperty(process, "getBuiltinModule", { value: undefined, configurable: true, writable: true })
          try {
            return {
              portable: await import("../src/RequestState.ts"),
              native: await import("../src/internal/nativeXChaCha.ts")
            }
          } finally {
            if (original === undefined) delete (process as { getBuiltinModule?: unknown }).getBuiltinModule
            else Object.defineProperty(process, "getBuiltinModule", original)
          }
        })
        expect(native.nativeXChaCha20Poly1305).toBeUndefined()
        const nativeCodec = yield* codecOf({ keyRing: ringOf({ id: "k", bytes: keyBytesA }) })
        const portableCodec = yield* codecOfCopy(portable)
        for (let n = 0; n < 20; n++) {
          const payload = { ...journal, filler: "z".repeat(n * 7) }
          expect(yield* nativeCodec.unseal(yield* portableCodec.seal(payload, binding), binding)).toEqual(payload)
          const fromNative = yield* nativeCodec.seal(payload, binding)
          expect(yield* portableCodec.unseal(fromNative, binding)).toEqual(payload)
          // a forged tag is refused by both
          const parts = splitState(fromNative)
          parts.bytes[parts.bytes.length - 1]! ^= 0x01
          const forged = `${parts.version}.${parts.keyId}.${Base64Url.encode(parts.bytes)}`
          expect(Exit.isFailure(yield* Effect.exit(portableCodec.unseal(forged, binding)))).toBe(true)
          expect(publicShape(yield* rejection(nativeCodec, forged, binding))).toEqual(invalidShape)
        }
      }))
  })

  describe("binding", () => {
    it.effect("rejects every changed field, and principal present/absent", () =>
      Effect.gen(function*() {
        const codec = yield* codecOf({ keyRing: ringOf({ bytes: keyBytesA }) })
        const { principal: _, ...anonymous } = binding
        const withPrincipal = yield* codec.seal(journal, binding)
        const withoutPrincipal = yield* codec.seal(journal, anonymous)
        const wrong: Array<[string, Binding]> = [
          [withPrincipal, { ...binding, method: "prompts/get" }],
          [withPrincipal, { ...binding, target: "book_meeting2" }],
          [withPrincipal, { ...binding, argumentsDigest: "Zx3sQk1YbqM0T7rWcVd2aB" }],
          [withPrincipal, { ...binding, audience: "https://other.example.com/mcp" }],
          [withPrincipal, { ...binding, principal: "user:bob" }],
          [withPrincipal, { ...binding, principal: "" }],
          [withPrincipal, anonymous],
          [withPrincipal, { ...binding, principal: undefined }],
          [withoutPrincipal, binding],
          [withoutPrincipal, { ...anonymous, principal: "" }],
          [withoutPrincipal, { ...anonymous, principal: "null" }],
          // field boundaries cannot be shifted
          [withPrincipal, { ...binding, method: "tools/callbook_meeting", target: "" }],
          [withPrincipal, { ...binding, method: "tools/call\",\"book_meeting", target: "" }]
        ]
        for (const [state, b] of wrong) {
          expect(publicShape(yield* rejection(codec, state, b))).toEqual(invalidShape)
        }
        expect(yield* codec.unseal(withPrincipal, binding)).toEqual(journal)
        expect(yield* codec.unseal(withoutPrincipal, anonymous)).toEqual(journal)
      }))
  })

  describe("tampering", () => {
    it.effect("rejects 10,000+ seeded mutations, all with the same public error", () =>
      Effect.gen(function*() {
        const random = prng(20260728)
        const ringA = yield* ringOf({ id: "ka", bytes: keyBytesA }, { id: "kb", bytes: keyBytesB })
        const codec = yield* codecOf({ keyRing: ringA })
        // same ids, other key bytes: a state from another deployment
        const otherCodec = yield* codecOf({
          keyRing: ringOf({ id: "ka", bytes: keyBytesC }, { id: "kb", bytes: keyBytesB })
        })
        const onlyB = yield* codecOf({ keyRing: ringOf({ id: "kb", bytes: keyBytesB }) })

        const bindings: Array<Binding> = []
        for (const method of ["tools/call", "prompts/get", "resources/read"]) {
          for (const target of ["book_meeting", "cancel_meeting", "file:///etc/passwd"]) {
            for (const argumentsDigest of ["Zx3sQk1YbqM0T7rWcVd2aA", "Zx3sQk1YbqM0T7rWcVd2aB"]) {
              for (const principal of ["user:alice", "user:bob", undefined]) {
                bindings.push(
                  principal === undefined
                    ? { method, target, argumentsDigest, audience: binding.audience }
                    : { method, target, argumentsDigest, audience: binding.audience, principal }
                )
              }
            }
          }
        }
        bindings.push({ ...binding, audience: "https://other.example.com/mcp" })

        // one original per binding, so that a spliced or swapped state is never
        // another genuine state for the same binding
        const originals: Array<{ state: string; binding: Binding }> = []
        const unused = [...bindings]
        for (let i = 0; i < 24; i++) {
          const b = unused.splice(random.int(unused.length), 1)[0]!
          const payload = { ...journal, round: i, filler: "x".repeat(random.int(200)) }
          originals.push({ state: yield* codec.seal(payload, b), binding: b })
        }
        const sameBinding = (x: Binding, y: Binding) =>
          x.method === y.method && x.target === y.target && x.argumentsDigest === y.argumentsDigest &&
          x.audience === y.audience && x.principal === y.principal

        const reencode = (state: string, f: (bytes: Uint8Array) => Uint8Array) => {
          const { body, bytes, keyId, version } = splitState(state)
          void body
          return `${version}.${keyId}.${Base64Url.encode(f(Uint8Array.from(bytes)))}`
        }
        const flipBit = (bytes: Uint8Array) => {
          const i = random.int(bytes.length)
          bytes[i] = bytes[i]! ^ (1 << random.int(8))
          return bytes
        }
        const mutations: ReadonlyArray<readonly [string, (state: string) => string]> = [
          ["flip a bit of the decoded bytes", (s) => reencode(s, flipBit)],
          ["flip a bit of the nonce", (s) =>
            reencode(s, (b) => {
              b[random.int(24)]! ^= 1 << random.int(8)
              return b
            })],
          ["flip a bit of the tag", (s) =>
            reencode(s, (b) => {
              b[b.length - 1 - random.int(16)]! ^= 1 << random.int(8)
              return b
            })],
          ["flip several bits", (s) =>
            reencode(s, (b) => {
              for (let n = 1 + random.int(8); n > 0; n--) flipBit(b)
              return b
            })],
          ["flip a bit of a character", (s) => {
            const i = random.int(s.length)
            return s.slice(0, i) + String.fromCharCode(s.charCodeAt(i) ^ (1 << random.int(7))) + s.slice(i + 1)
          }],
          ["replace a character", (s) => {
            const i = random.int(s.length)
            const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ \n"
            return s.slice(0, i) + random.pick([...alphabet]) + s.slice(i + 1)
          }],
          ["set unused bits of the last character", (s) => {
            // base64url of n bytes leaves 2 or 4 unused low bits in its last
            // character when n % 3 != 0: a decoder that ignores them accepts
            // several strings for the same bytes
            const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
            const last = alphabet.indexOf(s[s.length - 1]!)
            return s.slice(0, -1) + alphabet[last ^ (1 + random.int(3))]
          }],
          ["truncate the string", (s) => s.slice(0, random.int(s.length))],
          ["drop a prefix of the string", (s) => s.slice(1 + random.int(s.length - 1))],
          ["truncate the decoded bytes", (s) => reencode(s, (b) => b.slice(0, random.int(b.length)))],
          ["extend the string", (s) => s + random.pick(["A", "AA", "AAAA", "=", "==", "\n", ".", "-_", "x"])],
          ["extend the decoded bytes", (s) =>
            reencode(s, (b) => {
              const out = new Uint8Array(b.length + 1 + random.int(32))
              out.set(b)
              out.set(random.bytes(out.length - b.length), b.length)
              return out
            })],
          ["insert a character", (s) => {
            const i = random.int(s.length + 1)
            return s.slice(0, i) + random.pick(["\n", "\r", " ", "=", "A", "."]) + s.slice(i)
          }],
          ["swap two bytes", (s) =>
            reencode(s, (b) => {
              const i = random.int(b.length)
              let j = random.int(b.length)
              while (b[j] === b[i] && b.length > 1) j = random.int(b.length)
              const t = b[i]!
              b[i] = b[j]!
              b[j] = t
              return b
            })],
          ["rotate the decoded bytes", (s) =>
            reencode(s, (b) => {
              const k = 1 + random.int(b.length - 1)
              return Uint8Array.from([...b.subarray(k), ...b.subarray(0, k)])
            })],
          ["move the nonce to the end", (s) =>
            reencode(s, (b) => Uint8Array.from([...b.subarray(24), ...b.subarray(0, 24)]))],
          ["reorder the segments", (s) => {
            const parts = s.split(".")
            const orders = [[1, 0, 2], [2, 1, 0], [0, 2, 1], [1, 2, 0], [2, 0, 1]]
            return random.pick(orders).map((k) =>
              parts[k]
            ).join(".")
          }],
          ["swap the body with another state's", (s) => {
            const other = random.pick(originals).state
            return s.split(".").slice(0, 2).join(".") + "." + other.split(".")[2]
          }],
          ["splice two states", (s) => {
            const other = random.pick(originals).state
            const cut = random.int(Math.min(s.length, other.length))
            return s.slice(0, cut) + other.slice(cut)
          }],
          ["change the version tag", (s) => random.pick(["v1", "V2", "v0", "v2 ", "", "v21", "2", "v3"]) + s.slice(2)],
          ["change the key id", (s) => {
            const { body, version } = splitState(s)
            return `${version}.${random.pick(["kc", "KA", "k", "", "ka ", "kb", "ka", "__proto__"])}.${body}`
          }],
          ["pad the body", (s) => s + "=".repeat(1 + random.int(2))],
          ["oversize", (s) => s + "A".repeat(70_000)]
        ]

        let attempted = 0
        let rejected = 0
        let skipped = 0
        const byKind = new Map<string, number>()
        const check = (kind: string, state: string, b: Binding, original: { state: string; binding: Binding }) =>
          Effect.gen(function*() {
            if (state === original.state && sameBinding(b, original.binding)) {
              skipped++
              return
            }
            attempted++
            byKind.set(kind, (byKind.get(kind) ?? 0) + 1)
            const exit = yield* Effect.exit(codec.unseal(state, b))
            if (Exit.isSuccess(exit)) {
              throw new Error(`${kind}: accepted ${JSON.stringify(state)} for ${JSON.stringify(b)}`)
            }
            const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
            if (failure === undefined || failure._tag !== "Fail") throw new Error(`${kind}: died`)
            const shape = publicShape(failure.error)
            if (JSON.stringify(shape) !== JSON.stringify(invalidShape)) {
              throw new Error(`${kind}: error ${JSON.stringify(shape)}`)
            }
            rejected++
          })

        const capture = captureReasons()
        yield* capture.provide(Effect.gen(function*() {
          for (let i = 0; i < 9_000; i++) {
            const original = random.pick(originals)
            const [kind, mutate] = random.pick(mutations)
            yield* check(kind, mutate(original.state), original.binding, original)
          }
          // states replayed against another tool, other arguments, another principal or audience
          for (let i = 0; i < 800; i++) {
            const original = random.pick(originals)
            yield* check("swap binding", original.state, random.pick(bindings), original)
          }
          // other keys: same ids with other bytes, or a ring without the sealing key
          for (let i = 0; i < 150; i++) {
            const original = random.pick(originals)
            yield* check("other key", yield* otherCodec.seal(journal, original.binding), original.binding, original)
            const fromA = yield* codec.seal(journal, original.binding)
            attempted++
            byKind.set("ring without the key", (byKind.get("ring without the key") ?? 0) + 1)
            expect(publicShape(yield* rejection(onlyB, fromA, original.binding))).toEqual(invalidShape)
            rejected++
          }
          // expired
          const fresh: Array<{ state: string; binding: Binding }> = []
          for (let i = 0; i < 100; i++) {
            const b = random.pick(bindings)
            fresh.push({ state: yield* codec.seal({ i }, b), binding: b })
          }
          yield* TestClock.adjust("10 minutes")
          for (const original of fresh) {
            yield* check("expired", original.state, original.binding, { state: "", binding: original.binding })
          }
        }))

        expect(attempted).toBeGreaterThanOrEqual(10_000)
        expect(rejected).toBe(attempted)
        expect(byKind.size).toBe(mutations.length + 4)
        // many different internal reasons, one public error
        expect(new Set(capture.reasons)).toEqual(
          new Set([
            "too-large",
            "malformed",
            "unknown-version",
            "unknown-key",
            "truncated",
            "decryption-failed",
            "expired"
          ])
        )
        expect(skipped).toBeLessThan(500)
      }), { timeout: 60_000 })
  })

  describe("key rotation", () => {
    it.effect("a state from [A] unseals with [B, A], not with [B]; [B, A] seals with B", () =>
      Effect.gen(function*() {
        const ringA = yield* ringOf({ bytes: keyBytesA })
        const ringB = yield* ringOf({ bytes: keyBytesB })
        const ringBA = yield* ringOf({ bytes: keyBytesB }, { bytes: keyBytesA })
        const idA = ringA.keys[0].id
        const idB = ringB.keys[0].id
        // default ids are deterministic and differ per key
        expect(idA).toMatch(/^[A-Za-z0-9_-]{8}$/)
        expect(idA).not.toBe(idB)
        expect((yield* ringOf({ bytes: keyBytesA })).keys[0].id).toBe(idA)
        expect(ringBA.keys.map((k) => k.id)).toEqual([idB, idA])

        const codecA = yield* codecOf({ keyRing: ringA })
        const codecB = yield* codecOf({ keyRing: ringB })
        const codecBA = yield* codecOf({ keyRing: ringBA })
        const fromA = yield* codecA.seal(journal, binding)
        expect(fromA.startsWith(`v2.${idA}.`)).toBe(true)
        expect(yield* codecBA.unseal(fromA, binding)).toEqual(journal)
        expect(publicShape(yield* rejection(codecB, fromA, binding))).toEqual(invalidShape)

        const fromBA = yield* codecBA.seal(journal, binding)
        expect(fromBA.startsWith(`v2.${idB}.`)).toBe(true)
        expect(yield* codecB.unseal(fromBA, binding)).toEqual(journal)
        expect(publicShape(yield* rejection(codecA, fromBA, binding))).toEqual(invalidShape)
      }))

    it.effect("rejects invalid key rings", () =>
      Effect.gen(function*() {
        const fail = (effect: Effect.Effect<unknown, InvalidKeyRing>) =>
          Effect.map(Effect.flip(effect), (error) => {
            expect(error).toBeInstanceOf(InvalidKeyRing)
            return error.message
          })
        expect(yield* fail(ringOf())).toMatch(/at least one key/)
        expect(yield* fail(ringOf({ bytes: keyBytesA.subarray(0, 16) }))).toMatch(/Key 1: must be 32 bytes, got 16/)
        expect(yield* fail(ringOf({ id: "a.b", bytes: keyBytesA }))).toMatch(/Key 1: the key id/)
        expect(yield* fail(ringOf({ id: "", bytes: keyBytesA }))).toMatch(/Key 1: the key id/)
        expect(yield* fail(ringOf({ id: "x", bytes: keyBytesA }, { id: "x", bytes: keyBytesB }))).toMatch(
          /Key 2: duplicate key id/
        )
        expect(yield* fail(ringOf({ bytes: keyBytesA }, { bytes: keyBytesA }))).toMatch(/Key 2: duplicate key id/)
        const aesKey = yield* Aead.key(Aead.aes256Gcm, keyBytesA)
        expect(yield* fail(KeyRing.make([{ id: "aes", key: aesKey }]))).toMatch(/XChaCha20-Poly1305/)
      }))

    it.effect("KeyRing.generate makes one working random key", () =>
      Effect.gen(function*() {
        const ring = yield* KeyRing.generate
        expect(ring.keys).toHaveLength(1)
        const codec = yield* codecOf({ keyRing: ring })
        expect(yield* codec.unseal(yield* codec.seal(journal, binding), binding)).toEqual(journal)
        const other = yield* codecOf({ keyRing: KeyRing.generate })
        expect(publicShape(yield* rejection(other, yield* codec.seal(journal, binding), binding))).toEqual(
          invalidShape
        )
      }))
  })

  describe("expiry", () => {
    it.effect("defaults to 10 minutes: accepted at 9:59, rejected at 10:00 and 10:01", () =>
      Effect.gen(function*() {
        const codec = yield* codecOf({ keyRing: ringOf({ bytes: keyBytesA }) })
        const state = yield* codec.seal(journal, binding)
        yield* TestClock.adjust("9 minutes")
        yield* TestClock.adjust("59 seconds")
        expect(yield* codec.unseal(state, binding)).toEqual(journal)
        yield* TestClock.adjust("999 millis")
        expect(yield* codec.unseal(state, binding)).toEqual(journal)
        yield* TestClock.adjust("1 millis")
        expect(publicShape(yield* rejection(codec, state, binding))).toEqual(invalidShape)
        yield* TestClock.adjust("1 minute")
        expect(publicShape(yield* rejection(codec, state, binding))).toEqual(invalidShape)
      }))

    it.effect("honours a configured ttl", () =>
      Effect.gen(function*() {
        const codec = yield* codecOf({ keyRing: ringOf({ bytes: keyBytesA }), ttl: "30 seconds" })
        const state = yield* codec.seal(journal, binding)
        yield* TestClock.adjust("29 seconds")
        expect(yield* codec.unseal(state, binding)).toEqual(journal)
        yield* TestClock.adjust("2 seconds")
        expect(publicShape(yield* rejection(codec, state, binding))).toEqual(invalidShape)
      }))

    it.effect("only layerConfig reads MRTR_REQUEST_STATE_TTL: codec options without a ttl get 10 minutes, whatever the environment", () =>
      Effect.gen(function*() {
        const keyA = Base64Url.encode(keyBytesA)
        const provider = ConfigProvider.layer(
          ConfigProvider.fromUnknown({ MRTR_REQUEST_STATE_KEYS: `cfg:${keyA}`, MRTR_REQUEST_STATE_TTL: "2 seconds" })
        )
        const ways: ReadonlyArray<readonly [string, Layer.Layer<RequestStateCodec, unknown>, number]> = [
          ["layerConfig", RequestStateCodec.layerConfig, 2_000],
          [
            "layer, KeyRing.fromConfig, singleUse",
            RequestStateCodec.layer({ keyRing: KeyRing.fromConfig, singleUse: true }),
            600_000
          ],
          ["layer, fixed keys", RequestStateCodec.layer({ keyRing: ringOf({ bytes: keyBytesA }) }), 600_000],
          [
            "layer, fixed keys, singleUse",
            RequestStateCodec.layer({ keyRing: ringOf({ bytes: keyBytesA }), singleUse: true }),
            600_000
          ],
          [
            "make",
            Layer.effect(RequestStateCodec, RequestStateCodec.make({ keyRing: KeyRing.fromConfig, singleUse: true }))
              .pipe(
                Layer.provide(cryptoLayer)
              ),
            600_000
          ],
          [
            "layer, explicit ttl",
            RequestStateCodec.layer({ keyRing: KeyRing.fromConfig, singleUse: true, ttl: "5 seconds" }),
            5_000
          ]
        ]
        for (const [name, layer, ttl] of ways) {
          const codec = yield* Effect.provide(Effect.service(RequestStateCodec), layer.pipe(Layer.provide(provider)))
          const early = yield* codec.seal(journal, binding)
          const late = yield* codec.seal(journal, binding)
          yield* TestClock.adjust(ttl - 100)
          expect(yield* codec.unseal(early, binding), name).toEqual(journal)
          yield* TestClock.adjust(400)
          const capture = captureReasons()
          expect(publicShape(yield* capture.provide(rejection(codec, late, binding))), name).toEqual(invalidShape)
          expect(capture.reasons, name).toEqual(["expired"])
        }
      }))

    it.effect("fails with InvalidOption on a non-positive or infinite ttl", () =>
      Effect.gen(function*() {
        for (const ttl of [0, -1, "Infinity"] as const) {
          const error = yield* Effect.flip(codecOf({ keyRing: ringOf({ bytes: keyBytesA }), ttl }))
          expect(error).toBeInstanceOf(InvalidOption)
          expect((error as InvalidOption).option).toBe("ttl")
        }
      }))
  })

  describe("size cap", () => {
    it.effect("fails at seal above maxSize, exactly at the boundary", () =>
      Effect.gen(function*() {
        const keyRing = yield* ringOf({ bytes: keyBytesA })
        const roomy = yield* codecOf({ keyRing })
        const length = (yield* roomy.seal(journal, binding)).length
        const exact = yield* codecOf({ keyRing, maxSize: length })
        const state = yield* exact.seal(journal, binding)
        expect(state.length).toBe(length)
        const tight = yield* codecOf({ keyRing, maxSize: length - 1 })
        const error = yield* Effect.flip(tight.seal(journal, binding))
        expect(error).toBeInstanceOf(RequestStateTooLarge)
        expect(error).toMatchObject({ _tag: "RequestStateTooLarge", size: length, maxSize: length - 1 })
        // default cap: 64 KiB
        const tooBig = yield* Effect.flip(roomy.seal({ blob: "x".repeat(65_536) }, binding))
        expect(tooBig).toMatchObject({ _tag: "RequestStateTooLarge", maxSize: 65_536 })
        expect(tooBig.size).toBeGreaterThan(65_536)
        const almost = yield* roomy.seal({ blob: "x".repeat(48_000) }, binding)
        expect(almost.length).toBeLessThanOrEqual(65_536)
        expect(yield* roomy.unseal(almost, binding)).toEqual({ blob: "x".repeat(48_000) })
      }))

    it.effect("rejects at unseal a state longer than maxSize, without decrypting", () =>
      Effect.gen(function*() {
        const keyRing = yield* ringOf({ bytes: keyBytesA })
        const roomy = yield* codecOf({ keyRing })
        const tight = yield* codecOf({ keyRing, maxSize: 200 })
        const state = yield* roomy.seal({ blob: "x".repeat(500) }, binding)
        expect(yield* roomy.unseal(state, binding)).toEqual({ blob: "x".repeat(500) })
        const capture = captureReasons()
        const error = yield* capture.provide(rejection(tight, state, binding))
        expect(publicShape(error)).toEqual(invalidShape)
        expect(capture.reasons).toEqual(["too-large"])
        const huge = yield* capture.provide(rejection(roomy, "v2.x." + "A".repeat(70_000), binding))
        expect(publicShape(huge)).toEqual(invalidShape)
        expect(capture.reasons).toEqual(["too-large", "too-large"])
      }))
  })

  describe("KeyRing.fromConfig", () => {
    const withConfig = (env: Record<string, unknown>) =>
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env))
    const keyA = Base64Url.encode(keyBytesA)
    const keyB = Base64Url.encode(keyBytesB)

    it.effect("reads [id:]base64url keys, first is current", () =>
      Effect.gen(function*() {
        const ring = yield* KeyRing.fromConfig.pipe(withConfig({ MRTR_REQUEST_STATE_KEYS: `k2:${keyB}, ${keyA}` }))
        const derivedA = (yield* ringOf({ bytes: keyBytesA })).keys[0].id
        expect(ring.keys.map((k) => k.id)).toEqual(["k2", derivedA])
        const codec = yield* codecOf({ keyRing: ring })
        const state = yield* codec.seal(journal, binding)
        expect(state.startsWith("v2.k2.")).toBe(true)
        // same key bytes under the same id: interoperable with fromBytes
        const fromBytes = yield* codecOf({ keyRing: ringOf({ id: "k2", bytes: keyBytesB }) })
        expect(yield* fromBytes.unseal(state, binding)).toEqual(journal)
        // padded base64url is accepted too
        const padded = yield* KeyRing.fromConfig.pipe(withConfig({ MRTR_REQUEST_STATE_KEYS: `${keyA}=` }))
        expect(padded.keys[0].id).toBe(derivedA)
      }))

    it.effect("falls back to a generated key when absent", () =>
      Effect.gen(function*() {
        const ring = yield* KeyRing.fromConfig.pipe(withConfig({}))
        expect(ring.keys).toHaveLength(1)
      }))

    it.effect("fails with a ConfigError that names the entry, never the secret", () =>
      Effect.gen(function*() {
        const failure = (value: string) =>
          Effect.map(
            Effect.flip(KeyRing.fromConfig.pipe(withConfig({ MRTR_REQUEST_STATE_KEYS: value }))),
            (error) => {
              expect(error._tag).toBe("ConfigError")
              expect(error.message).toContain("MRTR_REQUEST_STATE_KEYS")
              return error.message
            }
          )
        const secret16 = Base64Url.encode(keyBytesC.subarray(0, 16))
        const wrongLength = yield* failure(`${keyA},${secret16}`)
        expect(wrongLength).toContain("entry 2: the key must decode to 32 bytes, got 16")
        expect(wrongLength).not.toContain(secret16)
        expect(wrongLength).not.toContain(keyA)
        const notBase64 = yield* failure(`k1:${keyA.slice(0, 20)}!!${keyA.slice(22)}`)
        expect(notBase64).toContain("entry 1: the key is not valid base64url")
        expect(notBase64).not.toContain(keyA.slice(0, 20))
        expect(yield* failure(`k1:${keyA.replace(/[-_]/g, "+")}+/+/`)).toMatch(/entry 1: the key/)
        expect(yield* failure(`${keyA},,${keyB}`)).toContain("entry 2 is empty")
        expect(yield* failure(`a.b:${keyA}`)).toContain("entry 1: the key id must match")
        expect(yield* failure(`x:${keyA},x:${keyB}`)).toContain("duplicate key id")
      }))

    it.effect("RequestStateCodec.layerConfig reads keys and MRTR_REQUEST_STATE_TTL", () =>
      Effect.gen(function*() {
        const provider = ConfigProvider.fromUnknown({
          MRTR_REQUEST_STATE_KEYS: `cfg:${keyA}`,
          MRTR_REQUEST_STATE_TTL: "1 minute"
        })
        const codec = yield* Effect.provide(
          Effect.service(RequestStateCodec),
          RequestStateCodec.layerConfig.pipe(Layer.provide(ConfigProvider.layer(provider)))
        )
        const state = yield* codec.seal(journal, binding)
        expect(state.startsWith("v2.cfg.")).toBe(true)
        yield* TestClock.adjust("59 seconds")
        expect(yield* codec.unseal(state, binding)).toEqual(journal)
        yield* TestClock.adjust("2 seconds")
        expect(publicShape(yield* rejection(codec, state, binding))).toEqual(invalidShape)

        const infinite = ConfigProvider.fromUnknown({
          MRTR_REQUEST_STATE_KEYS: keyA,
          MRTR_REQUEST_STATE_TTL: "Infinity"
        })
        const error = yield* Effect.flip(Effect.provide(
          Effect.service(RequestStateCodec),
          RequestStateCodec.layerConfig.pipe(Layer.provide(ConfigProvider.layer(infinite)))
        ))
        expect(error._tag).toBe("ConfigError")
        expect(error.message).toContain("MRTR_REQUEST_STATE_TTL")
      }))

    it.effect("options out of range fail the layer with InvalidOption naming the option and the value", () =>
      Effect.gen(function*() {
        const cases: ReadonlyArray<readonly [RequestStateCodecOptions<InvalidKeyRing>, string]> = [
          [
            { keyRing: ringOf({ bytes: keyBytesA }), ttl: "0 seconds" },
            "RequestStateCodec: option ttl must be a finite, positive duration, got \"0 seconds\""
          ],
          [
            { keyRing: ringOf({ bytes: keyBytesA }), ttl: Infinity },
            "RequestStateCodec: option ttl must be a finite, positive duration, got Infinity"
          ],
          [
            { keyRing: ringOf({ bytes: keyBytesA }), ttl: "soon" as any },
            "RequestStateCodec: option ttl must be a finite, positive duration, got \"soon\""
          ],
          [
            { keyRing: ringOf({ bytes: keyBytesA }), maxSize: 0 },
            "RequestStateCodec: option maxSize must be a positive integer, got 0"
          ],
          [
            { keyRing: ringOf({ bytes: keyBytesA }), issuedCacheBytes: -1 },
            "RequestStateCodec: option issuedCacheBytes must be a non-negative safe integer, got -1"
          ]
        ]
        for (const [options, message] of cases) {
          const error = yield* Effect.flip(
            Effect.provide(Effect.service(RequestStateCodec), RequestStateCodec.layer(options))
          )
          expect(error).toBeInstanceOf(InvalidOption)
          expect(error.message).toBe(message)
        }
      }))
  })

  describe("single use", () => {
    it.effect("a second unseal of the same state is rejected", () =>
      Effect.gen(function*() {
        const keyRing = yield* ringOf({ bytes: keyBytesA })
        const codec = yield* codecOf({ keyRing, singleUse: true })
        const state = yield* codec.seal(journal, binding)
        const other = yield* codec.seal(journal, binding)
        expect(yield* codec.unseal(state, binding)).toEqual(journal)
        const capture = captureReasons()
        expect(publicShape(yield* capture.provide(rejection(codec, state, binding)))).toEqual(invalidShape)
        expect(capture.reasons).toEqual(["replayed"])
        expect(yield* codec.unseal(other, binding)).toEqual(journal)
        // a wrong binding does not burn the state
        const third = yield* codec.seal(journal, binding)
        yield* rejection(codec, third, { ...binding, principal: "user:mallory" })
        expect(yield* codec.unseal(third, binding)).toEqual(journal)
        // a state without a jti (sealed by a multi-use codec) is refused
        const multi = yield* codecOf({ keyRing })
        yield* capture.provide(rejection(codec, yield* multi.seal(journal, binding), binding))
        expect(capture.reasons).toEqual(["replayed", "missing-jti"])
        // a multi-use codec with the same keys still accepts a single-use state any number of times
        const fourth = yield* codec.seal(journal, binding)
        expect(yield* multi.unseal(fourth, binding)).toEqual(journal)
        expect(yield* multi.unseal(fourth, binding)).toEqual(journal)
      }))

    it.effect("uses a provided ReplayGuard (a fleet swaps the layer)", () =>
      Effect.gen(function*() {
        const seen: Array<[string, number]> = []
        const shared = Layer.succeed(ReplayGuard)(ReplayGuard.of({
          redeem: (jti, expiresAt) =>
            Effect.sync(() => {
              const first = !seen.some(([j]) => j === jti)
              seen.push([jti, expiresAt])
              return first
            })
        }))
        const keyRing = yield* ringOf({ bytes: keyBytesA })
        const layer = RequestStateCodec.layer({ keyRing, singleUse: true }).pipe(Layer.provide(shared))
        // two instances sharing the guard: a state redeemed on one is refused by the other
        const one = yield* Effect.provide(Effect.service(RequestStateCodec), layer)
        const two = yield* Effect.provide(Effect.service(RequestStateCodec), layer)
        const state = yield* one.seal(journal, binding)
        expect(yield* one.unseal(state, binding)).toEqual(journal)
        expect(publicShape(yield* rejection(two, state, binding))).toEqual(invalidShape)
        expect(seen).toHaveLength(2)
        expect(seen[0]![0]).toMatch(/^[A-Za-z0-9_-]{22}$/)
        expect(seen[0]![1]).toBe(10 * 60_000)
      }))

    it.effect("ReplayGuard.layerMemory redeems once, evicts expired ids, and a full guard is ReplayGuardFull, counted", () =>
      Effect.gen(function*() {
        const fullCount = (scope: string) =>
          Effect.map(Metric.value(Metric.withAttributes(replayGuardFullTotal, { scope })), (state) => state.count)
        const guard = yield* ReplayGuard.makeMemory({ maxEntries: 2 })
        expect(yield* guard.redeem("a", 1_000)).toBe(true)
        expect(yield* guard.redeem("a", 1_000)).toBe(false)
        expect(yield* guard.redeem("b", 5_000)).toBe(true)
        // full with live ids: a distinct typed failure rather than forget one, or call it a replay
        const full = yield* Effect.flip(guard.redeem("c", 5_000))
        expect(full).toBeInstanceOf(ReplayGuardFull)
        expect(full).toMatchObject({ scope: "anonymous", capacity: 2 })
        expect(full.message).toContain("retry later")
        expect(yield* fullCount("anonymous")).toBe(1)
        // an authenticated user is not refused because unauthenticated requests filled their pool
        expect(yield* guard.redeem("p1", 5_000, "user:alice")).toBe(true)
        yield* TestClock.adjust(1_000)
        // "a" expired and is evicted, making room
        expect(yield* guard.redeem("c", 5_000)).toBe(true)
        expect(yield* guard.redeem("b", 5_000)).toBe(false)
        const fromLayer = yield* Effect.provide(Effect.service(ReplayGuard), ReplayGuard.layerMemory)
        expect(yield* fromLayer.redeem("x", 10_000)).toBe(true)
        expect(yield* fromLayer.redeem("x", 10_000)).toBe(false)
      }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())))

    it.effect("one principal filling its share leaves every other principal served", () =>
      Effect.gen(function*() {
        const guard = yield* ReplayGuard.makeMemory({ maxEntries: 100, maxEntriesPerPrincipal: 3 })
        for (let i = 0; i < 3; i++) expect(yield* guard.redeem(`m${i}`, 60_000, "user:mallory")).toBe(true)
        const full = yield* Effect.flip(guard.redeem("m3", 60_000, "user:mallory"))
        expect(full).toMatchObject({ _tag: "ReplayGuardFull", scope: "principal", capacity: 3 })
        for (let i = 0; i < 3; i++) expect(yield* guard.redeem(`a${i}`, 60_000, "user:alice")).toBe(true)
        expect(yield* guard.redeem("anon", 60_000)).toBe(true)
        // once mallory's states expire, mallory is served again
        yield* TestClock.adjust(60_000)
        expect(yield* guard.redeem("m3", 120_000, "user:mallory")).toBe(true)
        expect(yield* Metric.value(Metric.withAttributes(replayGuardFullTotal, { scope: "principal" }))).toMatchObject({
          count: 1
        })
      }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())))

    it.effect("a codec whose guard is full fails with ReplayGuardFull, never the tampering answer", () =>
      Effect.gen(function*() {
        const keyRing = yield* ringOf({ bytes: keyBytesA })
        const anonymous: Binding = { ...binding, principal: undefined }
        const layer = RequestStateCodec.layer({ keyRing, singleUse: true }).pipe(
          Layer.provide(Layer.effect(ReplayGuard, ReplayGuard.makeMemory({ maxEntries: 1 })))
        )
        const codec = yield* Effect.provide(Effect.service(RequestStateCodec), layer)
        const first = yield* codec.seal(journal, anonymous)
        const second = yield* codec.seal(journal, anonymous)
        expect(yield* codec.unseal(first, anonymous)).toEqual(journal)
        const error = yield* Effect.flip(codec.unseal(second, anonymous))
        expect(error).toBeInstanceOf(ReplayGuardFull)
        expect(error).not.toBeInstanceOf(InvalidRequestState)
        // the state was not burnt: once room is back, it is redeemed
        yield* TestClock.adjust("10 minutes")
        const third = yield* codec.seal(journal, anonymous)
        expect(yield* codec.unseal(third, anonymous)).toEqual(journal)
      }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())))
  })
})
