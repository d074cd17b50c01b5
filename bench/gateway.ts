/**
 * `npm run bench:gateway`: what the gateway adds per forwarded conversation.
 *
 * The two-round `greet` tool of `ours` (`bench/servers.ts`) is the upstream;
 * a gateway (`bench/gatewayServer.ts`: `Gateway.layer` of a one-server
 * `mcpServers` file, over HTTP) forwards to it. Both are compiled with esbuild
 * and run on plain `node` in child processes; the load generator (raw
 * `node:http`, keep-alive, `--concurrency` conversations at a time) runs here
 * and checks every reply. Cells:
 *
 * - `direct`: the upstream alone (its CPU per conversation, p50 latency);
 * - `2026 -> 2026`: through the gateway to the upstream speaking 2026-07-28
 *   (the upstream's round is the gateway's, its state sealed in the
 *   gateway's own);
 * - `2026 -> 2025`: through a second gateway to the same upstream speaking
 *   2025-11-25 (a session; the upstream call held open between the rounds).
 *
 * CPU is each process's user + system time from `/proc/<pid>/stat`, read
 * before and after each trial (time-boxed, `--seconds`), divided by the
 * conversations. `--trials` interleaved trials per cell (direct, 2026,
 * 2025, direct, ...); the report gives the median and the range (min-max) of
 * every figure, and the target on the 2026 -> 2026 cell: the gateway's CPU per
 * conversation at most 2x the upstream's own in the same trial.
 *
 * Options: `--concurrency 16`, `--seconds 2`, `--trials 5`. Not a test.
 */
import { type ChildProcess, execFileSync, fork } from "node:child_process"
import { readFileSync, rmSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { post, runPool, type Target, target } from "./driver.ts"
import { compile, compileServers, startServer, stop, tempDir } from "./processes.ts"
import { check, fixed, section, summary, table, times } from "./report.ts"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const concurrency = arg("concurrency", 16)
const seconds = arg("seconds", 2)
const trials = arg("trials", 5)

const ticks = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100
/** User + system CPU of `pid` so far, µs (clock-tick resolution: 10 ms at 100 Hz). */
const cpuMicros = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / ticks
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" }
}
let nextId = 1
const call = (extra: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: { name: "greet", arguments: {}, ...extra, _meta: META }
  })

/** One two-round conversation whose question is keyed `key`; resolves with its latency, ms. */
const conversation = async (t: Target, key: string): Promise<number> => {
  const t0 = performance.now()
  const first = (await post(t, call({}))).result
  if (first?.resultType !== "input_required" || first.inputRequests?.[key]?.method !== "elicitation/create") {
    throw new Error(`round 1: unexpected reply ${JSON.stringify(first).slice(0, 300)}`)
  }
  const second = (await post(
    t,
    call({
      inputResponses: { [key]: { action: "accept", content: { name: "Alice" } } },
      ...(first.requestState === undefined ? {} : { requestState: first.requestState })
    })
  )).result
  if (second?.resultType !== "complete" || second.content?.[0]?.text !== "Hello, Alice!") {
    throw new Error(`round 2: unexpected reply ${JSON.stringify(second).slice(0, 300)}`)
  }
  return performance.now() - t0
}

const startGateway = (module: string, upstreamUrl: string, protocol: "2026-07-28" | "2025-11-25") =>
  new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    const config = JSON.stringify({
      mcpServers: { up: { url: upstreamUrl, protocol } },
      gateway: { name: "bench-gateway" }
    })
    const child = fork(module, [config], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: { ...process.env, MRTR_REDIS_URL: "" }
    })
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`gateway exited with ${code}`)))
    child.on("message", (message: { type?: string; url?: string }) => {
      if (message.type === "ready" && message.url !== undefined) resolve({ child, url: message.url })
    })
  })

interface Sample {
  readonly conversations: number
  readonly p50: number
  /** µs per conversation */
  readonly upstream: number
  readonly gateway: number
}

const trial = async (
  url: string,
  key: string,
  upstreamPid: number,
  gatewayPid: number | undefined
): Promise<Sample> => {
  // fresh keep-alive sockets per trial: one left idle between trials may be closed by the server as it is reused
  const t = target(url, concurrency)
  let failure: unknown
  const guarded = () =>
    conversation(t, key).catch((error) => {
      failure ??= error
      return NaN
    })
  const u0 = cpuMicros(upstreamPid)
  const g0 = gatewayPid === undefined ? 0 : cpuMicros(gatewayPid)
  const { results } = await runPool(Infinity, concurrency, guarded, seconds * 1000)
  if (failure !== undefined) throw new Error(`a conversation failed (${key})`, { cause: failure })
  const upstream = cpuMicros(upstreamPid) - u0
  const gateway = gatewayPid === undefined ? 0 : cpuMicros(gatewayPid) - g0
  t.agent.destroy()
  const sorted = results.sort((a, b) => a - b)
  return {
    conversations: results.length,
    p50: sorted[Math.floor(sorted.length / 2)] ?? NaN,
    upstream: upstream / results.length,
    gateway: gateway / results.length
  }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
const spread = (values: ReadonlyArray<number>, digits = 0) =>
  `${fixed(median(values), digits)} (${fixed(Math.min(...values), digits)}-${fixed(Math.max(...values), digits)})`

const main = async () => {
  const dir = tempDir()
  const servers = await compileServers(dir)
  const gatewayModule = await compile(
    fileURLToPath(new URL("./gatewayServer.ts", import.meta.url)),
    join(dir, "gateway.mjs")
  )
  const upstream = await startServer(servers, "ours", { concurrency })
  const modern = await startGateway(gatewayModule, upstream.url, "2026-07-28")
  const legacy = await startGateway(gatewayModule, upstream.url, "2025-11-25")
  const cells = [
    { name: "direct", url: upstream.url, key: "name", gateway: undefined as number | undefined },
    { name: "2026 -> 2026 via gateway", url: modern.url, key: "up/name", gateway: modern.child.pid! },
    { name: "2026 -> 2025 via gateway (held)", url: legacy.url, key: "up/elicitation-1", gateway: legacy.child.pid! }
  ]
  try {
    const only = process.argv.indexOf("--cell")
    if (only !== -1) cells.splice(0, cells.length, ...cells.filter((c) => c.name.startsWith(process.argv[only + 1]!)))
    const load = loadavg()[0]!
    console.log(
      `load average before: ${
        load.toFixed(2)
      }; ${trials} trials of ${seconds} s per cell, ${concurrency} conversations at a time`
    )
    // warm-up: V8 compiles the hot paths of every process
    for (const cell of cells) await trial(cell.url, cell.key, upstream.child.pid!, cell.gateway)
    const samples = new Map<string, Array<Sample>>(cells.map((c) => [c.name, []]))
    for (let i = 0; i < trials; i++) {
      for (const cell of cells) {
        samples.get(cell.name)!.push(await trial(cell.url, cell.key, upstream.child.pid!, cell.gateway))
      }
    }
    section("Gateway cost per conversation (two-round greet): median (min-max) of the trials")
    table(
      ["cell", "conv/trial", "p50 ms", "upstream CPU µs/conv", "gateway CPU µs/conv", "gateway / upstream"],
      cells.map((cell) => {
        const s = samples.get(cell.name)!
        return [
          cell.name,
          spread(s.map((x) => x.conversations)),
          spread(s.map((x) => x.p50), 2),
          spread(s.map((x) => x.upstream)),
          cell.gateway === undefined ? "-" : spread(s.map((x) => x.gateway)),
          cell.gateway === undefined ? "-" : spread(s.map((x) => x.gateway / x.upstream), 2)
        ]
      })
    )
    const modernSamples = samples.get("2026 -> 2026 via gateway") ?? []
    const ratio = median(modernSamples.map((x) => x.gateway / x.upstream))
    check(
      "gateway CPU per forwarded conversation <= 2x the upstream's own (2026 -> 2026)",
      ratio <= 2,
      `${times(ratio)} (median of ${trials} trials, same trial's upstream CPU)`
    )
    console.log(`load average after: ${loadavg()[0]!.toFixed(2)}`)
    summary()
  } finally {
    modern.child.kill()
    legacy.child.kill()
    await stop(upstream)
    rmSync(dir, { recursive: true, force: true })
  }
}

void main().catch((error) => {
  console.error(error)
  process.exit(1)
})
