/**
 * The Redis `TaskStore` against a real `redis-server` (started on a free
 * port by the test): records and journals round-trip as JSON, `insert` is
 * visible to another connection at once, each record expires at
 * `createdAt + ttlMs` (kept for `ttlMs: null`), `modify` is atomic under
 * concurrent writers on two connections, `maxTasks` is enforced fleet-wide;
 * Redis stopped: every operation fails with `TaskStoreUnavailable` (counted,
 * logged) instead of hanging, and works again once Redis is back. Also the
 * `mrtr_replay_guard_entries` gauge of both guards.
 */
import { describe, expect, it } from "@effect/vitest"
import { RequestState } from "@mrtr/core"
import { redisPerFile } from "@mrtr/test-support/infra"
import { Effect, Layer, Logger, Metric } from "effect"
import * as RedisService from "effect/persistence/Redis"
import { TaskStore } from "../src/index.ts"
import * as Redis from "../src/Redis.ts"

const redis = redisPerFile()

let n = 0
const record = (overrides: Partial<TaskStore.TaskRecord> = {}): TaskStore.TaskRecord => {
  const now = Date.now()
  return {
    taskId: `task-${process.pid}-${n++}`,
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 600_000,
    pollIntervalMs: 1_000,
    owner: "instance-a",
    leaseExpiresAt: now + 15_000,
    call: {
      tool: "survey",
      arguments: { run: "r", nested: { list: [1, "two", null] } },
      clientCapabilities: { elicitation: {} },
      principal: "ada"
    },
    journal: "v2.key.c2VhbGVk",
    inputRequests: {},
    answers: {},
    ...overrides
  }
}

const client = () => Redis.layerClient({ url: redis.url })
/** A store on its own connection, open for the current scope. */
const storeOn = (options?: Redis.TaskStoreOptions) =>
  Effect.flatMap(Layer.build(Layer.fresh(client())), (context) => Effect.provide(Redis.makeTaskStore(options), context))
/** Two stores on two connections: two instances of a fleet. */
const twoStores = (options?: Redis.TaskStoreOptions) => Effect.all([storeOn(options), storeOn(options)])

describe("Redis TaskStore", () => {
  it.live(
    "a record and its journal round-trip; insert is visible on another connection; remove deletes",
    () =>
      Effect.gen(function*() {
        const [a, b] = yield* twoStores({ prefix: "t1:" })
        const task = record()
        yield* a.insert(task)
        expect(yield* b.get(task.taskId)).toEqual(task)
        expect(yield* b.get("unknown")).toBeUndefined()
        yield* b.remove(task.taskId)
        expect(yield* a.get(task.taskId)).toBeUndefined()
        expect(yield* a.modify(task.taskId, (r) => ["x", r] as const)).toBeUndefined()
        // Ids from the wire that name the store's own keys, or no task at all, are unknown tasks (not Redis errors).
        yield* a.insert(record())
        for (const id of ["index", "../index", "a b", "x".repeat(129), ""]) {
          expect(yield* a.get(id)).toBeUndefined()
          expect(yield* a.modify(id, (r) => ["x", r] as const)).toBeUndefined()
          yield* a.remove(id)
        }
      }).pipe(Effect.scoped),
    30_000
  )

  it.live("each record expires at createdAt + ttlMs (PEXPIREAT); ttlMs null is kept", () =>
    Effect.gen(function*() {
      const store = yield* Redis.makeTaskStore({ prefix: "t2:" })
      const redisClient = yield* RedisService.Redis
      const timed = record()
      const kept = record({ ttlMs: null })
      yield* store.insert(timed)
      yield* store.insert(kept)
      expect(yield* redisClient.send("PEXPIRETIME", `t2:${timed.taskId}`)).toBe(timed.createdAt + timed.ttlMs!)
      expect(yield* redisClient.send("PEXPIRETIME", `t2:${kept.taskId}`)).toBe(-1)
      // A record past its TTL is gone: Redis dropped it.
      const short = record({ ttlMs: 200 })
      yield* store.insert(short)
      yield* Effect.sleep("400 millis")
      expect(yield* store.get(short.taskId)).toBeUndefined()
      // modify keeps the expiry.
      yield* store.modify(timed.taskId, (r) => [undefined, { ...r, status: "input_required" }] as const)
      expect(yield* redisClient.send("PEXPIRETIME", `t2:${timed.taskId}`)).toBe(timed.createdAt + timed.ttlMs!)
    }).pipe(Effect.provide(client())), 30_000)

  it.live(
    "modify is atomic: 100 concurrent increments from two connections all land; f may run more than once",
    () =>
      Effect.gen(function*() {
        const [a, b] = yield* twoStores({ prefix: "t3:" })
        const task = record({ statusMessage: "0" })
        yield* a.insert(task)
        let runs = 0
        const increment = (store: typeof a) =>
          store.modify(task.taskId, (r) => {
            runs++
            const next = Number(r.statusMessage) + 1
            return [next, { ...r, statusMessage: String(next) }] as const
          })
        const seen = yield* Effect.all(
          Array.from({ length: 100 }, (_, i) => increment(i % 2 === 0 ? a : b)),
          { concurrency: "unbounded" }
        )
        expect((yield* a.get(task.taskId))!.statusMessage).toBe("100")
        // Each increment saw a distinct value: none was lost or applied twice.
        expect(new Set(seen).size).toBe(100)
        expect(runs).toBeGreaterThanOrEqual(100)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "maxTasks bounds the live tasks fleet-wide: TaskStoreFull past it, room again after a remove or an expiry",
    () =>
      Effect.gen(function*() {
        const [a, b] = yield* twoStores({ prefix: "t4:", maxTasks: 2 })
        const first = record()
        yield* a.insert(first)
        const short = record({ ttlMs: 300 })
        yield* b.insert(short)
        const refused = yield* Effect.flip(a.insert(record()))
        expect(refused).toBeInstanceOf(TaskStore.TaskStoreFull)
        expect(refused.message).toContain("maximum of 2 tasks")
        yield* Effect.sleep("500 millis")
        yield* b.insert(record()) // the expired one no longer counts
        expect((yield* Effect.flip(b.insert(record())))._tag).toBe("TaskStoreFull")
        yield* a.remove(first.taskId)
        yield* a.insert(record())
        expect(yield* Effect.exit(Redis.makeTaskStore({ maxTasks: 0 }).pipe(Effect.provide(client())))).toMatchObject({
          _tag: "Failure"
        })
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "bytes per principal and per client address, and of every call without a principal, are bounded fleet-wide",
    () =>
      Effect.gen(function*() {
        // Each record is ~2.3 KB of JSON: two fit in a share's 5,000 bytes, three anonymous ones in the 7,500.
        const [a, b] = yield* twoStores({ prefix: "t8:", maxBytesPerPrincipal: 5_000, maxAnonymousBytes: 7_500 })
        const big = (call: Partial<TaskStore.TaskCall>, ttlMs: number | null = 600_000) =>
          record({
            ttlMs,
            call: { tool: "t", arguments: { pad: "x".repeat(2_000) }, clientCapabilities: {}, ...call }
          })
        const refusal = (effect: Effect.Effect<unknown, unknown>) => Effect.map(Effect.flip(effect), (e) => e as any)

        // One principal fills its share on two instances; another principal still has its own.
        yield* a.insert(big({ principal: "ada" }))
        yield* b.insert(big({ principal: "ada" }))
        const ada = yield* refusal(a.insert(big({ principal: "ada" })))
        expect(ada).toBeInstanceOf(TaskStore.TaskTooLarge)
        expect(ada.scope).toBe("principal")
        yield* b.insert(big({ principal: "bob" }))

        // Without a principal: one client address's share, then the anonymous pool whatever the address.
        const short = big({ address: "192.0.2.1" }, 400)
        yield* a.insert(short)
        yield* b.insert(big({ address: "192.0.2.1" }))
        const address = yield* refusal(a.insert(big({ address: "192.0.2.1" })))
        expect(address.scope).toBe("address")
        yield* a.insert(big({ address: "192.0.2.2" }))
        const pool = yield* refusal(b.insert(big({ address: "192.0.2.3" })))
        expect(pool).toBeInstanceOf(TaskStore.TaskTooLarge)
        expect(pool.scope).toBe("anonymous")
        expect(pool.message).toContain("unauthenticated")
        // Nothing of a refused record was written.
        const raw = yield* Effect.flatMap(Effect.service(RedisService.Redis), (r) =>
          r.send<Array<string>>("KEYS", "t8:task-*"))
          .pipe(Effect.provide(client()))
        expect(raw.length).toBe(6)

        // An expired record gives its bytes back (to its share and to the pool).
        yield* Effect.sleep("600 millis")
        yield* b.insert(big({ address: "192.0.2.3" }))

        // A record that grows past its share's bytes is refused, nothing written; a removed one frees its bytes.
        const carol = big({ principal: "carol" })
        yield* a.insert(carol)
        const grown = yield* refusal(b.modify(carol.taskId, (r) =>
          [undefined, { ...r, answers: { pad: "y".repeat(3_000) } }] as const))
        expect(grown.scope).toBe("principal")
        expect((yield* a.get(carol.taskId))?.answers).toEqual({})
        yield* b.modify(carol.taskId, (r) =>
          [undefined, { ...r, answers: { pad: "y".repeat(200) } }] as const)
        yield* a.insert(big({ principal: "carol" }))
        expect((yield* refusal(a.insert(big({ principal: "carol" })))).scope).toBe("principal")
        yield* b.remove(carol.taskId)
        yield* a.insert(big({ principal: "carol" }))
        expect(yield* Effect.exit(Redis.makeTaskStore({ maxAnonymousBytes: 0 }).pipe(Effect.provide(client()))))
          .toMatchObject({ _tag: "Failure" })
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "Redis stopped: every operation fails with TaskStoreUnavailable (counted, logged), no hang; restarted: works",
    () =>
      Effect.gen(function*() {
        const logs: Array<string> = []
        const store = yield* storeOn({ prefix: "t5:" })
        const task = record()
        yield* store.insert(task)
        yield* Effect.promise(() => redis.stop())
        const errors = Metric.withAttributes(Redis.redisErrorsTotal, { operation: "task" })
        const before = (yield* Metric.value(errors)).count
        const logged = Effect.provide(Logger.layer([Logger.make((options) => {
          logs.push(`${options.logLevel} ${String(options.message)}`)
        })]))
        // Each one ends (typed failure) rather than hangs: the 10 s bound is only a guard against a hang.
        const failures = yield* Effect.all([
          Effect.flip(store.get(task.taskId)),
          Effect.flip(store.insert(record())),
          Effect.flip(store.modify(task.taskId, (r) => [1, { ...r, statusMessage: "x" }] as const)),
          Effect.flip(store.remove(task.taskId))
        ]).pipe(logged, Effect.timeout("10 seconds"))
        for (const failure of failures) {
          expect(failure).toBeInstanceOf(TaskStore.TaskStoreUnavailable)
          expect(failure.message).toBe("The server's task store is unavailable; retry later")
        }
        expect((yield* Metric.value(errors)).count).toBe(before + 4)
        expect(logs.filter((line) => line.includes("Redis is unavailable")).length).toBe(4)
        yield* Effect.promise(() => redis.start())
        // Redis kept nothing (no persistence); the client reconnects by itself (backoff up to 2 s).
        let back = yield* Effect.result(store.insert(task))
        for (let i = 0; i < 50 && back._tag === "Failure"; i++) {
          yield* Effect.sleep("100 millis")
          back = yield* Effect.result(store.insert(task))
        }
        expect(back._tag).toBe("Success")
        expect(yield* store.get(task.taskId)).toEqual(task)
      }).pipe(Effect.scoped),
    60_000
  )
})

describe("mrtr_replay_guard_entries", () => {
  it.live("memory: the ids the guard holds, expired ones leaving as they are pruned", () =>
    Effect.gen(function*() {
      const entries = Metric.withAttributes(RequestState.replayGuardEntries, { store: "memory" })
      const guard = yield* RequestState.ReplayGuard.makeMemory()
      const start = (yield* Metric.value(entries)).value
      const now = Date.now()
      yield* guard.redeem("a", now + 200)
      yield* guard.redeem("b", now + 60_000)
      yield* guard.redeem("b", now + 60_000) // a replay holds nothing more
      expect((yield* Metric.value(entries)).value).toBe(start + 2)
      yield* Effect.sleep("300 millis")
      yield* guard.redeem("c", Date.now() + 60_000) // prunes "a"
      expect((yield* Metric.value(entries)).value).toBe(start + 2)
    }), 30_000)

  it.live("redis: this instance's first redemptions until their states expire", () =>
    Effect.gen(function*() {
      const entries = Metric.withAttributes(RequestState.replayGuardEntries, { store: "redis" })
      const guard = yield* Redis.makeReplayGuard({ prefix: `g:${Date.now()}:` })
      const start = (yield* Metric.value(entries)).value
      yield* guard.redeem("x", Date.now() + 600_000)
      yield* guard.redeem("x", Date.now() + 600_000)
      yield* guard.redeem("y", Date.now() + 1_000)
      expect((yield* Metric.value(entries)).value).toBe(start + 2)
      // Kept current by the guard's own fiber (every second) once "y" has expired.
      let value = (yield* Metric.value(entries)).value
      for (let i = 0; i < 50 && value !== start + 1; i++) {
        yield* Effect.sleep("100 millis")
        value = (yield* Metric.value(entries)).value
      }
      expect(value).toBe(start + 1)
    }).pipe(Effect.provide(client()), Effect.scoped), 30_000)
})
