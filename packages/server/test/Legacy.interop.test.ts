/**
 * Interop on the 2025-11-25 wire with the official TypeScript SDK clients, as
 * published on npm (code no one here wrote): the v1 client
 * (`@modelcontextprotocol/sdk` 1.x, the installed base) and the v2 client
 * (`@modelcontextprotocol/client` 2.x) in its default mode both send
 * `initialize` and answer in-flight server-to-client requests. Each drives
 * every asking tool, prompt and resource of the trip planner (@mrtr/test-support/travel)
 * to completion, over Streamable HTTP (a real server on 127.0.0.1) and over
 * stdio (a real child process). Every server-to-client request they receive
 * is validated against the official 2025-11-25 schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client"
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { stdioServerScript } from "@mrtr/test-support/fixtures"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { layer as travel } from "@mrtr/test-support/travel"
import { LEGACY_SCHEMA_ID, validateWire } from "@mrtr/test-support/wire"
import { Effect, Exit, Layer, Scope } from "effect"
import { fileURLToPath } from "node:url"
import { HttpTransport } from "../src/index.ts"

const ROOT = fileURLToPath(new URL("../../..", import.meta.url))

/** The answers a user gives, by the form's fields. */
const elicit = (params: any) => {
  validateWire("ElicitRequestParams", params, LEGACY_SCHEMA_ID)
  const fields = Object.keys(params.requestedSchema.properties)
  if (fields.includes("traveller")) {
    return {
      action: "accept" as const,
      content: {
        traveller: "Ada",
        email: "ada@example.com",
        date: "2026-05-01",
        passengers: 2,
        firstClass: true,
        seat: "window"
      }
    }
  }
  if (fields.includes("book")) return { action: "accept" as const, content: { book: true } }
  if (fields.includes("style")) return { action: "accept" as const, content: { style: "light" } }
  return { action: "accept" as const, content: { unit: "celsius" } }
}
const sample = (params: any) => {
  validateWire("CreateMessageRequestParams", params, LEGACY_SCHEMA_ID)
  return {
    role: "assistant" as const,
    content: { type: "text" as const, text: "Rails and views." },
    model: "test-model"
  }
}
const roots = () => ({ roots: [{ uri: "file:///trips", name: "Trips" }] })

const CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} }

/** Calls every asking tool, prompt and resource of the trip planner and checks each result. */
const driveDemo = async (client: {
  callTool: (p: any) => Promise<any>
  getPrompt: (p: any) => Promise<any>
  readResource: (p: any) => Promise<any>
}) => {
  const trip = await client.callTool({ name: "plan_trip", arguments: { from: "Paris", to: "Milan" } })
  validateWire("CallToolResult", trip, LEGACY_SCHEMA_ID)
  assert.isUndefined(trip.resultType)
  assert.strictEqual(
    trip.content[0].text,
    "Booked for Ada <ada@example.com>: Paris → Strasbourg → Zurich → Milan, 7h23, window seat, first class. " +
      "\"Rails and views.\" Plan filed under file:///trips."
  )
  const prompt = await client.getPrompt({ name: "packing_list", arguments: { city: "Rome" } })
  validateWire("GetPromptResult", prompt, LEGACY_SCHEMA_ID)
  assert.strictEqual(prompt.messages[0].content.text, "Write a minimal carry-on packing list for a trip to Rome.")
  const weather = await client.readResource({ uri: "weather://Rome/2026-05-01" })
  validateWire("ReadResourceResult", weather, LEGACY_SCHEMA_ID)
  assert.match(weather.contents[0].text, /^Rome on 2026-05-01: .*°C$/)
}

/** A user who takes `millis` to fill in each form (0: at once). */
const after = async <A>(millis: number, answer: () => A): Promise<A> => {
  if (millis > 0) await new Promise((resolve) => setTimeout(resolve, millis))
  return answer()
}

const v1 = (thinkMillis = 0) => {
  const client = new V1Client({ name: "v1-interop", version: "1.0.0" }, { capabilities: CAPABILITIES })
  client.setRequestHandler(ElicitRequestSchema, async (request) => after(thinkMillis, () => elicit(request.params)))
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => sample(request.params) as any)
  client.setRequestHandler(ListRootsRequestSchema, async () => roots())
  return client
}

const v2 = (thinkMillis = 0) => {
  const client = new V2Client({ name: "v2-interop", version: "1.0.0" }, { capabilities: CAPABILITIES })
  client.setRequestHandler(
    "elicitation/create",
    async (request: any) => after(thinkMillis, () => elicit(request.params)) as any
  )
  client.setRequestHandler("sampling/createMessage", async (request: any) => sample(request.params) as any)
  client.setRequestHandler("roots/list", async () => roots() as any)
  return client
}

/** The trip planner on a free port for the length of `body`. */
const withHttpDemo = async (body: (url: string) => Promise<void>, options: HttpTransport.LayerOptions = {}) => {
  const scope = Effect.runSync(Scope.make())
  try {
    const context = await Effect.runPromise(
      Layer.buildWithScope(HttpTransport.layer({ port: 0, ...options }).pipe(Layer.provide(travel)), scope)
    )
    const url = Effect.runSync(Effect.provide(HttpTransport.url, context))
    await body(url)
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/**
 * The trip planner with keep-alive comments every 40 ms, driven by the client `connect` returns (connected with the given
 * `fetch`, which counts the comments on the SSE answers it hands on): the calls complete, and comments were sent.
 */
const withKeepAlive = (
  connect: (
    url: URL,
    fetch: typeof globalThis.fetch
  ) => Promise<Parameters<typeof driveDemo>[0] & { close(): Promise<void> }>
) =>
  withHttpDemo(async (url) => {
    let comments = 0
    const counting: typeof globalThis.fetch = async (input, init) => {
      const response = await fetch(input, init)
      if (response.body === null || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
        return response
      }
      const [mine, theirs] = response.body.tee()
      // (a stream the client aborts, its GET stream on close, ends this copy with an AbortError too)
      void (async () => {
        const reader = mine.pipeThrough(new TextDecoderStream()).getReader()
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return
          comments += (value.match(/^: keep-alive$/gm) ?? []).length
        }
      })().catch(() => undefined)
      return new Response(theirs, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers
      })
    }
    const client = await connect(new URL(url), counting)
    await driveDemo(client)
    await client.close()
    assert.isAbove(comments, 0)
  }, { sseKeepAlive: "40 millis" })

const stdioParams = {
  command: process.execPath,
  args: [...sourceNodeArgs, stdioServerScript, "travel"],
  cwd: ROOT,
  stderr: "pipe" as const
}

describe("the official v1 client (@modelcontextprotocol/sdk 1.x) on the 2025-11-25 wire", () => {
  it("drives every asking tool, prompt and resource of the trip planner over Streamable HTTP", async () => {
    await withHttpDemo(async (url) => {
      const client = v1()
      const transport = new V1Http(new URL(url))
      await client.connect(transport)
      assert.strictEqual(client.getServerVersion()?.name, "trip-planner")
      assert.match(String(transport.sessionId), /^[\x21-\x7e]+$/)
      await driveDemo(client)
      await transport.terminateSession()
      await client.close()
    })
  }, 60_000)

  it(
    "SSE keep-alive comments on the streams (every 40 ms) while the user takes 150 ms per form: the calls complete",
    async () => {
      await withKeepAlive(async (url, fetch) => {
        const client = v1(150)
        await client.connect(new V1Http(url, { fetch }))
        return client
      })
    },
    60_000
  )

  it("drives every asking tool, prompt and resource of the trip planner over stdio", async () => {
    const client = v1()
    await client.connect(new V1Stdio(stdioParams))
    await driveDemo(client)
    await client.close()
  }, 60_000)
})

describe("the official v2 client (@modelcontextprotocol/client 2.x, default mode) on the 2025-11-25 wire", () => {
  it("drives every asking tool, prompt and resource of the trip planner over Streamable HTTP", async () => {
    await withHttpDemo(async (url) => {
      const client = v2()
      await client.connect(new V2Http(new URL(url)))
      assert.strictEqual(client.getServerVersion()?.name, "trip-planner")
      await driveDemo(client)
      await client.close()
    })
  }, 60_000)

  it(
    "SSE keep-alive comments on the streams (every 40 ms) while the user takes 150 ms per form: the calls complete",
    async () => {
      await withKeepAlive(async (url, fetch) => {
        const client = v2(150)
        await client.connect(new V2Http(url, { fetch }))
        return client
      })
    },
    60_000
  )

  it("drives every asking tool, prompt and resource of the trip planner over stdio", async () => {
    const client = v2()
    await client.connect(new V2Stdio(stdioParams))
    await driveDemo(client)
    await client.close()
  }, 60_000)
})
