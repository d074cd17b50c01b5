/**
 * The Redis `InteractionStore` against a real `redis-server` (started on a
 * free port by the test, stopped after it): the memory store's semantics
 * (a page completed once, a value taken once then deleted, expiry with the
 * tombstone kept one more TTL (at least a minute) through `PEXPIREAT`,
 * unknown ids, the principal kept, the bounds), shared by two stores on two
 * connections; an unreachable Redis (a counted, logged defect, nothing
 * handed out); and a fleet: two server instances configured only by the
 * environment (`MRTR_REDIS_URL`, a shared key ring), the conversation
 * started on A, its page submitted on B, the retry completing on A or B.
 */
import { assert, describe, it } from "@effect/vitest"
import { InteractionStore } from "@mrtr/core"
import { redisPerFile, startRedis } from "@mrtr/test-support/infra"
import { validateWire } from "@mrtr/test-support/wire"
import { Cause, ConfigProvider, Effect, Exit, Layer, Logger, Metric, Schedule } from "effect"
import * as RedisService from "effect/persistence/Redis"
import { HttpTransport, InteractionPage, McpServer } from "../src/index.ts"
import * as Redis from "../src/Redis.ts"
import { ACCEPT, callConnect, connect } from "./interactionFixtures.ts"

/** The failure of a `create` the store refused for want of room (any other outcome fails the test). */
const refused = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.flip(effect), (error) => {
    assert.instanceOf(error, InteractionStore.InteractionStoreFull)
    return error as InteractionStore.InteractionStoreFull
  })

const form = {
  message: "Paste your key",
  requestedSchema: { type: "object" as const, properties: { key: { type: "string" as const } }, required: ["key"] },
  // the stores keep what they are given; the page seals the value to this key (InteractionSeal)
  sealingKey: "k".repeat(43)
}

const redis = redisPerFile()

let prefixes = 0
const freshPrefix = () => `test:interaction:${process.pid}:${prefixes++}:`

/** Two stores on two connections sharing one prefix: what two instances of a fleet see. */
const twoStores = (options: Redis.InteractionStoreOptions = {}) =>
  Effect.gen(function*() {
    const prefix = freshPrefix()
    const make = Layer.build(Layer.fresh(
      Redis.layerInteractionStore({ prefix, ...options }).pipe(Layer.provide(Redis.layerClient({ url: redis.url })))
    ))
    const a = yield* Effect.map(make, (context) => context.mapUnsafe.get(InteractionStore.InteractionStore.key))
    const b = yield* Effect.map(make, (context) => context.mapUnsafe.get(InteractionStore.InteractionStore.key))
    return {
      prefix,
      a: a as InteractionStore.InteractionStore["Service"],
      b: b as InteractionStore.InteractionStore["Service"]
    }
  })

const send = <A>(command: string, ...args: Array<string>) =>
  Effect.flatMap(Effect.service(RedisService.Redis), (r) => r.send<A>(command, ...args)).pipe(
    Effect.provide(Redis.layerClient({ url: redis.url })),
    Effect.orDie
  )

describe("Redis InteractionStore", () => {
  it.live(
    "creates pending interactions with distinct 43-character ids and CSRF tokens, seen by every instance",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b } = yield* twoStores()
        const one = yield* a.create({ ...form, principal: "alice" }, 60_000)
        const two = yield* a.create(form, 60_000)
        assert.match(one.id, /^[A-Za-z0-9_-]{43}$/)
        assert.match(one.csrfToken, /^[A-Za-z0-9_-]{43}$/)
        assert.notStrictEqual(one.id, two.id)
        assert.notStrictEqual(one.id, one.csrfToken)
        assert.deepStrictEqual(yield* b.get(one.id), one, "the whole record, principal included, on the other instance")
        assert.strictEqual((yield* b.get(two.id))?.principal, undefined)
        assert.strictEqual(yield* b.get("x".repeat(43)), undefined, "unknown id")
        assert.strictEqual(yield* b.get("count:anonymous"), undefined, "no other key under the prefix is read")
        assert.strictEqual(yield* b.complete("y".repeat(43), "sk"), "unknown")
        assert.strictEqual(yield* b.take("y".repeat(43)), undefined)
      })),
    30_000
  )

  it.live(
    "completes a page once and hands its value out once (then deletes it), across instances",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b, prefix } = yield* twoStores()
        const { id } = yield* a.create(form, 60_000)
        assert.strictEqual(yield* b.take(id), undefined, "nothing to take while pending")
        const outcomes = yield* Effect.all([b.complete(id, "sk-1"), a.complete(id, "sk-2")], {
          concurrency: 2
        })
        assert.deepStrictEqual([...outcomes].sort(), ["alreadyCompleted", "completed"], "single use")
        const winner = outcomes[0] === "completed" ? "sk-1" : "sk-2"
        assert.strictEqual((yield* a.get(id))?.state, "completed")
        const taken = yield* Effect.all([a.take(id), b.take(id)], { concurrency: 2 })
        assert.deepStrictEqual(taken.filter((v) => v !== undefined), [winner], "handed out exactly once")
        assert.strictEqual((yield* b.get(id))?.state, "handedOut")
        assert.strictEqual(yield* send("HEXISTS", prefix + id, "content"), 0, "the value is deleted")
        assert.strictEqual(yield* a.complete(id, "sk-3"), "alreadyCompleted")
        assert.strictEqual(yield* a.take(id), undefined)
      })),
    30_000
  )

  it.live(
    "expires at its TTL (an uncollected value with it), and Redis forgets the record one minute later",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b, prefix } = yield* twoStores()
        const pending = yield* a.create(form, 300)
        const completed = yield* a.create(form, 300)
        assert.strictEqual(yield* b.complete(completed.id, "sk"), "completed")
        assert.strictEqual((yield* b.get(pending.id))?.state, "pending")
        assert.strictEqual(
          yield* send("PEXPIRETIME", prefix + pending.id),
          pending.expiresAt + 60_000,
          "the tombstone lives one more TTL, at least a minute (PEXPIREAT)"
        )
        yield* Effect.sleep("400 millis")
        assert.strictEqual((yield* b.get(pending.id))?.state, "expired")
        assert.strictEqual(yield* a.complete(pending.id, "late"), "expired")
        assert.strictEqual(yield* b.take(completed.id), undefined, "an uncollected value expires with its page")
        assert.strictEqual((yield* a.get(completed.id))?.state, "expired")
        assert.strictEqual(yield* send("HEXISTS", prefix + completed.id, "content"), 0)
        // Redis forgetting the key (PEXPIREAT passed) is "unknown", as the memory store's eviction.
        yield* send("PEXPIREAT", prefix + pending.id, String(Date.now() - 1))
        assert.strictEqual(yield* a.get(pending.id), undefined)
        assert.strictEqual(yield* a.complete(pending.id, "late"), "unknown")
      })),
    30_000
  )

  it.live(
    "is bounded fleet-wide as the memory store: anonymous, per principal, and all principals apart",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b } = yield* twoStores({ maxEntries: 2, maxEntriesPerPrincipal: 1 })
        yield* a.create(form, 300)
        yield* b.create(form, 300)
        const full = yield* refused(a.create(form, 300))
        assert.instanceOf(full, InteractionStore.InteractionStoreFull)
        assert.strictEqual(full.scope, "anonymous")
        assert.strictEqual(full.capacity, 2)
        yield* a.create({ ...form, principal: "alice" }, 300)
        const alice = yield* refused(b.create({ ...form, principal: "alice" }, 300))
        assert.deepStrictEqual([alice.scope, alice.capacity], ["principal", 1])
        yield* b.create({ ...form, principal: "bob" }, 300)
        const all = yield* refused(a.create({ ...form, principal: "carol" }, 300))
        assert.deepStrictEqual([all.scope, all.capacity], ["principal", 2])
      })),
    30_000
  )

  it.live(
    "without a principal, one client address fills only its own share, fleet-wide",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b } = yield* twoStores({ maxEntries: 10, maxEntriesPerPrincipal: 2 })
        yield* a.create({ ...form, address: "203.0.113.1" }, 60_000)
        yield* b.create({ ...form, address: "203.0.113.1" }, 60_000)
        const full = yield* refused(a.create({ ...form, address: "203.0.113.1" }, 60_000))
        assert.deepStrictEqual([full.scope, full.capacity], ["address", 2])
        yield* b.create({ ...form, address: "203.0.113.2" }, 60_000)
        yield* a.create({ ...form, principal: "alice", address: "203.0.113.1" }, 60_000)
      })),
    30_000
  )

  describe("bounded by bytes (forms and sealed values), fleet-wide", () => {
    const value = "v".repeat(4_000)
    const total = (prefix: string, share: string) =>
      Effect.map(send<string | null>("HGET", prefix + "bytes:" + share, "#total"), Number)

    it.live(
      "one client address cannot hold more than its bytes; values come back on take and when their page expires",
      () =>
        Effect.scoped(Effect.gen(function*() {
          const { a, b, prefix } = yield* twoStores({ maxBytesPerPrincipal: 10_000, maxAnonymousBytes: 1_000_000 })
          const at = { ...form, address: "203.0.113.1" }
          const one = yield* a.create(at, 60_000)
          const two = yield* b.create(at, 60_000)
          assert.strictEqual(yield* a.complete(one.id, value), "completed")
          assert.strictEqual(yield* b.complete(two.id, value), "completed")
          const three = yield* a.create(at, 60_000)
          assert.strictEqual(yield* b.complete(three.id, value), "full", "a third value would pass 10,000 bytes")
          assert.strictEqual((yield* a.get(three.id))?.state, "pending", "nothing stored, the page still waits")
          const large = yield* refused(b.create({ ...at, message: "m".repeat(2_000) }, 60_000))
          assert.deepStrictEqual([large.scope, large.capacity, large.unit], ["address", 10_000, "bytes"])
          // Another address is not held back.
          const other = yield* b.create({ ...form, address: "203.0.113.2" }, 60_000)
          assert.strictEqual(yield* a.complete(other.id, value), "completed")
          // A value taken gives its bytes back.
          assert.strictEqual(yield* b.take(one.id), value)
          assert.strictEqual(yield* a.complete(three.id, value), "completed")
          assert.strictEqual(yield* b.complete((yield* a.create(at, 60_000)).id, value), "full")

          // A value whose page expired gives its bytes back, although nobody read that page again.
          const brief = { ...form, address: "203.0.113.3" }
          const first = yield* a.create(brief, 500)
          const formBytes = yield* total(prefix, "address:203.0.113.3")
          assert.isAbove(formBytes, 100)
          const second = yield* b.create(brief, 500)
          assert.strictEqual(yield* a.complete(first.id, value), "completed")
          assert.strictEqual(yield* b.complete(second.id, value), "completed")
          const last = yield* a.create(brief, 60_000)
          assert.strictEqual(yield* b.complete(last.id, value), "full")
          yield* Effect.sleep("700 millis")
          assert.strictEqual(yield* b.complete(last.id, value), "completed")
          assert.strictEqual(yield* a.take(last.id), value)
          assert.strictEqual(yield* total(prefix, "address:203.0.113.3"), 3 * formBytes, "only the forms are counted")
          assert.strictEqual(yield* send<number>("HEXISTS", prefix + first.id, "content"), 0, "the value is gone")
        })),
      30_000
    )

    it.live(
      "requests without a principal, from any number of addresses, cannot hold more than their bytes; users can",
      () =>
        Effect.scoped(Effect.gen(function*() {
          const { a, b } = yield* twoStores({ maxBytesPerPrincipal: 10_000, maxAnonymousBytes: 25_000 })
          const big = { ...form, message: "m".repeat(7_000) }
          for (let i = 1; i <= 3; i++) {
            yield* (i % 2 === 0 ? a : b).create({ ...big, address: `203.0.113.${i}` }, 60_000)
          }
          const full = yield* refused(a.create({ ...big, address: "203.0.113.4" }, 60_000))
          assert.deepStrictEqual([full.scope, full.capacity, full.unit], ["anonymous", 25_000, "bytes"])
          const small = yield* b.create({ ...form, address: "203.0.113.5" }, 60_000)
          assert.strictEqual(yield* a.complete(small.id, value), "full", "nor may a value take them past it")
          // Authenticated users are not affected by what unauthenticated requests hold.
          const alice = yield* a.create({ ...form, principal: "alice" }, 60_000)
          assert.strictEqual(yield* b.complete(alice.id, value), "completed")
          yield* b.create({ ...big, principal: "bob" }, 60_000)
          // Nor by another user's bytes.
          const heavy = yield* refused(a.create({ ...big, principal: "alice" }, 60_000))
          assert.deepStrictEqual([heavy.scope, heavy.capacity, heavy.unit], ["principal", 10_000, "bytes"])
        })),
      30_000
    )
  })

  it.live(
    "Redis unreachable: operations fail with InteractionStoreUnavailable, counted and logged, nothing handed out",
    () =>
      Effect.gen(function*() {
        const own = yield* Effect.promise(() => startRedis())
        const logs: Array<string> = []
        const exits = yield* Effect.scoped(Effect.gen(function*() {
          const context = yield* Layer.build(
            Redis.layerInteractionStoreUrl(own.url, { prefix: freshPrefix(), timeout: "500 millis" })
          )
          const store = context.mapUnsafe.get(
            InteractionStore.InteractionStore.key
          ) as InteractionStore.InteractionStore[
            "Service"
          ]
          const { id } = yield* store.create(form, 60_000)
          yield* Effect.promise(() => own.stop())
          const errors = Metric.withAttributes(Redis.redisErrorsTotal, { operation: "interaction" })
          const before = (yield* Metric.value(errors)).count
          const started = Date.now()
          const exits: Array<Exit.Exit<unknown, unknown>> = [
            yield* Effect.exit(store.take(id)),
            yield* Effect.exit(store.complete(id, "sk")),
            yield* Effect.exit(store.create(form, 60_000)),
            yield* Effect.exit(store.get(id))
          ]
          assert.isBelow(Date.now() - started, 3_000, "no hang")
          assert.strictEqual((yield* Metric.value(errors)).count - before, 4)
          return exits
        })).pipe(Effect.provide(Logger.layer([Logger.make((options) => {
          logs.push(`${options.logLevel} ${String(options.message)}`)
        })])))
        assert.isTrue(
          logs.some((line) => line.startsWith("Warn") && line.includes("the interaction store cannot answer")),
          logs.join("\n")
        )
        for (const exit of exits) {
          assert.isTrue(Exit.isFailure(exit))
          if (Exit.isFailure(exit)) {
            assert.isFalse(Cause.hasDies(exit.cause), "a typed failure, not a defect")
            assert.instanceOf(Cause.squash(exit.cause), InteractionStore.InteractionStoreUnavailable)
          }
        }
      }),
    30_000
  )
})

// -----------------------------------------------------------------------------
// A fleet: the page submitted on another instance than the conversation's
// -----------------------------------------------------------------------------

const KEYS = Buffer.from(new Uint8Array(32).fill(9)).toString("base64url")

/**
 * The fleet's public origin (its load balancer): every instance sends page
 * URLs on it, so the URL elicitation asked on A is the one asked on B.
 */
const FLEET = "http://fleet.example"

/** One instance of a fleet, configured from the environment only: one Redis Layer for the server and the page. */
const instance = (env: Record<string, string>) => {
  const fleet = Redis.layerFleetConfig()
  const interactions = InteractionPage.layer({ publicBaseUrl: FLEET, singleUser: true, store: fleet })
  const server = McpServer.tools(connect).pipe(
    Layer.provide(interactions),
    Layer.provideMerge(McpServer.layerConfig({ name: "acme-server", version: "1.0.0", shared: fleet }))
  )
  return Layer.fresh(
    HttpTransport.layer({ port: 0, gracefulShutdownTimeout: "1 second", mount: InteractionPage.routes }).pipe(
      Layer.provide(server),
      Layer.provide(interactions),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
    )
  )
}

const urlOf = (env: Record<string, string>) =>
  Effect.flatMap(Layer.build(instance(env)), (context) => Effect.provide(HttpTransport.url, context))

const fetchPage = (url: string, init: RequestInit = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, { redirect: "manual", ...init })
    return { status: response.status, headers: response.headers, html: await response.text() }
  })

describe("Redis InteractionStore in a fleet", () => {
  it.live(
    "the conversation starts on A, its page is submitted on B, the retry to A completes with the value, handed out once",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const env = { MRTR_REQUEST_STATE_KEYS: KEYS, MRTR_REDIS_URL: redis.url }
        const [a, b] = yield* Effect.all([urlOf(env), urlOf(env)])
        assert.notStrictEqual(new URL(a).origin, new URL(b).origin)

        const first = yield* callConnect(a)
        validateWire("InputRequiredResult", first.message.result)
        const pageUrl = first.message.result.inputRequests.api_key.params.url as string
        assert.strictEqual(new URL(pageUrl).origin, FLEET)
        // The load balancer sends the browser to B, and later the retry to A.
        const pageOnA = new URL(new URL(pageUrl).pathname, a).href
        const pageOnB = new URL(new URL(pageUrl).pathname, b).href

        // B serves A's page (the record is in Redis) and takes the submit.
        const page = yield* fetchPage(pageOnB)
        assert.strictEqual(page.status, 200)
        assert.include(page.html, "Paste your Acme API key")
        const token = /name="csrf" value="([^"]+)"/.exec(page.html)?.[1]
        const cookie = page.headers.get("set-cookie")?.split(";")[0]
        assert.isDefined(token)
        assert.isDefined(cookie)
        const done = yield* fetchPage(pageOnB, {
          method: "POST",
          body: new URLSearchParams({ csrf: token!, api_key: "sk-12345678", region: "eu" }).toString(),
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie!, origin: FLEET }
        })
        assert.strictEqual(done.status, 200)
        assert.include(done.html, "go back to your app")
        const again = yield* fetchPage(pageOnA)
        assert.strictEqual(again.status, 409, "A knows the page was submitted")

        // The retry on A completes with the value B stored.
        const requestState = first.message.result.requestState
        const final = yield* callConnect(a, { inputResponses: ACCEPT, requestState })
        validateWire("CallToolResult", final.message.result)
        assert.deepStrictEqual(final.message.result.content, [
          { type: "text", text: "connected to eu with a key of 11 characters" }
        ])
        assert.notInclude(JSON.stringify(final.message), "sk-12345678")

        // The value was handed out once: the same retry on B finds nothing to take.
        const replay = yield* callConnect(b, { inputResponses: ACCEPT, requestState })
        assert.strictEqual(replay.message.result?.isError, true, JSON.stringify(replay.message))
        assert.notInclude(JSON.stringify(replay.message), "sk-12345678")
      })),
    60_000
  )

  it.live(
    "Redis stopped: the tool's error and a 503 page (typed, nothing crossed); restarted: new conversations complete",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const own = yield* Effect.promise(() => startRedis())
        yield* Effect.addFinalizer(() => Effect.promise(() => own.stop()))
        const a = yield* urlOf({ MRTR_REQUEST_STATE_KEYS: KEYS, MRTR_REDIS_URL: own.url })
        const first = yield* callConnect(a)
        const pageUrl = first.message.result.inputRequests.api_key.params.url as string
        const pageOnA = new URL(new URL(pageUrl).pathname, a).href

        yield* Effect.promise(() => own.stop())
        const started = yield* callConnect(a)
        assert.strictEqual(started.status, 200)
        assert.strictEqual(started.message.result?.isError, true, JSON.stringify(started.message))
        assert.include(JSON.stringify(started.message.result.content), "interaction store is unavailable")
        const down = yield* fetchPage(pageOnA)
        assert.strictEqual(down.status, 503)
        assert.include(down.html, "try again in a moment")
        const retried = yield* callConnect(a, {
          inputResponses: ACCEPT,
          requestState: first.message.result.requestState
        })
        assert.strictEqual(retried.message.result?.isError, true, "the value cannot be taken while Redis is down")

        yield* Effect.promise(() => own.start())
        // The Redis client reconnects on its own. This redis-server keeps nothing on disk: the old page is gone
        // (404, never another one), and a new conversation works end to end.
        const again = yield* callConnect(a).pipe(
          Effect.repeat({
            until: (response) => response.message.result?.resultType === "input_required",
            schedule: Schedule.spaced("200 millis"),
            times: 50
          })
        )
        assert.strictEqual((yield* fetchPage(pageOnA)).status, 404)
        const newPage =
          new URL(new URL(again.message.result.inputRequests.api_key.params.url as string).pathname, a).href
        const page = yield* fetchPage(newPage)
        assert.strictEqual(page.status, 200)
        const token = /name="csrf" value="([^"]+)"/.exec(page.html)![1]!
        const cookie = page.headers.get("set-cookie")!.split(";")[0]!
        const done = yield* fetchPage(newPage, {
          method: "POST",
          body: new URLSearchParams({ csrf: token, api_key: "sk-after-restart", region: "eu" }).toString(),
          headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: FLEET }
        })
        assert.strictEqual(done.status, 200)
        const final = yield* callConnect(a, { inputResponses: ACCEPT, requestState: again.message.result.requestState })
        assert.deepStrictEqual(final.message.result.content, [
          { type: "text", text: "connected to eu with a key of 16 characters" }
        ])
      })),
    60_000
  )

  it.live(
    "the retry may go to B too; with a memory store instead, the page lives on its instance only",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const env = { MRTR_REQUEST_STATE_KEYS: KEYS, MRTR_REDIS_URL: redis.url }
        const [a, b] = yield* Effect.all([urlOf(env), urlOf(env)])
        const first = yield* callConnect(a)
        const pageUrl = first.message.result.inputRequests.api_key.params.url as string
        const pageOnA = new URL(new URL(pageUrl).pathname, a).href
        const page = yield* fetchPage(pageOnA)
        const token = /name="csrf" value="([^"]+)"/.exec(page.html)![1]!
        const cookie = page.headers.get("set-cookie")!.split(";")[0]!
        const done = yield* fetchPage(pageOnA, {
          method: "POST",
          body: new URLSearchParams({ csrf: token, api_key: "sk-abcdefgh", region: "us" }).toString(),
          headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: FLEET }
        })
        assert.strictEqual(done.status, 200)
        const final = yield* callConnect(b, { inputResponses: ACCEPT, requestState: first.message.result.requestState })
        assert.deepStrictEqual(final.message.result.content, [
          { type: "text", text: "connected to us with a key of 11 characters" }
        ])

        // A memory store given in code: the page lives on that instance only.
        const memory = InteractionPage.layer({
          store: InteractionStore.InteractionStore.layerMemory(),
          singleUser: true
        })
        const local = yield* Effect.flatMap(
          Layer.build(Layer.fresh(
            HttpTransport.layer({ port: 0, gracefulShutdownTimeout: "1 second", mount: InteractionPage.routes }).pipe(
              Layer.provide(
                McpServer.tools(connect).pipe(
                  Layer.provide(memory),
                  Layer.provideMerge(McpServer.layer({ name: "acme-server", version: "1.0.0" }))
                )
              ),
              Layer.provide(memory),
              Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
            )
          )),
          (context) => Effect.provide(HttpTransport.url, context)
        )
        const started = yield* callConnect(local)
        const localPage = started.message.result.inputRequests.api_key.params.url as string
        assert.strictEqual((yield* fetchPage(localPage)).status, 200)
        const elsewhere = yield* fetchPage(new URL(new URL(localPage).pathname, b).href)
        assert.strictEqual(elsewhere.status, 404, "not in Redis: B does not know it")
      })),
    60_000
  )
})
