/**
 * The official v1 client (`@modelcontextprotocol/sdk` 1.x, 2025-11-25, the
 * installed base) downstream of the gateway over Streamable HTTP: every
 * upstream's questions reach it in flight (this runtime's server on both
 * revisions, the official v1 and v2 servers), an upstream's progress reaches
 * its `onprogress`, completions come back, and aborting a call cancels it
 * upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { McpServer } from "@mrtr/server"
import { Layer } from "effect"
import { Upstream } from "../src/index.ts"
import { gatewayKeys, plan, serve, trip, upstreamServer } from "./fixtures.ts"
import { aborted, listenV1 } from "./official-v1-upstream.ts"
import { listenV2 } from "./official-v2-server.ts"

let ours: Awaited<ReturnType<typeof serve>>
let v1: Awaited<ReturnType<typeof listenV1>>
let v2: Awaited<ReturnType<typeof listenV2>>
let gateway: Awaited<ReturnType<typeof serve>>

beforeAll(async () => {
  ours = await serve(upstreamServer("ours", [plan, trip]))
  v1 = await listenV1()
  v2 = await listenV2()
  gateway = await serve(
    Layer.mergeAll(
      McpServer.mount("m26", Upstream.layer(Upstream.http({ name: "m26", url: ours.url }), { protocol: "2026-07-28" })),
      McpServer.mount("m25", Upstream.layer(Upstream.http({ name: "m25", url: ours.url }), { protocol: "2025-11-25" })),
      McpServer.mount("v1", Upstream.layer(Upstream.http({ name: "v1", url: v1.url }))),
      McpServer.mount("v2", Upstream.layer(Upstream.http({ name: "v2", url: v2.url })))
    ).pipe(
      Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
      Layer.orDie
    )
  )
}, 30_000)
afterAll(async () => {
  await gateway?.close()
  await ours?.close()
  await v1?.close()
  await v2?.close()
})

/** A v1 client connected to the gateway, answering every question. */
const connect = async () => {
  const client = new Client({ name: "v1-downstream", version: "1.0.0" }, {
    capabilities: { elicitation: {}, sampling: {}, roots: {} }
  })
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const message = String(request.params.message)
    const fields = Object.keys((request.params as any).requestedSchema?.properties ?? {})
    if (fields.includes("name")) return { action: "accept", content: { name: "Kim" } }
    if (fields.includes("ok")) return { action: "accept", content: { ok: true } }
    if (fields.includes("answer")) return { action: "accept", content: { answer: "yes" } }
    throw new Error(`unexpected question: ${message}`)
  })
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    content: { type: "text", text: "eat pastries" },
    model: "v1-model"
  }))
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///srv" }] }))
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)))
  return client
}

const textOf = (result: any) => result.content[0].text as string

describe("the official v1 client downstream of the gateway", () => {
  it("answers every upstream's questions in flight, of either revision and SDK", async () => {
    const client = await connect()
    try {
      const names = (await client.listTools()).tools.map((t) => t.name)
      expect(names).toEqual(expect.arrayContaining(["m26_plan", "m25_plan", "v1_ask_wait", "v2_greet"]))
      const expected = "Kim to Lyon: eat pastries, 1 root(s), booked=true"
      expect(textOf(await client.callTool({ name: "m26_plan", arguments: { city: "Lyon" } }))).toBe(expected)
      expect(textOf(await client.callTool({ name: "m25_plan", arguments: { city: "Lyon" } }))).toBe(expected)
      expect(textOf(await client.callTool({ name: "v1_ask_wait" }))).toBe("answered accept")
      expect(textOf(await client.callTool({ name: "v2_greet" }))).toBe("Hello, Kim!")
      expect(textOf(await client.callTool({ name: "v2_ask_n", arguments: { n: 2 } }))).toBe("yes yes")
    } finally {
      await client.close()
    }
  }, 60_000)

  it("gets an upstream's progress, completions, and cancels upstream by aborting", async () => {
    const client = await connect()
    try {
      const progress: Array<number> = []
      const reported = await client.callTool({ name: "v1_report" }, undefined, {
        onprogress: (p) => void progress.push(p.progress)
      })
      expect(textOf(reported)).toBe("reported")
      expect(progress).toEqual([1, 2])

      const completion = await client.complete({
        ref: { type: "ref/prompt", name: "v1_greeting" },
        argument: { name: "city", value: "Pr" }
      })
      expect(completion.completion.values).toEqual(["Prague"])

      const before = aborted.filter((tool) => tool === "wait").length
      const controller = new AbortController()
      const call = client.callTool({ name: "v1_wait" }, undefined, { signal: controller.signal }).catch(() => "aborted")
      await new Promise((resolve) => setTimeout(resolve, 500))
      controller.abort()
      expect(await call).toBe("aborted")
      for (let n = 0; n < 200 && aborted.filter((tool) => tool === "wait").length === before; n++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(aborted.filter((tool) => tool === "wait").length).toBe(before + 1)
    } finally {
      await client.close()
    }
  }, 60_000)
})
