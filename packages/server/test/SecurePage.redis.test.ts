/**
 * A secure (URL-mode) value in a fleet's Redis `InteractionStore` (a real
 * `redis-server`): after the page is submitted, no key of Redis holds the
 * value in clear (every string, hash field and sorted-set member is read,
 * raw); the page seals it to the interaction's public key, whose private key
 * only the conversation's sealed `requestState` carries, and a retry served
 * by another instance than the one that made and took the page opens it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Elicitation } from "@mrtr/core"
import { redisPerFile } from "@mrtr/test-support/infra"
import { ConfigProvider, Effect, Layer, Schema } from "effect"
import * as RedisService from "effect/persistence/Redis"
import { HttpTransport, InteractionPage, McpServer, Tool } from "../src/index.ts"
import * as Redis from "../src/Redis.ts"

const CAPS = { elicitation: { form: {}, url: {} } }
const KEYS = Buffer.from(new Uint8Array(32).fill(5)).toString("base64url")
const SECRET = "sk-fleet-secret-77c1e0"

const connect = Tool.make("connect", {
  handler: () =>
    Effect.map(
      Elicitation.secure({
        key: "api_key",
        message: "Paste your key",
        schema: Schema.Struct({ api_key: Schema.String })
      }),
      ({ api_key }) => `connected with ${api_key}`
    )
})

const redis = redisPerFile()

const instance = () => {
  const config = ConfigProvider.layer(
    ConfigProvider.fromUnknown({ MRTR_REQUEST_STATE_KEYS: KEYS, MRTR_REDIS_URL: redis.url, MRTR_SINGLE_USE: "true" })
  )
  const fleet = Redis.layerFleetConfig()
  const interactions = InteractionPage.layer({
    publicBaseUrl: "https://keys.example.com",
    singleUser: true,
    store: fleet
  })
  return Layer.build(Layer.fresh(
    HttpTransport.layer({ port: 0, mount: InteractionPage.routes }).pipe(
      Layer.provide(
        McpServer.tools(connect).pipe(
          Layer.provide(interactions),
          Layer.provideMerge(McpServer.layerConfig({ name: "keys", version: "1", shared: fleet }))
        )
      ),
      Layer.provide(interactions),
      Layer.provide(config),
      Layer.orDie
    )
  )).pipe(Effect.flatMap((context) => Effect.provide(HttpTransport.url, context)))
}

let nextId = 1
const call = (url: string, params: Record<string, unknown>) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: nextId++,
        method: "tools/call",
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
        "mcp-method": "tools/call",
        "mcp-name": "connect"
      }
    })
    const reply = await response.json() as any
    if (reply.error !== undefined) throw new Error(JSON.stringify(reply.error))
    return reply.result
  })

/** Fills the page with `values` through instance `server`, as the user's browser would through the balancer. */
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
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: "https://keys.example.com" }
    })
    assert.strictEqual(done.status, 200)
  })

/** Everything Redis holds, raw: each key with its string, hash fields and values, or sorted-set members. */
const dump = () =>
  Effect.gen(function*() {
    const r = yield* RedisService.Redis
    const keys = yield* r.send<Array<string>>("KEYS", "*")
    const out: Array<string> = []
    for (const key of keys) {
      const type = yield* r.send<string>("TYPE", key)
      const value = type === "string"
        ? yield* r.send<unknown>("GET", key)
        : type === "hash"
        ? yield* r.send<unknown>("HGETALL", key)
        : type === "zset"
        ? yield* r.send<unknown>("ZRANGE", key, "0", "-1", "WITHSCORES")
        : type === "set"
        ? yield* r.send<unknown>("SMEMBERS", key)
        : type === "list"
        ? yield* r.send<unknown>("LRANGE", key, "0", "-1")
        : `<${type}>`
      out.push(`${key} ${JSON.stringify(value)}`)
    }
    return out
  }).pipe(Effect.provide(Redis.layerClient({ url: redis.url })), Effect.orDie)

describe("a secure value in the fleet's Redis", () => {
  it.live(
    "is never in Redis in clear after the page is submitted, and a retry on another instance opens it",
    () =>
      Effect.gen(function*() {
        const a = yield* instance()
        const b = yield* instance()
        const first = yield* call(a, { name: "connect", arguments: {} })
        assert.strictEqual(first.resultType, "input_required")
        const url: string = first.inputRequests.api_key.params.url
        yield* submitPage(a, url, { api_key: SECRET })

        const held = yield* dump()
        const id = url.slice(url.lastIndexOf("/") + 1)
        const record = held.find((line) => line.startsWith(`mrtr:interaction:${id} `))
        assert.isDefined(record, held.join("\n"))
        assert.include(record!, "completed", "the page was completed: its value waits in Redis")
        assert.include(record!, "content", "the value is there, sealed")
        for (const line of held) assert.notInclude(line, SECRET, "no key of Redis holds the secret in clear")
        for (const line of held) assert.notInclude(line, Buffer.from(SECRET).toString("base64"), "nor in base64")

        // The retry on B, which neither made nor served the page: it opens the value with the journaled key.
        const done = yield* call(b, {
          name: "connect",
          arguments: {},
          inputResponses: { api_key: { action: "accept" } },
          requestState: first.requestState
        })
        assert.deepStrictEqual(done.content, [{ type: "text", text: `connected with ${SECRET}` }])
        for (const line of yield* dump()) assert.notInclude(line, SECRET)
      }).pipe(Effect.scoped),
    30_000
  )
})
