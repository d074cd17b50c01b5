/**
 * The client's task driver (Tasks extension, SEP-2663) against the real
 * server: `McpClient.callTool` with `tasks: "auto"` over Streamable HTTP
 * follows MRTR rounds, then the task, answering its input with the same
 * scripted handler Layers (`@mrtr/testing`'s `ScriptedUser`), and returns
 * the final result; status changes are reported; a failed task fails with
 * its JSON-RPC error; manual mode hands over the task; interrupting the
 * calling fiber cancels the task (its finalizer runs). In memory through
 * the Harness (headers checked as on HTTP), every task message on the wire
 * is validated against the ext-tasks schema and carries `Mcp-Name: <taskId>`.
 */
import { assert, describe, it } from "@effect/vitest"
import { HttpTransport as ClientHttp, McpClient, TaskDriver } from "@mrtr/client"
import { Elicitation, RequestState, Roots, Sampling, Task } from "@mrtr/core"
import { McpError } from "@mrtr/protocol/ErrorCode"
import { HttpTransport, McpServer, Tool } from "@mrtr/server"
import { validateTaskWire } from "@mrtr/test-support/wire"
import { Deferred, Effect, Exit, Fiber, Layer, Ref, Schema } from "effect"
import { Harness, Recorder, ScriptedUser } from "../src/index.ts"

const Name = Schema.Struct({ name: Schema.String })
const Ok = Schema.Struct({ ok: Schema.Boolean })

const started = new Set<string>()
const finalized = new Set<string>()

/** Waits (live clock) until the handler of run `run` has started. */
const handlerStarted = (run: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500 && !started.has(run); i++) yield* Effect.sleep("10 millis")
    assert.isTrue(started.has(run))
  })

/** One MRTR round (`name`), then a task that asks `ok` and the roots. */
const trip = Tool.make("trip", {
  task: { support: "required", start: "detach" },
  handler: () =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "name", message: "Name?", schema: Name })
      yield* Task.detach
      const { ok } = yield* Elicitation.form({ key: "ok", message: `Book for ${name}?`, schema: Ok })
      const roots = yield* Roots.list({ key: "roots" })
      return `${name}: ${ok ? "booked" : "not booked"} (${roots.length} roots)`
    })
})

/** A task asking for seats: an answer over 4 is refused by the form, and the question asked again. */
const seats = Tool.make("seats", {
  task: "required",
  handler: () =>
    Elicitation.form({
      key: "seats",
      message: "How many seats?",
      schema: Schema.Struct({ seats: Schema.Number.check(Schema.isLessThanOrEqualTo(4)) })
    }).pipe(Effect.map(({ seats }) => `${seats} seats`))
})

const broken = Tool.make("broken", {
  task: "required",
  handler: () => Effect.fail(McpError.internalError("the job broke"))
})

const slow = Tool.make("slow", {
  parameters: Schema.Struct({ run: Schema.String }),
  task: "optional",
  handler: ({ run }) =>
    Effect.sync(() => started.add(run)).pipe(
      Effect.andThen(Effect.never),
      Effect.as("never"),
      Effect.ensuring(Effect.sync(() => finalized.add(run)))
    )
})

/** Asks the client's model during the task. */
const modelTask = Tool.make("model_task", {
  task: "required",
  handler: () =>
    Effect.sync(() => started.add("model")).pipe(
      Effect.andThen(Sampling.createMessage({ key: "model", messages: [], maxTokens: 5 })),
      Effect.map((result) => result.model)
    )
})

const server = McpServer.tools(trip, seats, broken, slow, modelTask).pipe(
  Layer.provideMerge(McpServer.layer({
    name: "tasks-testing",
    version: "1.0.0",
    tasks: { pollIntervalMs: 20 },
    requestState: RequestState.RequestStateCodec.layer({
      keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(3) }])
    }).pipe(Layer.orDie)
  })),
  Layer.orDie
)

const user = ScriptedUser.layer({
  elicitation: { byKey: { name: ScriptedUser.accept({ name: "Kim" }), ok: ScriptedUser.accept({ ok: true }) } },
  roots: [{ uri: "file:///srv" }, { uri: "file:///home" }]
})

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

describe("the client's task driver", () => {
  it.live(
    "over Streamable HTTP: MRTR round, then the task's input answered by the same handlers, then the result",
    () =>
      Effect.gen(function*() {
        const url = yield* HttpTransport.url
        const statuses = yield* Ref.make<ReadonlyArray<string>>([])
        const result = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const done = yield* client.callTool({ name: "trip" }, {
            onTaskStatus: (change) => Ref.update(statuses, (all) => [...all, change.status])
          })
          return { text: textOf(done), questions: (yield* Recorder.questions).map((q) => q.key) }
        }).pipe(
          Effect.provide(
            McpClient.layer({ tasks: "auto" }).pipe(
              Layer.provide(ClientHttp.layerNode({ url })),
              Layer.provideMerge(user)
            )
          )
        )
        assert.strictEqual(result.text, "Kim: booked (2 roots)")
        assert.deepStrictEqual(result.questions, ["name", "ok", "roots"])
        const seen = yield* Ref.get(statuses)
        assert.strictEqual(seen[0], "working")
        assert.include(seen, "input_required")
        assert.strictEqual(seen.at(-1), "completed")
      }).pipe(Effect.provide(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(server)))),
    { timeout: 30_000 }
  )

  // On the live clock (the client sleeps between polls); one harness per test.
  const harness = Harness.layer({ server, user, client: { tasks: "auto" }, simulateHttp: true })
  {
    it.live("in the harness: task messages are schema-valid and carry Mcp-Name = taskId", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        assert.strictEqual(textOf(yield* client.callTool({ name: "trip" })), "Kim: booked (2 roots)")
        const entries = yield* Harness.entries
        const taskRequests = entries.filter((e) =>
          e.direction === "request" && String((e.message as any).method).startsWith("tasks/")
        )
        assert.isAbove(taskRequests.length, 2)
        for (const entry of taskRequests) {
          const message = entry.message as any
          assert.strictEqual(entry.headers?.["Mcp-Name"], message.params.taskId)
          if (message.method === "tasks/get") validateTaskWire("GetTaskRequest", message)
          if (message.method === "tasks/update") validateTaskWire("UpdateTaskRequest", message)
        }
        const created = entries.find((e) => e.direction === "reply" && (e.message as any).result?.resultType === "task")
        assert.isDefined(created)
        validateTaskWire("CreateTaskResult", (created!.message as any).result)
      }).pipe(Effect.provide(harness)))

    it.live("task input no handler here answers fails the call with InputRequiredError, and the task is cancelled", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const statuses: Array<TaskDriver.TaskStatusChange> = []
        const error = yield* Effect.flip(client.callTool({ name: "model_task" }, {
          onTaskStatus: (change) => Effect.sync(() => void statuses.push(change))
        }))
        assert.strictEqual(error._tag, "InputRequiredError")
        const taskId = statuses[0]!.taskId
        assert.strictEqual((yield* client.getTask(taskId)).status, "cancelled")
      }).pipe(
        // Sampling declared (so the server asks), but no SamplingHandler to answer it.
        Effect.provide(Harness.layer({ server, user, client: { tasks: "auto", capabilities: { sampling: {} } } }))
      ))

    it.live("a task's question asked again comes under a suffixed key, and the script's answer for the key still applies", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        assert.strictEqual(textOf(yield* client.callTool({ name: "seats" })), "2 seats")
        assert.deepStrictEqual((yield* Recorder.questions).map((q) => q.key), ["seats", "seats#2"])
      }).pipe(Effect.provide(Harness.layer({
        server,
        client: { tasks: "auto" },
        user: ScriptedUser.layer({
          elicitation: {
            byKey: { seats: (_params, context) => ScriptedUser.accept({ seats: context.key === "seats" ? 9 : 2 }) }
          }
        })
      }))))

    it.live("a failed task fails the call with its JSON-RPC error", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const exit = yield* Effect.exit(client.callTool({ name: "broken" }))
        assert.isTrue(Exit.isFailure(exit))
        const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined
        assert.instanceOf(error, McpError)
        assert.strictEqual((error as McpError).code, -32603)
      }).pipe(Effect.provide(harness)))

    it.live("manual mode hands over the task; getTask / cancelTask drive it", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const started = yield* Effect.flip(
          client.callTool({ name: "slow", arguments: { run: "manual" } }, { tasks: "manual" })
        )
        assert.instanceOf(started, TaskDriver.TaskStarted)
        const taskId = (started as TaskDriver.TaskStarted).taskId
        yield* handlerStarted("manual")
        const task = yield* client.getTask(taskId)
        assert.strictEqual(task.status, "working")
        validateTaskWire("GetTaskResult", task)
        validateTaskWire("CancelTaskResult", yield* client.cancelTask(taskId))
        assert.strictEqual((yield* client.getTask(taskId)).status, "cancelled")
        assert.isTrue(finalized.has("manual"))
      }).pipe(Effect.provide(harness)))

    it.live("interrupting the calling fiber cancels the task", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const created = yield* Deferred.make<string>()
        const fiber = yield* client.callTool({ name: "slow", arguments: { run: "interrupted" } }, {
          onTaskStatus: (change) => Deferred.succeed(created, change.taskId).pipe(Effect.asVoid)
        }).pipe(Effect.forkChild)
        const taskId = yield* Deferred.await(created)
        yield* handlerStarted("interrupted")
        yield* Fiber.interrupt(fiber)
        assert.strictEqual((yield* client.getTask(taskId)).status, "cancelled")
        assert.isTrue(finalized.has("interrupted"))
      }).pipe(Effect.provide(harness)))
  }
})
