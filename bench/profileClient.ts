/**
 * `@mrtr/client`'s CPU per round alone (the client section of `npm run bench`
 * without the servers' throughput runs), to compare builds of the client and
 * to profile it:
 *
 *   npx tsx --conditions=@mrtr/source bench/profileClient.ts [options]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --conditions=@mrtr/source --import tsx \
 *     bench/profileClient.ts --only http --loop 10
 *
 * Measures what `bench/client.ts` measures, the same way: `McpClient` driving
 * the two-round `greet` conversation (one form elicitation, then complete)
 * against an instant stub transport in process (and against the same stub
 * answering on a later turn of the event loop, `inProcessAsyncPerRound`, as
 * a socket does: what the client's fibers and timers cost when its requests
 * really wait), and over HTTP with the
 * shipped transport (`HttpTransport.layerNode`, keep-alive) against our
 * server (`bench/servers.ts` `ours`, compiled with esbuild, in a child
 * process), each next to the raw `node:http` driver of `bench/driver.ts`.
 * CPU is `process.cpuUsage()` (user + system) of this process only.
 *
 * Options:
 * - `--client <path>` (repeatable): a `@mrtr/client` entry module to measure
 *   instead of the workspace's (e.g. a copy of an older `src/index.ts` whose
 *   directory has a `node_modules` link to this repository's); with several,
 *   trials alternate between them (A B A B ...) so noise from other processes
 *   hits all alike;
 * - `--only inprocess|http`, `--trials 5`, `--seconds 1.5` (per trial and
 *   client), `--conversations 2000` (per in-process trial);
 * - `--loop <seconds>`: only drive the client over HTTP for that long (to
 *   profile it with `--cpu-prof`); the server child is not profiled;
 * - `--server <servers.mjs>`: an already compiled `bench/servers.ts` (skips
 *   the compilation; needed when this script itself runs bundled).
 *
 * Prints one JSON line per trial and a summary (the median of the trials)
 * as JSON on the last line.
 */
import { Effect, Layer, Scope, Stream } from "effect"
import { fork } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { replyText } from "./cannedReplies.ts"
import { conversation, roundBodies, runPool, type Target, target } from "./driver.ts"
import { compileServers } from "./processes.ts"

type Client = typeof import("@mrtr/client")

const args = process.argv.slice(2)
const values = (name: string) =>
  args.flatMap((arg, i) => arg === `--${name}` && args[i + 1] !== undefined ? [args[i + 1]!] : [])
const numberOption = (name: string, fallback: number) => {
  const value = Number(values(name)[0])
  return Number.isFinite(value) && value > 0 ? value : fallback
}
const only = values("only")[0]
const trials = numberOption("trials", 5)
const seconds = numberOption("seconds", 1.5)
const conversations = numberOption("conversations", 2000)
const loop = values("loop")[0] === undefined ? undefined : numberOption("loop", 10)

const cpuMicros = () => {
  const usage = process.cpuUsage()
  return usage.user + usage.system
}
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

/** One client build: its conversation, provided with either transport. */
const driverOf = (client: Client) => {
  const { ClientTransport, ElicitationHandler, HttpTransport, McpClient } = client
  const user = ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ name: "Alice" })) })
  const stubOf = (async: boolean) => {
    const answer = (
      message: Parameters<import("@mrtr/client").ClientTransport.ClientTransport["Service"]["request"]>[0]
    ) => {
      JSON.stringify(message)
      return JSON.parse(replyText(message)) as unknown
    }
    return Layer.succeed(
      ClientTransport.ClientTransport,
      ClientTransport.ClientTransport.of({
        kind: "memory",
        usesHeaders: true,
        request: (message) =>
          Stream.fromEffect(
            async
              // the reply arrives on a later turn of the event loop, as a socket's would
              ? Effect.callback<unknown>((resume) => void setImmediate(() => resume(Effect.succeed(answer(message)))))
              : Effect.sync(() => answer(message))
          ),
        notify: () => Effect.void,
        notifications: Stream.never
      })
    )
  }
  const callGreet = Effect.gen(function*() {
    const mcp = yield* McpClient.McpClient
    const result = yield* mcp.callTool({ name: "greet", arguments: {} })
    const first = result.content[0]
    if (first?.type !== "text" || first.text !== "Hello, Alice!") {
      throw new Error(`unexpected ${JSON.stringify(result)}`)
    }
  })
  const clientLayer = (transport: Layer.Layer<import("@mrtr/client").ClientTransport.ClientTransport>) =>
    McpClient.layer({ clientInfo: { name: "bench", version: "1.0.0" } }).pipe(
      Layer.provide(Layer.merge(transport, user))
    )
  return {
    /** µs of CPU per round over `n` conversations (after the same again of warm-up when `warm`). */
    inProcess: (n: number, warm: boolean, async: boolean) =>
      Effect.runPromise(
        Effect.gen(function*() {
          if (warm) { for (let i = 0; i < n; i++) yield* callGreet }
          const c0 = cpuMicros()
          for (let i = 0; i < n; i++) yield* callGreet
          return (cpuMicros() - c0) / n / 2
        }).pipe(Effect.provide(clientLayer(stubOf(async))))
      ),
    /** A runtime holding the HTTP client: `run(ms)` drives conversations for `ms`, returns [µs CPU per round, count]. */
    overHttp: async (url: string) => {
      const scope = await Effect.runPromise(Scope.make())
      const context = await Effect.runPromise(
        Layer.buildWithScope(clientLayer(HttpTransport.layerNode({ url })), scope)
      )
      const run = (ms: number) =>
        Effect.runPromise(
          Effect.gen(function*() {
            let count = 0
            const c0 = cpuMicros()
            const t0 = performance.now()
            while (performance.now() - t0 < ms) {
              yield* callGreet
              count++
            }
            return [(cpuMicros() - c0) / count / 2, count] as const
          }).pipe(Effect.provide(context))
        )
      return { run }
    }
  }
}

const rawInProcess = (n: number) => {
  const once = () => {
    const one = JSON.parse(replyText(JSON.parse(roundBodies.one()))) as { result: { requestState?: string } }
    const two = JSON.parse(replyText(JSON.parse(roundBodies.two(one.result.requestState))))
    if (two.result.content[0].text !== "Hello, Alice!") throw new Error("unexpected")
  }
  for (let i = 0; i < n; i++) once()
  const c0 = cpuMicros()
  for (let i = 0; i < n; i++) once()
  return (cpuMicros() - c0) / n / 2
}

const rawOverHttp = async (raw: Target, ms: number) => {
  const c0 = cpuMicros()
  const { results } = await runPool(Infinity, 1, () => conversation(raw), ms)
  return (cpuMicros() - c0) / results.length / 2
}

const compileServer = (): Promise<string> => compileServers(mkdtempSync(join(tmpdir(), "mrtr-profile-client-")))

const startOurs = async () => {
  const given = values("server")[0]
  const compiled = given ?? await compileServer()
  const child = fork(compiled, ["ours"], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] })
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)))
    child.on("message", (message: { type?: string; url?: string }) => {
      if (message.type === "ready" && message.url !== undefined) resolve(message.url)
    })
  })
  return {
    url,
    stop: () => {
      child.removeAllListeners("exit")
      child.disconnect()
      // the temporary directory of a module compiled here
      if (given === undefined) rmSync(dirname(compiled), { recursive: true, force: true })
    }
  }
}

const main = async () => {
  const paths = values("client")
  const names = paths.length === 0 ? ["workspace"] : paths
  const clients: Array<Client> = paths.length === 0
    ? [await import("@mrtr/client")]
    : await Promise.all(paths.map((path) => import(pathToFileURL(path).href) as Promise<Client>))
  const drivers = clients.map(driverOf)
  const summaryLists: Record<string, Array<number>> = {}
  const record = (name: string, key: string, value: number) => {
    console.log(JSON.stringify({ client: name, [key]: Number(value.toFixed(1)) }))
    ;(summaryLists[`${name}:${key}`] ??= []).push(value)
  }

  if (loop === undefined && only !== "http") {
    for (const driver of drivers) await driver.inProcess(conversations, true, false)
    for (const driver of drivers) await driver.inProcess(conversations, true, true)
    rawInProcess(conversations)
    for (let trial = 0; trial < trials; trial++) {
      for (let i = 0; i < drivers.length; i++) {
        record(names[i]!, "inProcessPerRound", await drivers[i]!.inProcess(conversations, false, false))
        record(names[i]!, "inProcessAsyncPerRound", await drivers[i]!.inProcess(conversations, false, true))
      }
      record("raw", "inProcessPerRound", rawInProcess(conversations))
    }
  }
  if (only !== "inprocess") {
    const server = await startOurs()
    try {
      const raw = target(server.url, 1)
      const https = await Promise.all(drivers.map((driver) => driver.overHttp(server.url)))
      if (loop !== undefined) {
        const [perRound, count] = await https[0]!.run(loop * 1000)
        console.log(JSON.stringify({ loop: { conversations: count, cpuPerRound: Number(perRound.toFixed(1)) } }))
        return
      }
      for (const http of https) await http.run(1000)
      await rawOverHttp(raw, 1000)
      for (let trial = 0; trial < trials; trial++) {
        for (let i = 0; i < https.length; i++) {
          const [perRound] = await https[i]!.run(seconds * 1000)
          record(names[i]!, "httpPerRound", perRound)
        }
        record("raw", "httpPerRound", await rawOverHttp(raw, seconds * 1000))
      }
    } finally {
      server.stop()
    }
  }
  const medians: Record<string, number> = {}
  for (const [key, all] of Object.entries(summaryLists)) medians[key] = Number(median(all).toFixed(1))
  console.log(JSON.stringify({ summary: medians }))
  process.exit(0)
}

void main()
