/**
 * The 2025-11-25 wire on stdio, beside 2026-07-28 on the same process:
 * `initialize` binds a session to the connection, the shim's server-to-client
 * requests are lines on stdout and their answers lines on stdin, and bad
 * input (initialize twice, unknown or late answers, cancellation) gets the
 * spec's answer while the transport keeps serving. Driven through
 * `StdioTransport.run` with the real server; every line is validated
 * against the official 2025-11-25 schema.
 */
import { describe, expect, it } from "@effect/vitest"
import { LEGACY_SCHEMA_ID, validateWire } from "@mrtr/test-support/wire"
import { type Cause, Effect, Fiber, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { McpServer, StdioTransport } from "../src/index.ts"
import { request as modernRequest } from "./fixtures.ts"
import { CAPS, legacyServer, rpc } from "./legacy-helpers.ts"

const legacy = (def: string, value: unknown) => validateWire(def, value, LEGACY_SCHEMA_ID)
const encoder = new TextEncoder()

const harness = Effect.gen(function*() {
  const input = yield* Queue.unbounded<Uint8Array, Cause.Done>()
  const output = yield* Queue.unbounded<any>()
  const fiber = yield* StdioTransport.run(
    Stream.fromQueue(input),
    (line) => Effect.asVoid(Queue.offer(output, JSON.parse(line)))
  ).pipe(Effect.forkChild)
  const send = (message: unknown) => Queue.offer(input, encoder.encode(JSON.stringify(message) + "\n"))
  const next = Queue.take(output).pipe(Effect.timeout("5 seconds"), Effect.orDie)
  return { send, next, output, fiber, end: Queue.end(input), stop: Effect.andThen(Queue.end(input), Fiber.join(fiber)) }
})

const initialize = (id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: CAPS, clientInfo: { name: "stdio", version: "1" } }
})

describe("2025-11-25 on stdio", () => {
  it.effect("initialize binds the connection; a second initialize is refused; the shim's legs travel as lines", () =>
    Effect.gen(function*() {
      const io = yield* harness
      yield* io.send(initialize())
      const init = yield* io.next
      legacy("InitializeResult", init.result)
      expect(init.result.protocolVersion).toBe("2025-11-25")
      yield* io.send({ jsonrpc: "2.0", method: "notifications/initialized" })
      yield* io.send(initialize(2))
      const again = yield* io.next
      legacy("JSONRPCErrorResponse", again)
      expect(again).toMatchObject({ id: 2, error: { code: -32600 } })

      const call = rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } })
      yield* io.send(call)
      const ask = yield* io.next
      legacy("ElicitRequest", ask)
      // an answer to an id never sent, then the real one, then a duplicate
      yield* io.send({ jsonrpc: "2.0", id: "unknown", result: { action: "accept", content: { name: "X" } } })
      yield* io.send({ jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { name: "Ada" } } })
      yield* io.send({ jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { name: "Dup" } } })
      const done = yield* io.next
      legacy("JSONRPCResultResponse", done)
      expect(done).toMatchObject({ id: call.id, result: { content: [{ type: "text", text: "Hi, Ada!" }] } })
      expect(done.result.resultType).toBeUndefined()

      // the 2026-07-28 wire on the same process, unaffected by the session
      const modern = modernRequest("tools/call", { name: "greet", arguments: { greeting: "Yo" } })
      yield* io.send(modern)
      const suspended = yield* io.next
      validateWire("InputRequiredResult", suspended.result)
      yield* io.stop
      expect(yield* Queue.size(io.output)).toBe(0)
    }).pipe(Effect.provide(legacyServer())))

  it.effect("notifications/cancelled interrupts the call and its pending leg; list changes reach the session's stdout", () =>
    Effect.gen(function*() {
      const io = yield* harness
      yield* io.send(initialize())
      yield* io.next
      const call = rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } })
      yield* io.send(call)
      const ask = yield* io.next
      yield* io.send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: call.id, reason: "user" }
      })
      // a late answer to the withdrawn leg is ignored; the next request is served
      yield* io.send({ jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { name: "late" } } })
      yield* io.send(rpc("ping"))
      const messages = [yield* io.next]
      while (messages.at(-1)!.result === undefined) messages.push(yield* io.next)
      expect(messages.at(-1)!.result).toEqual({})
      expect(messages.some((m) => m.id === call.id)).toBe(false)
      const server = yield* McpServer.McpServer
      yield* server.removeTool("fails")
      const changed = yield* io.next
      legacy("ToolListChangedNotification", changed)
      expect(yield* server.legacySessions).toBe(1)
      yield* io.stop
      // the session ends with its connection
      expect(yield* server.legacySessions).toBe(0)
    }).pipe(Effect.provide(legacyServer())))

  it.effect("the end of input fails at once a 2025-11-25 call waiting for its answers, not after the drain", () =>
    Effect.gen(function*() {
      const io = yield* harness
      yield* io.send(initialize())
      yield* io.next
      yield* io.send({ jsonrpc: "2.0", method: "notifications/initialized" })
      const call = rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } })
      yield* io.send(call)
      legacy("ElicitRequest", yield* io.next)
      yield* io.end
      // well inside the 10 s drain (and the 5 min leg timeout): the transport is done
      yield* TestClock.adjust("1 second")
      const exit = io.fiber.pollUnsafe()
      expect(exit !== undefined && exit._tag === "Success").toBe(true)
      // the call said why it could not finish
      const answer = yield* io.next
      legacy("JSONRPCErrorResponse", answer)
      expect(answer).toMatchObject({ id: call.id, error: { data: { reason: "input_failed" } } })
      expect(answer.error.data.error.message).toBe("The client closed its input")
    }).pipe(Effect.provide(legacyServer())))

  it.effect("the end of input closes a subscriptions/listen at once, not after the drain", () =>
    Effect.gen(function*() {
      const io = yield* harness
      const listen = modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } })
      yield* io.send(listen)
      expect((yield* io.next).method).toBe("notifications/subscriptions/acknowledged")
      yield* io.end
      yield* TestClock.adjust("1 second")
      const exit = io.fiber.pollUnsafe()
      expect(exit !== undefined && exit._tag === "Success").toBe(true)
    }).pipe(Effect.provide(legacyServer())))
  it.effect("the end of input ends a waiting 2025-11-25 call and an open subscriptions/listen together", () =>
    Effect.gen(function*() {
      const io = yield* harness
      yield* io.send(initialize())
      yield* io.next
      yield* io.send({ jsonrpc: "2.0", method: "notifications/initialized" })
      const call = rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } })
      yield* io.send(call)
      legacy("ElicitRequest", yield* io.next)
      const listen = modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } })
      yield* io.send(listen)
      expect((yield* io.next).method).toBe("notifications/subscriptions/acknowledged")
      yield* io.end
      yield* TestClock.adjust("1 second")
      const exit = io.fiber.pollUnsafe()
      expect(exit !== undefined && exit._tag === "Success").toBe(true)
    }).pipe(Effect.provide(legacyServer())))
})
