/**
 * A 2026-07-28 client's call to a 2025-11-25 upstream held open between the
 * client's rounds: the upstream's work before its first question runs once;
 * the store's bounds, time-out and principal binding; a fleet of two
 * gateways on a real Redis, the retry landing on the instance that does not
 * hold the call, and the holder gone (replay).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { HttpTransport as ClientHttp, McpClient } from "@mrtr/client"
import { Elicitation, Mrtr } from "@mrtr/core"
import { McpError } from "@mrtr/protocol/ErrorCode"
import { HttpTransport, McpServer, Tool } from "@mrtr/server"
import * as ServerRedis from "@mrtr/server/Redis"
import { mcpPost, request } from "@mrtr/test-support/http"
import { redisPerFile } from "@mrtr/test-support/infra"
import { Harness } from "@mrtr/testing"
import { Context, Deferred, Effect, Exit, Layer, Schema, Scope } from "effect"
import { HeldCalls, Upstream } from "../src/index.ts"
import { gatewayKeys, serve, upstreamServer, user } from "./fixtures.ts"

/** How many times the upstream did the work before its first question (once per upstream call). */
const counted = { work: 0 }

const survey = Tool.make("survey", {
  parameters: Schema.Struct({ topic: Schema.String }),
  handler: ({ topic }) =>
    Effect.gen(function*() {
      yield* Mrtr.step("work", Effect.sync(() => ++counted.work), Schema.Number)
      const { name } = yield* Elicitation.form({
        key: "who",
        message: `Who answers about ${topic}?`,
        schema: Schema.Struct({ name: Schema.String })
      })
      const { ok } = yield* Elicitation.form({
        key: "confirm",
        message: `Sure, ${name}?`,
        schema: Schema.Struct({ ok: Schema.Boolean })
      })
      return `${name} on ${topic}: ${ok}`
    })
})

let upstream: Awaited<ReturnType<typeof serve>>
beforeAll(async () => {
  upstream = await serve(upstreamServer("legacy", [survey]))
})
afterAll(async () => {
  await upstream?.close()
})

const mounted = (options: Upstream.Options = {}) =>
  McpServer.mount(
    "",
    Upstream.layer(Upstream.http({ name: "legacy", url: upstream.url }), { protocol: "2025-11-25", ...options })
  )

const gateway = (held?: Layer.Layer<HeldCalls.HeldCalls, any>, options: Upstream.Options = {}) =>
  (held === undefined ? mounted(options) : mounted(options).pipe(Layer.provide(held))).pipe(
    Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
    Layer.orDie
  )

const textOf = (result: any) => (result.content[0] as { text: string }).text

const who = { action: "accept" as const, content: { name: "Kim" } }
const confirm = { action: "accept" as const, content: { ok: true } }

describe("held upstream calls (2026-07-28 client, 2025-11-25 upstream)", () => {
  it.effect("the upstream call is held between rounds: its work before the first question runs once", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const before = counted.work
      const rounds: Array<ReadonlyArray<string>> = []
      const result = yield* client.callTool({ name: "survey", arguments: { topic: "tea" } }, {
        onRound: (round) => Effect.sync(() => rounds.push(Object.keys(round.inputRequests)))
      })
      assert.strictEqual(textOf(result), "Kim on tea: true")
      assert.deepStrictEqual(rounds, [["legacy/elicitation-1"], ["legacy/elicitation-2"]])
      assert.strictEqual(counted.work - before, 1)
    }).pipe(Effect.provide(Harness.layer({ server: gateway(), user }))))

  it.effect("a full store refuses the call with -32603 held_calls_full; a finished call frees its place", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const first: any = yield* client.callTool({ name: "survey", arguments: { topic: "a" } }, { maxRounds: 1 }).pipe(
        Effect.flip
      )
      assert.strictEqual(first._tag, "MaxRoundsExceeded")
      const refused: any = yield* client.callTool({ name: "survey", arguments: { topic: "b" } }, { maxRounds: 1 }).pipe(
        Effect.flip
      )
      assert.strictEqual(refused.code ?? refused.error?.code, -32603)
      assert.strictEqual(refused.data?.reason ?? refused.error?.data?.reason, "held_calls_full")
      // the first conversation goes on and ends; then there is room again
      const state = first.lastResult.requestState as string
      const second: any = yield* client.callTool({
        name: "survey",
        arguments: { topic: "a" },
        requestState: state,
        inputResponses: { "legacy/elicitation-1": who }
      }, { maxRounds: 1 }).pipe(Effect.flip)
      const done = yield* client.callTool({
        name: "survey",
        arguments: { topic: "a" },
        requestState: second.lastResult.requestState,
        inputResponses: { "legacy/elicitation-2": confirm }
      })
      assert.strictEqual(textOf(done), "Kim on a: true")
      assert.strictEqual(
        textOf(yield* client.callTool({ name: "survey", arguments: { topic: "c" } })),
        "Kim on c: true"
      )
    }).pipe(Effect.provide(Harness.layer({ server: gateway(HeldCalls.layerMemory({ maxPerPrincipal: 1 })), user }))))

  it.live("a call no retry reached within the timeout is ended; the late retry replays and still completes", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const before = counted.work
      const first: any = yield* client.callTool({ name: "survey", arguments: { topic: "late" } }, { maxRounds: 1 })
        .pipe(Effect.flip)
      yield* Effect.sleep("1500 millis")
      const result = yield* client.callTool({
        name: "survey",
        arguments: { topic: "late" },
        requestState: first.lastResult.requestState,
        inputResponses: { "legacy/elicitation-1": who }
      })
      assert.strictEqual(textOf(result), "Kim on late: true")
      // held once, then called again (replay) after the time-out
      assert.strictEqual(counted.work - before, 2)
    }).pipe(Effect.provide(Harness.layer({ server: gateway(HeldCalls.layerMemory({ timeout: "200 millis" })), user }))))
})

describe("HeldCalls store", () => {
  const asking = (answer: HeldCalls.Answer) =>
    Effect.map(
      answer({ key: "elicitation-1", request: { method: "elicitation/create", params: { message: "?" } } as any }),
      (a) => ({ answer: a })
    )

  it.effect("a call is advanced only by its principal; answers are handed over once", () =>
    Effect.gen(function*() {
      const store = yield* HeldCalls.HeldCalls
      const id = yield* store.newId
      yield* store.start(id, "alice", asking)
      const first = yield* store.advance(id, "alice", {})
      assert.deepStrictEqual(first, {
        _tag: "Ask",
        questions: [{
          key: "elicitation-1",
          request: { method: "elicitation/create", params: { message: "?" } } as any
        }]
      })
      assert.deepStrictEqual(yield* store.advance(id, "mallory", { "elicitation-1": "stolen" }), { _tag: "Unknown" })
      assert.deepStrictEqual(yield* store.advance(id, undefined, { "elicitation-1": "stolen" }), { _tag: "Unknown" })
      assert.deepStrictEqual(yield* store.advance(id, "alice", { "elicitation-1": "mine" }), {
        _tag: "Done",
        result: { answer: "mine" }
      })
      assert.strictEqual(yield* store.size, 0)
      assert.deepStrictEqual(yield* store.advance(id, "alice", {}), { _tag: "Unknown" })
    }).pipe(Effect.provide(HeldCalls.layerMemory())))

  it.effect("bounds per principal and in total are typed refusals", () =>
    Effect.gen(function*() {
      const store = yield* HeldCalls.HeldCalls
      yield* store.start(yield* store.newId, "alice", asking)
      const perPrincipal = yield* Effect.flip(store.start(yield* store.newId, "alice", asking))
      assert.instanceOf(perPrincipal, HeldCalls.HeldCallsFull)
      assert.strictEqual(perPrincipal.scope, "principal")
      yield* store.start(yield* store.newId, "bob", asking)
      const total = yield* Effect.flip(store.start(yield* store.newId, "carol", asking))
      assert.strictEqual(total.scope, "instance")
      assert.deepStrictEqual(total.toMcpError().data, { reason: "held_calls_full", scope: "instance" })
    }).pipe(Effect.provide(HeldCalls.layerMemory({ maxHeld: 2, maxPerPrincipal: 1 }))))

  it.effect("an upstream failure is the call's JSON-RPC error; cancel interrupts the call", () =>
    Effect.gen(function*() {
      const store = yield* HeldCalls.HeldCalls
      const failing = yield* store.newId
      yield* store.start(failing, undefined, () => Effect.fail(new McpError({ code: -32602, message: "no such tool" })))
      assert.deepStrictEqual(yield* store.advance(failing, undefined, {}), {
        _tag: "Failed",
        error: { code: -32602, message: "no such tool" }
      })
      const interrupted = yield* Deferred.make<void>()
      const cancelled = yield* store.newId
      yield* store.start(
        cancelled,
        undefined,
        (answer) => asking(answer).pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)))
      )
      assert.strictEqual((yield* store.advance(cancelled, undefined, {}))._tag, "Ask")
      yield* store.cancel(cancelled, undefined)
      yield* Deferred.await(interrupted)
      assert.strictEqual(yield* store.size, 0)
    }).pipe(Effect.provide(HeldCalls.layerMemory())))
})

const redis = redisPerFile()

/** A gateway instance over HTTP whose held calls are shared through Redis; `close` kills it. */
const instance = async () => {
  const held = HeldCalls.layerRedis({ livenessInterval: "200 millis" }).pipe(
    Layer.provide(ServerRedis.layerClient({ url: redis.url })),
    Layer.orDie
  )
  return serve(gateway(held))
}

/** One round sent to `url`: the complete text, or the next round's state and keys. */
const round = (url: string, params: Record<string, unknown>) =>
  Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(
      McpClient.layer({ protocol: "2026-07-28", capabilities: { elicitation: { form: {} } } }).pipe(
        Layer.provide(ClientHttp.layerNode({ url }))
      )
    )
    const exit = yield* Context.get(context, McpClient.McpClient).callTool(
      { name: "survey", ...params } as any,
      { maxRounds: 1 }
    ).pipe(Effect.exit)
    if (Exit.isSuccess(exit)) return { text: textOf(exit.value) }
    const failure: any = exit.cause.reasons[0]
    const error = failure?.error
    if (error?._tag !== "MaxRoundsExceeded") return yield* Effect.die(error ?? failure)
    return { state: error.lastResult.requestState as string, keys: Object.keys(error.lastResult.inputRequests) }
  }))

describe("held calls in a fleet (two gateways, one Redis)", () => {
  it.live("a retry landing on the other instance reaches the call held by the first", () =>
    Effect.gen(function*() {
      const a = yield* Effect.promise(instance)
      const b = yield* Effect.promise(instance)
      const before = counted.work
      const args = { arguments: { topic: "fleet" } }
      const r1: any = yield* round(a.url, args)
      assert.deepStrictEqual(r1.keys, ["legacy/elicitation-1"])
      const r2: any = yield* round(b.url, {
        ...args,
        requestState: r1.state,
        inputResponses: { "legacy/elicitation-1": who }
      })
      assert.deepStrictEqual(r2.keys, ["legacy/elicitation-2"])
      const r3: any = yield* round(b.url, {
        ...args,
        requestState: r2.state,
        inputResponses: { "legacy/elicitation-2": confirm }
      })
      assert.strictEqual(r3.text, "Kim on fleet: true")
      assert.strictEqual(counted.work - before, 1)
      yield* Effect.promise(() => Promise.all([a.close(), b.close()]))
    }), 30_000)

  it.live(
    "the holder gone: the retry on a survivor replays the upstream call and completes",
    () =>
      Effect.gen(function*() {
        const a = yield* Effect.promise(instance)
        const b = yield* Effect.promise(instance)
        const before = counted.work
        const args = { arguments: { topic: "lost" } }
        const r1: any = yield* round(a.url, args)
        yield* Effect.promise(() => a.close())
        const r2: any = yield* round(b.url, {
          ...args,
          requestState: r1.state,
          inputResponses: { "legacy/elicitation-1": who }
        })
        assert.deepStrictEqual(r2.keys, ["legacy/elicitation-2"])
        const r3: any = yield* round(b.url, {
          ...args,
          requestState: r2.state,
          inputResponses: { "legacy/elicitation-2": confirm }
        })
        assert.strictEqual(r3.text, "Kim on lost: true")
        // once on the lost instance, once more on the survivor (held there from then on)
        assert.strictEqual(counted.work - before, 2)
        yield* Effect.promise(() => b.close())
      }),
    30_000
  )
})

describe("held calls without a principal", () => {
  const call = (url: string, from: string, id: number) =>
    Effect.runPromise(
      mcpPost(
        url,
        request("tools/call", { name: "survey", arguments: { topic: "shares" } }, {
          id,
          clientCapabilities: { elicitation: { form: {} } }
        }),
        { "x-forwarded-for": from }
      )
    ).then((reply) => reply.json)

  it("are held in the share of their client address's group: one caller cannot fill it for another", async () => {
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(Layer.buildWithScope(
      HttpTransport.layer({ port: 0, trustedProxies: ["127.0.0.1"] }).pipe(
        Layer.provideMerge(gateway(HeldCalls.layerMemory({ maxPerPrincipal: 1 })))
      ),
      scope
    ))
    try {
      const url = Effect.runSync(Effect.provide(HttpTransport.url, context))
      assert.strictEqual((await call(url, "203.0.113.1", 1)).result.resultType, "input_required")
      const full = await call(url, "203.0.113.1", 2)
      assert.strictEqual(full.error.data.reason, "held_calls_full")
      assert.strictEqual((await call(url, "203.0.113.2", 3)).result.resultType, "input_required")
      assert.strictEqual((await call(url, "2001:db8:0:1::1", 4)).result.resultType, "input_required")
      // the same /64: the same share
      assert.strictEqual((await call(url, "2001:db8:0:1::2", 5)).error.data.reason, "held_calls_full")
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 60_000)
})
