/**
 * `npm run bench:fleet`: the cost of the fleet. Drives the demo's 4-request
 * `plan_trip` conversation (2026-07-28, raw JSON-RPC on node:http, 16 at a
 * time per instance) and reports, per configuration:
 *
 * - server CPU per conversation (user + system time of the instance
 *   processes, from /proc, divided by the conversations), and per
 *   instance the CPU per conversation it served (round-robin: 1/N of them);
 * - Redis round trips per conversation (`total_commands_processed` of the
 *   redis-server, before and after);
 * - throughput (conversations per second).
 *
 * Configurations: one instance directly, in-memory single use (the
 * baseline); one instance, single use on Redis; one instance behind haproxy;
 * three instances behind haproxy, single use on Redis. On a 2-core machine
 * three instances show cost, not scale: CPU per conversation per instance
 * must stay flat (PASS/MISS: behind haproxy the busiest of three at most
 * 1.25x the same three driven directly, see `flatness`). Not a test: prints
 * a table.
 *
 * Options: `--conversations 2000`. Needs redis-server and haproxy.
 */
import { readFileSync } from "node:fs"
import { execFileSync } from "node:child_process"
import { post, type Target, target } from "./driver.ts"
import { type Fleet, INSTANCES, startFleet } from "../examples/fleet/fleet.ts"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const conversations = arg("conversations", 2_000)
const ticks = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100

const cpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks
}

const redisCommands = (port: number): number => {
  const info = execFileSync("redis-cli", ["-p", String(port), "INFO", "stats"]).toString()
  return Number(/total_commands_processed:(\d+)/.exec(info)![1])
}

const answers: Record<string, unknown> = {
  details: {
    action: "accept",
    content: { traveller: "Ada", email: "ada@example.com", date: "2026-08-01", passengers: 1, firstClass: false, seat: "any" }
  },
  tagline: { role: "assistant", content: { type: "text", text: "tag" }, model: "m" },
  roots: { roots: [{ uri: "file:///trips" }] },
  confirm: { action: "accept", content: { book: true } }
}

// The load generator: the raw node:http driver of ./driver.ts (keep-alive), so that on a 2-core machine it takes as
// little as it can from the instances it measures.
const targets = new Map<string, Target>()
const targetOf = (url: string) => {
  let t = targets.get(url)
  if (t === undefined) {
    t = target(url, 64)
    targets.set(url, t)
  }
  return t
}

let ids = 1
const converse = async (url: string) => {
  let params: Record<string, unknown> = { name: "plan_trip", arguments: { from: "Paris", to: "Milan" } }
  for (;;) {
    const json = await post(targetOf(url), JSON.stringify({
      jsonrpc: "2.0",
      id: ids++,
      method: "tools/call",
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} }, sampling: {}, roots: {} }
        }
      }
    }), "plan_trip")
    if (json.error !== undefined) throw new Error(JSON.stringify(json.error))
    if (json.result.resultType === "complete") return
    const inputResponses = Object.fromEntries(Object.keys(json.result.inputRequests).map((key) => [key, answers[key]]))
    params = { ...params, inputResponses, requestState: json.result.requestState }
  }
}

const drive = async (url: string, n: number, concurrency: number) => {
  let next = 0
  const worker = async () => {
    while (next++ < n) await converse(url)
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, worker))
  return (performance.now() - started) / 1000
}

const pidsOf = (fleet: Fleet, names: ReadonlyArray<string>) => names.map((name) => fleet.pidOf(name as never))

/** What `measure` found: the CPU per conversation each instance spent on the conversations it served. */
interface Measured {
  readonly perInstance: ReadonlyArray<number>
}

const measure = async (label: string, fleet: Fleet, url: string, names: ReadonlyArray<string>): Promise<Measured> => {
  // 16 conversations at a time per instance: each instance sees the same load whatever the fleet's size
  // (an instance at a third of the load would spend more per request on waking up, not on the fleet).
  const concurrency = 16 * names.length
  // warm-up: every instance's JIT to its steady state (an instance started a moment ago spent ~1.5x per
  // conversation after 300 conversations), not only the first one's
  await drive(url, 1_500 * names.length, concurrency)
  const pids = pidsOf(fleet, names)
  const cpuBefore = pids.map(cpuMs)
  const redisBefore = redisCommands(fleet.redis.port)
  const seconds = await drive(url, conversations, concurrency)
  const cpu = pids.map((pid, i) => cpuMs(pid) - cpuBefore[i]!)
  const trips = (redisCommands(fleet.redis.port) - redisBefore - 1) / conversations
  const total = cpu.reduce((a, b) => a + b, 0)
  console.log(
    `${label.padEnd(46)} ${(conversations / seconds).toFixed(0).padStart(6)} conv/s  ` +
      `${((total * 1000) / conversations).toFixed(0).padStart(6)} µs CPU/conv  ` +
      `per conversation served, by instance: ${cpu.map((c) => `${((c * 1000 * pids.length) / conversations).toFixed(0)} µs`).join(", ").padEnd(24)} ` +
      `${trips.toFixed(2)} Redis round trips/conv`
  )
  return { perInstance: cpu.map((c) => (c * 1000 * pids.length) / conversations) }
}

/**
 * Three instances driven directly, each by its own 16 conversations at a time
 * (no balancer, no conversation moving between instances): the same processes
 * on the same cores as the fleet behind haproxy, so what this machine's
 * contention alone does to CPU per conversation.
 */
const measureDirect = async (label: string, fleet: Fleet): Promise<Measured> => {
  const urls = INSTANCES.map((name) => `http://127.0.0.1:${fleet.ports[name]}/mcp`)
  const share = Math.floor(conversations / urls.length)
  await Promise.all(urls.map((url) => drive(url, 1_500, 16)))
  const pids = pidsOf(fleet, INSTANCES)
  const cpuBefore = pids.map(cpuMs)
  const started = performance.now()
  await Promise.all(urls.map((url) => drive(url, share, 16)))
  const seconds = (performance.now() - started) / 1000
  const perInstance = pids.map((pid, i) => ((cpuMs(pid) - cpuBefore[i]!) * 1000) / share)
  console.log(
    `${label.padEnd(46)} ${((share * urls.length) / seconds).toFixed(0).padStart(6)} conv/s  ` +
      `${(perInstance.reduce((a, b) => a + b, 0) / perInstance.length).toFixed(0).padStart(6)} µs CPU/conv  ` +
      `per conversation served, by instance: ${perInstance.map((c) => `${c.toFixed(0)} µs`).join(", ")}`
  )
  return { perInstance }
}

/**
 * The flatness target: behind haproxy, the busiest of three instances spends
 * at most 1.25x the CPU per conversation it served of the same three driven
 * directly (what the fleet adds: the balancer, rounds moving between
 * instances, the shared state). Against one instance alone the ratio is
 * printed too: on a 2-core machine it also holds what five busy processes
 * (three instances, haproxy, Redis, besides the load generator) cost each
 * other, which is the machine's, not the fleet's.
 */
const FLAT_BOUND = 1.25

const flatness = (one: Measured, direct: Measured, three: Measured) => {
  const worst = Math.max(...three.perInstance)
  const reference = Math.max(...direct.perInstance)
  const ratio = worst / reference
  const alone = one.perInstance[0]!
  console.log(
    `\n${ratio <= FLAT_BOUND ? "PASS" : "MISS"}  CPU per conversation per instance stays flat: the busiest of three behind ` +
      `haproxy ${worst.toFixed(0)} µs against the busiest of the same three driven directly ${reference.toFixed(0)} µs ` +
      `(${ratio.toFixed(2)}x, target ≤ ${FLAT_BOUND}x)\n` +
      `info  against one instance alone behind haproxy (${alone.toFixed(0)} µs): ${(worst / alone).toFixed(2)}x; ` +
      `the same three driven directly: ${(reference / alone).toFixed(2)}x (this machine's contention)`
  )
}

const main = async () => {
  console.log(`bench:fleet — ${conversations} conversations of 4 requests (plan_trip), 16 at a time per instance\n`)
  for (const singleUse of ["false", "true"]) {
    const memoryFleet = await startFleet({ env: { MRTR_SINGLE_USE: singleUse, MRTR_REDIS_URL: "" } })
    try {
      await measure(`1 instance, direct, single use ${singleUse === "true" ? "in memory" : "off"}`, memoryFleet,
        `http://127.0.0.1:${memoryFleet.ports.a}/mcp`, ["a"])
    } finally {
      await memoryFleet.stop()
    }
  }
  const fleet = await startFleet({ env: { MRTR_SINGLE_USE: "true" } })
  try {
    await measure("1 instance, direct, single use on Redis", fleet, `http://127.0.0.1:${fleet.ports.a}/mcp`, ["a"])
    await fleet.kill("b")
    await fleet.kill("c")
    await new Promise((r) => setTimeout(r, 1_000))
    const one = await measure("1 instance behind haproxy, single use on Redis", fleet, fleet.url, ["a"])
    await fleet.start("b")
    await fleet.start("c")
    await new Promise((r) => setTimeout(r, 1_000))
    const three = await measure("3 instances behind haproxy, single use on Redis", fleet, fleet.url, INSTANCES)
    const direct = await measureDirect("3 instances, each driven directly, on Redis", fleet)
    flatness(one, direct, three)
  } finally {
    await fleet.stop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
