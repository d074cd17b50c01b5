/**
 * stdio transport (MCP 2026-07-28, basic/transports): spawns a tiny server
 * script with `node`, runs an MRTR call over newline-delimited JSON,
 * correlates responses by id, routes notifications, cancels abandoned
 * requests, and owns the process lifetime.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Ref, Stream } from "effect"
import { fileURLToPath } from "node:url"
import * as ElicitationHandler from "../src/ElicitationHandler.ts"
import type { TransportError } from "../src/Errors.ts"
import * as McpClient from "../src/McpClient.ts"
import * as StdioTransport from "../src/StdioTransport.ts"

const script = fileURLToPath(new URL("./stdio-server.mjs", import.meta.url))

const clientLayer = (env: Record<string, string> = {}) =>
  McpClient.layer({ protocol: "2026-07-28" }).pipe(
    Layer.provide(
      StdioTransport.layerNode({ command: process.execPath, args: [script], env, shutdownTimeout: "300 millis" })
    ),
    Layer.provide(ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ name: "Ada" })) }))
  )

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const waitUntilDead = (pid: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100 && isAlive(pid); i++) yield* Effect.sleep("20 millis")
    return !isAlive(pid)
  })

describe("StdioTransport", () => {
  it.live("runs a multi-round call and routes notifications", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const [result, unsolicited] = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const collector = yield* client.notifications.pipe(
          Stream.filter((n) => n.request === undefined),
          Stream.take(1),
          Stream.runCollect,
          Effect.forkChild
        )
        yield* Effect.sleep("10 millis")
        const result = yield* client.callTool(
          { name: "ask" },
          { progressToken: 7, onNotification: (n) => Ref.update(seen, (all) => [...all, n.method]) }
        )
        return [result, yield* Fiber.join(collector)] as const
      }).pipe(Effect.provide(clientLayer()))
      assert.strictEqual(textOf(result), "Hello, Ada!")
      // the progress notification carried this call's token; the log did not
      assert.deepStrictEqual(yield* Ref.get(seen), ["notifications/progress"])
      assert.deepStrictEqual(unsolicited.map((n) => n.method), ["notifications/message"])
    }))

  it.live("an abandoned request is cancelled with notifications/cancelled", () =>
    Effect.gen(function*() {
      const cancelled = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const slow = yield* client.callTool({ name: "slow" }).pipe(Effect.timeoutOption("100 millis"))
        assert.isTrue(slow._tag === "None")
        return JSON.parse(textOf(yield* client.callTool({ name: "cancelled" })))
      }).pipe(Effect.provide(clientLayer()))
      assert.strictEqual(cancelled.length, 1)
    }))

  it.live("the process is stopped when the scope closes", () =>
    Effect.gen(function*() {
      const pid = yield* McpClient.McpClient.use((c) => c.callTool({ name: "pid" })).pipe(
        Effect.map((r) => Number(textOf(r))),
        Effect.provide(clientLayer())
      )
      assert.isTrue(yield* waitUntilDead(pid))
      // A server that ignores the end of stdin is killed after the grace period.
      const stubborn = yield* McpClient.McpClient.use((c) => c.callTool({ name: "pid" })).pipe(
        Effect.map((r) => Number(textOf(r))),
        Effect.provide(clientLayer({ STUBBORN: "1" }))
      )
      assert.isTrue(yield* waitUntilDead(stubborn))
    }))

  it.live("a request in flight fails with TransportError when the process exits", () =>
    Effect.gen(function*() {
      const [exited, after] = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const exited = yield* Effect.flip(client.callTool({ name: "exit" }))
        const after = yield* Effect.flip(client.callTool({ name: "pid" }))
        return [exited, after] as const
      }).pipe(Effect.provide(clientLayer()))
      assert.strictEqual(exited._tag, "TransportError")
      assert.strictEqual(after._tag, "TransportError")
    }))

  it.live("a process that dies says how: the exit code, the tail of its stderr (also passed to onStderr)", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const error = yield* McpClient.McpClient.use((client) => Effect.flip(client.callTool({ name: "pid" }))).pipe(
        Effect.provide(
          McpClient.layer().pipe(
            Layer.provide(StdioTransport.layerNode({
              command: process.execPath,
              args: ["-e", "for (let i = 1; i <= 30; i++) console.error('line ' + i); process.exit(5)"],
              shutdownTimeout: "300 millis",
              onStderr: (text) => Effect.sync(() => void seen.push(text))
            }))
          )
        )
      )
      assert.strictEqual(error._tag, "TransportError")
      const transport = error as TransportError
      assert.strictEqual(transport.reason, "The MCP server process exited with code 5")
      // the last 20 lines, in order
      assert.deepStrictEqual(transport.stderr?.split("\n"), Array.from({ length: 20 }, (_, i) => `line ${i + 11}`))
      assert.include(seen.join(""), "line 1\n")
      assert.include(seen.join(""), "line 30\n")
    }))

  it.live("a command that cannot be spawned is named, with its system code", () =>
    Effect.gen(function*() {
      const error = yield* McpClient.McpClient.use((client) => client.callTool({ name: "pid" })).pipe(
        Effect.provide(
          McpClient.layer().pipe(
            Layer.provide(StdioTransport.layerNode({ command: "mrtr-no-such-command", args: ["--x"] }))
          )
        ),
        Effect.flip
      )
      assert.strictEqual(error._tag, "TransportError")
      assert.match(error.message, /^Cannot spawn the MCP server process 'mrtr-no-such-command --x': ENOENT/)
    }))

  it.live("a line longer than maxLineBytes ends the connection with a TransportError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        return yield* Effect.flip(client.callTool({ name: "flood" }))
      }).pipe(Effect.provide(
        McpClient.layer({ protocol: "2026-07-28" }).pipe(
          Layer.provide(StdioTransport.layerNode({
            command: process.execPath,
            args: [script],
            shutdownTimeout: "300 millis",
            maxLineBytes: 1024 * 1024
          }))
        )
      ))
      assert.strictEqual(error._tag, "TransportError")
      assert.match((error as { reason: string }).reason, /longer than 1048576/)
    }))
})
