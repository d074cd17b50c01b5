/**
 * `npm run bench`: the benchmark report (a table on stdout, not a test).
 *
 * The same two-round elicitation tool `greet` (round 1: `input_required` with
 * one form elicitation `name`; round 2: complete with `Hello, <name>!`) served
 * over Streamable HTTP on 127.0.0.1 by three servers, each in its own child
 * process (`bench/servers.ts`, compiled with esbuild into one JavaScript
 * module first and run on plain `node`, as deployed):
 *
 * - `ours`: this runtime (`Tool.make` + `Elicitation.form`, sealed journal);
 * - `effect-ai`: the same tool by hand on effect's own `effect/ai` `McpServer`
 *   (`layerHttp`, `McpProtocol.v2026_07_28`, HMAC'ed `requestState`);
 * - `bare`: `node:http` answering the two round trips with fixed JSON (the floor);
 *
 * plus two reference floors that explain the gap to `bare`: effect/http alone
 * answering the fixed JSON, and our `HttpTransport` in front of a dispatcher
 * answering the fixed JSON.
 *
 * The load generator (`bench/driver.ts`, raw `node:http` with keep-alive) runs
 * in this process, so the server has a core of its own on a 2-core machine.
 * After a warm-up, every server runs `--trials` time-boxed trials of
 * `--seconds` at `--concurrency`, interleaved (A B C A B C ...) so a burst of
 * load from elsewhere on the machine hits all of them alike; the best trial
 * (by conversations per second) is reported, with its p50/p99 latency per
 * conversation and the server's CPU per conversation (user + system of the
 * server process, all threads). Then:
 *
 * - memory: heapUsed of `ours` after forced GCs (`--expose-gc`) before and
 *   after 10,000 conversations left suspended after round one;
 * - the client's overhead per round (`bench/client.ts`): `@mrtr/client`'s
 *   `McpClient` against an instant stub and over HTTP against `ours`, next to
 *   the raw driver;
 * - the seal+unseal micro-benchmark of `bench/requestState.ts`;
 * - the start-up of the compiled `mrtr` bin (`mrtr --help`, `bench/startup.ts`).
 *
 * Options: `--concurrency 32`, `--seconds 1.5`, `--trials 5`, `--suspended 10000`,
 * `--memory-all` (the memory test for effect-ai and bare too), `--no-floors`
 * (skip the two reference floors), `--quick` (1 trial of 1 s, 2,000 suspended
 * conversations).
 */
import { fork, type ChildProcess } from "node:child_process"
import { fileURLToPath } from "node:url"
import { conversation, roundOne, runPool, type Target, target } from "./driver.ts"
import { formatRequestStateBench, runRequestStateBench } from "./requestState.ts"
import { formatStartupBench, runStartupBench } from "./startup.ts"
import type { ServerKind } from "./servers.ts"

// -----------------------------------------------------------------------------
// Options
// -----------------------------------------------------------------------------

const args = process.argv.slice(2)
const flag = (name: string) => args.includes(`--${name}`)
const option = (name: string, fallback: number) => {
  const index = args.indexOf(`--${name}`)
  const value = index < 0 ? undefined : Number(args[index + 1])
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback
}
const quick = flag("quick")
const concurrency = option("concurrency", 32)
const seconds = option("seconds", quick ? 1 : 1.5)
const trials = option("trials", quick ? 1 : 5)
const suspended = option("suspended", quick ? 2_000 : 10_000)
const floors = !flag("no-floors")
const memoryAll = flag("memory-all")

// -----------------------------------------------------------------------------
// Server processes
// -----------------------------------------------------------------------------

interface Server {
  readonly kind: ServerKind
  readonly label: string
  readonly child: ChildProcess
  readonly target: Target
}

interface Cpu {
  readonly cpuMicros: number
}

interface Memory {
  readonly heapUsed: number
  readonly rss: number
}

const LABELS: Record<ServerKind, string> = {
  ours: "ours (@mrtr/server)",
  "effect-ai": "effect/ai McpServer, by hand",
  bare: "bare node:http, fixed JSON",
  "effect-http-floor": "  effect/http alone, fixed JSON",
  "transport-floor": "  our HttpTransport, fixed JSON"
}

const serversEntry = fileURLToPath(new URL("./servers.ts", import.meta.url))

/**
 * Compiles `bench/servers.ts` and everything it imports (the workspace
 * packages' TypeScript sources included) into one ES module with esbuild, as
 * a deployment would ship it, so every server runs as plain JavaScript on
 * `node`. Returns the module's path, in a temporary directory removed at the end. (Under tsx's on-the-fly loader hooks the TypeScript servers ran
 * 10-15% slower than their compiled code, which measured tsx, not them.)
 */
const compileServers = async (): Promise<string> => {
  const { build } = await import("esbuild")
  const { mkdtempSync } = await import("node:fs")
  const { tmpdir } = await import("node:os")
  const { join } = await import("node:path")
  const outfile = join(mkdtempSync(join(tmpdir(), "mrtr-bench-")), "servers.mjs")
  await build({
    entryPoints: [serversEntry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    // The workspace packages from their sources (as tests do), not a possibly stale dist/.
    conditions: ["@mrtr/source"],
    // CommonJS dependencies bundled into an ES module still call `require`.
    banner: { js: "import { createRequire as __mrtrCreateRequire } from 'node:module'; const require = __mrtrCreateRequire(import.meta.url);" }
  })
  return outfile
}

const startServer = (compiled: string, kind: ServerKind): Promise<Server> =>
  new Promise((resolve, reject) => {
    const child = fork(compiled, [kind], {
      execArgv: ["--expose-gc"],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`server ${kind} exited with ${code}`)))
    child.on("message", (message: { type?: string; url?: string }) => {
      if (message.type === "ready" && message.url !== undefined) {
        resolve({ kind, label: LABELS[kind], child, target: target(message.url, concurrency) })
      }
    })
  })

const ask = <A>(server: Server, type: "cpu" | "stats"): Promise<A> =>
  new Promise((resolve) => {
    const listener = (message: { type?: string }) => {
      if (message.type !== type) return
      server.child.off("message", listener)
      resolve(message as A)
    }
    server.child.on("message", listener)
    server.child.send({ type })
  })

const stop = (server: Server) => {
  server.child.removeAllListeners("exit")
  server.child.disconnect()
}

// -----------------------------------------------------------------------------
// Measurements
// -----------------------------------------------------------------------------

interface Trial {
  readonly rate: number
  readonly p50: number
  readonly p99: number
  readonly serverCpu: number
  readonly driverCpu: number
  readonly conversations: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN

const processCpu = () => {
  const usage = process.cpuUsage()
  return usage.user + usage.system
}

const trial = async (server: Server): Promise<Trial> => {
  const before = await ask<Cpu>(server, "cpu")
  const driver0 = processCpu()
  const { results, wallMs } = await runPool(Infinity, concurrency, () => conversation(server.target), seconds * 1000)
  const driverMicros = processCpu() - driver0
  const after = await ask<Cpu>(server, "cpu")
  const sorted = results.sort((a, b) => a - b)
  return {
    rate: (results.length / wallMs) * 1000,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    serverCpu: (after.cpuMicros - before.cpuMicros) / results.length,
    driverCpu: driverMicros / (wallMs * 1000),
    conversations: results.length
  }
}

const memory = async (server: Server) => {
  const before = await ask<Memory>(server, "stats")
  const t0 = performance.now()
  await runPool(suspended, concurrency, () => roundOne(server.target))
  const wallMs = performance.now() - t0
  const after = await ask<Memory>(server, "stats")
  return { before, after, wallMs }
}

// -----------------------------------------------------------------------------
// Formatting
// -----------------------------------------------------------------------------

const pad = (value: string, width: number) => value.padStart(width)
const padEnd = (value: string, width: number) => value.padEnd(width)
const fixed = (value: number, digits = 0) => Number.isFinite(value) ? value.toFixed(digits) : "-"
const mib = (bytes: number) => `${(bytes / 1048576).toFixed(2)} MiB`
const signedMib = (bytes: number) => `${bytes >= 0 ? "+" : "-"}${(Math.abs(bytes) / 1048576).toFixed(2)} MiB`
const verdict = (pass: boolean) => pass ? "PASS" : "MISS"

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>, left = 1) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => i < left ? padEnd(c, widths[i]!) : pad(c, widths[i]!)).join("  ")
  console.log(line(header))
  console.log(widths.map((w) => "-".repeat(w)).join("  "))
  for (const row of rows) console.log(line(row))
}

const section = (title: string) => console.log(`\n== ${title}`)

// -----------------------------------------------------------------------------
// Main
// -----------------------------------------------------------------------------

const main = async () => {
  const { cpus } = await import("node:os")
  const { loadavg } = await import("node:os")
  console.log(
    `MRTR benchmark: two-round elicitation tool over Streamable HTTP on 127.0.0.1, ${process.version}, ` +
      `${cpus().length} cores (${cpus()[0]?.model.trim() ?? "?"}), load average ${loadavg()[0]!.toFixed(2)} at start`
  )
  console.log(
    `load: ${concurrency} concurrent conversations, ${trials} interleaved trial(s) of ${seconds} s per server ` +
      `after a warm-up; best trial shown. Servers run in child processes; the load generator here.`
  )

  // Micro-benchmarks first, before any server process competes for the CPU.
  const requestState = runRequestStateBench()
  let clientInProcess: import("./client.ts").InProcess | undefined
  let clientModule: typeof import("./client.ts") | undefined
  let clientError: unknown
  try {
    clientModule = await import("./client.ts")
    clientInProcess = await clientModule.measureInProcess()
  } catch (error) {
    clientError = error
  }

  const kinds: Array<ServerKind> = ["ours", "effect-ai", "bare", ...(floors ? ["effect-http-floor", "transport-floor"] as const : [])]
  const servers: Array<Server> = []
  const compiled = await compileServers()
  for (const kind of kinds) servers.push(await startServer(compiled, kind))
  try {
    // Warm-up (2 s each; JIT, connection pools, caches): the first trials after it still run a little slower.
    for (const server of servers) {
      await runPool(Infinity, concurrency, () => conversation(server.target), quick ? 500 : 2000)
    }
    const best = new Map<ServerKind, Trial>()
    const rates = new Map<ServerKind, Array<number>>()
    for (let i = 0; i < trials; i++) {
      for (const server of servers) {
        const result = await trial(server)
        rates.set(server.kind, [...(rates.get(server.kind) ?? []), result.rate])
        const current = best.get(server.kind)
        if (current === undefined || result.rate > current.rate) best.set(server.kind, result)
      }
    }

    section("Throughput and latency (per conversation = 2 HTTP round trips)")
    table(
      ["server", "conv/s", "trials (conv/s)", "p50 ms", "p99 ms", "server CPU µs/conv", "load gen CPU"],
      servers.map((server) => {
        const r = best.get(server.kind)!
        return [
          server.label,
          fixed(r.rate),
          rates.get(server.kind)!.map((x) => fixed(x)).join(" / "),
          fixed(r.p50, 1),
          fixed(r.p99, 1),
          fixed(r.serverCpu),
          `${fixed(r.driverCpu * 100)}%`
        ]
      })
    )
    console.log(
      "server CPU: user + system time of the server process per conversation (all its threads). " +
        "load gen CPU: share of one core used by the load generator in this process; near 100% means the " +
        "load generator, not the server, sets the pace (the bare floor is client-bound)."
    )
    const ours = best.get("ours")!
    const effectAi = best.get("effect-ai")!
    const bare = best.get("bare")!
    const vsEffect = ours.rate / effectAi.rate
    const vsBare = ours.rate / bare.rate
    console.log("")
    table(["ratio", "throughput", "target", "", "server CPU per conversation"], [
      ["ours / effect-ai", `${vsEffect.toFixed(2)}x`, ">= 0.9x", verdict(vsEffect >= 0.9), `${(effectAi.serverCpu / ours.serverCpu).toFixed(2)}x (effect-ai CPU / ours)`],
      ["ours / bare", `${vsBare.toFixed(2)}x`, ">= 0.5x", verdict(vsBare >= 0.5), `${(bare.serverCpu / ours.serverCpu).toFixed(2)}x (bare CPU / ours)`]
    ])

    section(`Server memory: ${suspended.toLocaleString("en-US")} conversations left suspended after round one`)
    const memoryRows: Array<Array<string>> = []
    for (const server of servers.filter((s) => s.kind === "ours" || (memoryAll && (s.kind === "effect-ai" || s.kind === "bare")))) {
      const m = await memory(server)
      const delta = m.after.heapUsed - m.before.heapUsed
      memoryRows.push([
        server.label,
        mib(m.before.heapUsed),
        mib(m.after.heapUsed),
        signedMib(delta),
        `${fixed(delta / suspended, 1)} B`,
        signedMib(m.after.rss - m.before.rss),
        `${fixed(m.wallMs / 1000, 1)} s`,
        verdict(Math.abs(delta) < 2 * 1048576)
      ])
    }
    table(["server", "heapUsed before", "after", "delta", "per conv", "rss delta", "took", "flat (< 2 MiB)"], memoryRows)
    console.log("heapUsed after two forced GCs (node --expose-gc) in the server process; the state travels with the client.")

    section("Client overhead per round (a conversation is 2 rounds)")
    if (clientModule === undefined || clientInProcess === undefined) {
      console.log(`@mrtr/client is not usable (${String(clientError)}); only the raw driver was measured.`)
    } else {
      const url = servers[0]!.target.url.href
      const raw = target(url, 1)
      const shipped = await clientModule.measureOverHttp(url, raw, false)
      const keepAlive = await clientModule.measureOverHttp(url, raw, true)
      const httpRows = (name: string, http: import("./client.ts").OverHttp) => [
        [
          `over HTTP vs ours, 1 at a time, ${name}: p50 per round`,
          `${fixed(http.clientP50 * 1000 / 2)} µs`,
          `${fixed(http.rawP50 * 1000 / 2)} µs`,
          `${fixed((http.clientP50 - http.rawP50) * 1000 / 2)} µs`
        ],
        [
          `over HTTP vs ours, 1 at a time, ${name}: client CPU per round`,
          `${fixed(http.clientCpu / 2)} µs`,
          `${fixed(http.rawCpu / 2)} µs`,
          `${fixed((http.clientCpu - http.rawCpu) / 2)} µs`
        ]
      ]
      table(["measurement", "@mrtr/client McpClient", "raw node:http driver", "client overhead"], [
        [
          "in process, instant stub transport: CPU per round",
          `${fixed(clientInProcess.clientPerRound, 1)} µs`,
          `${fixed(clientInProcess.rawPerRound, 1)} µs`,
          `${fixed(clientInProcess.clientPerRound - clientInProcess.rawPerRound, 1)} µs`
        ],
        ...httpRows("layerNode as shipped", shipped),
        ...httpRows("keep-alive agent", keepAlive)
      ], 1)
      console.log(
        "In process: McpClient.callTool (request + _meta + headers, classify, ElicitationHandler Layer, retry, decode) " +
          "against a transport answering canned replies; raw: JSON.stringify + JSON.parse + echo the state.\n" +
          "Over HTTP the raw driver keeps its connection alive; HttpTransport.layerNode (effect's layerNodeHttp, " +
          "new http.Agent() without keepAlive) opens a TCP connection per request."
      )
    }

    section("requestState seal + unseal (bench/requestState.ts)")
    for (const line of formatRequestStateBench(requestState)) console.log(line)

    section("mrtr start-up (bench/startup.ts)")
    for (const line of formatStartupBench(runStartupBench(quick ? 5 : 15))) console.log(line)
  } finally {
    for (const server of servers) stop(server)
    const { rmSync } = await import("node:fs")
    const { dirname } = await import("node:path")
    rmSync(dirname(compiled), { recursive: true, force: true })
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
