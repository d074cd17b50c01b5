/**
 * Tasks (SEP-2663) on the fleet (./fleet.ts: redis-server, three demo server
 * processes sharing the Redis TaskStore and bus, haproxy round-robin without
 * affinity; task lease 2 s by `MRTR_TASK_LEASE`):
 *
 * - a task started through haproxy lands on instance X (the instance that
 *   answered the `CreateTaskResult`, haproxy's `X-Mrtr-Instance`); X is
 *   SIGKILLed while the task waits for input; the answer sent with
 *   `tasks/update` through the balancer completes the task on another
 *   instance, its earlier steps not re-run (the demo logs each step body that
 *   really runs, with the task's id; the logs of every process are counted);
 * - a working task whose instance is SIGKILLed mid-step is resumed on
 *   another instance once its lease has lapsed (the unfinished step runs
 *   again there, once);
 * - a task status change on one instance reaches a `subscriptions/listen`
 *   stream on another, and so does a list change (an instance restarting
 *   announces its tools).
 */
import { mcpHeaders } from "@mrtr/test-support/http"
import { validateTaskWire, validateWire } from "@mrtr/test-support/wire"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { CLIENT_CAPABILITIES, type Fleet, type InstanceName, INSTANCES, request, startFleet } from "./fleet.ts"

const TASKS = "io.modelcontextprotocol/tasks"
const CAPS = { ...CLIENT_CAPABILITIES, extensions: { [TASKS]: {} } }

interface Reply {
  readonly json: any
  readonly instance: string
}

let ids = 1
const envelope = (method: string, params: Record<string, unknown>) => request(ids++, method, params, CAPS)

/**
 * One request; a request the balancer could not complete (a connection reset
 * by a dying instance, haproxy's 502/503/504) is retried, as a client does.
 */
const call = async (url: string, method: string, params: Record<string, unknown>): Promise<Reply> => {
  const message = envelope(method, params)
  for (let attempt = 0;; attempt++) {
    try {
      const response = await fetch(url, { method: "POST", body: JSON.stringify(message), headers: mcpHeaders(message) })
      if (response.status >= 502 && response.status <= 504 && attempt < 50) {
        await response.arrayBuffer()
        await new Promise((r) => setTimeout(r, 100))
        continue
      }
      const json = await response.json()
      validateWire("JSONRPCMessage", json)
      return { json, instance: response.headers.get("x-mrtr-instance") ?? "?" }
    } catch (error) {
      if (attempt >= 50) throw error
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

const result = async (url: string, method: string, params: Record<string, unknown>) => {
  const reply = await call(url, method, params)
  if (reply.json.error !== undefined) throw new Error(`${method}: ${JSON.stringify(reply.json.error)}`)
  return { ...reply, result: reply.json.result }
}

/** Polls `tasks/get` (every 100 ms, at most 60 s) until `done(task)`. */
const pollUntil = async (url: string, taskId: string, done: (task: any) => boolean) => {
  for (let i = 0; i < 600; i++) {
    const { result: task } = await result(url, "tasks/get", { taskId })
    validateTaskWire("GetTaskResult", task)
    if (done(task)) return task
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`task ${taskId} never reached the expected state`)
}

/** `book_tickets` through `url` up to its task: the MRTR round (who travels), then the `CreateTaskResult`. */
const startBooking = async (url: string, passenger: string) => {
  const args = { from: "Paris", to: "Milan" }
  const first = await result(url, "tools/call", { name: "book_tickets", arguments: args })
  assert.strictEqual(first.result.resultType, "input_required")
  const created = await result(url, "tools/call", {
    name: "book_tickets",
    arguments: args,
    requestState: first.result.requestState,
    inputResponses: { passenger: { action: "accept", content: { name: passenger } } }
  })
  validateTaskWire("CreateTaskResult", created.result)
  return { taskId: created.result.taskId as string, owner: created.instance as InstanceName }
}

const count = (text: string, needle: string) => text.split(needle).length - 1
const countsOf = (fleet: Fleet, needle: string) =>
  Object.fromEntries(INSTANCES.map((name) => [name, count(fleet.logsOf(name), needle)]))

/** Opens `subscriptions/listen` on `url`; `next()` is its next message (the acknowledgement first). */
const openListen = async (url: string, notifications: Record<string, unknown>) => {
  const controller = new AbortController()
  const message = envelope("subscriptions/listen", { notifications })
  const response = await fetch(url, {
    method: "POST",
    body: JSON.stringify(message),
    headers: mcpHeaders(message),
    signal: controller.signal
  })
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  const next = async (): Promise<any> => {
    for (;;) {
      const end = buffer.indexOf("\n\n")
      if (end >= 0) {
        const event = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = event.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("")
        if (data !== "") return JSON.parse(data)
        continue
      }
      const chunk = await reader.read()
      if (chunk.done) throw new Error("the stream ended")
      buffer += chunk.value
    }
  }
  const ack = await next()
  assert.strictEqual(ack.method, "notifications/subscriptions/acknowledged")
  return { next, close: () => controller.abort() }
}

let fleet: Fleet
beforeAll(async () => {
  fleet = await startFleet({ env: { MRTR_TASK_LEASE: "2 seconds" } })
}, 120_000)
afterAll(async () => {
  await fleet?.stop()
}, 60_000)

/** Starts again every instance that is down (a test killed it). */
const restartKilled = async () => {
  for (const name of INSTANCES) if (fleet.pidOf(name) === -1) await fleet.start(name)
}

describe("tasks on the fleet", () => {
  it(
    "the instance holding a task waiting for input is SIGKILLed; tasks/update through haproxy completes it elsewhere, its steps not re-run",
    async () => {
      const { owner, taskId } = await startBooking(fleet.url, "Grace")
      const waiting = await pollUntil(fleet.url, taskId, (task) => task.status === "input_required")
      assert.deepStrictEqual(Object.keys(waiting.inputRequests), ["confirm_booking"])
      // The reservation step ran once, on the instance that created the task.
      const reserve = `step reserve ran for task:${taskId}`
      assert.deepStrictEqual(countsOf(fleet, reserve), { a: 0, b: 0, c: 0, [owner]: 1 })

      await fleet.kill(owner)
      const ack = await result(fleet.url, "tasks/update", {
        taskId,
        inputResponses: { confirm_booking: { action: "accept", content: { book: true } } }
      })
      validateTaskWire("UpdateTaskResult", ack.result)
      // The instance that took the last answer runs the next round (by replay): not the dead one.
      assert.notStrictEqual(ack.instance, owner)
      const done = await pollUntil(fleet.url, taskId, (task) => task.status === "completed")
      assert.match(done.result.content[0].text, /^Booked seat \S+ for Grace: Paris → .* → Milan\.$/)
      // Its earlier steps came from the journal in Redis: the reservation never ran again, anywhere.
      assert.deepStrictEqual(countsOf(fleet, reserve), { a: 0, b: 0, c: 0, [owner]: 1 })
      await restartKilled()
    },
    120_000
  )

  it(
    "a working task whose instance is SIGKILLed mid-step is resumed on another instance once its lease lapsed",
    async () => {
      const created = await result(fleet.url, "tools/call", {
        name: "check_timetables",
        arguments: { from: "Lyon", to: "Rome", seconds: 3 }
      })
      validateTaskWire("CreateTaskResult", created.result)
      const taskId: string = created.result.taskId
      const owner = created.instance as InstanceName
      const started = `step timetables started for task:${taskId}`
      const finished = `step timetables finished for task:${taskId}`
      for (let i = 0; i < 300 && count(fleet.logsOf(owner), started) === 0; i++) {
        await new Promise((r) => setTimeout(r, 50))
      }
      assert.strictEqual(count(fleet.logsOf(owner), started), 1)

      await fleet.kill(owner)
      // Polled through haproxy: `working` while the dead owner's lease holds; then an instance resumes it.
      const done = await pollUntil(fleet.url, taskId, (task) => task.status === "completed")
      assert.strictEqual(
        done.result.content[0].text,
        "Timetables checked: Lyon → Geneva → Zurich → Milan → Rome, 647 minutes."
      )
      const starts = countsOf(fleet, started)
      const ends = countsOf(fleet, finished)
      // The step never finished on the killed owner; it ran again, once and to its end, on exactly one other instance.
      assert.strictEqual(starts[owner], 1)
      assert.strictEqual(ends[owner], 0)
      const others = INSTANCES.filter((name) => name !== owner)
      assert.deepStrictEqual(others.map((name) => starts[name]).sort(), [0, 1])
      assert.deepStrictEqual(others.map((name) => ends[name]).sort(), [0, 1])
      assert.strictEqual(others.find((name) => starts[name] === 1), others.find((name) => ends[name] === 1))
      await restartKilled()
    },
    120_000
  )

  it("a task status change on one instance reaches a subscriptions/listen stream on another", async () => {
    const direct = (name: InstanceName) => `http://127.0.0.1:${fleet.ports[name]}/mcp`
    const { taskId } = await startBooking(direct("a"), "Hedy")
    await pollUntil(direct("a"), taskId, (task) => task.status === "input_required")
    const stream = await openListen(direct("b"), { taskIds: [taskId] })
    try {
      await new Promise((r) => setTimeout(r, 300)) // b's stream is subscribed on Redis
      await result(direct("a"), "tasks/update", {
        taskId,
        inputResponses: { confirm_booking: { action: "accept", content: { book: true } } }
      })
      const statuses: Array<string> = []
      let last: any
      while (last?.params.status !== "completed") {
        last = await stream.next()
        validateTaskWire("TaskStatusNotification", last)
        assert.strictEqual(last.params.taskId, taskId)
        statuses.push(last.params.status)
      }
      assert.include(statuses, "working")
      assert.match(last.params.result.content[0].text, /^Booked seat \S+ for Hedy:/)
    } finally {
      stream.close()
    }
  }, 120_000)

  it(
    "a list change on one instance reaches a subscriptions/listen stream on another (an instance restarting announces its tools)",
    async () => {
      const stream = await openListen(`http://127.0.0.1:${fleet.ports.a}/mcp`, { toolsListChanged: true })
      try {
        await new Promise((r) => setTimeout(r, 300))
        await fleet.restart("c")
        const changed = await stream.next()
        validateWire("JSONRPCNotification", changed)
        assert.strictEqual(changed.method, "notifications/tools/list_changed")
      } finally {
        stream.close()
      }
    },
    120_000
  )
})
