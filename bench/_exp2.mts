import { Duration, Effect, Layer, Stream } from "effect"
import { constTrue } from "effect/Function"
import { HttpClient, HttpClientRequest } from "effect/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { ClientTransport, ElicitationHandler, HttpTransport, McpClient } from "@mrtr/client"
import { fork } from "node:child_process"
import { conversation, roundBodies, runPool, target } from "./driver.ts"
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system }
const child = fork(process.argv[2]!, ["ours"], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] })
const url = await new Promise<string>((r) => child.on("message", (m: any) => m.type === "ready" && r(m.url)))
const headers = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "greet" }
const nodeLayer = NodeHttpClient.layerNodeHttpOptions({ keepAlive: true })
const alone = Effect.gen(function*() {
  const client = yield* HttpClient.HttpClient
  const post = (body: string) => client.execute(HttpClientRequest.post(url).pipe(HttpClientRequest.setHeaders(headers), HttpClientRequest.bodyText(body, "application/json"))).pipe(Effect.flatMap((r) => r.text), Effect.map((t) => JSON.parse(t)), Effect.provideService(HttpClient.TracerDisabledWhen, constTrue))
  return Effect.gen(function*() {
    const one = yield* post(roundBodies.one())
    const two = yield* post(roundBodies.two(one.result.requestState))
    if (two.result.content[0].text !== "Hello, Alice!") throw new Error("bad")
  })
})
const transportOnly = Effect.gen(function*() {
  const t = yield* ClientTransport.ClientTransport
  const send = (body: string) => Stream.runLast(t.request(JSON.parse(body), headers)).pipe(Effect.map((o: any) => o.value))
  return Effect.gen(function*() {
    const one: any = yield* send(roundBodies.one())
    const two: any = yield* send(roundBodies.two(one.result.requestState))
    if (two.result.content[0].text !== "Hello, Alice!") throw new Error("bad")
  })
})
const user = ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ name: "Alice" })) })
const full = Effect.gen(function*() {
  const mcp = yield* McpClient.McpClient
  return Effect.gen(function*() {
    const r = yield* mcp.callTool({ name: "greet", arguments: {} })
    if ((r.content[0] as any).text !== "Hello, Alice!") throw new Error("bad")
  })
})
const run = (make: Effect.Effect<Effect.Effect<void, any>, any, any>, layer: Layer.Layer<any, any, never>, ms: number) =>
  Effect.runPromise(Effect.gen(function*() {
    const once = yield* make
    const t0 = performance.now(); let n = 0; const c0 = cpu()
    while (performance.now() - t0 < ms) { yield* once; n++ }
    return (cpu() - c0) / n / 2
  }).pipe(Effect.provide(layer), Effect.scoped) as any) as Promise<number>
const variants: Array<[string, any, any]> = [
  ["httpclient", alone, nodeLayer],
  ["transport", transportOnly, HttpTransport.layerNode({ url })],
  ["mcpclient", full, McpClient.layer({ clientInfo: { name: "b", version: "1" } }).pipe(Layer.provide(Layer.merge(HttpTransport.layerNode({ url }), user)))],
  ["mcp-notimers", full, McpClient.layer({ clientInfo: { name: "b", version: "1" }, requestTimeout: Duration.infinity, callTimeout: Duration.infinity }).pipe(Layer.provide(Layer.merge(HttpTransport.layerNode({ url }), user)))]
]
const only = process.env.ONLY
if (only) { console.log(only, (await run(variants.find((v) => v[0] === only)![1], variants.find((v) => v[0] === only)![2], 8000)).toFixed(0)); child.disconnect(); process.exit(0) }
const raw = target(url, 1)
for (let trial = 0; trial < 4; trial++) {
  const row: Array<string> = []
  for (const [name, make, layer] of variants) row.push(`${name} ${(await run(make, layer, 1500)).toFixed(0)}`)
  const c0 = cpu(); const { results } = await runPool(Infinity, 1, () => conversation(raw), 1500)
  row.push(`raw ${((cpu() - c0) / results.length / 2).toFixed(0)}`)
  console.log(row.join("  "))
}
child.disconnect(); process.exit(0)
