/**
 * Black-box tests of the real server over Streamable HTTP on loopback: every
 * protocol error with its JSON-RPC code and HTTP status (and the server
 * keeps serving after each), hundreds of concurrent multi-round
 * conversations with no crossed state, and conversations that hop between
 * two server instances sharing a key ring.
 */
import { describe, expect, it } from "@effect/vitest"
import { mcpHeaders } from "@mrtr/test-support/http"
import { validateWire } from "@mrtr/test-support/wire"
import { Effect, Layer } from "effect"
import { HttpTransport } from "../src/index.ts"
import { request, serverLayer } from "./fixtures.ts"

const instance = Layer.fresh(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(serverLayer()), Layer.orDie))

/** Starts `n` independent server instances (same key ring, nothing else shared) and returns their URLs. */
const startInstances = (n: number) =>
  Effect.all(Array.from({ length: n }, () =>
    Layer.build(instance).pipe(
      Effect.flatMap((context) => Effect.provide(HttpTransport.url, context))
    )))

const body = request

const post = (url: string, payload: string, headers: Record<string, string>) =>
  Effect.promise(async () => {
    const response = await fetch(url, { method: "POST", body: payload, headers })
    const text = await response.text()
    return { status: response.status, text, json: text === "" ? undefined : JSON.parse(text) }
  })

const rpc = (url: string, message: ReturnType<typeof body>, extra: Record<string, string> = {}) =>
  post(url, JSON.stringify(message), { ...mcpHeaders(message), ...extra })

const expectError = (
  reply: { status: number; json: any },
  code: number,
  status: number,
  id?: number
) => {
  expect(reply.status).toBe(status)
  expect(reply.json.error.code).toBe(code)
  validateWire("JSONRPCErrorResponse", reply.json)
  if (id !== undefined) expect(reply.json.id).toBe(id)
}

describe("Streamable HTTP server, black box", () => {
  it.live(
    "answers every kind of bad input with the spec's code and status, and keeps serving",
    () =>
      Effect.gen(function*() {
        const [url] = yield* startInstances(1)
        const stillServing = Effect.gen(function*() {
          const ok = yield* rpc(url!, body("tools/list"))
          expect(ok.status).toBe(200)
          expect(ok.json.result.tools.length).toBeGreaterThan(0)
        })
        const json = { "content-type": "application/json", accept: "application/json, text/event-stream" }

        expectError(yield* post(url!, "{not json", json), -32700, 400)
        yield* stillServing
        expectError(yield* post(url!, JSON.stringify([body("tools/list")]), json), -32600, 400)
        yield* stillServing
        const noJsonrpc = { id: 41, method: "tools/list", params: {} }
        expectError(yield* post(url!, JSON.stringify(noJsonrpc), json), -32600, 400, 41)
        yield* stillServing
        const unknown = body("unknown/method")
        expectError(yield* rpc(url!, unknown), -32601, 404, unknown.id)
        for (
          const removed of ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]
        ) {
          const message = body(removed)
          expectError(yield* rpc(url!, message), -32601, 404, message.id)
        }
        yield* stillServing
        const noMeta = { jsonrpc: "2.0", id: 42, method: "tools/list", params: {} }
        expectError(
          yield* post(url!, JSON.stringify(noMeta), { ...json, ...mcpHeaders(body("tools/list")) }),
          -32602,
          400,
          42
        )
        yield* stillServing
        const future = body("tools/list")
        ;(future.params._meta as any)["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
        const versionReply = yield* rpc(url!, future, { "mcp-protocol-version": "2099-01-01" })
        expectError(versionReply, -32022, 400, future.id)
        expect(versionReply.json.error.data).toEqual({ supported: ["2026-07-28"], requested: "2099-01-01" })
        yield* stillServing
        const mismatch = body("tools/list")
        expectError(yield* rpc(url!, mismatch, { "mcp-protocol-version": "2025-11-25" }), -32020, 400, mismatch.id)
        const wrongName = body("tools/call", { name: "greet", arguments: { greeting: "Hi" } })
        expectError(yield* rpc(url!, wrongName, { "mcp-name": "plan" }), -32020, 400, wrongName.id)
        yield* stillServing
        const noSampling = body("tools/call", { name: "needs_sampling" }, { elicitation: {} })
        const capability = yield* rpc(url!, noSampling)
        expectError(capability, -32021, 400, noSampling.id)
        expect(capability.json.error.data).toEqual({ requiredCapabilities: { sampling: {} } })
        yield* stillServing
        const forged = body("tools/call", {
          name: "greet",
          arguments: { greeting: "Hi" },
          requestState: "v1.forged.AAAA"
        })
        const forgedReply = yield* rpc(url!, forged)
        // an error of the running method: 200, which every client reads (HttpStatus)
        expectError(forgedReply, -32602, 200, forged.id)
        expect(forgedReply.json.error.message).toBe("Invalid requestState")
        yield* stillServing
        const wrongAnswer = body("tools/call", {
          name: "greet",
          arguments: { greeting: "Hi" },
          inputResponses: { name: { action: "accept", content: { name: 12345 } } }
        })
        const askedAgain = yield* rpc(url!, wrongAnswer)
        expect(askedAgain.status).toBe(200)
        expect(askedAgain.json.result.resultType).toBe("input_required")
        const badArgs = body("tools/call", { name: "greet", arguments: { greeting: 7 } })
        expectError(yield* rpc(url!, badArgs), -32602, 200, badArgs.id)
        yield* stillServing
        const big = body("tools/call", { name: "greet", arguments: { greeting: "x".repeat(5 * 1024 * 1024) } })
        const tooLarge = yield* rpc(url!, big)
        expect(tooLarge.status).toBe(413)
        yield* stillServing
        const wrongType = yield* post(url!, JSON.stringify(body("tools/list")), { "content-type": "text/plain" })
        expect(wrongType.status).toBe(415)
        yield* stillServing
        for (const method of ["GET", "DELETE"]) {
          const response = yield* Effect.promise(() => fetch(url!, { method }))
          expect(response.status).toBe(405)
          expect(response.headers.get("allow")).toBe("POST")
        }
        const rebinding = yield* post(url!, JSON.stringify(body("tools/list")), {
          ...json,
          origin: "http://evil.example"
        })
        expect(rebinding.status).toBe(403)
        yield* stillServing
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  /** Drives the three-round `plan` tool for conversation `i`, each round on a random instance. */
  const converse = (urls: ReadonlyArray<string>, i: number) =>
    Effect.gen(function*() {
      const pick = () => urls[Math.floor(Math.random() * urls.length)]!
      const args = { city: `city-${i}` }
      const call = (extra: Record<string, unknown>) => {
        const message = body("tools/call", { name: "plan", arguments: args, ...extra })
        return rpc(pick(), message).pipe(Effect.map((reply) => {
          expect(reply.status).toBe(200)
          return reply.json.result
        }))
      }
      const r1 = yield* call({})
      expect(Object.keys(r1.inputRequests)).toEqual(["who"])
      expect(r1.inputRequests.who.params.message).toBe(`Who travels to city-${i}?`)
      const r2 = yield* call({
        requestState: r1.requestState,
        inputResponses: { who: { action: "accept", content: { name: `user-${i}` } } }
      })
      expect(Object.keys(r2.inputRequests).sort()).toEqual(["idea", "roots"])
      const roots = Array.from({ length: (i % 3) + 1 }, (_, k) => ({ uri: `file:///u${i}/r${k}` }))
      const r3 = yield* call({
        requestState: r2.requestState,
        inputResponses: {
          idea: { role: "assistant", content: { type: "text", text: `idea-${i}` }, model: "m" },
          roots: { roots }
        }
      })
      expect(r3.inputRequests.confirm.params.message).toBe(`Book for user-${i}?`)
      const done = yield* call({
        requestState: r3.requestState,
        inputResponses: { confirm: { action: "accept", content: { ok: true } } }
      })
      expect(done.resultType).toBe("complete")
      expect(done.ttlMs).toBeUndefined()
      validateWire("CallToolResult", done)
      return done.structuredContent as { who: string; city: string; idea: string; roots: number; ticket: number }
    })

  it.live(
    "hundreds of concurrent multi-round conversations each complete with exactly their own answers",
    () =>
      Effect.gen(function*() {
        const [url] = yield* startInstances(1)
        const n = 300
        const results = yield* Effect.forEach(
          Array.from({ length: n }, (_, i) => i),
          (i) => converse([url!], i),
          { concurrency: 100 }
        )
        results.forEach((result, i) => {
          expect(result).toMatchObject({ who: `user-${i}`, city: `city-${i}`, idea: `idea-${i}`, roots: (i % 3) + 1 })
        })
        // Each conversation's step ran once and its value travelled in its own state.
        expect(new Set(results.map((r) => r.ticket)).size).toBe(n)
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )

  it.live(
    "two instances sharing a key ring: conversations started on one finish on the other",
    () =>
      Effect.gen(function*() {
        const [a, b] = yield* startInstances(2)
        // strictly alternating: round 1 on A, 2 on B, 3 on A, 4 on B
        const message = (extra: Record<string, unknown>) =>
          body("tools/call", { name: "greet", arguments: { greeting: "Hello" }, ...extra })
        const r1 = (yield* rpc(a!, message({}))).json.result
        const done = (yield* rpc(
          b!,
          message({
            requestState: r1.requestState,
            inputResponses: { name: { action: "accept", content: { name: "Grace" } } }
          })
        )).json.result
        expect(done.content).toEqual([{ type: "text", text: "Hello, Grace!" }])
        // and many random hops at once
        const results = yield* Effect.forEach(Array.from({ length: 40 }, (_, i) => i), (i) => converse([a!, b!], i), {
          concurrency: 20
        })
        results.forEach((result, i) => expect(result.who).toBe(`user-${i}`))
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})

describe("Streamable HTTP server, slow clients", () => {
  it.live("a client that never finishes its request is cut off after requestTimeout", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(
        HttpTransport.layer({ port: 0, requestTimeout: "1 second" }).pipe(Layer.provide(serverLayer()), Layer.orDie)
      )
      const url = new URL(yield* Effect.provide(HttpTransport.url, context))
      const { net } = yield* Effect.promise(async () => ({ net: await import("node:net") }))
      const outcome = yield* Effect.promise(() =>
        new Promise<{ readonly status: string; readonly ms: number }>((resolve) => {
          const started = Date.now()
          const socket = net.connect(Number(url.port), url.hostname, () => {
            socket.write(
              `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`
            )
          })
          let received = ""
          socket.on("data", (chunk) => (received += chunk))
          socket.on("close", () => resolve({ status: received.split("\r\n")[0] ?? "", ms: Date.now() - started }))
        })
      )
      expect(outcome.status).toMatch(/408/)
      expect(outcome.ms).toBeLessThan(10_000)
      // and the server still serves
      const ok = yield* rpc(url.href, body("tools/list"))
      expect(ok.status).toBe(200)
    }).pipe(Effect.scoped), { timeout: 30_000 })
})
