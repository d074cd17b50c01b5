/**
 * The memory `TaskStore`'s bounds: a share per principal and, for calls
 * without one, per client address (`maxTasksPerPrincipal`); calls without a
 * principal and those of principals in two pools (`maxTasks` each), so
 * unauthenticated traffic cannot take authenticated users' room; bytes per
 * record (`maxTaskBytes`, on insert and on every change) and per share
 * (`maxBytesPerPrincipal`), and of all calls without a principal together
 * (`maxAnonymousBytes`); nothing written when refused.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TaskStore } from "../src/index.ts"

let n = 0
const record = (call: Partial<TaskStore.TaskCall> = {}, extra = ""): TaskStore.TaskRecord => {
  const now = Date.now()
  return {
    taskId: `task-${n++}`,
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 600_000,
    pollIntervalMs: 1_000,
    call: { tool: "t", arguments: { extra }, clientCapabilities: {}, ...call },
    inputRequests: {},
    answers: {}
  }
}

const refusal = <A, E>(effect: Effect.Effect<A, E>) => Effect.map(Effect.flip(effect), (error) => error as any)

describe("the memory TaskStore's shares", () => {
  it.effect("one principal, or one client address, cannot take the others' room; the two pools are apart", () =>
    Effect.scoped(Effect.gen(function*() {
      const store = yield* TaskStore.makeMemory({ maxTasks: 4, maxTasksPerPrincipal: 2 })
      yield* store.insert(record({ principal: "alice" }))
      yield* store.insert(record({ principal: "alice" }))
      const alice = yield* refusal(store.insert(record({ principal: "alice" })))
      assert.strictEqual(alice._tag, "TaskStoreFull")
      assert.strictEqual(alice.scope, "principal")
      assert.include(alice.message, "for this user")
      yield* store.insert(record({ principal: "bob" }))
      yield* store.insert(record({ address: "10.0.0.1" }))
      yield* store.insert(record({ address: "10.0.0.1" }))
      const address = yield* refusal(store.insert(record({ address: "10.0.0.1" })))
      assert.strictEqual(address.scope, "address")
      assert.include(address.message, "for this client address")
      yield* store.insert(record({ address: "10.0.0.2" }))
      yield* store.insert(record({ address: "10.0.0.3" }))
      // The anonymous pool is full (4); principals still have theirs.
      const pool = yield* refusal(store.insert(record({ address: "10.0.0.4" })))
      assert.strictEqual(pool._tag, "TaskStoreFull")
      assert.isUndefined(pool.scope)
      const carol = record({ principal: "carol" })
      yield* store.insert(carol)
      // The principals' pool is full (4) in its turn; room comes back as tasks go.
      assert.strictEqual((yield* refusal(store.insert(record({ principal: "erin" }))))._tag, "TaskStoreFull")
      yield* store.remove(carol.taskId)
      yield* store.insert(record({ principal: "erin" }))
    })))

  it.effect("bytes: one record at most maxTaskBytes (insert and every change), one share at most maxBytesPerPrincipal", () =>
    Effect.scoped(Effect.gen(function*() {
      const store = yield* TaskStore.makeMemory({ maxTaskBytes: 2_000, maxBytesPerPrincipal: 4_000 })
      const large = yield* refusal(store.insert(record({ principal: "alice" }, "x".repeat(2_000))))
      assert.strictEqual(large._tag, "TaskTooLarge")
      assert.strictEqual(large.scope, "task")
      // Multi-byte characters count as their UTF-8 bytes.
      assert.strictEqual(
        (yield* refusal(store.insert(record({ principal: "alice" }, "é".repeat(1_000)))))._tag,
        "TaskTooLarge"
      )
      const first = record({ principal: "alice" }, "x".repeat(1_500))
      yield* store.insert(first)
      yield* store.insert(record({ principal: "alice" }, "x".repeat(1_500)))
      const share = yield* refusal(store.insert(record({ principal: "alice" }, "x".repeat(1_500))))
      assert.strictEqual(share.scope, "principal")
      yield* store.insert(record({ principal: "bob" }, "x".repeat(1_500)))
      // A change that outgrows the record's bound is refused, nothing written.
      const grown = yield* refusal(
        store.modify(first.taskId, (r) => [true, { ...r, answers: { a: "y".repeat(1_000) } }] as const)
      )
      assert.strictEqual(grown.scope, "task")
      assert.deepStrictEqual((yield* store.get(first.taskId))?.answers, {})
      // A change that shrinks it is taken, and frees the share's bytes.
      yield* store.modify(first.taskId, (r) => [true, { ...r, call: { ...r.call, arguments: {} } }] as const)
      yield* store.insert(record({ principal: "alice" }, "x".repeat(1_500)))
    })))

  it.effect("bytes of calls without a principal: at most maxAnonymousBytes together, whatever their addresses", () =>
    Effect.scoped(Effect.gen(function*() {
      const store = yield* TaskStore.makeMemory({ maxBytesPerPrincipal: 4_000, maxAnonymousBytes: 6_000 })
      // Each address is within its share; together they reach the anonymous bound.
      const first = record({ address: "203.0.113.1" }, "x".repeat(1_500))
      yield* store.insert(first)
      yield* store.insert(record({ address: "203.0.113.2" }, "x".repeat(1_500)))
      yield* store.insert(record({ address: "203.0.113.3" }, "x".repeat(1_500)))
      const anonymous = yield* refusal(store.insert(record({ address: "203.0.113.4" }, "x".repeat(1_500))))
      assert.strictEqual(anonymous._tag, "TaskTooLarge")
      assert.strictEqual(anonymous.scope, "anonymous")
      assert.strictEqual(anonymous.limit, 6_000)
      assert.include(anonymous.message, "of unauthenticated callers")
      // Calls without any address known count there too; a change that grows past it is refused.
      assert.strictEqual((yield* refusal(store.insert(record({}, "x".repeat(1_500)))))._tag, "TaskTooLarge")
      const grown = yield* refusal(
        store.modify(first.taskId, (r) => [true, { ...r, answers: { a: "y".repeat(1_000) } }] as const)
      )
      assert.strictEqual(grown.scope, "anonymous")
      // Principals are not held back by it; room comes back as anonymous tasks go.
      yield* store.insert(record({ principal: "alice" }, "x".repeat(1_500)))
      yield* store.remove(first.taskId)
      yield* store.insert(record({ address: "203.0.113.4" }, "x".repeat(1_500)))
    })))

  it("bounds that are no positive integers are refused", () => {
    for (
      const options of [{ maxTasksPerPrincipal: 0 }, { maxTaskBytes: 1.5 }, { maxBytesPerPrincipal: -1 }, {
        maxAnonymousBytes: 0
      }]
    ) {
      assert.throws(() => Effect.runSync(Effect.scoped(TaskStore.makeMemory(options))), /positive integer/)
    }
  })
})
