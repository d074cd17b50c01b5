/**
 * The Redis `ReplayGuard` against a real `redis-server` (started on a free
 * port by the test, stopped after it): single use fleet-wide through two
 * server instances configured by the environment (`McpServer.layerConfig`
 * with `Redis.layerFleetConfig()`: `MRTR_REDIS_URL`, `MRTR_SINGLE_USE`,
 * `MRTR_REQUEST_STATE_KEYS`), each id kept exactly until
 * its state's expiry, and Redis stopped then restarted: the documented
 * degradation (single-use retries fail -32603 at once, counted and logged;
 * first rounds still work), then full service; and the notification bus:
 * a resource updated on one instance reaches a 2025-11-25 session on another.
 */
import { assert, describe, it } from "@effect/vitest"
import { Elicitation, RequestState } from "@mrtr/core"
import { mcpPost, request } from "@mrtr/test-support/http"
import { redisPerFile } from "@mrtr/test-support/infra"
import { LEGACY_SCHEMA_ID, validateWire } from "@mrtr/test-support/wire"
import { ConfigProvider, Context, Effect, Layer, Logger, Metric, Schema } from "effect"
import { HttpTransport, McpServer, Tool } from "../src/index.ts"
import * as Redis from "../src/Redis.ts"
import { readme } from "./fixtures.ts"
import { initialize, post, rpc, sseReader } from "./legacy-helpers.ts"

const greet = Tool.make("greet", {
  parameters: Schema.Struct({ greeting: Schema.String }),
  handler: ({ greeting }) =>
    Effect.map(
      Elicitation.form({ key: "name", message: "Your name?", schema: Schema.Struct({ name: Schema.String }) }),
      ({ name }) => `${greeting}, ${name}!`
    )
})

const KEYS = Buffer.from(new Uint8Array(32).fill(7)).toString("base64url")

/** One server instance of a fleet on Redis, configured from the environment only. */
const instance = (env: Record<string, string>) =>
  Layer.fresh(
    HttpTransport.layer({ port: 0 }).pipe(
      Layer.provide(
        McpServer.tools(greet).pipe(
          Layer.provideMerge(McpServer.layerConfig({ name: "fleet", version: "1", shared: Redis.layerFleetConfig() }))
        )
      ),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
    )
  )

const urlOf = (env: Record<string, string>) =>
  Effect.flatMap(Layer.build(instance(env)), (context) => Effect.provide(HttpTransport.url, context))

const call = (url: string, params: Record<string, unknown>) =>
  mcpPost(
    url,
    request("tools/call", { name: "greet", arguments: { greeting: "Hi" }, ...params }, {
      clientCapabilities: { elicitation: {} }
    })
  )

const firstRound = (url: string) =>
  Effect.map(call(url, {}), (reply) => {
    assert.strictEqual(reply.json.result.resultType, "input_required")
    validateWire("JSONRPCResultResponse", reply.json)
    return reply.json.result.requestState as string
  })

const answer = (url: string, requestState: string, name = "Ada") =>
  call(url, { requestState, inputResponses: { name: { action: "accept", content: { name } } } })

const redis = redisPerFile()

const fleetEnv = () => ({
  MRTR_REQUEST_STATE_KEYS: KEYS,
  MRTR_SINGLE_USE: "true",
  MRTR_REDIS_URL: redis.url
})

describe("Redis ReplayGuard", () => {
  it.live(
    "single use fleet-wide: one state redeemed on two instances at the same instant, 200 times, succeeds once each time",
    () =>
      Effect.gen(function*() {
        const [a, b] = yield* Effect.all([urlOf(fleetEnv()), urlOf(fleetEnv())])
        for (let i = 0; i < 200; i++) {
          const state = yield* firstRound(i % 2 === 0 ? a : b)
          const replies = yield* Effect.all([answer(a, state, `A${i}`), answer(b, state, `B${i}`)], { concurrency: 2 })
          const complete = replies.filter((r) => r.json.result?.resultType === "complete")
          const refused = replies.filter((r) => r.json.error !== undefined)
          assert.strictEqual(complete.length, 1)
          assert.strictEqual(refused.length, 1)
          assert.deepStrictEqual(refused[0]!.json.error, { code: -32602, message: "Invalid requestState" })
          for (const reply of replies) validateWire("JSONRPCMessage", reply.json)
        }
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "without single use, the fleet's Redis changes nothing: a state is accepted on both instances",
    () =>
      Effect.gen(function*() {
        const env = { MRTR_REQUEST_STATE_KEYS: KEYS, MRTR_REDIS_URL: redis.url }
        const [a, b] = yield* Effect.all([urlOf(env), urlOf(env)])
        const state = yield* firstRound(a)
        const replies = yield* Effect.all([answer(a, state), answer(b, state)])
        assert.deepStrictEqual(replies.map((r) => r.json.result.content[0].text), ["Hi, Ada!", "Hi, Ada!"])
      }).pipe(Effect.scoped),
    30_000
  )

  it.live("keeps each redeemed id exactly until its state's expiry", () =>
    Effect.gen(function*() {
      const guard = yield* Redis.makeReplayGuard({ prefix: "test:expiry:" })
      const expiresAt = Date.now() + 600_000
      assert.isTrue(yield* guard.redeem("jti-1", expiresAt))
      assert.isFalse(yield* guard.redeem("jti-1", expiresAt))
      const { Redis: RedisService } = yield* Effect.promise(() => import("effect/persistence/Redis"))
      const redisService = yield* Effect.service(RedisService)
      assert.strictEqual(yield* redisService.send("PEXPIRETIME", "test:expiry:jti-1"), expiresAt)
    }).pipe(Effect.provide(Redis.layerClient({ url: redis.url }))), 30_000)

  it.live(
    "Redis stalled (not refused): a redemption given up on is not spent; the retry after it succeeds once",
    () =>
      Effect.gen(function*() {
        const guard = yield* Redis.makeReplayGuard({ prefix: "test:stall:" })
        const { Redis: RedisService } = yield* Effect.promise(() => import("effect/persistence/Redis"))
        const redisService = yield* Effect.service(RedisService)
        const expiresAt = Date.now() + 600_000
        // Writes wait for 2.5 s: the guard's SET gets no answer within its 1 s, but runs when the pause ends.
        yield* redisService.send("CLIENT", "PAUSE", "2500", "WRITE")
        const stalled = yield* Effect.flip(guard.redeem("jti-stall", expiresAt))
        assert.instanceOf(stalled, RequestState.ReplayGuardUnavailable)
        yield* Effect.sleep("3 seconds")
        // "retry later" held: the id was released after the late SET, so the retry redeems it, once.
        assert.isTrue(yield* guard.redeem("jti-stall", expiresAt))
        assert.isFalse(yield* guard.redeem("jti-stall", expiresAt))
      }).pipe(Effect.provide(Redis.layerClient({ url: redis.url }))),
    30_000
  )

  it.live(
    "Redis stopped: single-use retries fail at once with -32603 (counted, logged), first rounds still work; restarted: full service",
    () =>
      Effect.gen(function*() {
        const logs: Array<string> = []
        const url = yield* urlOf(fleetEnv()).pipe(
          Effect.provide(Logger.layer([Logger.make((options) => {
            logs.push(`${options.logLevel} ${String(options.message)}`)
          })]))
        )
        const before = yield* firstRound(url)
        yield* Effect.promise(() => redis.stop())
        const errors = Metric.withAttributes(Redis.redisErrorsTotal, { operation: "redeem" })
        const countBefore = (yield* Metric.value(errors)).count
        const startedAt = Date.now()
        const down = yield* answer(url, before)
        assert.isBelow(Date.now() - startedAt, 3_000)
        validateWire("JSONRPCErrorResponse", down.json)
        assert.strictEqual(down.json.error.code, -32603)
        assert.strictEqual(
          down.json.error.message,
          new RequestState.ReplayGuardUnavailable({ store: "redis", reason: "" }).message
        )
        assert.strictEqual((yield* Metric.value(errors)).count, countBefore + 1)
        assert.isTrue(logs.some((line) => line.includes("Redis is unavailable")))
        // A first round needs no redemption: it still works.
        const sealedWhileDown = yield* firstRound(url)
        yield* Effect.promise(() => redis.start())
        // The client reconnects by itself (backoff up to 2 s); the same states now redeem once.
        let up = yield* answer(url, before)
        for (let i = 0; i < 50 && up.json.error !== undefined; i++) {
          yield* Effect.sleep("100 millis")
          up = yield* answer(url, before)
        }
        assert.strictEqual(up.json.result.content[0].text, "Hi, Ada!")
        assert.deepStrictEqual((yield* answer(url, before)).json.error, {
          code: -32602,
          message: "Invalid requestState"
        })
        assert.strictEqual((yield* answer(url, sealedWhileDown, "Bob")).json.result.content[0].text, "Hi, Bob!")
      }).pipe(Effect.scoped),
    60_000
  )

  it.live("Redis unreachable at start-up: the layer fails with a RedisError", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(urlOf({ ...fleetEnv(), MRTR_REDIS_URL: "redis://127.0.0.1:1" }))
      assert.strictEqual(exit._tag, "Failure")
      assert.include(String(exit), "RedisError")
    }).pipe(Effect.scoped), 30_000)
})

describe("Redis NotificationBus", () => {
  it.live(
    "resourceUpdated on one instance reaches a 2025-11-25 session subscribed on another",
    () =>
      Effect.gen(function*() {
        const env = { MRTR_REQUEST_STATE_KEYS: KEYS, MRTR_REDIS_URL: redis.url }
        const build = Effect.flatMap(
          Layer.build(Layer.fresh(
            HttpTransport.layer({ port: 0 }).pipe(
              Layer.provideMerge(
                McpServer.resources(readme).pipe(
                  Layer.provideMerge(
                    McpServer.layerConfig({ name: "fleet", version: "1", shared: Redis.layerFleetConfig() })
                  )
                )
              ),
              Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
            )
          )),
          (context) =>
            Effect.map(
              Effect.provide(HttpTransport.url, context),
              (url) => ({ url, server: Context.get(context, McpServer.McpServer) })
            )
        )
        const a = yield* build
        const b = yield* build
        const { headers } = yield* Effect.promise(() => initialize(b.url))
        yield* Effect.promise(() => post(b.url, rpc("resources/subscribe", { uri: "test://readme" }), headers))
        const get = yield* Effect.promise(() =>
          fetch(b.url, { headers: { ...headers, accept: "text/event-stream", "mcp-protocol-version": "2025-11-25" } })
        )
        assert.strictEqual(get.status, 200)
        const events = sseReader(get)
        yield* Effect.promise(() => events.next()) // priming event
        yield* a.server.resourceUpdated("test://readme")
        const updated = yield* Effect.promise(() => events.next(5_000))
        const message = JSON.parse(updated!.data)
        validateWire("ResourceUpdatedNotification", message, LEGACY_SCHEMA_ID)
        assert.strictEqual(message.params.uri, "test://readme")
        yield* Effect.promise(() => events.cancel())
      }).pipe(Effect.scoped),
    30_000
  )
})
