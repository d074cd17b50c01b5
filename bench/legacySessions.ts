/**
 * `npm run bench:legacy-sessions`: the memory of 2025-11-25 sessions, and
 * that it returns to its baseline once they end. Opens `--sessions` sessions
 * through the dispatcher (as Streamable HTTP hands them over: `initialize`,
 * then `Mcp-Session-Id`), each with a `tools/call` suspended on an
 * unanswered elicitation (one pending server-to-client request), measures
 * the heap, ends every session with DELETE and measures again. Not a test:
 * prints one line per phase.
 *
 * Options: `--sessions 2000`, `--cycles 3` (the first also warms caches up).
 */
import { Elicitation } from "@mrtr/core"
import { McpServer, Tool, type Transport } from "@mrtr/server"
import { Effect, Fiber, Layer, Schema, Stream } from "effect"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const sessions = arg("sessions", 2000)
const cycles = arg("cycles", 3)
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error("run with --expose-gc")
const heap = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

const greet = Tool.make("greet", {
  handler: () =>
    Effect.map(
      Elicitation.form({ key: "name", message: "Your name?", schema: Schema.Struct({ name: Schema.String }) }),
      ({ name }) => `Hello, ${name}!`
    )
})

const server = McpServer.tools(greet).pipe(
  Layer.provideMerge(McpServer.layer({ name: "bench", version: "1", legacy: { maxSessions: sessions } }))
)

const headers = (values: Record<string, string>) => (name: string) => values[name.toLowerCase()]
const accept = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" }

Effect.runPromise(
  Effect.gen(function*() {
    const mcp = yield* McpServer.McpServer
    const handle = (incoming: Transport.Incoming) => mcp.handle(incoming)
    const cycle = (label: string, before: number) =>
      Effect.gen(function*() {
        const ids: Array<string> = []
        const calls: Array<Fiber.Fiber<unknown>> = []
        for (let i = 0; i < sessions; i++) {
          const init = yield* handle({
            message: {
              jsonrpc: "2.0",
              id: 1,
              method: "initialize",
              params: {
                protocolVersion: "2025-11-25",
                capabilities: { elicitation: {} },
                clientInfo: { name: "b", version: "1" }
              }
            },
            headers: headers(accept),
            canStream: true
          })
          const id = init._tag === "Response" ? init.headers?.["mcp-session-id"] : undefined
          if (id === undefined) throw new Error("initialize gave no session")
          ids.push(id)
          const reply = yield* handle({
            message: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "greet" } },
            headers: headers({ ...accept, "mcp-session-id": id }),
            canStream: true
          })
          if (reply._tag !== "Stream") throw new Error("the call did not suspend on its elicitation")
          // the client's side of the stream: read (and hold) it while the leg waits
          calls.push(yield* Effect.forkDetach(Stream.runDrain(reply.messages)))
        }
        yield* Effect.sleep("200 millis")
        const open = heap()
        console.log(
          `${label}: ${sessions} sessions, each with a call waiting for its elicitation: ${
            ((open - before) / sessions).toFixed(0)
          } bytes per session ` +
            `(${((open - before) / 1024 / 1024).toFixed(1)} MiB), open sessions: ${yield* mcp.legacySessions}`
        )
        for (const id of ids) {
          yield* handle({
            message: undefined,
            httpMethod: "DELETE",
            headers: headers({ ...accept, "mcp-session-id": id })
          })
        }
        yield* Effect.forEach(calls, Fiber.await, { discard: true })
        calls.length = 0
        const after = heap()
        console.log(
          `${label}: after DELETE of every session ${
            ((after - before) / 1024).toFixed(0)
          } KiB above the heap before it, open sessions: ${yield* mcp.legacySessions}`
        )
        return after
      })
    // The first cycle also warms caches up (compiled code, digests of the same question); the second shows the steady state.
    let last = heap()
    for (let i = 1; i <= cycles; i++) last = yield* cycle(`cycle ${i}`, last)
  }).pipe(Effect.scoped, Effect.provide(server))
)
