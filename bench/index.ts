/**
 * `npm run bench`: the benchmark report (tables on stdout with PASS/MISS
 * against every target, not a test).
 *
 * The same two-round elicitation tool `greet` (round 1: `input_required` with
 * one form elicitation `name`; round 2: complete with `Hello, <name>!`) is
 * served over Streamable HTTP on 127.0.0.1 by each server, each in its own
 * child process (`bench/servers.ts`, compiled with esbuild into one
 * JavaScript module first and run on plain `node`, as deployed):
 *
 * - `ours`: this runtime (`Tool.make` + `Elicitation.form`, sealed journal);
 * - `official`: `@modelcontextprotocol/server` 2.x as its v2 docs recommend
 *   (`createMcpHandler` + `toNodeHandler` on node:http, `inputRequired(...)`,
 *   `acceptedContent(...)`, `createRequestStateCodec`);
 * - `effect-ai`: the same tool by hand on effect's own `effect/ai` `McpServer`;
 * - `bare`: `node:http` answering the two round trips with fixed JSON (the floor);
 * - two reference floors: effect/http alone, and our `HttpTransport` in front
 *   of a dispatcher, both answering the fixed JSON.
 *
 * The load generator (`bench/driver.ts`, raw `node:http` with keep-alive)
 * runs in this process and checks every reply (a broken server cannot look
 * fast). After a warm-up, every server runs `--trials` time-boxed trials of
 * `--seconds` at `--concurrency`, interleaved (A B C A B C ...); the medians
 * of the trials are reported (conversations per second, p50/p99, the
 * server's CPU per conversation: user + system of the server process) with
 * the spread of the CPU, and each ratio is the median of trial-by-trial
 * ratios. Then:
 *
 * - growth (`bench/growth.ts`): `ask_n`, N = 1..16 rounds, ours and official;
 * - memory: heapUsed of `ours` with `--suspended` conversations left after round one;
 * - features (`bench/features.ts`): the 2025-11-25 shim, authorization,
 *   single use in memory and on Redis;
 * - the client's overhead per round (`bench/client.ts`) and whether
 *   `HttpTransport.layerNode` keeps connections alive by default;
 * - a task round trip (`bench/tasks.ts`, through the dispatcher);
 * - requestState seal + unseal (`bench/requestState.ts`);
 * - start-up (`bench/serverStartup.ts`, `bench/startup.ts`);
 * - with `--profile`: where ours' server CPU goes (`bench/profile.ts`);
 * - the list of every target's PASS/MISS.
 *
 * Options: `--concurrency 32`, `--seconds 1.5`, `--trials 5`, `--suspended 10000`,
 * `--memory-all` (the memory test for effect-ai and bare too), `--no-floors`
 * (skip the two reference floors), `--profile`, `--quick` (1 trial of 1 s,
 * shorter sections: a smoke check whose ratios are not comparable),
 * `--main-only` (the main table and its targets alone).
 */
import { spawnSync } from "node:child_process"
import { rmSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { conversation, roundOne, runPool, target } from "./driver.ts"
import { runFeatures } from "./features.ts"
import { runGrowth } from "./growth.ts"
import {
  compileServers,
  type Server,
  serverMemory,
  startProfile,
  startServer,
  stop,
  stopProfile,
  tempDir,
  type Trial,
  trial
} from "./processes.ts"
import { summarize } from "./profile.ts"
import { check, describe, fixed, mib, section, signedMib, summary, table, times } from "./report.ts"
import { formatRequestStateBench, runRequestStateBench } from "./requestState.ts"
import type { ServerKind } from "./servers.ts"
import { runServerStartup, SERVER_STARTUP_TARGET_MS } from "./serverStartup.ts"
import { runStartupBench, STARTUP_TARGET_MS } from "./startup.ts"

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
const profile = flag("profile")
const mainOnly = flag("main-only")

const LABELS: Record<ServerKind, string> = {
  ours: "ours (@mrtr/server)",
  official: "official SDK (@modelcontextprotocol/server 2.x)",
  "effect-ai": "effect/ai McpServer, by hand",
  bare: "bare node:http, fixed JSON",
  "effect-http-floor": "  effect/http alone, fixed JSON",
  "transport-floor": "  our HttpTransport, fixed JSON",
  "ours-auth": "ours, authorization on",
  "ours-single-memory": "ours, single use (memory)",
  "ours-single-redis": "ours, single use (Redis)"
}

const root = fileURLToPath(new URL("..", import.meta.url))

// -----------------------------------------------------------------------------
// Sections
// -----------------------------------------------------------------------------

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length === 0 ? NaN : sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** `median (min - max)` of `xs`, each shown by `show`. */
const spread = (xs: ReadonlyArray<number>, show: (x: number) => string): string =>
  xs.length === 1 ? show(xs[0]!) : `${show(median(xs))} (${show(Math.min(...xs))} - ${show(Math.max(...xs))})`

/**
 * The main table: every server's trials, interleaved (A B C ... A B C ...). A
 * row shows the median trial's figures and the spread of CPU per conversation
 * over the trials; a ratio is taken trial by trial (trial i of ours against
 * trial i of the other, which ran moments apart) and shown as the median of
 * those ratios with their spread.
 */
const mainTable = async (servers: ReadonlyArray<Server>) => {
  for (const server of servers) {
    await runPool(Infinity, concurrency, () => conversation(server.target), quick ? 500 : 2000)
  }
  const runs = new Map<ServerKind, Array<Trial>>()
  for (let i = 0; i < trials; i++) {
    for (const server of servers) {
      const result = await trial(server, concurrency, seconds * 1000, () => conversation(server.target))
      runs.set(server.kind, [...(runs.get(server.kind) ?? []), result])
    }
  }
  const of = (kind: ServerKind) => runs.get(kind)!
  section("Throughput and server CPU (greet: per conversation = 2 HTTP round trips)")
  table(
    ["server", "conv/s", "trials (conv/s)", "p50 ms", "p99 ms", "server CPU µs/conv (min - max)", "load gen CPU"],
    servers.map((server) => {
      const r = of(server.kind)
      return [
        LABELS[server.kind],
        fixed(median(r.map((t) => t.rate))),
        r.map((t) => fixed(t.rate)).join(" / "),
        fixed(median(r.map((t) => t.p50)), 1),
        fixed(median(r.map((t) => t.p99)), 1),
        spread(r.map((t) => t.serverCpu), (x) => fixed(x)),
        `${fixed(median(r.map((t) => t.driverCpu)) * 100)}%`
      ]
    })
  )
  console.log(
    `medians of ${trials} trial(s). server CPU: user + system time of the server process per conversation (all its ` +
      "threads, GC included). load gen CPU: share of one core used by the load generator in this process; near 100% " +
      "means the load generator, not the server, sets the pace (the fixed-JSON floors are client-bound)."
  )
  /** Trial-by-trial ratios of ours to `kind`: throughput, CPU per conversation. */
  const ratios = (kind: ServerKind) => {
    const ours = of("ours")
    const other = of(kind)
    return {
      rate: ours.map((t, i) => t.rate / other[i]!.rate),
      cpu: ours.map((t, i) => t.serverCpu / other[i]!.serverCpu)
    }
  }
  const compared: Array<ServerKind> = [
    "official",
    "effect-ai",
    "bare",
    ...(floors ? ["effect-http-floor" as const] : [])
  ]
  console.log("")
  table(
    ["ratio (median of trial pairs, min - max)", "throughput (conv/s)", "server CPU per conversation"],
    compared.map((kind) => {
      const r = ratios(kind)
      return [`ours / ${kind}`, spread(r.rate, times), spread(r.cpu, times)]
    })
  )
  console.log(
    "throughput ratio > 1: ours serves more; CPU ratio < 1: ours costs less CPU per conversation. Each ratio compares " +
      "trials that ran back to back; see bench/README.md for what each one does and does not mean."
  )
  const official = ratios("official")
  const effectAi = ratios("effect-ai")
  const bare = ratios("bare")
  check(
    "main: ours' throughput >= 0.9x effect-ai",
    median(effectAi.rate) >= 0.9,
    `${spread(effectAi.rate, times)} conv/s`
  )
  check(
    "main: ours' throughput >= 0.5x bare",
    median(bare.rate) >= 0.5,
    `${spread(bare.rate, times)} conv/s (client-bound floor)`
  )
  if (floors) {
    const floor = ratios("effect-http-floor")
    check(
      "main: ours' server CPU per conversation <= 3x effect/http alone answering fixed JSON (single use off)",
      median(floor.cpu) <= 3,
      `${spread(floor.cpu, times)} (${fixed(median(of("ours").map((t) => t.serverCpu)))} / ` +
        `${fixed(median(of("effect-http-floor").map((t) => t.serverCpu)))} µs)`
    )
  } else {
    check(
      "main: ours' server CPU per conversation <= 3x effect/http alone answering fixed JSON (single use off)",
      undefined,
      "--no-floors"
    )
  }
  const lead = official.cpu.map((x) => 1 / x)
  check(
    "main: ours' server CPU per conversation at least 3x less than the official SDK's",
    median(lead) >= 3,
    `${spread(lead, times)} less (${fixed(median(of("official").map((t) => t.serverCpu)))} / ` +
      `${fixed(median(of("ours").map((t) => t.serverCpu)))} µs)`
  )
  console.log(
    `info  ours / bare: ${spread(bare.cpu, times)} server CPU per conversation (no target: the floor is node:http ` +
      "without effect)"
  )
  // What the report printed before it took medians: each server's best trial by throughput, compared.
  const bestOf = (kind: ServerKind) => of(kind).reduce((a, b) => b.rate > a.rate ? b : a)
  console.log(
    `info  best trial by throughput of each, compared (the former report): ours' CPU ` +
      `${times(bestOf("official").serverCpu / bestOf("ours").serverCpu)} less than official` +
      (floors ? `, ${times(bestOf("ours").serverCpu / bestOf("effect-http-floor").serverCpu)} effect/http alone` : "")
  )
}

const memorySection = async (servers: ReadonlyArray<Server>) => {
  section(`Server memory: ${suspended.toLocaleString("en-US")} conversations left suspended after round one`)
  const rows: Array<Array<string>> = []
  let oursDelta = NaN
  for (
    const server of servers.filter((s) =>
      s.kind === "ours" || (memoryAll && (s.kind === "effect-ai" || s.kind === "bare" || s.kind === "official"))
    )
  ) {
    const before = await serverMemory(server)
    const t0 = performance.now()
    await runPool(suspended, concurrency, () => roundOne(server.target))
    const wallMs = performance.now() - t0
    const after = await serverMemory(server)
    const delta = after.heapUsed - before.heapUsed
    if (server.kind === "ours") oursDelta = delta
    rows.push([
      LABELS[server.kind],
      mib(before.heapUsed),
      mib(after.heapUsed),
      signedMib(delta),
      `${fixed(delta / suspended, 1)} B`,
      signedMib(after.rss - before.rss),
      `${fixed(wallMs / 1000, 1)} s`
    ])
  }
  table(["server", "heapUsed before", "after", "delta", "per conv", "rss delta", "took"], rows)
  console.log(
    "heapUsed after two forced GCs (node --expose-gc) in the server process; the state travels with the client."
  )
  check(
    "memory: ours' heap flat with suspended conversations (< 2 MiB)",
    Math.abs(oursDelta) < 2 * 1048576,
    signedMib(oursDelta)
  )
}

const clientSection = async (
  clientModule: typeof import("./client.ts") | undefined,
  inProcess: import("./client.ts").InProcess | undefined,
  clientError: unknown,
  ours: Server
) => {
  section("Client overhead per round (a conversation is 2 rounds)")
  if (clientModule === undefined || inProcess === undefined) {
    check(
      "client: McpClient CPU per round <= 3x the raw driver (keep-alive)",
      undefined,
      `@mrtr/client not usable: ${describe(clientError)}`
    )
    return
  }
  const raw = target(ours.url, 1)
  const shipped = await clientModule.measureOverHttp(ours.url, raw, "shipped", quick ? 800 : 1500, quick ? 2 : 4)
  const httpClient = await clientModule.measureOverHttp(ours.url, raw, "httpClient", quick ? 800 : 1500, quick ? 2 : 4)
  raw.agent.destroy()
  const httpRows = (name: string, http: import("./client.ts").OverHttp) => [
    [
      `over HTTP vs ours, 1 at a time, ${name}: p50 per round`,
      `${fixed(http.clientP50 * 1000 / 2)} µs`,
      `${fixed(http.rawP50 * 1000 / 2)} µs`,
      times(http.clientP50 / http.rawP50)
    ],
    [
      `over HTTP vs ours, 1 at a time, ${name}: client CPU per round`,
      `${fixed(http.clientCpu / 2)} µs`,
      `${fixed(http.rawCpu / 2)} µs`,
      times(http.clientCpu / http.rawCpu)
    ]
  ]
  table(["measurement", "@mrtr/client McpClient", "raw node:http driver", "ratio"], [
    [
      "in process, instant stub transport: CPU per round",
      `${fixed(inProcess.clientPerRound, 1)} µs`,
      `${fixed(inProcess.rawPerRound, 1)} µs`,
      times(inProcess.clientPerRound / inProcess.rawPerRound)
    ],
    ...httpRows("HttpTransport.layerNode as shipped (node:http, keep-alive)", shipped),
    ...httpRows("HttpTransport.layer on effect's NodeHttpClient, keep-alive agent", httpClient)
  ], 1)
  console.log(
    "In process: McpClient.callTool (request + _meta + headers, classify, ElicitationHandler Layer, retry, decode) against " +
      "a transport answering canned replies; raw: JSON.stringify + JSON.parse + echo the state. Over HTTP the raw driver " +
      "keeps its connection alive; CPU is this process's user + system time per round. The target is checked on " +
      "layerNode as shipped, which keeps connections alive by default (the last line); the HttpClient row is what " +
      "HttpTransport.layer costs on effect's HttpClient (information)."
  )
  check(
    "client: McpClient CPU per round <= 3x the raw driver over HTTP with keep-alive (layerNode as shipped)",
    shipped.clientCpu / shipped.rawCpu <= 3,
    `${times(shipped.clientCpu / shipped.rawCpu)} (${fixed(shipped.clientCpu / 2)} / ${
      fixed(shipped.rawCpu / 2)
    } µs per round)`
  )
  const sockets = await clientModule.shippedConnections(20)
  check(
    "client: HttpTransport.layerNode keeps connections alive by default",
    sockets.connections <= 2,
    `${sockets.connections} TCP connection(s) for ${sockets.requests} requests (20 conversations) as shipped`
  )
}

const tasksSection = () => {
  section("A task round trip (bench/tasks.ts: create, ask, update, replay, complete, through the dispatcher)")
  const count = quick ? 200 : 1000
  const run = spawnSync(process.execPath, [
    "--conditions=@mrtr/source",
    "--import",
    "tsx",
    join(root, "bench/tasks.ts"),
    "--tasks",
    String(count),
    "--concurrency",
    "50"
  ], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000
  })
  if (run.status !== 0) {
    console.log(`bench/tasks.ts failed (${run.status}): ${run.stderr.slice(0, 300)}`)
    return
  }
  console.log(run.stdout.trim())
  console.log("(in one process under tsx, no HTTP; no target: reported so a regression shows)")
}

const startupSection = async (dir: string) => {
  section("Start-up (process start to `listening`; mrtr --help to exit)")
  try {
    const results = await runServerStartup(dir, quick ? 3 : 7)
    table(
      ["server", "run as", "median ms", "min ms", "runs"],
      results.map((r) => [r.name, r.mode, fixed(r.median), fixed(r.min), String(r.runs)]),
      2
    )
    // The target is the servers as deployed (compiled JavaScript on node). From source the same servers also pay
    // for tsx's loader hooks on each of the ~1,000 modules they load (about 1.1 s here, with the dist packages too):
    // reported, not a target.
    for (const r of results.filter((r) => r.mode !== "source (tsx)")) {
      check(
        `start-up: ${r.name}, ${r.mode}, < ${SERVER_STARTUP_TARGET_MS} ms`,
        r.median < SERVER_STARTUP_TARGET_MS,
        `median ${fixed(r.median)} ms`
      )
    }
    console.log(
      "(source (tsx) rows: the development loop under tsx's loader; no target, the deployed form is compiled)"
    )
  } catch (error) {
    check(`start-up: example servers < ${SERVER_STARTUP_TARGET_MS} ms`, undefined, describe(error))
  }
  try {
    const help = runStartupBench(quick ? 5 : 15)
    console.log(
      `mrtr --help (node packages/cli/bin/mrtr.js, the compiled dist/, ${help.samples.length} runs): median ${
        fixed(help.median)
      } ms, ` +
        `p95 ${fixed(help.p95)} ms, min ${fixed(help.samples[0]!)} ms`
    )
    check(
      `start-up: mrtr --help < ${STARTUP_TARGET_MS} ms`,
      help.median < STARTUP_TARGET_MS,
      `median ${fixed(help.median)} ms`
    )
  } catch (error) {
    check(`start-up: mrtr --help < ${STARTUP_TARGET_MS} ms`, undefined, describe(error))
  }
}

const profileSection = async (compiled: string, dir: string) => {
  section("CPU profile of ours (--profile: V8 sampling profiler in the compiled server, over one load window)")
  const server = await startServer(compiled, "ours", { concurrency })
  try {
    // warm-up, not profiled (the JIT keeps improving for several seconds)
    await runPool(Infinity, concurrency, () => conversation(server.target), quick ? 2000 : 5000)
    const file = join(dir, "ours.cpuprofile")
    await startProfile(server)
    const t = await trial(server, concurrency, Math.max(3000, seconds * 2000), () => conversation(server.target))
    await stopProfile(server, file)
    const result = summarize(file, compiled)
    table(
      ["where (self time, builtins charged to their caller)", "ms", "share"],
      result.buckets.slice(0, 14).map((b) => [b.name, fixed(b.ms), `${fixed(b.share * 100, 1)}%`])
    )
    console.log("")
    table(
      ["top functions (self time, source file:line)", "ms", "share"],
      result.frames.slice(0, 12).map((b) => [b.name, fixed(b.ms), `${fixed(b.share * 100, 1)}%`])
    )
    console.log(
      `${t.conversations} conversations at ${fixed(t.serverCpu)} µs of server CPU each (the profiler's sampling ` +
        `included); ${fixed(result.totalMs)} ms of samples, ${
          fixed(result.builtinsShare * 100, 1)
        }% of them in V8 builtins ` +
        "(JSON, RegExp, Map, ...) charged to their callers. Self time: a frame's own code, not its callees: effect's share " +
        "includes the fiber runtime running our code."
    )
  } finally {
    server.target.agent.destroy()
    await stop(server)
  }
}

// -----------------------------------------------------------------------------
// Main
// -----------------------------------------------------------------------------

const main = async () => {
  console.log(
    `MRTR benchmark: elicitation tools over Streamable HTTP on 127.0.0.1, ${process.version}, ${cpus().length} cores ` +
      `(${cpus()[0]?.model.trim() ?? "?"}), load average ${loadavg()[0]!.toFixed(2)} at start`
  )
  console.log(
    `load: ${concurrency} concurrent conversations, ${trials} interleaved trial(s) of ${seconds} s per server after a ` +
      "warm-up; medians shown, with their spread. Servers run in child processes; the load generator here."
  )

  // Micro-benchmarks first, before any server process competes for the CPU.
  const requestState = mainOnly ? [] : runRequestStateBench()
  let clientInProcess: import("./client.ts").InProcess | undefined
  let clientModule: typeof import("./client.ts") | undefined
  let clientError: unknown
  try {
    if (!mainOnly) {
      clientModule = await import("./client.ts")
      clientInProcess = await clientModule.measureInProcess()
    }
  } catch (error) {
    clientError = error
  }

  const dir = tempDir()
  const servers: Array<Server> = []
  let redis: import("../packages/test-support/infra.ts").RedisServer | undefined
  try {
    const compiled = await compileServers(dir)
    const kinds: Array<ServerKind> = [
      "ours",
      "official",
      "effect-ai",
      "bare",
      ...(floors ? ["effect-http-floor", "transport-floor"] as const : [])
    ]
    for (const kind of kinds) servers.push(await startServer(compiled, kind, { concurrency }))
    const byKind = (kind: ServerKind) => servers.find((s) => s.kind === kind)!
    await mainTable(servers)
    if (mainOnly) {
      summary()
      return
    }

    await runGrowth(
      [{ label: "ours", server: byKind("ours") }, { label: "official", server: byKind("official") }],
      concurrency,
      quick ? 500 : 1000,
      // three passes: the ratio of two cells of one pass each moved ±15% between runs
      quick ? 1 : 3
    )

    await memorySection(servers)

    // The feature servers: started now, so the main table ran without them.
    const optional = async (kind: ServerKind, env?: Record<string, string>): Promise<Server | string> => {
      try {
        const server = await startServer(compiled, kind, { concurrency, ...(env === undefined ? {} : { env }) })
        servers.push(server)
        return server
      } catch (error) {
        return describe(error)
      }
    }
    let redisError: string | undefined
    try {
      const { startRedis } = await import("../packages/test-support/infra.ts")
      redis = await startRedis()
    } catch (error) {
      redisError = `redis-server not started: ${describe(error)}`
    }
    await runFeatures(
      {
        ours: byKind("ours"),
        auth: await optional("ours-auth"),
        singleMemory: await optional("ours-single-memory"),
        singleRedis: redis === undefined
          ? redisError!
          : await optional("ours-single-redis", { MRTR_REDIS_URL: redis.url }),
        redisPort: redis?.port,
        redisUrl: redis?.url
      },
      concurrency,
      seconds * 1000,
      quick ? 1 : 5
    )

    await clientSection(clientModule, clientInProcess, clientError, byKind("ours"))
    for (const server of servers.splice(0)) {
      server.target.agent.destroy()
      await stop(server)
    }

    tasksSection()

    section("requestState seal + unseal (bench/requestState.ts)")
    for (const line of formatRequestStateBench(requestState)) console.log(line)
    const three = requestState.find((r) => r.answers === 3)!
    check(
      "requestState: seal + unseal of 3 answers < 100 µs and < 1 KiB",
      three.median < 100 && three.size < 1024,
      `${fixed(three.median, 1)} µs, ${three.size} B`
    )

    await startupSection(dir)

    if (profile) await profileSection(compiled, dir)
    else console.log("\n(`npm run bench -- --profile` adds a CPU profile of ours, by package)")

    summary()
  } finally {
    for (const server of servers) await stop(server)
    await redis?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
