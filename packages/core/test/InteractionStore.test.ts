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

  it.effect("rejects a bound that is not a positive integer", () =>
    Effect.gen(function*() {
      for (const made of [store(0), store(1, 0), store(1.5)]) {
        const exit = yield* Effect.exit(made)
        assert.isTrue(Exit.isFailure(exit))
        const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        assert.instanceOf(defect, RangeError)
      }
    }))
})
