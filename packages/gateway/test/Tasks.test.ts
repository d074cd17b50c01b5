/**
 * Tasks pass through the gateway (SEP-2663): a task-augmented `tools/call`
 * to an upstream that makes a task returns the upstream's task under an id
 * the gateway sealed (bound to the caller's principal), and `tasks/get`,
 * `tasks/update` and `tasks/cancel` for it are routed to that upstream with
 * its own id. A tampered id, or another principal's, is an unknown task
 * (-32602) and never reaches the upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Elicitation } from "@mrtr/core"
import { McpHandler, McpServer, MemoryTransport, Tool } from "@mrtr/server"
import * as Http from "@mrtr/test-support/http"
import { Harness } from "@mrtr/testing"
import { Effect, Layer, Schema } from "effect"
import { Upstream } from "../src/index.ts"
import { gatewayKeys, serve, upstreamServer, user } from "./fixtures.ts"

/** A task that asks, in the task, who books. */
const book = Tool.make("book", {
  parameters: Schema.Struct({ to: Schema.String }),
  task: { support: "optional" },
  handler: ({ to }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({
        key: "who",
        message: `Who goes to ${to}?`,
        schema: Schema.Struct({ name: Schema.String })
      })
      return `${name} booked for ${to}`
    })
})

const cancelled: Array<string> = []

/** A task that runs until cancelled. */
const slow = Tool.make("slow", {
  parameters: Schema.Struct({ tag: Schema.String }),
  task: { support: "optional" },
  handler: ({ tag }) => Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => void cancelled.push(tag))))
})

/** Every task method the upstream received. */
const taskRequests: Array<{ method: string; taskId: unknown }> = []

/** The upstream's dispatcher, counting the task methods it receives. */
const counting = Layer.effect(
  McpHandler,
  Effect.map(McpHandler, (handler) =>
    McpHandler.of({
      ...handler,
      handle: (incoming) => {
        const message = incoming.message as any
        if (typeof message?.method === "string" && message.method.startsWith("tasks/")) {
          taskRequests.push({ method: message.method, taskId: message.params?.taskId })
        }
        return handler.handle(incoming)
      }
    }))
).pipe(Layer.provide(upstreamServer("tasks", [book, slow])))

let upstream: Awaited<ReturnType<typeof serve>>
beforeAll(async () => {
  upstream = await serve(counting)
})
afterAll(async () => {
  await upstream?.close()
})

const gateway = () =>
  McpServer.mount("up", Upstream.layer(Upstream.http({ name: "up", url: upstream.url }))).pipe(
    Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
    Layer.orDie
  )

const textOf = (result: any) => (result.content[0] as { text: string }).text

/** Waits (at most 10 s) until `done()`. */
const eventually = (done: () => boolean) =>
  Effect.gen(function*() {
    for (let n = 0; n < 200 && !done(); n++) yield* Effect.sleep("50 millis")
    expect(done()).toBe(true)
  })

describe("tasks pass through the gateway", () => {
  it.live(
    "a client driving the task: tasks/get and tasks/update reach the upstream's task",
    () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const before = taskRequests.length
        const result = yield* client.callTool({ name: "up_book", arguments: { to: "Oslo" } }, { tasks: "auto" })
        expect(textOf(result)).toBe("Kim booked for Oslo")
        const sent = (yield* Harness.requests).filter((m) => String(m.method).startsWith("tasks/"))
        expect(sent.map((m) => m.method)).toEqual(expect.arrayContaining(["tasks/get", "tasks/update"]))
        // the client saw only the gateway's ids; the upstream only its own
        const gatewayIds = new Set(sent.map((m) => m.params.taskId))
        expect([...gatewayIds].every((id) => String(id).startsWith("src."))).toBe(true)
        const upstreamIds = new Set(taskRequests.slice(before).map((r) => r.taskId))
        expect(upstreamIds.size).toBe(1)
        expect([...upstreamIds].some((id) => gatewayIds.has(id))).toBe(false)
        expect(taskRequests.slice(before).map((r) => r.method)).toEqual(
          expect.arrayContaining(["tasks/get", "tasks/update"])
        )
      }).pipe(Effect.provide(Harness.layer({ server: gateway(), user }))),
    30_000
  )

  it.live(
    "tasks/cancel reaches the upstream: its task is cancelled and its handler interrupted",
    () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const started: any = yield* Effect.flip(
          client.callTool({ name: "up_slow", arguments: { tag: "cancel-me" } }, { tasks: "manual" })
        )
        expect(started._tag).toBe("TaskStarted")
        expect(started.taskId.startsWith("src.")).toBe(true)
        expect((yield* client.getTask(started.taskId)).status).toBe("working")
        yield* client.cancelTask(started.taskId)
        yield* eventually(() => cancelled.includes("cancel-me"))
        const after = yield* client.getTask(started.taskId)
        expect(after.status).toBe("cancelled")
        expect(after.taskId).toBe(started.taskId)
      }).pipe(Effect.provide(Harness.layer({ server: gateway(), user }))),
    30_000
  )
})

const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } }
const request = (method: string, params: Record<string, unknown>) =>
  Http.request(method, params, { clientCapabilities: TASKS })

describe("a forwarded task's id", () => {
  it.live("tampered, or another principal's: -32602, and the upstream is never asked", () =>
    Effect.gen(function*() {
      const channel = yield* MemoryTransport.MemoryChannel
      const send = (method: string, params: Record<string, unknown>, principal?: string) =>
        Effect.map(
          Effect.suspend(() => {
            const message = request(method, params)
            return channel.request(message, Http.mcpHeaders(message), principal)
          }),
          (messages) => messages.at(-1) as any
        )
      const created = yield* send("tools/call", { name: "up_slow", arguments: { tag: "alice" } }, "alice")
      expect(created.result.resultType).toBe("task")
      const taskId = created.result.taskId as string
      expect(taskId.startsWith("src.")).toBe(true)

      const before = taskRequests.length
      const tampered = taskId.slice(0, -3) + (taskId.endsWith("AAA") ? "BBB" : "AAA")
      for (const [id, principal] of [[tampered, "alice"], [taskId, "bob"], [taskId, undefined]] as const) {
        for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
          const refused = yield* send(method, { taskId: id, inputResponses: {} }, principal)
          expect(refused.error?.code).toBe(-32602)
        }
      }
      expect(taskRequests.length).toBe(before)

      const own = yield* send("tasks/get", { taskId }, "alice")
      expect(own.result.status).toBe("working")
      expect(own.result.taskId).toBe(taskId)
      expect(taskRequests.length).toBe(before + 1)
      yield* send("tasks/cancel", { taskId }, "alice")
      yield* eventually(() => cancelled.includes("alice"))
    }).pipe(Effect.provide(MemoryTransport.layer.pipe(Layer.provideMerge(gateway())))), 30_000)
})
