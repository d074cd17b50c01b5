/**
 * A task's journal in a shared `TaskStore` (a real `redis-server`): a value
 * asked with `Elicitation.secure` before `Task.detach` (and a step's result)
 * never sits in the Redis record in clear: the raw hash holds the journal
 * sealed with the server's key ring, and the task still replays from it (on
 * another instance too) to its result.
 */
import { assert, describe, it } from "@effect/vitest"
import { Elicitation, Mrtr, Task } from "@mrtr/core"
import { mcpPost, request } from "@mrtr/test-support/http"
import { redisPerFile } from "@mrtr/test-support/infra"
import { ConfigProvider, Effect, Layer, Schema } from "effect"
import * as RedisService from "effect/persistence/Redis"
import { HttpTransport, InteractionPage, McpServer, Tool } from "../src/index.ts"
import * as Redis from "../src/Redis.ts"

const TASKS = "io.modelcontextprotocol/tasks"
const CAPS = { elicitation: { form: {}, url: {} }, extensions: { [TASKS]: {} } }
const KEYS = Buffer.from(new Uint8Array(32).fill(9)).toString("base64url")
const SECRET = "sk-very-secret-4242"

const vault = Tool.make("vault", {
  task: { support: "required", start: "detach" },
  handler: () =>
    Effect.gen(function*() {
      const { api_key } = yield* Elicitation.secure({
        key: "api_key",
        message: "Paste your key",
        schema: Schema.Struct({ api_key: Schema.String })
      })
      yield* Task.detach
      const token = yield* Mrtr.step("token", Effect.succeed(`token-for-${api_key}`), Schema.String)
      const { ok } = yield* Elicitation.form({
        key: "confirm",
        message: "Go on?",
        schema: Schema.Struct({ ok: Schema.Boolean })
      })
      return `${ok ? "used" : "kept"} a key of ${api_key.length} characters (${token.length})`
    })
})

const redis = redisPerFile()

const instance = () => {
  const config = ConfigProvider.layer(
    ConfigProvider.fromUnknown({ MRTR_REQUEST_STATE_KEYS: KEYS, MRTR_REDIS_URL: redis.url })
  )
  // One public origin for the fleet (the pages' URLs are part of the questions a journal pins).
  const interactions = InteractionPage.layer({ publicBaseUrl: "https://vault.example.com", singleUser: true })
  return Layer.build(Layer.fresh(
    HttpTransport.layer({ port: 0, mount: InteractionPage.routes }).pipe(
      Layer.provide(
        McpServer.tools(vault).pipe(
          Layer.provide(interactions),
          Layer.provideMerge(
            McpServer.layerConfig({
              name: "vault",
              version: "1",
              tasks: { pollIntervalMs: 100 },
              shared: Redis.layerFleetConfig()
            })
          )
        )
      ),
      Layer.provide(interactions),
      Layer.provide(config),
      Layer.orDie
    )
  )).pipe(Effect.flatMap((context) => Effect.provide(HttpTransport.url, context)))
}

/** A 2026-07-28 request's result; a JSON-RPC error fails the test. */
const call = (url: string, method: string, params: Record<string, unknown>) =>
  Effect.map(mcpPost(url, request(method, params, { clientCapabilities: CAPS })), (reply) => {
    if (reply.json.error !== undefined) throw new Error(`${method}: ${JSON.stringify(reply.json.error)}`)
    return reply.json.result
  })

/** Fills the page at `url` with `values`, as the user's browser would. */
const submitPage = (server: string, publicUrl: string, values: Record<string, string>) =>
  Effect.promise(async () => {
    const url = new URL(new URL(publicUrl).pathname, server).href
    const page = await fetch(url)
    const html = await page.text()
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!
    const cookie = page.headers.get("set-cookie")!.split(";")[0]!
    const done = await fetch(url, {
      method: "POST",
      body: new URLSearchParams({ csrf, ...values }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: "https://vault.example.com" }
    })
    assert.strictEqual(done.status, 200)
  })

const pollUntil = (url: string, taskId: string, status: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      const task = yield* call(url, "tasks/get", { taskId })
      if (task.status === status) return task
      yield* Effect.sleep("50 millis")
    }
    throw new Error(`task ${taskId} never reached ${status}`)
  })

describe("a task's journal in Redis", () => {
  it.live(
    "a secure value asked before Task.detach is sealed in the record, and the task replays from it elsewhere",
    () =>
      Effect.gen(function*() {
        const a = yield* instance()
        const b = yield* instance()
        const first = yield* call(a, "tools/call", { name: "vault", arguments: {} })
        assert.strictEqual(first.resultType, "input_required")
        yield* submitPage(a, first.inputRequests.api_key.params.url, { api_key: SECRET })
        const created = yield* call(a, "tools/call", {
          name: "vault",
          arguments: {},
          inputResponses: { api_key: { action: "accept" } },
          requestState: first.requestState
        })
        assert.strictEqual(created.resultType, "task")
        const waiting = yield* pollUntil(a, created.taskId, "input_required")
        assert.deepStrictEqual(Object.keys(waiting.inputRequests), ["confirm"])

        const raw = yield* Effect.flatMap(
          Effect.service(RedisService.Redis),
          (r) => r.send<string | null>("HGET", `mrtr:task:${created.taskId}`, "r")
        ).pipe(
          Effect.provide(Redis.layerClient({ url: redis.url })),
          Effect.orDie
        )
        assert.isString(raw)
        assert.notInclude(raw!, SECRET, "the secure value is not in the record in clear")
        assert.notInclude(raw!, "token-for-", "nor a step's result")
        const journal = JSON.parse(raw!).journal
        assert.match(journal, /^v2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)

        // Answered on B: B unseals the journal and replays the handler to its end.
        yield* call(b, "tasks/update", {
          taskId: created.taskId,
          inputResponses: { confirm: { action: "accept", content: { ok: true } } }
        })
        const done = yield* pollUntil(b, created.taskId, "completed")
        assert.deepStrictEqual(done.result.content, [{
          type: "text",
          text: `used a key of ${SECRET.length} characters (${`token-for-${SECRET}`.length})`
        }])
      }).pipe(Effect.scoped),
    30_000
  )
})
