/**
 * `npm run bench:request-work`: how long one legal but costly request
 * blocks the server's event loop (a report on stdout, not a test).
 *
 * Our server (`HttpTransport.layer` + `McpServer`, tool `greet` with one
 * string parameter, whose first round asks a form) runs in this process; a
 * raw `node:http` client posts `tools/call greet` bodies of about 4 MB of
 * different shapes, one at a time, and `perf_hooks.monitorEventLoopDelay`
 * records the longest stall of the event loop while each is served (every
 * other request waits that long). Reported per shape: body size, the longest
 * stall, the stall per MB, and the answer (`-32602` when refused, else the
 * result type).
 *
 * Shapes: one long string (the floor: JSON.parse only), 250,000 argument
 * keys (the case of issue 11, item 9), 250,000 array elements, 60,000 small
 * objects, deep nesting at the depth limit.
 *
 * Options: `--repeat 5` (runs per shape; the best and the worst are shown).
 */
import { Elicitation, RequestState } from "@mrtr/core"
import { HttpTransport, McpServer, Tool } from "@mrtr/server"
import { Effect, Layer, Schema } from "effect"
import { randomBytes } from "node:crypto"
import * as Http from "node:http"
import { monitorEventLoopDelay } from "node:perf_hooks"

const args = process.argv.slice(2)
const repeatIndex = args.indexOf("--repeat")
const repeat = repeatIndex < 0 ? 5 : Math.max(1, Number(args[repeatIndex + 1]) || 5)

const greet = Tool.make("greet", {
  parameters: Schema.Struct({ greeting: Schema.String }),
  handler: ({ greeting }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({
        key: "name",
        message: "Your name?",
        schema: Schema.Struct({ name: Schema.String })
      })
      return `${greeting}, ${name}!`
    })
})

const server = McpServer.tools(greet).pipe(
  Layer.provideMerge(McpServer.layer({
    name: "bench-request-work",
    version: "1.0.0",
    requestState: RequestState.RequestStateCodec.layer({
      keyRing: RequestState.KeyRing.fromBytes([{ id: "bench", bytes: randomBytes(32) }])
    }).pipe(Layer.orDie)
  }))
)

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} }
}

const body = (args: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "greet", arguments: args, _meta: meta }
  })

const FOUR_MB = 4 * 1024 * 1024 - 4096

const shapes: ReadonlyArray<readonly [string, () => string]> = [
  ["one 4 MB string", () => body({ greeting: "x".repeat(FOUR_MB - 300) })],
  ["250,000 argument keys", () => {
    const args: Record<string, unknown> = { greeting: "Hi" }
    for (let i = 0; i < 250_000; i++) args[`k${i}`] = 1
    return body(args)
  }],
  ["19,000 argument keys", () => {
    const args: Record<string, unknown> = { greeting: "Hi" }
    for (let i = 0; i < 19_000; i++) args[`k${i}`] = "x".repeat(180)
    return body(args)
  }],
  ["19,000 values nested 60 deep", () => {
    let deep: unknown = "x".repeat(3000)
    for (let i = 0; i < 60; i++) deep = [deep]
    return body({ greeting: "Hi", deep: Array.from({ length: 300 }, () => deep) })
  }],
  ["250,000 array elements", () => body({ greeting: "Hi", list: Array.from({ length: 250_000 }, (_, i) => i % 10) })],
  [
    "60,000 small objects",
    () => body({ greeting: "Hi", list: Array.from({ length: 60_000 }, (_, i) => ({ a: i, b: "x" })) })
  ],
  ["nesting at the depth limit", () => {
    let deep: unknown = "x"
    for (let i = 0; i < 60; i++) deep = [deep]
    return body({ greeting: "Hi", deep: Array.from({ length: 20_000 }, () => deep) })
  }]
]

const post = (url: URL, payload: string) =>
  new Promise<string>((resolve, reject) => {
    const req = Http.request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "POST",
      agent: false,
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "content-length": Buffer.byteLength(payload),
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "greet"
      }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk) => (text += chunk))
      res.on("end", () => resolve(text))
    })
    req.on("error", reject)
    req.end(payload)
  })

const answerOf = (text: string): string => {
  try {
    const json = JSON.parse(text)
    return json.error !== undefined
      ? `${json.error.code} ${String(json.error.message).slice(0, 50)}`
      : String(json.result?.resultType)
  } catch {
    return text.slice(0, 40)
  }
}

const main = Effect.gen(function*() {
  const url = new URL(yield* HttpTransport.url)
  const rows: Array<string> = []
  for (const [name, make] of shapes) {
    const payload = make()
    const mb = Buffer.byteLength(payload) / (1024 * 1024)
    const stalls: Array<number> = []
    let answer = ""
    for (let i = 0; i < repeat; i++) {
      const histogram = monitorEventLoopDelay({ resolution: 1 })
      histogram.enable()
      const text = yield* Effect.promise(() => post(url, payload))
      histogram.disable()
      answer = answerOf(text)
      stalls.push(histogram.max / 1e6)
    }
    stalls.sort((a, b) => a - b)
    const best = stalls[0]!
    const worst = stalls[stalls.length - 1]!
    rows.push(
      `${name.padEnd(28)} ${mb.toFixed(2).padStart(5)} MB  stall ${best.toFixed(1).padStart(6)}–${
        worst.toFixed(1).padEnd(6)
      } ms` +
        `  ${(best / mb).toFixed(1).padStart(5)} ms/MB  → ${answer}`
    )
  }
  console.log(`Event-loop stall while one request is served (best–worst of ${repeat}, node ${process.version})`)
  for (const row of rows) console.log(row)
}).pipe(Effect.provide(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(server), Layer.orDie)))

Effect.runPromise(main).then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
