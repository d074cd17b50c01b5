/**
 * Tasks across server instances on one real `redis-server`, each instance
 * configured by the environment only (`MRTR_REDIS_URL`, `MRTR_TASK_LEASE`,
 * `MRTR_REQUEST_STATE_KEYS`), as a fleet's: a task whose owner crashed (its
 * lease lapsed, nobody released it) is resumed by the next `tasks/get`, but
 * not while the lease holds; a running owner's heartbeat keeps the task
 * (its step runs once although another instance polls it all along), and an
 * owner whose task was taken over records nothing of its round; a task
 * status change on one instance reaches a `subscriptions/listen` stream on
 * another, and so does a list change (`addTool`), to a 2025-11-25 session
 * too; Redis stopped: the task methods answer -32603 "retry later" at once,
 * then serve again once it is back; `mrtr_tasks_total` counts the statuses.
 */
import { assert, describe, it } from "@effect/vitest"
import { Elicitation, Mrtr } from "@mrtr/core"
import { mcpHeaders } from "@mrtr/test-support/http"
import { redisPerFile } from "@mrtr/test-support/infra"
import { LEGACY_SCHEMA_ID, validateTaskWire, validateWire } from "@mrtr/test-support/wire"
import { ConfigProvider, Context, Effect, Layer, Metric, Schema } from "effect"
import { HttpTransport, McpServer, Observability, type TaskStore, Tool } from "../src/index.ts"
import * as Redis from "../src/Redis.ts"
import { request } from "./fixtures.ts"
import { initialize, sseReader } from "./legacy-helpers.ts"

const TASKS = "io.modelcontextprotocol/tasks"
const CAPS = { elicitation: {}, extensions: { [TASKS]: {} } }
const KEYS = Buffer.from(new Uint8Array(32).fill(5)).toString("base64url")

// How often each run's step body really ran, across the in-process instances.
const stepRuns = new Map<string, number>()

/** A task from the start: a step (`ms` long), then a question. */
const stepThenAsk = Tool.make("step_then_ask", {
  parameters: Schema.Struct({ run: Schema.String, ms: Schema.Number }),
  task: "required",
  handler: ({ ms, run }) =>
    Effect.gen(function*() {
      const work = yield* Mrtr.step(
        "work",
        Effect.sync(() => stepRuns.set(run, (stepRuns.get(run) ?? 0) + 1)).pipe(
          Effect.andThen(Effect.sleep(`${ms} millis`)),
          Effect.as(`work-${run}`)
        ),
        Schema.String
      )
      const { name } = yield* Elicitation.form({
        key: "name",
        message: "Name?",
        schema: Schema.Struct({ name: Schema.String })
      })
      return `${work} for ${name}`
    })
})

/** A task that finishes at once. */
const finish = Tool.make("finish", {
  parameters: Schema.Struct({ run: Schema.String }),
  task: "required",
  handler: ({ run }) => Effect.succeed(`finished ${run}`)
})

const added = Tool.make("added_later", { handler: () => Effect.succeed("new") })

const redis = redisPerFile()

const env = (extra: Record<string, string> = {}) => ({
  MRTR_REQUEST_STATE_KEYS: KEYS,
  MRTR_REDIS_URL: redis.url,
  ...extra
})

/** One instance configured by `env` only, open for the current scope: its URL and server. */
const instance = (vars: Record<string, string>) =>
  Effect.flatMap(
    Layer.build(Layer.fresh(
      HttpTransport.layer({ port: 0 }).pipe(
        Layer.provideMerge(
          McpServer.tools(stepThenAsk, finish).pipe(
            Layer.provideMerge(
              McpServer.layerConfig({
                name: "fleet",
                version: "1",
                tasks: { pollIntervalMs: 100 },
                shared: Redis.layerFleetConfig()
              })
            )
          )
        ),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(vars)))
      )
    )),
    (context) =>
      Effect.map(
        Effect.provide(HttpTransport.url, context),
        (url) => ({ url, server: Context.get(context, McpServer.McpServer) })
      )
  )

const message = (method: string, params: Record<string, unknown>, capabilities: object = CAPS) =>
  request(method, params, capabilities)
const headersOf = (method: string, params: Record<string, unknown>) => mcpHeaders(message(method, params))
const rpc = (url: string, method: string, params: Record<string, unknown>) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      body: JSON.stringify(message(method, params)),
      headers: headersOf(method, params)
    })
    return await response.json() as any
  })
const result = (url: string, method: string, params: Record<string, unknown>) =>
  Effect.map(rpc(url, method, params), (reply) => {
    if (reply.error !== undefined) throw new Error(`${method}: ${JSON.stringify(reply.error)}`)
    validateWire("JSONRPCResultResponse", reply)
    return reply.result
  })
const createTask = (url: string, name: string, args: Record<string, unknown>) =>
  Effect.map(result(url, "tools/call", { name, arguments: args }), (created) => {
    validateTaskWire("CreateTaskResult", created)
    return created.taskId as string
  })
const pollUntil = (url: string, taskId: string, done: (task: any) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 300; i++) {
      const task = yield* result(url, "tasks/get", { taskId })
      validateTaskWire("GetTaskResult", task)
      if (done(task)) return task
      yield* Effect.sleep("50 millis")
    }
    throw new Error(`task ${taskId} never reached the expected state`)
  })

/** Opens `subscriptions/listen` on `url`; the reader yields its messages (the acknowledgement first). */
const openListen = (url: string, notifications: Record<string, unknown>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const params = { notifications }
      const response = await fetch(url, {
        method: "POST",
        body: JSON.stringify(message("subscriptions/listen", params)),
        headers: headersOf("subscriptions/listen", params)
      })
      const events = sseReader(response)
      const next = async () => {
        const event = await events.next(10_000)
        return event === undefined ? undefined : JSON.parse(event.data)
      }
      const ack = await next()
      assert.strictEqual(ack.method, "notifications/subscriptions/acknowledged")
      return { next, cancel: events.cancel }
    }),
    (stream) => Effect.promise(() => stream.cancel().catch(() => undefined))
  )

/** A task record as a crashed instance leaves it: working, owned by `owner`, its lease until `leaseExpiresAt`. */
const crashedRecord = (taskId: string, run: string, leaseExpiresAt: number): TaskStore.TaskRecord => {
  const now = Date.now()
  return {
    taskId,
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 300_000,
    pollIntervalMs: 100,
    owner: "crashed-instance",
    leaseExpiresAt,
    call: { tool: "finish", arguments: { run }, clientCapabilities: CAPS },
    inputRequests: {},
    answers: {}
  }
}

describe("tasks of a fleet on Redis", () => {
  it.live(
    "a working task whose owner crashed is resumed by the next tasks/get once its lease lapsed, not before",
    () =>
      Effect.gen(function*() {
        const a = yield* instance(env())
        const store = yield* Effect.flatMap(
          Layer.build(Redis.layerClient({ url: redis.url })),
          (context) => Effect.provide(Redis.makeTaskStore(), context)
        )
        const lapsed = `crashed-${Date.now()}`
        yield* store.insert(crashedRecord(lapsed, "lapsed", Date.now() - 1))
        const resumed = yield* pollUntil(a.url, lapsed, (task) => task.status === "completed")
        assert.deepStrictEqual(resumed.result.content, [{ type: "text", text: "finished lapsed" }])
        // A lease that still holds: the owner may be alive; nobody takes the task.
        const held = `held-${Date.now()}`
        const until = Date.now() + 1_500
        yield* store.insert(crashedRecord(held, "held", until))
        const early = yield* result(a.url, "tasks/get", { taskId: held })
        const stored = yield* store.get(held)
        if (Date.now() < until) {
          assert.strictEqual(early.status, "working")
          assert.strictEqual(stored!.owner, "crashed-instance")
        }
        // Once it has lapsed, it is resumed.
        const late = yield* pollUntil(a.url, held, (task) => task.status === "completed")
        assert.deepStrictEqual(late.result.content, [{ type: "text", text: "finished held" }])
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "the owner's heartbeat keeps a running task: another instance polling it all along never re-runs its step",
    () =>
      Effect.gen(function*() {
        // A lease of 1 s renewed every 333 ms, a step of 2.5 s: without renewals B would take the task mid-step.
        const a = yield* instance(env({ MRTR_TASK_LEASE: "1 second" }))
        const b = yield* instance(env({ MRTR_TASK_LEASE: "1 second" }))
        const run = `beat-${Date.now()}`
        const taskId = yield* createTask(a.url, "step_then_ask", { run, ms: 2_500 })
        const waiting = yield* pollUntil(b.url, taskId, (task) => task.status === "input_required")
        assert.deepStrictEqual(Object.keys(waiting.inputRequests), ["name"])
        assert.strictEqual(stepRuns.get(run), 1)
        // The answer reaches B: B runs the next round by replay, the step's result from the journal.
        yield* result(b.url, "tasks/update", {
          taskId,
          inputResponses: { name: { action: "accept", content: { name: "Ada" } } }
        })
        const done = yield* pollUntil(a.url, taskId, (task) => task.status === "completed")
        assert.deepStrictEqual(done.result.content, [{ type: "text", text: `work-${run} for Ada` }])
        assert.strictEqual(stepRuns.get(run), 1)
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "an owner whose task another instance took over (its lease lapsed) records nothing of its round",
    () =>
      Effect.gen(function*() {
        // A lease long enough that no heartbeat comes before the round ends: only the round's own check guards it.
        const a = yield* instance(env({ MRTR_TASK_LEASE: "30 seconds" }))
        const store = yield* Effect.flatMap(
          Layer.build(Redis.layerClient({ url: redis.url })),
          (context) => Effect.provide(Redis.makeTaskStore(), context)
        )
        const run = `usurped-${Date.now()}`
        const taskId = yield* createTask(a.url, "step_then_ask", { run, ms: 1_000 })
        // Another instance claims it, as after a lapsed lease (its own lease far ahead).
        yield* store.modify(
          taskId,
          (record) => [undefined, { ...record, owner: "usurper", leaseExpiresAt: Date.now() + 60_000 }] as const
        )
        // A's round ends: its end is not recorded.
        for (let i = 0; i < 100 && stepRuns.get(run) !== 1; i++) yield* Effect.sleep("20 millis")
        yield* Effect.sleep("2 seconds")
        const record = yield* store.get(taskId)
        assert.strictEqual(record!.status, "working")
        assert.strictEqual(record!.owner, "usurper")
        assert.isUndefined(record!.journal)
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "a task status change on one instance reaches a subscriptions/listen stream on another",
    () =>
      Effect.gen(function*() {
        const a = yield* instance(env())
        const b = yield* instance(env())
        const run = `notify-${Date.now()}`
        const taskId = yield* createTask(a.url, "step_then_ask", { run, ms: 0 })
        yield* pollUntil(a.url, taskId, (task) => task.status === "input_required")
        const stream = yield* openListen(b.url, { taskIds: [taskId] })
        yield* Effect.sleep("200 millis") // B's stream is subscribed
        yield* result(a.url, "tasks/update", {
          taskId,
          inputResponses: { name: { action: "accept", content: { name: "Nia" } } }
        })
        const seen: Array<any> = []
        while (seen.at(-1)?.params.status !== "completed") {
          const next = yield* Effect.promise(() => stream.next())
          if (next === undefined) throw new Error("the stream ended")
          validateTaskWire("TaskStatusNotification", next)
          assert.strictEqual(next.params.taskId, taskId)
          seen.push(next)
        }
        // A's changes in order: the answer taken (no key left outstanding), the next round claimed, its end.
        assert.deepStrictEqual(seen.map((n) => n.params.status), ["input_required", "working", "completed"])
        assert.deepStrictEqual(seen[0].params.inputRequests, {})
        assert.deepStrictEqual(seen.at(-1).params.result.content, [{ type: "text", text: `work-${run} for Nia` }])
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "a list change on one instance reaches a subscriptions/listen stream and a 2025-11-25 session on another",
    () =>
      Effect.gen(function*() {
        const a = yield* instance(env())
        const b = yield* instance(env())
        const stream = yield* openListen(b.url, { toolsListChanged: true })
        const { headers } = yield* Effect.promise(() => initialize(b.url))
        const get = yield* Effect.promise(() =>
          fetch(b.url, { headers: { ...headers, accept: "text/event-stream", "mcp-protocol-version": "2025-11-25" } })
        )
        const legacy = sseReader(get)
        yield* Effect.promise(() => legacy.next()) // priming event
        yield* Effect.sleep("200 millis") // both are subscribed
        yield* a.server.addTool(added)
        const modern = yield* Effect.promise(() => stream.next())
        validateWire("JSONRPCNotification", modern)
        assert.strictEqual(modern.method, "notifications/tools/list_changed")
        const session = JSON.parse((yield* Effect.promise(() => legacy.next(5_000)))!.data)
        validateWire("ToolListChangedNotification", session, LEGACY_SCHEMA_ID)
        yield* Effect.promise(() => legacy.cancel())
        // The change is A's (each instance keeps its own registry).
        const listed = yield* result(a.url, "tools/list", {})
        assert.include(listed.tools.map((t: any) => t.name), "added_later")
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "Redis stopped: task methods and task creation answer -32603 retry later at once; restarted: they serve again",
    () =>
      Effect.gen(function*() {
        const a = yield* instance(env())
        const completed = Metric.withAttributes(Observability.tasksTotal, { status: "completed" })
        const before = (yield* Metric.value(completed)).count
        const taskId = yield* createTask(a.url, "finish", { run: "down" })
        yield* pollUntil(a.url, taskId, (task) => task.status === "completed")
        assert.strictEqual((yield* Metric.value(completed)).count, before + 1)
        yield* Effect.promise(() => redis.stop())
        for (
          const [method, params] of [
            ["tasks/get", { taskId }],
            ["tasks/update", { taskId, inputResponses: {} }],
            ["tasks/cancel", { taskId }],
            ["tools/call", { name: "finish", arguments: { run: "x" } }]
          ] as const
        ) {
          const reply = yield* rpc(a.url, method, params).pipe(Effect.timeout("10 seconds"))
          validateWire("JSONRPCErrorResponse", reply)
          assert.deepStrictEqual(reply.error, {
            code: -32603,
            message: "The server's task store is unavailable; retry later"
          })
        }
        yield* Effect.promise(() => redis.start())
        // Redis kept nothing (no persistence): a new task, once the client has reconnected.
        let created = yield* rpc(a.url, "tools/call", { name: "finish", arguments: { run: "back" } })
        for (let i = 0; i < 50 && created.error !== undefined; i++) {
          yield* Effect.sleep("100 millis")
          created = yield* rpc(a.url, "tools/call", { name: "finish", arguments: { run: "back" } })
        }
        const back = yield* pollUntil(a.url, created.result.taskId, (task) => task.status === "completed")
        assert.deepStrictEqual(back.result.content, [{ type: "text", text: "finished back" }])
      }).pipe(Effect.scoped),
    60_000
  )
})
