/**
 * `npm run bench:tasks`: the server-side cost of the Tasks extension
 * (SEP-2663) through the dispatcher (`McpHandler.handle`, no transport, no
 * client polling): for each of `--tasks` tasks run `--concurrency` at a time,
 * `tools/call` (the task is created), `tasks/get` until the handler asks
 * (`input_required`), one `tasks/update` with the answer (its next round
 * runs by replay), `tasks/get` until `completed`. Not a test: prints, for
 * the in-memory `TaskStore` and for the Redis one (a `redis-server` started
 * here on a free port), the median and p95 of one task's life, the tasks
 * completed per second and the server process's CPU (user + system) per
 * task. The Redis column's CPU is this process's only (the client side of
 * every Redis command), not redis-server's; the number of `tasks/get` polls
 * per task depends on timing, so compare columns of one run.
 *
 * Options: `--tasks 2000`, `--concurrency 100`, `--no-redis`.
 */
import { Elicitation, RequestState } from "@mrtr/core"
import { McpHandler, McpServer, NotificationBus, SessionDirectory, TaskStore, Tool } from "@mrtr/server"
import * as Redis from "@mrtr/server/Redis"
import { startRedis } from "@mrtr/test-support/infra"
import { Effect, Layer, Schema } from "effect"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const tasks = arg("tasks", 2_000)
const concurrency = arg("concurrency", 100)

const askOnce = Tool.make("ask_once", {
  parameters: Schema.Struct({ n: Schema.Number }),
  task: "required",
  handler: ({ n }) =>
    Elicitation.form({ key: "name", message: "Name?", schema: Schema.Struct({ name: Schema.String }) }).pipe(
      Effect.map(({ name }) => `${name} #${n}`)
    )
})

const server = (taskStore: Layer.Layer<TaskStore.TaskStore>) =>
  McpServer.tools(askOnce).pipe(
    Layer.provideMerge(
      McpServer.layer({
        name: "bench-tasks",
        version: "1.0.0",
        tasks: { pollIntervalMs: 1 },
        shared: Layer.mergeAll(
          taskStore,
          RequestState.ReplayGuard.layerMemory,
          NotificationBus.NotificationBus.local,
          SessionDirectory.SessionDirectory.local
        )
      })
    ),
    Layer.orDie
  )

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } }
}

let ids = 1
const rpc = (handler: McpHandler["Service"], method: string, params: Record<string, unknown>) =>
  Effect.map(
    handler.handle({ message: { jsonrpc: "2.0", id: ids++, method, params: { ...params, _meta: meta } } }),
    (reply) => {
      if (reply._tag !== "Response") throw new Error(`${method}: not a single response`)
      const message = reply.message as { result?: Record<string, any>; error?: unknown }
      if (message.result === undefined) throw new Error(`${method} failed: ${JSON.stringify(message.error)}`)
      return message.result
    }
  )

const until = (handler: McpHandler["Service"], taskId: string, status: string) =>
  Effect.gen(function*() {
    for (;;) {
      const task = yield* rpc(handler, "tasks/get", { taskId })
      if (task.status === status) return task
      if (task.status === "failed" || task.status === "cancelled") throw new Error(`task ${taskId} ${task.status}`)
      yield* Effect.sleep("1 millis")
    }
  })

const life = (handler: McpHandler["Service"], n: number) =>
  Effect.gen(function*() {
    const started = performance.now()
    const created = yield* rpc(handler, "tools/call", { name: "ask_once", arguments: { n } })
    yield* until(handler, created.taskId, "input_required")
    yield* rpc(handler, "tasks/update", {
      taskId: created.taskId,
      inputResponses: { name: { action: "accept", content: { name: "Ada" } } }
    })
    const done = yield* until(handler, created.taskId, "completed")
    if (done.result.content[0].text !== `Ada #${n}`) throw new Error("a task got another task's answer")
    return performance.now() - started
  })

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

const measure = (label: string, taskStore: Layer.Layer<TaskStore.TaskStore>) =>
  Effect.gen(function*() {
    const handler = yield* McpHandler
    // Warm-up.
    yield* Effect.forEach(Array.from({ length: 100 }, (_, i) => i), (n) => life(handler, n), { concurrency })
    const started = performance.now()
    const cpu = process.cpuUsage()
    const times = yield* Effect.forEach(Array.from({ length: tasks }, (_, i) => i), (n) => life(handler, n), {
      concurrency
    })
    const used = process.cpuUsage(cpu)
    const seconds = (performance.now() - started) / 1000
    const sorted = [...times].sort((a, b) => a - b)
    console.log(
      `${label.padEnd(6)} ${tasks} tasks (create, ask, update, replay, complete), ${concurrency} at a time: ` +
        `median ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms per task, ` +
        `${(tasks / seconds).toFixed(0)} tasks/s, ${((used.user + used.system) / tasks).toFixed(0)} µs CPU/task`
    )
  }).pipe(Effect.provide(server(taskStore)), Effect.scoped)

const main = async () => {
  await Effect.runPromise(measure("memory", TaskStore.layerMemory()))
  if (process.argv.includes("--no-redis")) return
  const redis = await startRedis()
  try {
    await Effect.runPromise(measure("redis", Redis.layerTaskStoreUrl(redis.url).pipe(Layer.orDie)))
  } finally {
    await redis.stop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
