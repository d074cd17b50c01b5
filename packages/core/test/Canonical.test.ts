import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { Digest } from "effect/crypto"
import { Canonical } from "../src/engine/index.ts"
import { ElicitationSchema } from "../src/index.ts"

const digestLayer = Digest.layerWebCrypto

/** A fresh JSON value, equal for equal `n`, never the same object twice. */
const question = (n: number) => ({
  method: "elicitation/create",
  params: {
    mode: "form",
    message: `Question ${n}?`,
    requestedSchema: {
      type: "object",
      properties: { name: { type: "string" }, tags: { type: "array", items: { type: "string", enum: ["a", "b"] } } },
      required: ["name"]
    }
  }
})

describe("Canonical", () => {
  it("canonicalJson sorts keys and drops whitespace (RFC 8785)", () => {
    assert.strictEqual(
      Canonical.canonicalJson({ b: 1, a: [true, null, { d: "x", c: 2.5 }] }),
      "{\"a\":[true,null,{\"c\":2.5,\"d\":\"x\"}],\"b\":1}"
    )
  })

  it.effect("digestOf is the same for equal values whatever their key order, and differs for different ones", () =>
    Effect.gen(function*() {
      const a = yield* Canonical.digestOf({ x: 1, y: [1, 2] })
      const b = yield* Canonical.digestOf({ y: [1, 2], x: 1 })
      const c = yield* Canonical.digestOf({ x: 1, y: [2, 1] })
      assert.strictEqual(a, b)
      assert.notStrictEqual(a, c)
      assert.match(a, /^[A-Za-z0-9_-]{43}$/)
      const short = yield* Canonical.digestOf({ x: 1, y: [1, 2] }, 16)
      assert.match(short, /^[A-Za-z0-9_-]{22}$/)
      assert.strictEqual(short.slice(0, 21), a.slice(0, 21))
    }).pipe(Effect.provide(digestLayer)))

  describe("freezeJson", () => {
    it("deep-freezes every object and array and returns the same value", () => {
      const value = question(1)
      const frozen = Canonical.freezeJson(value)
      assert.strictEqual(frozen, value)
      assert.isTrue(Canonical.isFrozenJson(frozen))
      assert.isTrue(Object.isFrozen(frozen.params))
      assert.isTrue(Object.isFrozen(frozen.params.requestedSchema.properties.tags.items.enum))
      assert.isTrue(Canonical.isFrozenJson(frozen.params.requestedSchema.required))
      assert.throws(() => {
        ;(frozen.params.requestedSchema.properties.name as { type: string }).type = "number"
      }, TypeError)
      assert.isFalse(Canonical.isFrozenJson(question(1)))
      assert.isFalse(Canonical.isFrozenJson(Object.freeze({ shallow: {} })))
      // scalars and null pass through; a value shared twice (not a cycle) is fine
      assert.strictEqual(Canonical.freezeJson(7), 7)
      assert.isNull(Canonical.freezeJson(null))
      const shared = { k: 1 }
      const twice = Canonical.freezeJson({ a: shared, b: [shared] })
      assert.isTrue(Canonical.isFrozenJson(twice.b))
      assert.isTrue(Object.isFrozen(shared))
    })

    it("refuses anything but plain JSON with a TypeError, and leaves such a value as it was", () => {
      class Point {
        constructor(readonly x: number) {}
      }
      const withGetter = {
        inner: {},
        get now() {
          return Date.now()
        }
      }
      let n = 0
      const getterElement: Array<unknown> = [{}]
      Object.defineProperty(getterElement, 1, { get: () => ++n, enumerable: true, configurable: true })
      class Items extends Array<unknown> {}
      const subclassed = new Items()
      subclassed.push({})
      // eslint-disable-next-line no-sparse-arrays
      const holey: Array<unknown> = [{}, , 3]
      for (
        const value of [
          { inner: {}, when: new Date(0) },
          { inner: {}, bytes: new Uint8Array([1]) },
          { inner: {}, point: new Point(1) },
          { inner: {}, map: new Map() },
          withGetter,
          [{}, new Date(0)],
          getterElement,
          subclassed,
          holey,
          { inner: {}, toJSON: () => ({ n: ++n }) }
        ] as ReadonlyArray<any>
      ) {
        assert.throws(() => Canonical.freezeJson(value), TypeError)
        assert.isFalse(Canonical.isFrozenJson(value))
        assert.isFalse(Object.isFrozen(value))
        const inner = Array.isArray(value) ? value[0] : value.inner
        assert.isFalse(Object.isFrozen(inner))
        assert.isFalse(Canonical.isFrozenJson(inner))
      }
      // a cycle is not JSON either
      const cyclic: Record<string, unknown> = { inner: {} }
      ;(cyclic.inner as Record<string, unknown>).back = cyclic
      assert.throws(() => Canonical.freezeJson(cyclic), TypeError)
      assert.isFalse(Object.isFrozen(cyclic))
      assert.isFalse(Canonical.isFrozenJson(cyclic.inner))
      // objects without a prototype are plain
      const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: [1] })
      assert.isTrue(Canonical.isFrozenJson(Canonical.freezeJson(bare)))
    })

    it.effect("a frozen value has the digests of an equal unfrozen one, for every length, remembered with it", () =>
      Effect.gen(function*() {
        const digest = yield* Digest.Digest
        const frozen = Canonical.freezeJson(question(2))
        assert.isUndefined(Canonical.knownDigest(frozen, 16))
        const long = yield* Canonical.digestWith(digest, frozen)
        const short = yield* Canonical.digestWith(digest, frozen, 16)
        assert.strictEqual(long, yield* Canonical.digestWith(digest, question(2)))
        assert.strictEqual(short, yield* Canonical.digestWith(digest, question(2), 16))
        // the short digest is the long one truncated (16 of 32 bytes: 21 whole base64url characters)
        assert.strictEqual(short.slice(0, 21), long.slice(0, 21))
        assert.strictEqual(Canonical.knownDigest(frozen, 16), short)
        assert.strictEqual(Canonical.knownDigest(frozen), long)
        // a frozen value digested before it was frozen (through an equal value) is known too
        const before = question(3)
        const expected = yield* Canonical.digestWith(digest, before, 16)
        const later = Canonical.freezeJson(question(3))
        assert.strictEqual(Canonical.knownDigest(later, 16), expected)
      }).pipe(Effect.provide(digestLayer)))

    it.effect("a frozen value's digest is found without serializing it again", () =>
      Effect.gen(function*() {
        const digest = yield* Digest.Digest
        const frozen = Canonical.freezeJson(question(4))
        const first = yield* Canonical.digestWith(digest, frozen, 16)
        // counts serializations: the text-keyed cache would call JSON.stringify
        const stringify = JSON.stringify
        let calls = 0
        JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
          calls++
          return stringify(...args)
        }) as typeof JSON.stringify
        try {
          assert.strictEqual(Canonical.knownDigest(frozen, 16), first)
          assert.strictEqual(yield* Canonical.digestWith(digest, frozen, 16), first)
        } finally {
          JSON.stringify = stringify
        }
        assert.strictEqual(calls, 0)
      }).pipe(Effect.provide(digestLayer)))
  })

  it("a generated requestedSchema is a deep-frozen copy: annotation values stay the user's", () => {
    const tagsDefault: Array<"a" | "b"> = ["a"]
    const form = ElicitationSchema.makeUnsafe(Schema.Struct({
      tags: Schema.Array(Schema.Literals(["a", "b"])).annotate({ default: tagsDefault })
    }))
    assert.deepStrictEqual((form.requestedSchema.properties.tags as { default?: unknown }).default, ["a"])
    assert.isTrue(Canonical.isFrozenJson(form.requestedSchema.properties.tags))
    tagsDefault.push("b")
    assert.deepStrictEqual(tagsDefault, ["a", "b"])
    assert.deepStrictEqual((form.requestedSchema.properties.tags as { default?: unknown }).default, ["a"])
  })

  it("a generated requestedSchema is deep-frozen", () => {
    const form = ElicitationSchema.makeUnsafe(Schema.Struct({
      name: Schema.String,
      size: Schema.Literals(["s", "m"]),
      tags: Schema.optionalKey(Schema.Array(Schema.Literals(["a", "b"])))
    }))
    assert.isTrue(Canonical.isFrozenJson(form.requestedSchema))
    assert.isTrue(Object.isFrozen(form.requestedSchema.required))
    assert.throws(() => {
      ;(form.requestedSchema.properties as Record<string, unknown>).extra = { type: "string" }
    }, TypeError)
  })
})

describe("values canonical JSON cannot represent", () => {
  it("canonicalProblem locates non-finite numbers, lone surrogates in values and keys, bigints and cycles", () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const shared = { a: 1 }
    const cases: ReadonlyArray<readonly [unknown, string | undefined]> = [
      // eslint-disable-next-line no-loss-of-precision -- an Infinity written as the literal a JSON parser would produce
      [{ x: 1e400 }, "$/x"],
      // eslint-disable-next-line no-loss-of-precision
      [{ x: [1, -1e400] }, "$/x/1"],
      [{ x: NaN }, "$/x"],
      [{ x: "a\ud800b" }, "$/x"],
      [{ x: "\udc00" }, "$/x"],
      [{ "\ud800": 1 }, "$"],
      [{ x: 1n }, "$/x"],
      [cyclic, "$/self"],
      [{ ok: "\ud83d\ude00", n: -0, list: [shared, shared] }, undefined]
    ]
    for (const [value, path] of cases) {
      assert.strictEqual(Canonical.canonicalProblem(value)?.path, path)
    }
  })

  it.effect("a digest never comes from a lossy key: {x: Infinity} dies even after {x: null} was digested", () =>
    Effect.gen(function*() {
      yield* Canonical.digestOf({ x: null })
      const exit = yield* Effect.exit(Canonical.digestOf({ x: Infinity }))
      assert.isTrue(Exit.isFailure(exit))
      assert.isUndefined(Canonical.knownDigest({ x: Infinity }))
      // "\ud800" would encode to the bytes of "\ufffd": it is refused, not digested alike
      yield* Canonical.digestOf("\ufffd")
      assert.isTrue(Exit.isFailure(yield* Effect.exit(Canonical.digestOf("\ud800"))))
      assert.throws(() => Canonical.freezeJson({ x: "\ud800" }), /lone surrogate/)
    }).pipe(Effect.provide(Digest.layerWebCrypto)))
})
