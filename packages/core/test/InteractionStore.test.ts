/**
 * The in-memory InteractionStore: unguessable ids, single hand-out, expiry
 * (under the TestClock), the tombstone that lets the page say "already
 * submitted" or "expired", and its bound.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { SecureRandom } from "effect/crypto"
import { TestClock } from "effect/testing"
import { InteractionStore, InteractionStoreFull } from "../src/InteractionStore.ts"

/** The failure of a `create` the store refused for want of room (any other outcome fails the test). */
const refused = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.flip(effect), (error) => {
    assert.instanceOf(error, InteractionStoreFull)
    return error as InteractionStoreFull
  })

const form = {
  message: "Paste your key",
  requestedSchema: { type: "object" as const, properties: { key: { type: "string" as const } }, required: ["key"] },
  // the stores keep what they are given; the page seals the value to this key (InteractionSeal)
  sealingKey: "k".repeat(43)
}

const store = (maxEntries?: number, maxEntriesPerPrincipal?: number) =>
  InteractionStore.makeMemory({
    ...(maxEntries === undefined ? {} : { maxEntries }),
    ...(maxEntriesPerPrincipal === undefined ? {} : { maxEntriesPerPrincipal })
  }).pipe(Effect.provide(SecureRandom.layerWebCrypto))

describe("InteractionStore (memory)", () => {
  it.effect("creates pending interactions with distinct 43-character ids and CSRF tokens", () =>
    Effect.gen(function*() {
      const s = yield* store()
      const a = yield* s.create(form, 60_000)
      const b = yield* s.create(form, 60_000)
      assert.match(a.id, /^[A-Za-z0-9_-]{43}$/)
      assert.match(a.csrfToken, /^[A-Za-z0-9_-]{43}$/)
      assert.notStrictEqual(a.id, b.id)
      assert.notStrictEqual(a.id, a.csrfToken)
      assert.strictEqual((yield* s.get(a.id))?.state, "pending")
      assert.strictEqual(yield* s.get("x".repeat(43)), undefined)
    }))

  it.effect("hands a completed value out once, then keeps a tombstone without it", () =>
    Effect.gen(function*() {
      const s = yield* store()
      const { id } = yield* s.create(form, 60_000)
      assert.strictEqual(yield* s.take(id), undefined, "nothing to take while pending")
      assert.strictEqual(yield* s.complete(id, "sk-1"), "completed")
      assert.strictEqual(yield* s.complete(id, "sk-2"), "alreadyCompleted", "single use")
      assert.strictEqual(yield* s.take(id), "sk-1")
      assert.strictEqual(yield* s.take(id), undefined, "handed out once")
      assert.strictEqual((yield* s.get(id))?.state, "handedOut")
      assert.strictEqual(yield* s.complete(id, "sk-3"), "alreadyCompleted")
      assert.strictEqual(yield* s.complete("y".repeat(43), "sk"), "unknown")
    }))

  it.effect("expires at its TTL, says so for one more TTL (at least a minute), then forgets", () =>
    Effect.gen(function*() {
      const s = yield* store()
      const pending = yield* s.create(form, 60_000)
      const completed = yield* s.create(form, 60_000)
      assert.strictEqual(yield* s.complete(completed.id, "sk"), "completed")
      yield* TestClock.adjust("59 seconds")
      assert.strictEqual((yield* s.get(pending.id))?.state, "pending")
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* s.get(pending.id))?.state, "expired")
      assert.strictEqual(yield* s.complete(pending.id, "late"), "expired")
      assert.strictEqual(yield* s.take(completed.id), undefined, "an uncollected value expires with its page")
      assert.strictEqual((yield* s.get(completed.id))?.state, "expired")
      const brief = yield* s.create(form, 1_000)
      yield* TestClock.adjust("59 seconds")
      assert.strictEqual((yield* s.get(brief.id))?.state, "expired", "a short TTL still says so for a minute")
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* s.get(pending.id), undefined)
      assert.strictEqual(yield* s.complete(pending.id, "late"), "unknown")
    }))

  it.effect("without a principal, one client address fills only its own share; other addresses still get pages", () =>
    Effect.gen(function*() {
      const s = yield* store(10, 2)
      yield* s.create({ ...form, address: "203.0.113.1" }, 60_000)
      yield* s.create({ ...form, address: "203.0.113.1" }, 60_000)
      const full = yield* refused(s.create({ ...form, address: "203.0.113.1" }, 60_000))
      assert.strictEqual(full.scope, "address")
      assert.strictEqual(full.capacity, 2)
      assert.match(full.message, /from this address/)
      // Another address, and a principal, are not held back by that one.
      yield* s.create({ ...form, address: "203.0.113.2" }, 60_000)
      yield* s.create({ ...form, principal: "alice", address: "203.0.113.1" }, 60_000)
      // The share frees up once its interactions are forgotten.
      yield* TestClock.adjust("2 minutes")
      yield* s.create({ ...form, address: "203.0.113.1" }, 60_000)
    }))

  it.effect("is bounded: a full store refuses new interactions until old ones are forgotten", () =>
    Effect.gen(function*() {
      const s = yield* store(2)
      const first = yield* s.create(form, 1_000)
      yield* s.create(form, 1_000)
      const full = yield* refused(s.create(form, 1_000))
      assert.instanceOf(full, InteractionStoreFull)
      assert.strictEqual(full.capacity, 2)
      assert.strictEqual(full.scope, "anonymous")
      assert.strictEqual((yield* s.get(first.id))?.state, "pending", "nothing pending is forgotten to make room")
      yield* TestClock.adjust("60 seconds")
      assert.strictEqual((yield* refused(s.create(form, 1_000))).scope, "anonymous", "tombstones for a minute")
      yield* TestClock.adjust("2 seconds")
      const later = yield* s.create(form, 1_000)
      assert.strictEqual((yield* s.get(later.id))?.state, "pending")
      assert.strictEqual(yield* s.get(first.id), undefined)
    }))

  it.effect("unauthenticated requests never take the room of users, nor one user that of others", () =>
    Effect.gen(function*() {
      const s = yield* store(3, 2)
      for (let i = 0; i < 3; i++) yield* s.create(form, 1_000)
      assert.strictEqual((yield* refused(s.create(form, 1_000))).scope, "anonymous")
      const alice = { ...form, principal: "alice" }
      yield* s.create(alice, 1_000)
      yield* s.create(alice, 1_000)
      const aliceFull = yield* refused(s.create(alice, 1_000))
      assert.deepStrictEqual([aliceFull.scope, aliceFull.capacity], ["principal", 2])
      const bob = yield* s.create({ ...form, principal: "bob" }, 1_000)
      assert.strictEqual(bob.principal, "bob")
      const carol = yield* refused(s.create({ ...form, principal: "carol" }, 1_000))
      assert.deepStrictEqual([carol.scope, carol.capacity], ["principal", 3], "all principals together are bounded too")
      yield* TestClock.adjust("62 seconds")
      assert.strictEqual((yield* s.create({ ...form, principal: "carol" }, 1_000)).principal, "carol")
      yield* s.create(form, 1_000)
    }))

  describe("bounded by bytes (forms and values), per share and for unauthenticated requests together", () => {
    const heavy = (maxBytesPerPrincipal: number, maxAnonymousBytes: number) =>
      InteractionStore.makeMemory({ maxBytesPerPrincipal, maxAnonymousBytes }).pipe(
        Effect.provide(SecureRandom.layerWebCrypto)
      )
    const value = "v".repeat(4_000)

    it.effect("one client address cannot hold more than its bytes; its pages' values come back on take and expiry", () =>
      Effect.gen(function*() {
        const s = yield* heavy(10_000, 1_000_000)
        const at = { ...form, address: "203.0.113.1" }
        const one = yield* s.create(at, 60_000)
        const two = yield* s.create(at, 60_000)
        assert.strictEqual(yield* s.complete(one.id, value), "completed")
        assert.strictEqual(yield* s.complete(two.id, value), "completed")
        const three = yield* s.create(at, 60_000)
        assert.strictEqual(yield* s.complete(three.id, value), "full", "a third value would pass 10,000 bytes")
        assert.strictEqual((yield* s.get(three.id))?.state, "pending", "nothing stored, the page still waits")
        const large = yield* refused(s.create({ ...at, message: "m".repeat(2_000) }, 60_000))
        assert.deepStrictEqual([large.scope, large.capacity, large.unit], ["address", 10_000, "bytes"])
        assert.match(large.message, /10000 bytes of interactions for unauthenticated requests from this address/)
        // Another address is not held back.
        const other = yield* s.create({ ...form, address: "203.0.113.2" }, 60_000)
        assert.strictEqual(yield* s.complete(other.id, value), "completed")
        // A value taken gives its bytes back...
        assert.strictEqual(yield* s.take(one.id), value)
        assert.strictEqual(yield* s.complete(three.id, value), "completed")
        assert.strictEqual(yield* s.complete((yield* s.create(at, 60_000)).id, value), "full")
        // ...and so does a value its page expired with.
        const late = yield* s.create(at, 120_000)
        yield* TestClock.adjust("61 seconds")
        assert.strictEqual(yield* s.complete(late.id, value), "completed")
      }))

    it.effect("requests without a principal, from any number of addresses, cannot hold more than their bytes", () =>
      Effect.gen(function*() {
        const s = yield* heavy(10_000, 25_000)
        const big = { ...form, message: "m".repeat(7_000) }
        for (let i = 1; i <= 3; i++) yield* s.create({ ...big, address: `203.0.113.${i}` }, 60_000)
        const full = yield* refused(s.create({ ...big, address: "203.0.113.4" }, 60_000))
        assert.deepStrictEqual([full.scope, full.capacity, full.unit], ["anonymous", 25_000, "bytes"])
        const small = yield* s.create({ ...form, address: "203.0.113.5" }, 60_000)
        assert.strictEqual(yield* s.complete(small.id, value), "full", "nor may a value take them past it")
        // Authenticated users are not affected by what unauthenticated requests hold.
        const alice = yield* s.create({ ...form, principal: "alice" }, 60_000)
        assert.strictEqual(yield* s.complete(alice.id, value), "completed")
        // The forms' bytes come back when their records are forgotten.
        yield* TestClock.adjust("121 seconds")
        yield* s.create({ ...big, address: "203.0.113.4" }, 60_000)
      }))

    it.effect("a user cannot hold more than its bytes, and other users are not held back", () =>
      Effect.gen(function*() {
        const s = yield* heavy(10_000, 1_000)
        const alice = { ...form, principal: "alice" }
        const pages = [yield* s.create(alice, 60_000), yield* s.create(alice, 60_000), yield* s.create(alice, 60_000)]
        assert.strictEqual(yield* s.complete(pages[0]!.id, value), "completed")
        assert.strictEqual(yield* s.complete(pages[1]!.id, value), "completed")
        assert.strictEqual(yield* s.complete(pages[2]!.id, value), "full")
        const large = yield* refused(s.create({ ...alice, message: "m".repeat(2_000) }, 60_000))
        assert.deepStrictEqual([large.scope, large.capacity, large.unit], ["principal", 10_000, "bytes"])
        const bob = yield* s.create({ ...form, principal: "bob" }, 60_000)
        assert.strictEqual(yield* s.complete(bob.id, value), "completed")
      }))
  })

  it.effect("rejects a bound that is not a positive integer", () =>
    Effect.gen(function*() {
      for (
        const made of [
          store(0),
          store(1, 0),
          store(1.5),
          InteractionStore.makeMemory({ maxBytesPerPrincipal: 0 }).pipe(Effect.provide(SecureRandom.layerWebCrypto)),
          InteractionStore.makeMemory({ maxAnonymousBytes: -1 }).pipe(Effect.provide(SecureRandom.layerWebCrypto))
        ]
      ) {
        const exit = yield* Effect.exit(made)
        assert.isTrue(Exit.isFailure(exit))
        const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        assert.instanceOf(defect, RangeError)
      }
    }))
})
