/**
 * stdio transport (MCP 2026-07-28, basic/transports): newline-delimited
 * JSON-RPC driven through `StdioTransport.run` with an in-memory input stream
 * and an output queue, plus one `serve` test over a fake `Stdio` service.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Cause } from "effect"
import { Deferred, Effect, Exit, Fiber, Layer, Logger, Queue, Ref, Sink, Stdio, Stream } from "effect"
import { McpHandler } from "../src/McpHandler.ts"
import * as StdioTransport from "../src/StdioTransport.ts"
import type { Handler, Reply, WireMessage } from "../src/Transport.ts"

const encoder = new TextEncoder()
const bytes = (text: string) => encoder.encode(text)

const asRecord = (u: unknown): Record<string, unknown> => (typeof u === "object" && u !== null ? u as any : {})

interface Fake {
  readonly handler: Handler
  /** Methods of every message the handler saw, in order. */
  readonly seen: Ref.Ref<ReadonlyArray<string>>
  /** Opened by the test to let "slow" requests answer. */
  readonly gate: Deferred.Deferred<void>
  /** Completed with the exit of a "hang" request when it ends. */
  readonly hangExit: Deferred.Deferred<Exit.Exit<unknown, unknown>>
}

/**
 * - notifications → Accepted
 * - "slow" → waits for `gate`, then answers
 * - "hang" → never answers; records its exit
 * - "stream" → a notification, then the response
 * - "die" → a defect
 * - anything else → echo
 */
const makeFake = Effect.gen(function*() {
  const seen = yield* Ref.make<ReadonlyArray<string>>([])
  const gate = yield* Deferred.make<void>()
  const hangExit = yield* Deferred.make<Exit.Exit<unknown, unknown>>()
  const handler: Handler = {
    handle: (incoming): Effect.Effect<Reply> => {
      const message = asRecord(incoming.message)
      const id = message["id"]
      const method = String(message["method"])
      const response = (result: unknown): Reply => ({
        _tag: "Response",
        message: { jsonrpc: "2.0", id, result },
        httpStatus: 200
      })
      return Effect.andThen(
        Ref.update(seen, (all) => [...all, method]),
        Effect.suspend((): Effect.Effect<Reply> => {
          if (id === undefined) return Effect.succeed({ _tag: "Accepted" })
          switch (method) {
            case "slow":
              return Effect.as(Deferred.await(gate), response({ slow: true }))
            case "hang":
              return Effect.never.pipe(Effect.onExit((exit) => Deferred.succeed(hangExit, exit)))
            case "die":
              return Effect.die(new Error("boom"))
            case "stream":
              return Effect.succeed({
                _tag: "Stream",
                messages: Stream.make<Array<WireMessage>>(
                  { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } },
                  { jsonrpc: "2.0", id: id as number, result: { streamed: true } }
                )
              })
            default:
              return Effect.succeed(response({ echo: message["params"] ?? null }))
          }
        })
      )
    }
  }
  return { handler, seen, gate, hangExit } satisfies Fake
})

/** Runs the transport over a queue-fed input; returns the input controls and the output queue. */
const start = (options: StdioTransport.Options = {}) =>
  Effect.gen(function*() {
    const fake = yield* makeFake
    const input = yield* Queue.unbounded<Uint8Array, Cause.Done>()
    const output = yield* Queue.unbounded<string>()
    const fiber = yield* StdioTransport.run(
      Stream.fromQueue(input),
      (line) => Effect.asVoid(Queue.offer(output, line)),
      options
    ).pipe(Effect.provide(Layer.succeed(McpHandler, fake.handler)), Effect.forkScoped)
    const write = (text: string) => Queue.offer(input, bytes(text))
    const next = Effect.map(Queue.take(output), (line) => JSON.parse(line) as Record<string, any>)
    return { fake, input, output, fiber, write, next }
  })

const req = (id: number | string, method: string, params: unknown = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"

describe("StdioTransport.run", () => {
  it.effect("answers a request with one line", () =>
    Effect.gen(function*() {
      const t = yield* start()
      yield* t.write(req(1, "tools/call", { name: "x" }))
      assert.deepStrictEqual(yield* t.next, { jsonrpc: "2.0", id: 1, result: { echo: { name: "x" } } })
    }))

  it.effect("-32700 line for a line that is not JSON; blank lines ignored; keeps serving", () =>
    Effect.gen(function*() {
      const t = yield* start()
      yield* t.write("\n   \n\r\n{not json\n")
      const error = yield* t.next
      assert.deepStrictEqual(error, { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } })
      yield* t.write(req(2, "echo"))
      assert.strictEqual((yield* t.next).id, 2)
      assert.strictEqual(yield* Queue.size(t.output), 0)
    }))

  it.effect("-32600 line for an oversized line, without buffering it; keeps serving", () =>
    Effect.gen(function*() {
      const t = yield* start({ maxLineBytes: 64 })
      // The long line arrives in pieces; the first piece alone is already over the limit.
      yield* t.write(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"pad":"${"x".repeat(100)}`)
      yield* t.write(`${"y".repeat(100)}"}}\n`)
      const error = yield* t.next
      assert.strictEqual(error.error.code, -32600)
      assert.isFalse("id" in error)
      yield* t.write(req(3, "echo"))
      assert.strictEqual((yield* t.next).id, 3)
    }))

  it.effect("reassembles lines split across chunks (including a split UTF-8 character) and CRLF", () =>
    Effect.gen(function*() {
      const t = yield* start()
      const line = bytes(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "echo", params: { s: "héllo €" } }) + "\r\n")
      const cut = line.indexOf(0xe2) + 1 // inside the 3-byte "€"
      yield* Queue.offer(t.input, line.slice(0, 10))
      yield* Queue.offer(t.input, line.slice(10, cut))
      yield* Queue.offer(t.input, line.slice(cut))
      assert.deepStrictEqual(yield* t.next, { jsonrpc: "2.0", id: 4, result: { echo: { s: "héllo €" } } })
    }))

  it.effect("handles requests concurrently: a slow request does not block a fast one", () =>
    Effect.gen(function*() {
      const t = yield* start()
      yield* t.write(req(1, "slow") + req(2, "echo"))
      assert.strictEqual((yield* t.next).id, 2)
      yield* Deferred.succeed(t.fake.gate, undefined)
      assert.deepStrictEqual(yield* t.next, { jsonrpc: "2.0", id: 1, result: { slow: true } })
    }))

  it.effect("notifications/cancelled interrupts the in-flight request; the notification still reaches the handler", () =>
    Effect.gen(function*() {
      const t = yield* start()
      yield* t.write(req("abc", "hang"))
      yield* t.write(
        JSON.stringify({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: "abc", reason: "user" }
        }) + "\n"
      )
      const exit = yield* Deferred.await(t.fake.hangExit)
      assert.isTrue(Exit.hasInterrupts(exit))
      yield* t.write(req(5, "echo"))
      assert.strictEqual((yield* t.next).id, 5, "no response for the cancelled request")
      assert.deepStrictEqual(yield* Ref.get(t.fake.seen), ["hang", "notifications/cancelled", "echo"])
    }))

  it.effect("cancelling an unknown id or a different id does nothing", () =>
    Effect.gen(function*() {
      const t = yield* start()
      yield* t.write(req(1, "slow"))
      yield* t.write(
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "1" } }) + "\n"
      )
      yield* t.write(req(2, "echo"))
      assert.strictEqual((yield* t.next).id, 2)
      yield* Deferred.succeed(t.fake.gate, undefined)
      assert.strictEqual((yield* t.next).id, 1, "string \"1\" does not cancel numeric id 1")
    }))

  it.effect("a Stream reply is written as one line per message", () =>
    Effect.gen(function*() {
      const t = yield* start()
      yield* t.write(req(6, "stream"))
      assert.strictEqual((yield* t.next).method, "notifications/progress")
      assert.deepStrictEqual(yield* t.next, { jsonrpc: "2.0", id: 6, result: { streamed: true } })
    }))

  it.effect("notifications get no output", () =>
    Effect.gen(function*() {
      const t = yield* start()
      yield* t.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n")
      yield* t.write(req(7, "echo"))
      assert.strictEqual((yield* t.next).id, 7)
      assert.strictEqual(yield* Queue.size(t.output), 0)
    }))

  it.effect("a dispatcher defect becomes a -32603 response for that request", () =>
    Effect.gen(function*() {
      const t = yield* start()
      yield* t.write(req(8, "die"))
      const error = yield* t.next
      assert.strictEqual(error.id, 8)
      assert.strictEqual(error.error.code, -32603)
    }).pipe(Effect.provide(Logger.layer([]))))

  it.effect("at end of input: a last line without a line break is handled, in-flight requests drain, then run completes", () =>
    Effect.gen(function*() {
      const t = yield* start()
      yield* t.write(req(1, "slow") + JSON.stringify({ jsonrpc: "2.0", id: 2, method: "echo" }))
      yield* Queue.end(t.input)
      assert.strictEqual((yield* t.next).id, 2)
      assert.isUndefined(t.fiber.pollUnsafe(), "still draining")
      yield* Deferred.succeed(t.fake.gate, undefined)
      assert.strictEqual((yield* t.next).id, 1)
      yield* Fiber.join(t.fiber)
    }))
})

describe("StdioTransport.serve", () => {
  it.effect("reads stdin and writes newline-terminated JSON-RPC lines to stdout", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake
      const written: Array<string> = []
      const stdio = Stdio.layerTest({
        stdin: Stream.make(bytes(req(1, "echo") + "oops\n" + req(2, "stream"))),
        stdout: () =>
          Sink.forEach((chunk: string | Uint8Array) =>
            Effect.sync(() => {
              written.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk))
            })
          )
      })
      yield* StdioTransport.serve().pipe(Effect.provide([Layer.succeed(McpHandler, fake.handler), stdio]))
      const out = written.join("")
      assert.isTrue(out.endsWith("\n"))
      const lines = out.trimEnd().split("\n").map((l) => JSON.parse(l))
      assert.strictEqual(lines.length, 4)
      assert.deepStrictEqual(lines.find((l) => l.id === 1), { jsonrpc: "2.0", id: 1, result: { echo: {} } })
      assert.strictEqual(lines.find((l) => l.error)?.error.code, -32700)
      assert.deepStrictEqual(lines.filter((l) => l.id === 2 || l.method).map((l) => l.method ?? "response"), [
        "notifications/progress",
        "response"
      ])
    }))
})
