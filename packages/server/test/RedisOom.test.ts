/**
 * The Redis stores past `maxmemory` (a real `redis-server`, `noeviction`, its
 * memory filled, then `maxmemory` set below what it uses): every script that
 * adds data is refused whole (the task store's insert and a growing
 * compare-and-set, the interaction store's create and complete), nothing of
 * it written; the scripts that free or shrink (a task removed or settled, a
 * page's value taken) still run, so Redis can be brought back under its
 * limit.
 */
import { assert, describe, it } from "@effect/vitest"
import { InteractionStore } from "@mrtr/core"
import { redisPerFile } from "@mrtr/test-support/infra"
import { Effect, Layer } from "effect"
import * as RedisService from "effect/persistence/Redis"
import type { TaskStore } from "../src/index.ts"
import * as Redis from "../src/Redis.ts"

const redis = redisPerFile()

const send = <A>(command: string, ...args: Array<string>) =>
  Effect.flatMap(Effect.service(RedisService.Redis), (r) => r.send<A>(command, ...args)).pipe(
    Effect.provide(Redis.layerClient({ url: redis.url })),
    Effect.orDie
  )

/** Runs `body` while Redis holds more than its `maxmemory`; the limit is lifted afterwards. */
const pastMaxmemory = <A, E, R>(body: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.gen(function*() {
      yield* send("SET", "ballast", "x".repeat(4 * 1024 * 1024))
      yield* send("CONFIG", "SET", "maxmemory", String(1024 * 1024))
      // A plain write is refused: Redis is past its limit.
      const refused = yield* Effect.flip(
        Effect.flatMap(Effect.service(RedisService.Redis), (r) => r.send("SET", "probe", "1")).pipe(
          Effect.provide(Redis.layerClient({ url: redis.url }))
        )
      )
      assert.match(String((refused as { cause?: unknown }).cause ?? refused), /OOM/)
    }),
    () => body,
    () => Effect.andThen(send("CONFIG", "SET", "maxmemory", "0"), send("DEL", "ballast"))
  )

const task = (taskId: string, extra = ""): TaskStore.TaskRecord => {
  const now = Date.now()
  return {
    taskId,
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 600_000,
    pollIntervalMs: 1_000,
    owner: "instance-a",
    leaseExpiresAt: now + 15_000,
    call: { tool: "survey", arguments: { extra }, clientCapabilities: {} },
    inputRequests: {},
    answers: {}
  }
}

const form = {
  message: "Paste your key",
  requestedSchema: { type: "object" as const, properties: { key: { type: "string" as const } }, required: ["key"] },
  // the stores keep what they are given; the page seals the value to this key (InteractionSeal)
  sealingKey: "k".repeat(43)
}

describe("Redis stores past maxmemory (noeviction)", () => {
  it.live(
    "the task store refuses an insert and a growing write whole, and still removes and shrinks",
    () =>
      Effect.gen(function*() {
        const client = yield* Layer.build(Redis.layerClient({ url: redis.url }))
        const store = yield* Effect.provide(Redis.makeTaskStore({ prefix: "oom:task:" }), client)
        yield* store.insert(task("kept"))
        yield* pastMaxmemory(Effect.gen(function*() {
          const error = yield* Effect.flip(store.insert(task("refused", "y".repeat(64 * 1024))))
          assert.strictEqual(error._tag, "TaskStoreUnavailable")
          assert.strictEqual(yield* send<number>("EXISTS", "oom:task:refused"), 0)
          assert.strictEqual(yield* send<number>("ZCARD", "oom:task:index:anonymous"), 1)
          const grown = yield* Effect.flip(
            store.modify("kept", (record) => [true, { ...record, statusMessage: "z".repeat(64 * 1024) }] as const)
          )
          assert.strictEqual(grown._tag, "TaskStoreUnavailable")
          // Settling (a record no larger) and removing still work: they free memory.
          const settled = yield* store.modify(
            "kept",
            (record) => [true, { ...record, status: "cancelled", owner: undefined, leaseExpiresAt: undefined }] as const
          )
          assert.isTrue(settled)
          assert.strictEqual((yield* store.get("kept"))?.status, "cancelled")
          yield* store.remove("kept")
          assert.isUndefined(yield* store.get("kept"))
        }))
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "the interaction store refuses create and complete whole, and still hands a value out",
    () =>
      Effect.gen(function*() {
        const context = yield* Layer.build(
          Redis.layerInteractionStore({ prefix: "oom:interaction:" }).pipe(
            Layer.provide(Redis.layerClient({ url: redis.url }))
          )
        )
        const store = yield* Effect.provide(Effect.service(InteractionStore.InteractionStore), context)
        const done = yield* store.create(form, 60_000)
        assert.strictEqual(yield* store.complete(done.id, "k"), "completed")
        const pending = yield* store.create(form, 60_000)
        yield* pastMaxmemory(Effect.gen(function*() {
          const error = yield* Effect.flip(store.create(form, 60_000))
          assert.strictEqual(error._tag, "InteractionStoreUnavailable")
          // Only the two interactions made before: nothing of the refused one was written.
          assert.strictEqual(yield* send<number>("ZCARD", "oom:interaction:count:anonymous"), 2)
          const keys = yield* send<Array<string>>("KEYS", "oom:interaction:*")
          assert.strictEqual(keys.filter((key) => /^oom:interaction:[A-Za-z0-9_-]{43}$/.test(key)).length, 2)
          assert.strictEqual(
            Number(yield* send<string>("HGET", "oom:interaction:bytes:anonymous", "#total")),
            2 * Buffer.byteLength(JSON.stringify(form)) + 1,
            "nor any of its bytes: two forms and one value"
          )
          assert.strictEqual(
            (yield* Effect.flip(store.complete(pending.id, "v".repeat(1024))))._tag,
            "InteractionStoreUnavailable"
          )
          assert.strictEqual((yield* store.get(pending.id))?.state, "pending")
          assert.strictEqual(yield* store.take(done.id), "k")
        }))
      }).pipe(Effect.scoped),
    30_000
  )
})
