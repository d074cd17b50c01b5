/**
 * In-memory transport: JSON round trip in both directions, case-insensitive
 * headers, and collecting the messages of a reply.
 */
import { assert, describe, it } from "@effect/vitest"
import { PROTOCOL_VERSION_HEADER } from "@mrtr/protocol/Headers"
import { PROTOCOL_VERSION } from "@mrtr/protocol/Meta"
import { Effect, Exit, Layer, Ref, Stream } from "effect"
import { McpHandler } from "../src/McpHandler.ts"
import * as MemoryTransport from "../src/MemoryTransport.ts"
import type { Handler, Incoming, Reply, WireMessage } from "../src/Transport.ts"

const asRecord = (u: unknown): Record<string, unknown> => (typeof u === "object" && u !== null ? u as any : {})

const makeFake = Effect.gen(function*() {
  const received = yield* Ref.make<Array<Incoming>>([])
  const shared: WireMessage = { jsonrpc: "2.0", id: 1, result: { nested: { n: 1 }, dropped: undefined } }
  const handler: Handler = {
    handle: (incoming): Effect.Effect<Reply> =>
      Effect.andThen(
        Ref.update(received, (all) => [...all, incoming]),
        Effect.sync((): Reply => {
          const message = asRecord(incoming.message)
          const id = message["id"]
          if (id === undefined) return { _tag: "Accepted" }
          switch (message["method"]) {
            case "shared":
              return { _tag: "Response", message: shared, httpStatus: 200 }
            case "stream":
              return {
                _tag: "Stream",
                messages: Stream.make<Array<WireMessage>>(
                  { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } },
                  { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 2 } },
                  { jsonrpc: "2.0", id: id as number, result: { ok: true } },
                  { jsonrpc: "2.0", method: "notifications/message", params: { data: "after the response" } }
                )
              }
            default:
              return {
                _tag: "Response",
                message: {
                  jsonrpc: "2.0",
                  id: id as number,
                  result: {
                    version: incoming.headers?.("mcp-protocol-version") ?? null,
                    principal: incoming.principal ?? null
                  }
                },
                httpStatus: 200
              }
          }
        })
      )
  }
  return { handler, received, shared }
})

describe("MemoryTransport", () => {
  it.effect("send: the reply is JSON round-tripped (no shared objects, no undefined members)", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake
      const channel = MemoryTransport.fromHandler(fake.handler)
      const reply = yield* channel.send({ jsonrpc: "2.0", id: 1, method: "shared" })
      assert.strictEqual(reply._tag, "Response")
      if (reply._tag !== "Response") return
      assert.strictEqual(reply.httpStatus, 200)
      assert.notStrictEqual(reply.message, fake.shared)
      assert.deepStrictEqual(reply.message, { jsonrpc: "2.0", id: 1, result: { nested: { n: 1 } } })
      assert.isFalse("dropped" in asRecord(reply.message["result"]))
    }))

  it.effect("send: the incoming message is round-tripped too; headers are case-insensitive; principal is passed", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake
      const channel = MemoryTransport.fromHandler(fake.handler)
      const params = { date: new Date(0), skip: undefined }
      const messages = yield* channel.request(
        { jsonrpc: "2.0", id: 2, method: "echo", params },
        { [PROTOCOL_VERSION_HEADER]: PROTOCOL_VERSION },
        "alice"
      )
      assert.deepStrictEqual(messages, [{
        jsonrpc: "2.0",
        id: 2,
        result: { version: PROTOCOL_VERSION, principal: "alice" }
      }])
      const [incoming] = yield* Ref.get(fake.received)
      assert.deepStrictEqual(incoming!.message, {
        jsonrpc: "2.0",
        id: 2,
        method: "echo",
        params: { date: "1970-01-01T00:00:00.000Z" }
      })
      assert.strictEqual(incoming!.headers?.("mcp-PROTOCOL-version"), PROTOCOL_VERSION)
    }))

  it.effect("request: a Stream reply is collected up to and including the response", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake
      const channel = MemoryTransport.fromHandler(fake.handler)
      const messages = yield* channel.request({ jsonrpc: "2.0", id: 3, method: "stream" })
      assert.deepStrictEqual(messages.map((m) => m["method"] ?? "response"), [
        "notifications/progress",
        "notifications/progress",
        "response"
      ])
    }))

  it.effect("request: a notification gives no messages", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake
      const channel = MemoryTransport.fromHandler(fake.handler)
      assert.deepStrictEqual(
        yield* channel.request({ jsonrpc: "2.0", method: "notifications/cancelled", params: {} }),
        []
      )
    }))

  it.effect("send dies on a message that is not JSON-serializable", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake
      const channel = MemoryTransport.fromHandler(fake.handler)
      const exit = yield* Effect.exit(channel.send(undefined))
      assert.isTrue(Exit.hasDies(exit))
    }))

  it.effect("layer provides MemoryChannel over McpHandler", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake
      const messages = yield* MemoryTransport.MemoryChannel.use((channel) =>
        channel.request({ jsonrpc: "2.0", id: 4, method: "echo" })
      ).pipe(Effect.provide(MemoryTransport.layer.pipe(Layer.provide(Layer.succeed(McpHandler, fake.handler)))))
      assert.strictEqual(messages[0]!["id"], 4)
    }))
})
