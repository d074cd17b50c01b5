/**
 * The Redis `SessionDirectory` against a real `redis-server` (started on a
 * free port, stopped after): records with the idle timeout as their TTL
 * (refreshed by lookups, gone after it), atomic changes (bounded
 * subscriptions, capabilities kept byte for byte through Lua), pub/sub to
 * one instance (0 listeners = gone) and to all; two server instances in
 * this process configured by `MRTR_REDIS_URL` only: a session made on one is
 * served by the other, an answer POSTed to the instance that does not run
 * the request is forwarded and completes it, a forged leg id is ignored,
 * `notifications/cancelled` and DELETE reach the instance running the
 * request, a session evicted at its address's cap is ended fleet-wide (its
 * record deleted, 404 on every instance); and Redis down: a typed failure, HTTP 503 with -32603, no hang;
 * a request waiting for an answer waits through an unresponsive Redis and
 * fails with -32603 `session_lost` when the session's record is gone.
 */
import { describe, expect, it } from "@effect/vitest"
import { Elicitation } from "@mrtr/core"
import { redisPerFile } from "@mrtr/test-support/infra"
import { ConfigProvider, Context, Effect, Layer, Metric, Queue, Schema } from "effect"
import * as RedisService from "effect/persistence/Redis"
import { HttpTransport, McpServer, Observability, RequestContext, Tool } from "../src/index.ts"
import * as Redis from "../src/Redis.ts"
import {
  type Routed,
  SessionDirectory,
  SessionDirectoryUnavailable,
  type SessionRecord
} from "../src/SessionDirectory.ts"
import { greet, readme } from "./fixtures.ts"
import { CAPS, initialize, post, reconnect, rpc, sseReader } from "./legacy-helpers.ts"

const redis = redisPerFile()

const record = (id: string, over: Partial<SessionRecord> = {}): SessionRecord => ({
  id,
  principal: undefined,
  protocolVersion: "2025-11-25",
  clientCapabilities: { elicitation: { form: {} }, roots: { listChanged: true }, experimental: { list: [] } },
  clientInfo: { name: "t", version: "1", icons: [] },
  initialized: false,
  logLevel: undefined,
  subscriptions: [],
  ...over
})

const directoryOf = (prefix: string, instanceId?: string) =>
  Effect.flatMap(
    Layer.build(Redis.layerSessionDirectory({ prefix, ...(instanceId === undefined ? {} : { instanceId }) })),
    (context) => Effect.succeed(Context.get(context, SessionDirectory))
  )

describe("Redis SessionDirectory", () => {
  it.live(
    "records: created, looked up with the TTL refreshed, changed atomically, removed; capabilities kept exactly",
    () =>
      Effect.gen(function*() {
        const directory = yield* directoryOf("t1:")
        const send = (yield* RedisService.Redis).send
        yield* directory.create(record("s1"), 60_000)
        expect(yield* directory.lookup("s1", 120_000)).toEqual(record("s1"))
        expect(yield* send<number>("PTTL", "t1:session:s1")).toBeGreaterThan(60_000)
        expect(yield* directory.lookup("nope", 1000)).toBeUndefined()

        expect(yield* directory.change("s1", { _tag: "Initialized" }, 60_000)).toMatchObject({ initialized: true })
        expect(yield* directory.change("s1", { _tag: "LogLevel", level: "warning" }, 60_000)).toMatchObject({
          logLevel: "warning"
        })
        yield* directory.change("s1", { _tag: "Subscribe", uri: "a://1", max: 2 }, 60_000)
        yield* directory.change("s1", { _tag: "Subscribe", uri: "a://1", max: 2 }, 60_000)
        yield* directory.change("s1", { _tag: "Subscribe", uri: "a://2", max: 2 }, 60_000)
        expect(yield* directory.change("s1", { _tag: "Subscribe", uri: "a://3", max: 2 }, 60_000)).toBe("full")
        yield* directory.change("s1", { _tag: "Unsubscribe", uri: "a://1" }, 60_000)
        yield* directory.change("s1", { _tag: "Unsubscribe", uri: "a://2" }, 60_000)
        // Through Lua and back: empty arrays of the client's stay arrays, an empty subscription list reads [].
        expect(yield* directory.lookup("s1", 60_000)).toEqual(record("s1", { initialized: true, logLevel: "warning" }))
        expect(yield* directory.change("nope", { _tag: "Initialized" }, 1000)).toBeUndefined()

        yield* directory.remove("s1")
        expect(yield* directory.lookup("s1", 60_000)).toBeUndefined()
      }).pipe(Effect.scoped, Effect.provide(Redis.layerClient({ url: redis.url }))),
    30_000
  )

  it.live("the idle timeout is the TTL: a record not looked up within it is gone", () =>
    Effect.gen(function*() {
      const directory = yield* directoryOf("t2:")
      yield* directory.create(record("s2"), 200)
      yield* Effect.sleep("500 millis")
      expect(yield* directory.lookup("s2", 200)).toBeUndefined()
    }).pipe(Effect.scoped, Effect.provide(Redis.layerClient({ url: redis.url }))), 30_000)

  it.live(
    "send reaches one listening instance (false when none listens); broadcast reaches the others, not the sender",
    () =>
      Effect.gen(function*() {
        const a = yield* directoryOf("t3:", "aaaa")
        const b = yield* directoryOf("t3:", "bbbb")
        const heardA = yield* Queue.unbounded<Routed>()
        const heardB = yield* Queue.unbounded<Routed>()
        yield* a.listen((m) => Queue.offer(heardA, m))
        yield* b.listen((m) => Queue.offer(heardB, m))
        // Subscriptions are set up asynchronously: wait until b listens.
        let delivered = false
        for (let i = 0; i < 50 && !delivered; i++) {
          delivered = yield* a.send("bbbb", { _tag: "Ended", session: "warm-up" })
          if (!delivered) yield* Effect.sleep("50 millis")
        }
        expect(delivered).toBe(true)
        expect(yield* Queue.take(heardB)).toEqual({ _tag: "Ended", session: "warm-up" })
        expect(yield* a.send("cccc", { _tag: "Ended", session: "x" })).toBe(false)
        yield* a.send("bbbb", { _tag: "Answer", session: "s", id: "mrtr.bbbb.1", result: { ok: true } })
        expect(yield* Queue.take(heardB)).toEqual({
          _tag: "Answer",
          session: "s",
          id: "mrtr.bbbb.1",
          result: { ok: true }
        })
        yield* a.broadcast({ _tag: "Cancel", session: "s", requestId: 7, reason: "r" })
        expect(yield* Queue.take(heardB)).toEqual({ _tag: "Cancel", session: "s", requestId: 7, reason: "r" })
        // a does not hear its own broadcast (nor anything else here).
        yield* Effect.sleep("100 millis")
        expect(yield* Queue.size(heardA)).toBe(0)
      }).pipe(Effect.scoped, Effect.provide(Redis.layerClient({ url: redis.url }))),
    30_000
  )
})

/** Closes its stream (SEP-1699), stays quiet longer than the receiver's first-answer bound (5 s), then asks. */
const quietReconnect = Tool.make("quiet_reconnect", {
  handler: () =>
    Effect.gen(function*() {
      yield* RequestContext.closeStream
      yield* Effect.sleep("6 seconds")
      const { name } = yield* Elicitation.form({
        key: "name",
        message: "Name?",
        schema: Schema.Struct({ name: Schema.String })
      })
      return `reconnected as ${name}`
    })
})

/** A server instance configured by the environment only, as a fleet member. */
const instanceWithServer = Effect.fnUntraced(function*(
  transport: HttpTransport.LayerOptions = {},
  options: Partial<McpServer.Options> = {}
) {
  const env = {
    MRTR_REDIS_URL: redis.url,
    MRTR_REQUEST_STATE_KEYS: Buffer.from(new Uint8Array(32).fill(3)).toString("base64url")
  }
  const context = yield* Layer.build(Layer.fresh(
    HttpTransport.layer({ port: 0, ...transport }).pipe(
      Layer.provideMerge(
        McpServer.tools(greet, reconnect, quietReconnect).pipe(
          Layer.provideMerge(McpServer.resources(readme)),
          Layer.provideMerge(
            McpServer.layerConfig({ name: "fleet", version: "1", ...options, shared: Redis.layerFleetConfig() })
          )
        )
      ),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
    )
  ))
  return { url: yield* Effect.provide(HttpTransport.url, context), server: Context.get(context, McpServer.McpServer) }
})
const instance = (transport: HttpTransport.LayerOptions = {}) => Effect.map(instanceWithServer(transport), (i) => i.url)

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

/** Waits until `url` can send to the other instances (their subscriptions are set up asynchronously). */
const settle = Effect.sleep("300 millis")

describe("two instances sharing the Redis directory (2025-11-25 without affinity)", () => {
  it.live(
    "a session made on A is served by B; the answer to B's leg POSTed to A is forwarded and completes the call; a forged leg id is ignored",
    () =>
      Effect.gen(function*() {
        const a = yield* instance()
        const b = yield* instance()
        yield* settle
        const { headers, session } = yield* promise(() => initialize(a, CAPS))
        // Served by B: a replica of the shared record.
        const ping = yield* promise(() => post(b, rpc("ping"), headers))
        expect(ping.status).toBe(200)
        // setLevel on B: the shared record changes (and with it every replica).
        expect((yield* promise(() => post(b, rpc("logging/setLevel", { level: "error" }), headers))).status).toBe(200)
        const forwarded = Metric.withAttributes(Observability.legacyAnswersForwarded, { outcome: "delivered" })
        const before = (yield* Metric.value(forwarded)).count
        const call = yield* promise(() =>
          post(b, rpc("tools/call", { name: "greet", arguments: { greeting: "Hello" } }), headers)
        )
        expect(call.headers.get("content-type")).toContain("text/event-stream")
        const events = sseReader(call)
        const ask = yield* promise(() => events.message())
        expect(ask.method).toBe("elicitation/create")
        expect(ask.id).toMatch(/^mrtr\.[0-9a-f]+\.\d+$/)
        expect(yield* Metric.value(Observability.legacyLegsInFlight)).toMatchObject({ value: 1 })
        // Forged: an id naming no instance, another instance's id with a wrong number, and the real id in another session.
        const other = yield* promise(() => initialize(b, CAPS))
        for (
          const [id, h] of [
            ["mrtr.ffffffffffff.1", headers],
            [ask.id.replace(/\d+$/, "999"), headers],
            [ask.id, other.headers]
          ] as const
        ) {
          const forged = yield* promise(() =>
            post(a, { jsonrpc: "2.0", id, result: { action: "accept", content: { name: "Mallory" } } }, h)
          )
          expect(forged.status).toBe(202)
        }
        const answered = yield* promise(() =>
          post(a, { jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { name: "Ada" } } }, headers)
        )
        expect(answered.status).toBe(202)
        const done = yield* promise(() => events.message())
        expect(done.result.content[0].text).toBe("Hello, Ada!")
        expect((yield* Metric.value(forwarded)).count).toBeGreaterThanOrEqual(before + 1)
        expect(session).toBe(headers["mcp-session-id"])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "resources/subscribe on A reaches the replica on B that holds the GET stream: an update announced on A is delivered there",
    () =>
      Effect.gen(function*() {
        const a = yield* instanceWithServer()
        const b = yield* instanceWithServer()
        yield* settle
        const { headers } = yield* promise(() => initialize(a.url, CAPS))
        const get = yield* promise(() =>
          fetch(b.url, { headers: { ...headers, accept: "text/event-stream", "mcp-protocol-version": "2025-11-25" } })
        )
        expect(get.status).toBe(200)
        const events = sseReader(get)
        yield* promise(() => events.next()) // priming
        expect(
          (yield* promise(() => post(a.url, rpc("resources/subscribe", { uri: "test://readme" }), headers))).status
        ).toBe(200)
        // The change reaches B by pub/sub: announce until B has it (at most once per attempt).
        let updated: any
        for (let i = 0; i < 20 && updated === undefined; i++) {
          yield* a.server.resourceUpdated("test://readme")
          updated = yield* promise(() => events.message(250).catch(() => undefined))
        }
        expect(updated).toEqual({
          jsonrpc: "2.0",
          method: "notifications/resources/updated",
          params: { uri: "test://readme" }
        })
        // Unsubscribed on B: no more updates there.
        expect(
          (yield* promise(() => post(b.url, rpc("resources/unsubscribe", { uri: "test://readme" }), headers))).status
        ).toBe(200)
        yield* a.server.resourceUpdated("test://readme")
        expect(yield* promise(() => events.message(500).catch(() => "none"))).toBe("none")
        yield* promise(() => events.cancel())
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "DELETE on A ends the session on B: B's in-flight call is interrupted, both answer 404; cancelled on A stops B's request",
    () =>
      Effect.gen(function*() {
        const a = yield* instance()
        const b = yield* instance()
        yield* settle
        // notifications/cancelled posted to A for a request running on B.
        const first = yield* promise(() => initialize(a, CAPS))
        const cancelled = rpc("tools/call", { name: "greet", arguments: { greeting: "Hello" } })
        const running = yield* promise(() => post(b, cancelled, first.headers))
        const stream = sseReader(running)
        expect((yield* promise(() => stream.message())).method).toBe("elicitation/create")
        const cancel = yield* promise(() =>
          post(
            a,
            { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: cancelled.id } },
            first.headers
          )
        )
        expect(cancel.status).toBe(202)
        // The request stops (its stream ends without a response, or with one of the cancellation).
        const after = yield* promise(() => stream.message(10_000).catch(() => "timeout"))
        expect(after === undefined || after?.method === "notifications/cancelled").toBe(true)

        const { headers } = yield* promise(() => initialize(a, CAPS))
        const call = yield* promise(() =>
          post(b, rpc("tools/call", { name: "greet", arguments: { greeting: "Hello" } }), headers)
        )
        const events = sseReader(call)
        expect((yield* promise(() => events.message())).method).toBe("elicitation/create")
        const deleted = yield* promise(() =>
          fetch(a, { method: "DELETE", headers: { ...headers, "mcp-protocol-version": "2025-11-25" } })
        )
        expect(deleted.status).toBe(200)
        // B's request is interrupted: its stream ends.
        let ended = false
        for (let i = 0; i < 5 && !ended; i++) {
          const next = yield* promise(() => events.message(10_000).catch(() => "timeout"))
          ended = next === undefined
        }
        expect(ended).toBe(true)
        for (const url of [a, b]) {
          const gone = yield* promise(() => post(url, rpc("ping"), headers))
          expect(gone.status).toBe(404)
          expect(((yield* promise(() => gone.json())) as any).error.code).toBe(-32001)
        }
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "resumption across instances: a stream detached on B (SEP-1699) resumes with Last-Event-ID on A; a stream B no longer holds fails its request",
    () =>
      Effect.gen(function*() {
        const a = yield* instance()
        const b = yield* instance()
        yield* settle
        const { headers } = yield* promise(() => initialize(a, CAPS))
        const getFrom = (url: string, lastEventId: string) =>
          promise(() =>
            fetch(url, {
              headers: {
                ...headers,
                accept: "text/event-stream",
                "mcp-protocol-version": "2025-11-25",
                "last-event-id": lastEventId
              }
            })
          )
        // The tool closes its stream at once, then asks.
        const call = yield* promise(() => post(b, rpc("tools/call", { name: "reconnect", arguments: {} }), headers))
        const posted = sseReader(call)
        const prime = yield* promise(() => posted.next())
        expect(prime?.id).toMatch(/^[0-9a-f]+:\d+:[A-Za-z0-9_-]+\.0$/)
        expect(yield* promise(() => posted.next())).toBeUndefined()
        const resumed = yield* getFrom(a, prime!.id!)
        expect(resumed.status).toBe(200)
        const events = sseReader(resumed)
        const askEvent = yield* promise(() => events.next())
        const ask = JSON.parse(askEvent!.data)
        expect(ask.method).toBe("elicitation/create")
        expect(askEvent!.id?.startsWith(prime!.id!.slice(0, -2))).toBe(true)
        const answered = yield* promise(() =>
          post(a, { jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { name: "Ada" } } }, headers)
        )
        expect(answered.status).toBe(202)
        const done = yield* promise(() => events.message())
        expect(done.result.content[0].text).toBe("reconnected as Ada")
        expect(yield* promise(() => events.next())).toBeUndefined()

        // A stream whose connection closed without the server detaching it: the request was cancelled on B.
        const greeting = rpc("tools/call", { name: "greet", arguments: { greeting: "Hello" } })
        const second = sseReader(yield* promise(() => post(b, greeting, headers)))
        const asked = yield* promise(() => second.next().then(() => second.next()))
        expect(JSON.parse(asked!.data).method).toBe("elicitation/create")
        yield* promise(() => second.cancel())
        yield* Effect.sleep("200 millis")
        const lost = sseReader(yield* getFrom(a, asked!.id!))
        const failed = yield* promise(() => lost.next())
        expect(failed!.id).toMatch(/\.lost$/)
        const error = JSON.parse(failed!.data)
        expect(error.id).toBe(greeting.id)
        expect(error.error.code).toBe(-32603)
        expect(error.error.data.reason).toBe("stream_ended")
        // Resuming after the lost marker: 405, nothing more.
        expect((yield* getFrom(b, failed!.id!)).status).toBe(405)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "resumption across instances waits for a handler that stays quiet longer than the first-answer bound",
    () =>
      Effect.gen(function*() {
        const a = yield* instance()
        const b = yield* instance()
        yield* settle
        const { headers } = yield* promise(() => initialize(a, CAPS))
        const call = yield* promise(() =>
          post(b, rpc("tools/call", { name: "quiet_reconnect", arguments: {} }), headers)
        )
        const posted = sseReader(call)
        const prime = yield* promise(() => posted.next())
        expect(yield* promise(() => posted.next())).toBeUndefined()
        const resumed = yield* promise(() =>
          fetch(a, {
            headers: {
              ...headers,
              accept: "text/event-stream",
              "mcp-protocol-version": "2025-11-25",
              "last-event-id": prime!.id!
            }
          })
        )
        const events = sseReader(resumed)
        const askEvent = yield* promise(() => events.next())
        const ask = JSON.parse(askEvent!.data)
        expect(ask.method, askEvent!.data).toBe("elicitation/create")
        yield* promise(() =>
          post(a, { jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { name: "Ada" } } }, headers)
        )
        const done = yield* promise(() => events.message())
        expect(done.result.content[0].text).toBe("reconnected as Ada")
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a session id presented by another principal is unknown on every instance (404 -32001)",
    () =>
      Effect.gen(function*() {
        const principal = (request: any) => Effect.succeed(request.headers["x-user"] as string | undefined)
        const a = yield* instance({ principal })
        const b = yield* instance({ principal })
        const opened = yield* promise(() =>
          fetch(a, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "x-user": "alice"
            },
            body: JSON.stringify(
              rpc("initialize", {
                protocolVersion: "2025-11-25",
                capabilities: {},
                clientInfo: { name: "x", version: "1" }
              })
            )
          })
        )
        const session = opened.headers.get("mcp-session-id")!
        for (const [url, user, status] of [[b, "bob", 404], [a, "bob", 404], [b, "alice", 200]] as const) {
          const response = yield* promise(() => post(url, rpc("ping"), { "mcp-session-id": session, "x-user": user }))
          expect(response.status).toBe(status)
          if (status === 404) expect(((yield* promise(() => response.json())) as any).error.code).toBe(-32001)
        }
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "Redis down: a typed failure from the directory, HTTP 503 with -32603 for the session, no hang; back: service resumes",
    () =>
      Effect.gen(function*() {
        const a = yield* instance()
        const { headers } = yield* promise(() => initialize(a, CAPS))
        const directory = yield* directoryOf("mrtr:legacy:")
        yield* promise(() => redis.stop())
        const errors = Metric.withAttributes(Redis.redisErrorsTotal, { operation: "session" })
        const countBefore = (yield* Metric.value(errors)).count
        const failure = yield* Effect.flip(directory.lookup(headers["mcp-session-id"]!, 60_000))
        expect(failure).toBeInstanceOf(SessionDirectoryUnavailable)
        expect((yield* Metric.value(errors)).count).toBe(countBefore + 1)
        const startedAt = Date.now()
        const down = yield* promise(() => post(a, rpc("ping"), headers))
        // Bounded by the directory's timeout (1 s), not a hang: a generous bound.
        expect(Date.now() - startedAt).toBeLessThan(10_000)
        expect(down.status).toBe(503)
        const body = (yield* promise(() => down.json())) as any
        expect(body.error.code).toBe(-32603)
        expect(body.error.data.reason).toBe("session_directory_unavailable")
        const init = yield* promise(() =>
          post(
            a,
            rpc("initialize", {
              protocolVersion: "2025-11-25",
              capabilities: {},
              clientInfo: { name: "x", version: "1" }
            })
          )
        )
        expect(init.status).toBe(503)
        yield* promise(() => redis.start())
        // redis-server restarted empty (no persistence): the old session is gone (404), a new one works.
        let again = yield* promise(() => post(a, rpc("ping"), headers))
        for (let i = 0; i < 50 && again.status === 503; i++) {
          yield* Effect.sleep("100 millis")
          again = yield* promise(() => post(a, rpc("ping"), headers))
        }
        expect(again.status).toBe(404)
        const fresh = yield* promise(() => initialize(a, CAPS))
        expect((yield* promise(() => post(a, rpc("ping"), fresh.headers))).status).toBe(200)
      }).pipe(Effect.scoped, Effect.provide(Redis.layerClient({ url: redis.url }))),
    60_000
  )

  it.live(
    "a request waiting for an answer: Redis unresponsive is no verdict, and the answer POSTed to the leg's instance meanwhile is taken; the session's record gone fails it with -32603 session_lost, its leg cancelled",
    () =>
      Effect.gen(function*() {
        const a = yield* instance()
        const send = (yield* RedisService.Redis).send
        const { headers, session } = yield* promise(() => initialize(a, CAPS))
        const ask = (name: string) =>
          Effect.gen(function*() {
            const call = yield* promise(() =>
              post(a, rpc("tools/call", { name: "greet", arguments: { greeting: name } }), headers)
            )
            const events = sseReader(call)
            const leg = yield* promise(() => events.message())
            expect(leg.method).toBe("elicitation/create")
            return { events, leg }
          })

        // Redis answers nothing for 10 s: the record check in between (every 5 s) fails, and the request waits on.
        const first = yield* ask("Hello")
        yield* send("CLIENT", "PAUSE", "10000", "ALL")
        yield* Effect.sleep("7 seconds")
        // Still paused: the session's other messages wait for the directory (503), but the answer POSTed to the
        // instance holding its leg is taken, and the call completes.
        expect((yield* promise(() => post(a, rpc("ping"), headers))).status).toBe(503)
        const answered = yield* promise(() =>
          post(a, { jsonrpc: "2.0", id: first.leg.id, result: { action: "accept", content: { name: "Ada" } } }, headers)
        )
        expect(answered.status).toBe(202)
        expect((yield* promise(() => first.events.message())).result.content[0].text).toBe("Hello, Ada!")
        yield* Effect.sleep("3 seconds")

        // The record gone (a Redis that lost its keys): the waiting request fails within the check's period.
        const second = yield* ask("Hi")
        expect(yield* send<number>("DEL", `mrtr:legacy:session:${session}`)).toBe(1)
        const startedAt = Date.now()
        const cancelled = yield* promise(() => second.events.message(15_000))
        expect(cancelled).toMatchObject({ method: "notifications/cancelled", params: { requestId: second.leg.id } })
        const failed = yield* promise(() => second.events.message(15_000))
        expect(failed.error.code).toBe(-32603)
        expect(failed.error.data.reason).toBe("session_lost")
        // inputTimeout is 5 minutes: a generous bound on the 5 s check, not a speed assertion.
        expect(Date.now() - startedAt).toBeLessThan(14_000)
        // The session is over everywhere: its next message gets 404.
        expect((yield* promise(() => post(a, rpc("ping"), headers))).status).toBe(404)
      }).pipe(Effect.scoped, Effect.provide(Redis.layerClient({ url: redis.url }))),
    60_000
  )

  it.live(
    "a session evicted at the address's cap is ended fleet-wide: its record deleted, 404 on every instance",
    () =>
      Effect.gen(function*() {
        const limits = { legacy: { maxSessionsPerPrincipal: 3 } }
        const a = yield* Effect.map(instanceWithServer({}, limits), (i) => i.url)
        const b = yield* Effect.map(instanceWithServer({}, limits), (i) => i.url)
        yield* settle
        const send = (yield* RedisService.Redis).send
        const ping = (url: string, headers: Record<string, string>) =>
          promise(async () => {
            const response = await post(url, rpc("ping"), headers)
            await response.text()
            return response.status
          })
        // One address (loopback) opens its cap and four more on A, each declaring a large capability.
        const sessions: Array<{ readonly session: string; readonly headers: Record<string, string> }> = []
        for (let i = 0; i < 7; i++) {
          sessions.push(
            yield* promise(() => initialize(a, { ...CAPS, experimental: { pad: { data: "x".repeat(8192) } } }))
          )
        }
        const exists = Effect.forEach(
          sessions,
          ({ session }) => send<number>("EXISTS", `mrtr:legacy:session:${session}`)
        )
        expect(yield* exists).toEqual([0, 0, 0, 0, 1, 1, 1])
        // The evicted ones are unknown on B too (no replica rebuilt from a record), the newest three are served.
        const onB = yield* Effect.forEach(sessions, ({ headers }) => ping(b, headers))
        expect(onB).toEqual([404, 404, 404, 404, 200, 200, 200])
        const onA = yield* Effect.forEach(sessions, ({ headers }) => ping(a, headers))
        expect(onA).toEqual([404, 404, 404, 404, 200, 200, 200])
        // The cap holds on B as well: three more there end the three replicas it holds, fleet-wide.
        for (let i = 0; i < 3; i++) sessions.push(yield* promise(() => initialize(b, CAPS)))
        expect(yield* exists).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 1])
        expect(yield* Effect.forEach(sessions.slice(4), ({ headers }) => ping(a, headers))).toEqual([
          404,
          404,
          404,
          200,
          200,
          200
        ])
      }).pipe(Effect.scoped, Effect.provide(Redis.layerClient({ url: redis.url }))),
    60_000
  )
})
