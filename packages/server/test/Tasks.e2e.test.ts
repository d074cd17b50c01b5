/**
 * The Tasks extension (SEP-2663) over real Streamable HTTP on loopback: a
 * task asking three times in its async phase, resumed by replay on a fresh
 * server instance sharing the TaskStore and key ring; MRTR rounds before
 * `Task.detach`; cancellation while waiting for input and while working
 * (finalizers run); TTL expiry; 200 concurrent tasks with their own answers;
 * and bad input (unknown ids, updates for tasks not waiting, wrong-kind
 * answers, an update flood) answered as the spec says while the server keeps
 * serving. Task messages are validated against the ext-tasks schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { Elicitation, Mrtr, RequestState, Roots, Sampling, Task } from "@mrtr/core"
import { mcpHeaders, mcpPost } from "@mrtr/test-support/http"
import { validateTaskWire, validateWire } from "@mrtr/test-support/wire"
import { Effect, Fiber, Layer, Schema } from "effect"
import { HttpTransport, McpServer, NotificationBus, SessionDirectory, TaskStore, Tool } from "../src/index.ts"
import { keys, request } from "./fixtures.ts"

const TASKS = "io.modelcontextprotocol/tasks"
const CAPS = { elicitation: {}, sampling: {}, roots: {}, extensions: { [TASKS]: {} } }

const Name = Schema.Struct({ name: Schema.String })
const Ok = Schema.Struct({ ok: Schema.Boolean })

// How often each step body really ran (a replayed step must not run again).
const stepRuns = new Map<string, number>()
const finalized = new Set<string>()

/** MRTR round (name) before Task.detach, then three asks in the task: a form, a sampling, the roots. */
const survey = Tool.make("survey", {
  parameters: Schema.Struct({ run: Schema.String }),
  task: { support: "required", start: "detach" },
  handler: ({ run }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "name", message: "Name?", schema: Name })
      yield* Task.detach
      const ticket = yield* Mrtr.step(
        "ticket",
        Effect.sync(() => (stepRuns.set(run, (stepRuns.get(run) ?? 0) + 1), 42)),
        Schema.Number
      )
      const { ok } = yield* Elicitation.form({ key: "ok", message: `Go on, ${name}?`, schema: Ok })
      const idea = yield* Sampling.createMessage({
        key: "idea",
        messages: [{ role: "user", content: { type: "text", text: "An idea?" } }],
        maxTokens: 20
      })
      const roots = yield* Roots.list({ key: "roots" })
      return `${name} ok=${ok} idea=${(idea.content as { text: string }).text} roots=${roots.length} ticket=${ticket}`
    })
})

/** A task from the start that asks once; its finalizer records the run. */
const askOnce = Tool.make("ask_once", {
  parameters: Schema.Struct({ run: Schema.String }),
  task: "required",
  handler: ({ run }) =>
    Elicitation.form({ key: "name", message: "Name?", schema: Name }).pipe(
      Effect.map(({ name }) => `Hello, ${name} (${run})!`),
      Effect.ensuring(Effect.sync(() => finalized.add(run)))
    )
})

/** Sleeps (interruptibly) for `ms`; its finalizer records the run. */
const sleepy = Tool.make("sleepy", {
  parameters: Schema.Struct({ run: Schema.String, ms: Schema.Number }),
  task: "optional",
  handler: ({ ms, run }) =>
    Effect.sleep(`${ms} millis`).pipe(
      Effect.as(`slept ${run}`),
      Effect.ensuring(Effect.sync(() => finalized.add(run)))
    )
})

/** Asks the client's model during the task: the creating request must have declared sampling. */
const needsModel = Tool.make("needs_model", {
  task: "required",
  handler: () =>
    Sampling.createMessage({ key: "model", messages: [], maxTokens: 5 }).pipe(Effect.map((result) => result.model))
})

const serverLayer = (store: TaskStore.TaskStore["Service"], options: Partial<McpServer.Options> = {}) =>
  McpServer.tools(survey, askOnce, sleepy, needsModel).pipe(
    Layer.provideMerge(McpServer.layer({
      name: "tasks-test-server",
      version: "1.0.0",
      ...options,
      requestState: RequestState.RequestStateCodec.layer({
        keyRing: RequestState.KeyRing.fromBytes(keys.map((bytes) => ({ bytes })))
      }).pipe(Layer.orDie),
      // The instances share the task store only: the rest of their shared services are their own.
      shared: Layer.mergeAll(
        Layer.succeed(TaskStore.TaskStore, store),
        RequestState.ReplayGuard.layerMemory,
        NotificationBus.NotificationBus.local,
        SessionDirectory.SessionDirectory.local
      )
    })),
    Layer.orDie
  )

/** A server instance on a free port, in its own scope (closing it stops the instance and its task fibers). */
const startInstance = (store: TaskStore.TaskStore["Service"], options: Partial<McpServer.Options> = {}) =>
  Layer.build(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(serverLayer(store, options)), Layer.orDie)).pipe(
    Effect.flatMap((context) => Effect.provide(HttpTransport.url, context))
  )

const body = (method: string, params: Record<string, unknown> = {}, capabilities: object = CAPS) =>
  request(method, params, capabilities)

const rpc = (url: string, message: ReturnType<typeof body>, extra: Record<string, string> = {}) =>
  mcpPost(url, message, extra)

const result = (url: string, method: string, params: Record<string, unknown>, capabilities: object = CAPS) =>
  Effect.map(rpc(url, body(method, params, capabilities)), (reply) => {
    if (reply.json.error !== undefined) throw new Error(`${method} failed: ${JSON.stringify(reply.json.error)}`)
    validateWire("JSONRPCResultResponse", reply.json)
    return reply.json.result
  })

const getTask = (url: string, taskId: string) =>
  Effect.map(result(url, "tasks/get", { taskId }), (task) => {
    validateTaskWire("GetTaskResult", task)
    return task
  })

const update = (url: string, taskId: string, inputResponses: Record<string, unknown>) =>
  Effect.map(result(url, "tasks/update", { taskId, inputResponses }), (ack) => {
    validateTaskWire("UpdateTaskResult", ack)
    assert.deepStrictEqual(Object.keys(ack).filter((key) => key !== "_meta"), ["resultType"])
    return ack
  })

/** Polls `tasks/get` until `done(task)` (every 20 ms, at most 10 s). */
const pollUntil = (url: string, taskId: string, done: (task: any) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500; i++) {
      const task = yield* getTask(url, taskId)
      if (done(task)) return task
      yield* Effect.sleep("20 millis")
    }
    throw new Error(`task ${taskId} never reached the expected state`)
  })

const waitingFor = (key: string) => (task: any) => task.status === "input_required" && key in (task.inputRequests ?? {})
const terminal = (task: any) => ["completed", "failed", "cancelled"].includes(task.status)

const createTask = (url: string, name: string, args: Record<string, unknown>) =>
  Effect.map(result(url, "tools/call", { name, arguments: args }), (created) => {
    validateTaskWire("CreateTaskResult", created)
    assert.strictEqual(created.resultType, "task")
    assert.notProperty(created, "requestState")
    return created.taskId as string
  })

const withStore = <A, E, R>(f: (store: TaskStore.TaskStore["Service"]) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(TaskStore.makeMemory(), f)

/**
 * Opens `subscriptions/listen` and collects the SSE messages until `done(messages)`, then closes the stream.
 */
const listen = (url: string, message: ReturnType<typeof body>, done: (messages: ReadonlyArray<any>) => boolean) =>
  Effect.promise(async () => {
    const controller = new AbortController()
    const response = await fetch(url, {
      method: "POST",
      body: JSON.stringify(message),
      signal: controller.signal,
      headers: mcpHeaders(message)
    })
    const messages: Array<any> = []
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ""
    while (!done(messages)) {
      const chunk = await reader.read()
      if (chunk.done) break
      buffer += chunk.value
      let end: number
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = event.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim())
          .join("")
        if (data !== "") messages.push(JSON.parse(data))
      }
    }
    controller.abort()
    return messages
  })

describe("Tasks over Streamable HTTP", () => {
  it.live(
    "subscriptions/listen with notifications.taskIds streams notifications/tasks for the task's changes",
    () =>
      withStore((store) =>
        Effect.gen(function*() {
          const url = yield* startInstance(store)
          const taskId = yield* createTask(url, "ask_once", { run: "notify" })
          const collected = yield* Effect.forkChild(listen(
            url,
            body("subscriptions/listen", { notifications: { taskIds: [taskId] } }),
            (messages) => messages.some((m) => m.params?.status === "completed")
          ))
          yield* pollUntil(url, taskId, waitingFor("name"))
          yield* Effect.sleep("100 millis") // the stream is open
          yield* update(url, taskId, { name: { action: "accept", content: { name: "Nia" } } })
          const messages = yield* Fiber.join(collected)
          const [ack, ...notifications] = messages
          assert.strictEqual(ack.method, "notifications/subscriptions/acknowledged")
          assert.deepStrictEqual(ack.params.notifications, { taskIds: [taskId] })
          for (const notification of notifications) {
            validateTaskWire("TaskStatusNotification", notification)
            assert.strictEqual(notification.params.taskId, taskId)
          }
          const last = notifications.at(-1)
          assert.strictEqual(last.params.status, "completed")
          assert.deepStrictEqual(last.params.result.content, [{ type: "text", text: "Hello, Nia (notify)!" }])
          // Without the declaration, taskIds are refused.
          const refused = yield* rpc(
            url,
            body("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { elicitation: {} })
          )
          assert.strictEqual(refused.json.error.code, -32021)
        }).pipe(Effect.scoped)
      ),
    { timeout: 30_000 }
  )

  it.live(
    "a task asking three times after Task.detach is resumed by replay on a fresh instance sharing the TaskStore",
    () =>
      withStore((store) =>
        Effect.gen(function*() {
          const scopeA = yield* Effect.scope
          const a = yield* startInstance(store)
          // Round 1 (MRTR, before Task.detach): input_required with no taskId.
          const r1 = yield* result(a, "tools/call", { name: "survey", arguments: { run: "replay" } })
          validateWire("InputRequiredResult", r1)
          assert.deepStrictEqual(Object.keys(r1.inputRequests), ["name"])
          assert.notProperty(r1, "taskId")
          // Final MRTR round: CreateTaskResult, no requestState.
          const created = yield* result(a, "tools/call", {
            name: "survey",
            arguments: { run: "replay" },
            requestState: r1.requestState,
            inputResponses: { name: { action: "accept", content: { name: "Ada" } } }
          })
          validateTaskWire("CreateTaskResult", created)
          assert.notProperty(created, "requestState")
          assert.notProperty(created, "inputRequests")
          const taskId: string = created.taskId
          assert.match(taskId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
          // First task ask on A.
          const first = yield* pollUntil(a, taskId, waitingFor("ok"))
          assert.strictEqual(first.inputRequests.ok.method, "elicitation/create")
          assert.notProperty(first, "requestState")
          yield* update(a, taskId, { ok: { action: "accept", content: { ok: true } } })
          yield* pollUntil(a, taskId, waitingFor("idea"))
          void scopeA
          return taskId
        }).pipe(
          Effect.scoped, // instance A stops here
          Effect.flatMap((taskId) =>
            Effect.gen(function*() {
              const b = yield* startInstance(store)
              const second = yield* getTask(b, taskId)
              assert.strictEqual(second.status, "input_required")
              assert.deepStrictEqual(Object.keys(second.inputRequests), ["idea"])
              yield* update(b, taskId, {
                idea: { role: "assistant", content: { type: "text", text: "tea" }, model: "m" }
              })
              const third = yield* pollUntil(b, taskId, waitingFor("roots"))
              assert.strictEqual(third.inputRequests.roots.method, "roots/list")
              yield* update(b, taskId, { roots: { roots: [{ uri: "file:///a" }, { uri: "file:///b" }] } })
              const done = yield* pollUntil(b, taskId, terminal)
              assert.strictEqual(done.status, "completed")
              assert.deepStrictEqual(done.result.content, [{
                type: "text",
                text: "Ada ok=true idea=tea roots=2 ticket=42"
              }])
              assert.notNestedProperty(done.result, "_meta.io.modelcontextprotocol/related-task")
              // The step ran once, on A; every replay (on A and on B) took its journaled value.
              assert.strictEqual(stepRuns.get("replay"), 1)
            }).pipe(Effect.scoped)
          )
        )
      ),
    { timeout: 30_000 }
  )

  it.live(
    "a working task whose instance stops is resumed by replay on the next tasks/get elsewhere",
    () =>
      withStore((store) =>
        Effect.gen(function*() {
          const taskId = yield* Effect.scoped(Effect.gen(function*() {
            const a = yield* startInstance(store)
            const id = yield* createTask(a, "sleepy", { run: "orphan", ms: 500 })
            assert.strictEqual((yield* getTask(a, id)).status, "working")
            return id
          })) // instance A stops: its fiber is interrupted, the task released
          assert.isTrue(finalized.has("orphan"))
          finalized.delete("orphan")
          assert.isUndefined((yield* store.get(taskId))?.owner)
          const b = yield* startInstance(store)
          const done = yield* pollUntil(b, taskId, terminal)
          assert.strictEqual(done.status, "completed")
          assert.deepStrictEqual(done.result.content, [{ type: "text", text: "slept orphan" }])
          assert.isTrue(finalized.has("orphan"))
        }).pipe(Effect.scoped)
      ),
    { timeout: 30_000 }
  )

  it.live(
    "a task keeps only the arguments its tool's parameters decode to; an answer that outgrows its record fails it",
    () =>
      Effect.gen(function*() {
        const store = yield* TaskStore.makeMemory({ maxTaskBytes: 32_000 })
        const url = yield* startInstance(store)
        // Arguments the parameters refuse (a key they do not declare, a wrong type): -32602 at the call, no task kept.
        for (const args of [{ run: "junk", junk: "x".repeat(200_000) }, { run: 42 }]) {
          const refused = yield* rpc(url, body("tools/call", { name: "ask_once", arguments: args }))
          assert.strictEqual(refused.json.error.code, -32602)
        }
        const taskId = yield* createTask(url, "ask_once", { run: "kept" })
        yield* pollUntil(url, taskId, waitingFor("name"))
        assert.deepStrictEqual((yield* store.get(taskId))?.call.arguments, { run: "kept" })
        // An answer too large for the record: the task fails, saying why.
        yield* update(url, taskId, { name: { action: "accept", content: { name: "y".repeat(40_000) } } })
        const failed = yield* pollUntil(url, taskId, terminal)
        assert.strictEqual(failed.status, "failed")
        assert.include(failed.error.message, "32000 bytes per task")
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "a key asked again after its answer (refused by the form) is published under a fresh suffix, unique over the task's life",
    () =>
      withStore((store) =>
        Effect.gen(function*() {
          const url = yield* startInstance(store)
          const taskId = yield* createTask(url, "ask_once", { run: "re-asked" })
          yield* pollUntil(url, taskId, waitingFor("name"))
          // An answer the form refuses: the handler asks the same question again.
          yield* update(url, taskId, { name: { action: "accept", content: { name: 42 } } })
          const again = yield* pollUntil(url, taskId, waitingFor("name#2"))
          assert.deepStrictEqual(Object.keys(again.inputRequests), ["name#2"])
          assert.match(again.inputRequests["name#2"].params.message, /^Your answer was not accepted/)
          // The key answered before is no longer outstanding: an answer to it is ignored.
          yield* update(url, taskId, { name: { action: "accept", content: { name: "Eve" } } })
          yield* Effect.sleep("100 millis")
          assert.deepStrictEqual(Object.keys((yield* getTask(url, taskId)).inputRequests), ["name#2"])
          yield* update(url, taskId, { "name#2": { action: "accept", content: { name: 7 } } })
          const third = yield* pollUntil(url, taskId, waitingFor("name#3"))
          assert.deepStrictEqual(Object.keys(third.inputRequests), ["name#3"])
          yield* update(url, taskId, { "name#3": { action: "accept", content: { name: "Ada" } } })
          const done = yield* pollUntil(url, taskId, terminal)
          assert.strictEqual(done.status, "completed")
          assert.deepStrictEqual(done.result.content, [{ type: "text", text: "Hello, Ada (re-asked)!" }])
        }).pipe(Effect.scoped)
      ),
    { timeout: 30_000 }
  )

  it.live(
    "a task cancelled while waiting for input ends cancelled; later answers are acked and ignored",
    () =>
      withStore((store) =>
        Effect.gen(function*() {
          const url = yield* startInstance(store)
          const taskId = yield* createTask(url, "ask_once", { run: "cancel-waiting" })
          yield* pollUntil(url, taskId, waitingFor("name"))
          const ack = yield* result(url, "tasks/cancel", { taskId })
          validateTaskWire("CancelTaskResult", ack)
          assert.deepStrictEqual(Object.keys(ack).filter((key) => key !== "_meta"), ["resultType"])
          const cancelled = yield* getTask(url, taskId)
          assert.strictEqual(cancelled.status, "cancelled")
          assert.notProperty(cancelled, "inputRequests")
          yield* update(url, taskId, { name: { action: "accept", content: { name: "late" } } })
          yield* Effect.sleep("100 millis")
          assert.strictEqual((yield* getTask(url, taskId)).status, "cancelled")
          // Cancelling again (a terminal task) is the same ack.
          assert.strictEqual((yield* result(url, "tasks/cancel", { taskId })).resultType, "complete")
        }).pipe(Effect.scoped)
      ),
    { timeout: 30_000 }
  )

  it.live(
    "a task cancelled while working is interrupted and its finalizers have run by the ack",
    () =>
      withStore((store) =>
        Effect.gen(function*() {
          const url = yield* startInstance(store)
          const taskId = yield* createTask(url, "sleepy", { run: "cancel-working", ms: 60_000 })
          assert.strictEqual((yield* getTask(url, taskId)).status, "working")
          yield* result(url, "tasks/cancel", { taskId })
          assert.isTrue(finalized.has("cancel-working"))
          assert.strictEqual((yield* getTask(url, taskId)).status, "cancelled")
        }).pipe(Effect.scoped)
      ),
    { timeout: 30_000 }
  )

  it.live(
    "a task whose TTL passes is interrupted and gone: every task method answers -32602",
    () =>
      withStore((store) =>
        Effect.gen(function*() {
          const url = yield* startInstance(store, { tasks: { ttlMs: 300, pollIntervalMs: 25 } })
          const taskId = yield* createTask(url, "sleepy", { run: "ttl", ms: 60_000 })
          const seed = yield* getTask(url, taskId)
          assert.strictEqual(seed.ttlMs, 300)
          assert.strictEqual(seed.pollIntervalMs, 25)
          yield* Effect.sleep("600 millis")
          assert.isTrue(finalized.has("ttl"))
          for (const method of ["tasks/get", "tasks/cancel"]) {
            const reply = yield* rpc(url, body(method, { taskId }))
            assert.strictEqual(reply.json.error.code, -32602)
          }
          const reply = yield* rpc(url, body("tasks/update", { taskId, inputResponses: {} }))
          assert.strictEqual(reply.json.error.code, -32602)
        }).pipe(Effect.scoped)
      ),
    { timeout: 30_000 }
  )

  it.live("200 concurrent tasks each get their own answers", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const url = yield* startInstance(store, { tasks: { pollIntervalMs: 20 } })
        const results = yield* Effect.forEach(Array.from({ length: 200 }, (_, i) => i), (i) =>
          Effect.gen(function*() {
            const taskId = yield* createTask(url, "ask_once", { run: `many-${i}` })
            yield* pollUntil(url, taskId, waitingFor("name"))
            yield* update(url, taskId, { name: { action: "accept", content: { name: `user-${i}` } } })
            return (yield* pollUntil(url, taskId, terminal)).result.content[0].text
          }), { concurrency: "unbounded" })
        results.forEach((text, i) => assert.strictEqual(text, `Hello, user-${i} (many-${i})!`))
      }).pipe(Effect.scoped)
    ), { timeout: 60_000 })

  it.live(
    "an ask the creating request cannot answer fails the task with -32021; a full store answers -32603",
    () =>
      Effect.flatMap(TaskStore.makeMemory({ maxTasks: 2 }), (store) =>
        Effect.gen(function*() {
          const url = yield* startInstance(store)
          const created = yield* result(url, "tools/call", { name: "needs_model" }, {
            elicitation: {},
            extensions: { [TASKS]: {} }
          })
          const failed = yield* pollUntil(url, created.taskId, terminal)
          assert.strictEqual(failed.status, "failed")
          assert.strictEqual(failed.error.code, -32021)
          assert.deepStrictEqual(failed.error.data.requiredCapabilities, { sampling: {} })
          assert.notProperty(failed, "result")
          yield* createTask(url, "sleepy", { run: "full-1", ms: 60_000 })
          const full = yield* rpc(url, body("tools/call", { name: "sleepy", arguments: { run: "full-2", ms: 60_000 } }))
          validateWire("JSONRPCErrorResponse", full.json)
          assert.strictEqual(full.json.error.code, -32603)
          // Still serving: the tasks it holds answer.
          assert.strictEqual((yield* getTask(url, created.taskId)).status, "failed")
        }).pipe(Effect.scoped)),
    { timeout: 30_000 }
  )

  it.live(
    "bad input gets the spec's answer and the server keeps serving",
    () =>
      withStore((store) =>
        Effect.gen(function*() {
          const url = yield* startInstance(store)
          // Unknown ids: -32602 on all three methods.
          for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
            const reply = yield* rpc(url, body(method, { taskId: "no-such-task", inputResponses: {} }))
            validateWire("JSONRPCErrorResponse", reply.json)
            assert.strictEqual(reply.json.error.code, -32602)
          }
          // Without the declaration: -32021 with requiredCapabilities, before the id is looked up.
          const undeclared = yield* rpc(url, body("tasks/get", { taskId: "no-such-task" }, { elicitation: {} }))
          assert.strictEqual(undeclared.status, 400)
          assert.strictEqual(undeclared.json.error.code, -32021)
          assert.deepStrictEqual(undeclared.json.error.data.requiredCapabilities.extensions[TASKS], {})
          const required = yield* rpc(
            url,
            body("tools/call", { name: "ask_once", arguments: { run: "x" } }, { elicitation: {} })
          )
          assert.strictEqual(required.json.error.code, -32021)
          validateWire("JSONRPCErrorResponse", required.json)
          // The removed methods: -32601.
          for (const method of ["tasks/result", "tasks/list"]) {
            assert.strictEqual((yield* rpc(url, body(method, { taskId: "x" }))).json.error.code, -32601)
          }
          // Malformed params: -32602.
          assert.strictEqual((yield* rpc(url, body("tasks/get", { taskId: 7 }))).json.error.code, -32602)
          const taskId = yield* createTask(url, "ask_once", { run: "bad" })
          assert.strictEqual(
            (yield* rpc(url, body("tasks/update", { taskId, inputResponses: "yes" }))).json.error.code,
            -32602
          )
          // Mcp-Name must mirror the taskId.
          const mismatch = yield* rpc(url, body("tasks/get", { taskId }), { "mcp-name": "another-task" })
          assert.strictEqual(mismatch.status, 400)
          assert.strictEqual(mismatch.json.error.code, -32020)
          // An update for a task not waiting (still working, or before its first ask) is acked and changes nothing.
          const working = yield* createTask(url, "sleepy", { run: "not-waiting", ms: 60_000 })
          yield* update(url, working, { name: { action: "accept", content: { name: "x" } } })
          assert.strictEqual((yield* getTask(url, working)).status, "working")
          // A wrong-kind answer (a sampling result for a form) counts as missing: the question is asked again, under a new key.
          yield* pollUntil(url, taskId, waitingFor("name"))
          yield* update(url, taskId, { name: { role: "assistant", content: { type: "text", text: "?" }, model: "m" } })
          const again = yield* pollUntil(url, taskId, waitingFor("name#2"))
          assert.strictEqual(again.inputRequests["name#2"].method, "elicitation/create")
          // A flood of updates with unknown keys: all acked, the task still waits, nothing else changes.
          const acks = yield* Effect.forEach(
            Array.from({ length: 300 }, (_, i) => i),
            (i) => result(url, "tasks/update", { taskId, inputResponses: { [`junk-${i}`]: { ignored: true } } }),
            {
              concurrency: 50
            }
          )
          assert.isTrue(acks.every((ack) => ack.resultType === "complete"))
          assert.deepStrictEqual(Object.keys((yield* getTask(url, taskId)).inputRequests), ["name#2"])
          // Declining is the handler's typed failure: a tool error, so the task completes with isError.
          yield* update(url, taskId, { "name#2": { action: "decline" } })
          const declined = yield* pollUntil(url, taskId, terminal)
          assert.strictEqual(declined.status, "completed")
          assert.isTrue(declined.result.isError)
          // And the server keeps serving.
          yield* result(url, "tasks/cancel", { taskId: working })
          const fresh = yield* createTask(url, "ask_once", { run: "after" })
          assert.strictEqual((yield* pollUntil(url, fresh, waitingFor("name"))).status, "input_required")
        }).pipe(Effect.scoped)
      ),
    { timeout: 60_000 }
  )
})
