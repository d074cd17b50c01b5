/**
 * A fleet of `mrtr gateway`: three instances (the built binary, each its own
 * process) configured by one file (`gateway.redis`, `gateway.requestState.keys`)
 * behind haproxy round-robin without affinity (examples/fleet/haproxy.cfg),
 * sharing a real `redis-server`, in front of a 2025-11-25 upstream whose tool
 * asks twice. 2026-07-28 clients' rounds land on different instances: the
 * upstream call held by the instance of the first round is reached through
 * Redis (the upstream's work before its first question runs once per
 * conversation). Then an instance is killed (SIGKILL) mid-conversation: the
 * conversations it held complete on the survivors by replay, the others as
 * before, and no conversation gets another's answers.
 */
import { ElicitationHandler, HttpTransport as ClientHttp, McpClient } from "@mrtr/client"
import { Elicitation, Mrtr } from "@mrtr/core"
import { Tool } from "@mrtr/server"
import { freePort, type Proc, redisPerFile, spawnReady, startHaproxy } from "@mrtr/test-support/infra"
import { Context, Effect, Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serve, upstreamServer } from "../../gateway/test/fixtures.ts"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const BIN = fileURLToPath(new URL("../bin/mrtr.js", import.meta.url))
const HAPROXY_CFG = fileURLToPath(new URL("../../../examples/fleet/haproxy.cfg", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "mrtr-gateway-fleet-"))

/** How many times the upstream did its work before its first question, by topic. */
const work = new Map<string, number>()

const survey = Tool.make("survey", {
  parameters: Schema.Struct({ topic: Schema.String }),
  handler: ({ topic }) =>
    Effect.gen(function*() {
      yield* Mrtr.step(
        "work",
        Effect.sync(() => work.set(topic, (work.get(topic) ?? 0) + 1).get(topic)!),
        Schema.Number
      )
      const { name } = yield* Elicitation.form({
        key: "who",
        message: `Who answers about ${topic}?`,
        schema: Schema.Struct({ name: Schema.String })
      })
      const { ok } = yield* Elicitation.form({
        key: "confirm",
        message: `Sure, ${name}, about ${topic}?`,
        schema: Schema.Struct({ ok: Schema.Boolean })
      })
      return `${name} on ${topic}: ${ok}`
    })
})

const redis = redisPerFile()
let upstream: Awaited<ReturnType<typeof serve>>
const instances = new Map<"a" | "b" | "c", Proc>()
let haproxy: Proc | undefined
let url: string

beforeAll(async () => {
  upstream = await serve(upstreamServer("legacy", [survey]))
  const file = join(dir, "fleet.json")
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { legacy: { url: upstream.url, protocol: "2025-11-25" } },
      gateway: {
        name: "fleet-gateway",
        redis: { url: redis.url },
        requestState: { keys: `k1:${Buffer.alloc(32, 9).toString("base64url")}` }
      }
    })
  )
  const ports = { a: await freePort(), b: await freePort(), c: await freePort() }
  await Promise.all((["a", "b", "c"] as const).map(async (name) => {
    instances.set(
      name,
      await spawnReady(process.execPath, [BIN, "gateway", "--config", file, "--port", String(ports[name])], {
        cwd: ROOT,
        ready: /^listening /m,
        label: `gateway ${name}`,
        timeoutMs: 60_000
      })
    )
  }))
  const port = await freePort()
  haproxy = await startHaproxy(HAPROXY_CFG, {
    FLEET_HOST: "127.0.0.1",
    FLEET_PORT: String(port),
    FLEET_PORT_A: String(ports.a),
    FLEET_PORT_B: String(ports.b),
    FLEET_PORT_C: String(ports.c)
  }, port)
  url = `http://127.0.0.1:${port}/mcp`
}, 120_000)

afterAll(async () => {
  await haproxy?.stop()
  await Promise.all(Array.from(instances.values(), (proc) => proc.stop()))
  await upstream?.close()
}, 30_000)

/** A 2026-07-28 client through the balancer answering as `name`; `served` gets the instance of each tools/call POST. */
const clientLayer = (name: string, served: Array<string>) => {
  const recordingFetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init)
    const body = init?.body
    const text = typeof body === "string" ? body : body instanceof Uint8Array ? new TextDecoder().decode(body) : ""
    if (text.includes("\"tools/call\"")) {
      served.push(response.headers.get("x-mrtr-instance") ?? "?")
    }
    return response
  }
  return McpClient.layer({ protocol: "2026-07-28" }).pipe(
    Layer.provide(ClientHttp.layer({ url })),
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(Layer.succeed(FetchHttpClient.Fetch, recordingFetch)),
    Layer.provide(ElicitationHandler.layer({
      form: (params) =>
        Effect.succeed(ElicitationHandler.accept(params.message.startsWith("Who") ? { name } : { ok: true }))
    }))
  )
}

const textOf = (result: any) => result.content[0].text as string

/** One conversation to its end through the balancer. */
const converse = (topic: string, name: string) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const served: Array<string> = []
    const context = yield* Layer.build(clientLayer(name, served))
    const result = yield* Context.get(context, McpClient.McpClient).callTool({ name: "survey", arguments: { topic } })
    return { text: textOf(result), served }
  })))

/** The first round of a conversation, kept open: `finish` answers the rest (as `name`). */
const begin = (topic: string, name: string) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const served: Array<string> = []
    const context = yield* Layer.build(clientLayer(name, served))
    const failed: any = yield* Context.get(context, McpClient.McpClient).callTool(
      { name: "survey", arguments: { topic } },
      { maxRounds: 1 }
    ).pipe(Effect.flip)
    expect(failed._tag).toBe("MaxRoundsExceeded")
    return {
      state: failed.lastResult.requestState as string,
      holder: served[0]!,
      keys: Object.keys(failed.lastResult.inputRequests)
    }
  })))

const finish = (topic: string, name: string, state: string) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const served: Array<string> = []
    const context = yield* Layer.build(clientLayer(name, served))
    const client = Context.get(context, McpClient.McpClient)
    const second: any = yield* client.callTool({
      name: "survey",
      arguments: { topic },
      requestState: state,
      inputResponses: { "legacy/elicitation-1": { action: "accept", content: { name } } }
    }, { maxRounds: 1 }).pipe(Effect.flip)
    expect(Object.keys(second.lastResult.inputRequests)).toEqual(["legacy/elicitation-2"])
    const done = yield* client.callTool({
      name: "survey",
      arguments: { topic },
      requestState: second.lastResult.requestState,
      inputResponses: { "legacy/elicitation-2": { action: "accept", content: { ok: true } } }
    })
    return textOf(done)
  })))

describe("mrtr gateway fleet (3 instances, haproxy, Redis) before a 2025-11-25 upstream", () => {
  it(
    "rounds land on different instances; each held upstream call is reached from them, its work done once",
    async () => {
      const conversations = await Promise.all(
        Array.from({ length: 6 }, (_, i) => converse(`tea-${i}`, `user-${i}`))
      )
      conversations.forEach(({ served, text }, i) => {
        expect(text).toBe(`user-${i} on tea-${i}: true`)
        expect(served.length).toBe(3)
        expect(work.get(`tea-${i}`)).toBe(1)
      })
      // round-robin without affinity: rounds of one conversation are served by several instances
      expect(conversations.some(({ served }) => new Set(served).size > 1)).toBe(true)
      expect(new Set(conversations.flatMap(({ served }) => served))).toEqual(new Set(["a", "b", "c"]))
    },
    120_000
  )

  it(
    "an instance killed mid-conversation: its conversations replay on a survivor, the others go on; none crosses",
    async () => {
      const topics = Array.from({ length: 6 }, (_, i) => `kill-${i}`)
      const begun = await Promise.all(topics.map((topic, i) => begin(topic, `who-${i}`)))
      for (const b of begun) expect(b.keys).toEqual(["legacy/elicitation-1"])
      const victim = begun[0]!.holder as "a" | "b" | "c"
      await instances.get(victim)!.stop("SIGKILL")
      instances.delete(victim)
      const texts = await Promise.all(topics.map((topic, i) => finish(topic, `who-${i}`, begun[i]!.state)))
      texts.forEach((text, i) => expect(text).toBe(`who-${i} on kill-${i}: true`))
      begun.forEach((b, i) => {
        // held on the killed instance: called again (replay) on a survivor; elsewhere: held through to the end
        expect(work.get(topics[i]!)).toBe(b.holder === victim ? 2 : 1)
      })
    },
    120_000
  )
})
