/**
 * A secure (URL-mode) ask inside a task, over real HTTP: accepted while its
 * page still waits, it is asked again under a fresh key (`api_key#2`), never
 * the key already answered (a key is unique over a task's life, SEP-2663), so
 * a client that never answers a key twice still gets the value through; the
 * page's value then completes the task.
 */
import { assert, describe, it } from "@effect/vitest"
import { Elicitation } from "@mrtr/core"
import { Effect, Layer, Schema } from "effect"
import { HttpTransport, InteractionPage, McpServer, Tool } from "../src/index.ts"

const TASKS = "io.modelcontextprotocol/tasks"
const CAPS = { elicitation: { form: {}, url: {} }, extensions: { [TASKS]: {} } }

const vault = Tool.make("vault", {
  task: "required",
  handler: () =>
    Effect.map(
      Elicitation.secure({
        key: "api_key",
        message: "Paste your key",
        schema: Schema.Struct({ api_key: Schema.String })
      }),
      ({ api_key }) => `stored a key of ${api_key.length} characters`
    )
})

const start = () => {
  const interactions = InteractionPage.layer({ singleUser: true })
  return Layer.build(
    HttpTransport.layer({ port: 0, mount: InteractionPage.routes }).pipe(
      Layer.provide(
        McpServer.tools(vault).pipe(
          Layer.provide(interactions),
          Layer.provideMerge(McpServer.layer({ name: "vault", version: "1", tasks: { pollIntervalMs: 50 } }))
        )
      ),
      Layer.provide(interactions),
      Layer.orDie
    )
  ).pipe(Effect.flatMap((context) => Effect.provide(HttpTransport.url, context)))
}

let nextId = 1
const call = (url: string, method: string, params: Record<string, unknown>) =>
  Effect.promise(async () => {
    const name = params.taskId ?? params.name
    const response = await fetch(url, {
      method: "POST",
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: nextId++,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": CAPS,
            "io.modelcontextprotocol/clientInfo": { name: "test", version: "0" }
          }
        }
      }),
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(typeof name === "string" ? { "mcp-name": name } : {})
      }
    })
    const reply = await response.json() as any
    if (reply.error !== undefined) throw new Error(`${method}: ${JSON.stringify(reply.error)}`)
    return reply.result
  })

const pollUntil = (url: string, taskId: string, done: (task: any) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      const task = yield* call(url, "tasks/get", { taskId })
      if (done(task)) return task
      yield* Effect.sleep("25 millis")
    }
    throw new Error(`task ${taskId} never reached the expected state`)
  })

const submitPage = (pageUrl: string, values: Record<string, string>) =>
  Effect.promise(async () => {
    const page = await fetch(pageUrl)
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!
    const cookie = page.headers.get("set-cookie")!.split(";")[0]!
    const done = await fetch(pageUrl, {
      method: "POST",
      body: new URLSearchParams({ csrf, ...values }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: new URL(pageUrl).origin }
    })
    assert.strictEqual(done.status, 200)
  })

describe("a secure ask in a task", () => {
  it.live(
    "accepted while its page waits, it is asked again under a fresh key; the page's value completes it",
    () =>
      Effect.gen(function*() {
        const url = yield* start()
        const created = yield* call(url, "tools/call", { name: "vault", arguments: {} })
        assert.strictEqual(created.resultType, "task")
        const waiting = yield* pollUntil(url, created.taskId, (task) => task.status === "input_required")
        assert.deepStrictEqual(Object.keys(waiting.inputRequests), ["api_key"])
        const pageUrl: string = waiting.inputRequests.api_key.params.url
        assert.strictEqual(waiting.inputRequests.api_key.params.mode, "url")

        // Consent without the page: the same question again, under a key never answered.
        yield* call(url, "tasks/update", { taskId: created.taskId, inputResponses: { api_key: { action: "accept" } } })
        const again = yield* pollUntil(url, created.taskId, (task) => "api_key#2" in (task.inputRequests ?? {}))
        assert.deepStrictEqual(Object.keys(again.inputRequests), ["api_key#2"])
        assert.strictEqual(again.inputRequests["api_key#2"].params.url, pageUrl, "the same page")

        yield* submitPage(pageUrl, { api_key: "sk-task-secret" })
        yield* call(url, "tasks/update", {
          taskId: created.taskId,
          inputResponses: { "api_key#2": { action: "accept" } }
        })
        const done = yield* pollUntil(url, created.taskId, (task) => task.status === "completed")
        assert.deepStrictEqual(done.result.content, [{ type: "text", text: "stored a key of 14 characters" }])
      }).pipe(Effect.scoped),
    30_000
  )
})
