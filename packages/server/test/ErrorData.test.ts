/**
 * Error `data` is bounded on the wire as error messages are: a string copied
 * from the request (a resource URI, a requested protocol version, the error a
 * client answered a 2025-11-25 elicitation with) comes back cut, saying how
 * long it was, never in full. Every reply is validated against the official
 * JSON Schema of its revision.
 */
import { describe, expect, it } from "@effect/vitest"
import { boundErrorData, MAX_ERROR_DATA_LENGTH, MAX_ERROR_MESSAGE_LENGTH } from "@mrtr/protocol/ErrorCode"
import { LEGACY_SCHEMA_ID, validateWire } from "@mrtr/test-support/wire"
import type { Cause } from "effect"
import { Effect, Fiber, Queue, Stream } from "effect"
import { McpServer, StdioTransport, type Transport } from "../src/index.ts"
import { request, serverLayer } from "./fixtures.ts"
import { CAPS, legacyServer, rpc } from "./legacy-helpers.ts"

const handle = (message: unknown) => McpServer.McpServer.use((server) => server.handle({ message }))

const errorOf = (reply: Transport.Reply, schema?: string) => {
  expect(reply._tag).toBe("Response")
  if (reply._tag !== "Response") throw new Error("unreachable")
  validateWire("JSONRPCErrorResponse", reply.message, schema)
  return (reply.message as unknown as { error: { code: number; message: string; data?: any } }).error
}

/** A string of `n` characters copied back: cut at the message bound, saying how long it was. */
const expectCut = (text: unknown, original: string) => {
  expect(typeof text).toBe("string")
  const s = text as string
  expect(s.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_LENGTH)
  expect(original.startsWith(s.slice(0, 100))).toBe(true)
  expect(s.endsWith(`(${original.length} characters in all)`)).toBe(true)
}

const megabyte = "x".repeat(1_000_000)

describe("error data bounded on the wire", () => {
  it.effect("2026-07-28 resources/read of an unknown megabyte URI: data.uri is cut", () =>
    Effect.gen(function*() {
      const uri = `test://nowhere/${megabyte}`
      const error = errorOf(yield* handle(request("resources/read", { uri })))
      expect(error.code).toBe(-32602)
      expectCut(error.data.uri, uri)
      expect(JSON.stringify(error).length).toBeLessThan(3 * MAX_ERROR_MESSAGE_LENGTH)
      // a short one is kept as it is
      const short = errorOf(yield* handle(request("resources/read", { uri: "test://nowhere" })))
      expect(short.data).toEqual({ uri: "test://nowhere" })
    }).pipe(Effect.provide(serverLayer())))

  it.effect("2026-07-28 unsupported protocol version of a megabyte: data.requested is cut", () =>
    Effect.gen(function*() {
      const version = `2026-${megabyte}`
      const message = request("tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": version } })
      const error = errorOf(yield* handle(message))
      expect(error.code).toBe(-32022)
      expectCut(error.data.requested, version)
      expect(error.data.supported).toContain("2026-07-28")
    }).pipe(Effect.provide(serverLayer())))

  it.effect("a megabyte method name: -32601 on both eras, its message cut, never the name in full", () =>
    Effect.gen(function*() {
      const method = `tools/${megabyte}`
      const error = errorOf(yield* handle(request(method)))
      expect(error.code).toBe(-32601)
      expectCut(error.message, `Method not found: ${method}`)
      expect(JSON.stringify(error).length).toBeLessThan(3 * MAX_ERROR_MESSAGE_LENGTH)
      const io = yield* stdio
      yield* io.send(initialize)
      yield* io.next
      yield* io.send(rpc(method, {}))
      const answer = yield* io.next
      validateWire("JSONRPCErrorResponse", answer, LEGACY_SCHEMA_ID)
      expect(answer.error.code).toBe(-32601)
      expect(JSON.stringify(answer.error).length).toBeLessThan(3 * MAX_ERROR_MESSAGE_LENGTH)
      yield* io.stop
    }).pipe(Effect.provide(legacyServer())))

  it.effect("2025-11-25 resources/read of an unknown megabyte URI: data.uri of -32002 is cut", () =>
    Effect.gen(function*() {
      const io = yield* stdio
      yield* io.send(initialize)
      yield* io.next
      const uri = `test://nowhere/${megabyte}`
      yield* io.send(rpc("resources/read", { uri }))
      const answer = yield* io.next
      validateWire("JSONRPCErrorResponse", answer, LEGACY_SCHEMA_ID)
      expect(answer.error.code).toBe(-32002)
      expectCut(answer.error.data.uri, uri)
      yield* io.stop
    }).pipe(Effect.provide(legacyServer())))

  it.effect("2025-11-25 elicitation answered with a huge, deep error: data.error is bounded", () =>
    Effect.gen(function*() {
      const io = yield* stdio
      yield* io.send(initialize)
      yield* io.next
      const call = rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } })
      yield* io.send(call)
      const ask = yield* io.next
      let deep: unknown = "bottom"
      for (let i = 0; i < 100; i++) deep = { deeper: deep }
      const clientError = {
        code: -32000,
        message: megabyte,
        data: { echo: megabyte, list: Array.from({ length: 100_000 }, (_, i) => i), deep }
      }
      yield* io.send({ jsonrpc: "2.0", id: ask.id, error: clientError })
      const answer = yield* io.next
      validateWire("JSONRPCErrorResponse", answer, LEGACY_SCHEMA_ID)
      expect(answer).toMatchObject({ id: call.id, error: { data: { reason: "input_failed", key: "name" } } })
      const echoed = answer.error.data.error
      expectCut(echoed.message, megabyte)
      expect(JSON.stringify(answer.error).length).toBeLessThan(2 * MAX_ERROR_DATA_LENGTH)
      yield* io.stop
    }).pipe(Effect.provide(legacyServer())))
})

describe("boundErrorData", () => {
  it("keeps data within the bounds as it is (the same value)", () => {
    const data = { uri: "test://a", supported: ["2026-07-28"], n: 1, ok: true, none: null }
    expect(boundErrorData(data)).toBe(data)
    expect(boundErrorData("short")).toBe("short")
  })

  it("cuts each long string, key included, without splitting a surrogate pair", () => {
    const long = "😀".repeat(2000)
    const bounded = boundErrorData({ [long]: long }) as Record<string, string>
    const [key, value] = Object.entries(bounded)[0]!
    expectCut(key, long)
    expect(value.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_LENGTH)
    expect((value as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(true)
  })

  it("bounds the whole: many entries are dropped and counted; deep values become a marker", () => {
    const many = boundErrorData(Array.from({ length: 20_000 }, () => "abcdefgh")) as Array<string>
    expect(many.length).toBeLessThan(1000)
    expect(many.at(-1)).toMatch(/^… \(\d+ more items\)$/)
    const keys = boundErrorData(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])))
    expect(JSON.stringify(keys).length).toBeLessThan(2 * MAX_ERROR_DATA_LENGTH)
    expect((keys as Record<string, string>)["…"]).toMatch(/^\d+ more keys$/)
    let deep: unknown = "bottom"
    for (let i = 0; i < 19_000; i++) deep = [deep]
    expect(JSON.stringify(boundErrorData(deep)).length).toBeLessThan(100)
  })
})

const initialize = {
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: CAPS, clientInfo: { name: "stdio", version: "1" } }
}

const stdio = Effect.gen(function*() {
  const encoder = new TextEncoder()
  const input = yield* Queue.unbounded<Uint8Array, Cause.Done>()
  const output = yield* Queue.unbounded<any>()
  const fiber = yield* StdioTransport.run(
    Stream.fromQueue(input),
    (line) => Effect.asVoid(Queue.offer(output, JSON.parse(line)))
  ).pipe(Effect.forkChild)
  const send = (message: unknown) => Queue.offer(input, encoder.encode(JSON.stringify(message) + "\n"))
  const next = Queue.take(output).pipe(Effect.timeout("5 seconds"), Effect.orDie)
  return { send, next, stop: Effect.andThen(Queue.end(input), Fiber.join(fiber)) }
})
