/**
 * `npm run bench:fleet`: the cost of the fleet. Drives the demo's 4-request
 * `plan_trip` conversation (2026-07-28, raw JSON-RPC on node:http) and
 * reports, per configuration:
 *
 * - server CPU per conversation (user + system time of the instance
 *   processes, from /proc, divided by the conversations), and per
 *   instance the CPU per conversation it served (round-robin: 1/N of them);
 * - Redis round trips per conversation (`total_commands_processed` of the
 *   redis-server, before and after);
 * - throughput (conversations per second) and the instances' involuntary
 *   context switches per conversation.
 *
 * Two regimes:
 *
 * 1. **Saturated** (16 conversations at a time per instance, as fast as they
 *    answer): one instance directly with single use off, in memory, on
 *    Redis; one and three instances behind haproxy; the three driven
 *    directly. On a 2-core machine this shows cost, not scale, and CPU time
 *    per conversation there also holds what five busy processes (three
 *    instances, haproxy, Redis, the load generator) on two cores do to each
 *    other: preempted more often, each instance resumes on cold caches.
 * 2. **Fixed offered load** (`--rate` conversations per second per instance,
 *    default 100, below what the machine can serve): one instance behind
 *    haproxy, three behind haproxy, the three driven directly. Every instance
 *    gets the same load whatever the fleet's size and the cores are not
 *    saturated, so what is left is what the fleet itself adds per
 *    conversation (the balancer, rounds moving between instances, the shared
 *    state): the flatness target (PASS/MISS: the busiest of three behind
 *    haproxy at most 1.25x one alone behind haproxy, and 1.25x the same three
 *    driven directly).
 *
 * Options: `--conversations 2000` (saturated), `--rate 100`. Needs
 * redis-server and haproxy. Not a test: prints tables.
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
/** The fixed offered load, in conversations per second per instance. */
const rate = arg("rate", 100)
/** Conversations per instance at the fixed load (10 s at the default rate). */
const paced = rate * 10
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

const drive = async (url: string, n: number, concurrency: number, perSecond = 0) => {
  let next = 0
  const started = performance.now()
  const worker = async () => {
    while (next < n) {
      const i = next++
      if (perSecond > 0) {
        const due = started + (i * 1000) / perSecond - performance.now()
        if (due > 0) await new Promise((r) => setTimeout(r, due))
      }
      await converse(url)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return (performance.now() - started) / 1000
}

const pidsOf = (fleet: Fleet, names: ReadonlyArray<string>) => names.map((name) => fleet.pidOf(name as never))

const involuntarySwitches = (pid: number): number =>
  Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1])

/** What `measure` found: the CPU per conversation each instance spent on the conversations it served. */
interface Measured {
  readonly perInstance: ReadonlyArray<number>
}

/**
 * One configuration: `targets` are the URLs driven (the balancer's, or each
 * instance's own), `names` the instances whose CPU is counted; `perInstance`
 * conversations go to each instance (through the balancer: all of them to
 * its URL), at `perSecond` per instance (0: saturated, 16 at a time each).
 */
const measure = async (
  label: string,
  fleet: Fleet,
  targets: ReadonlyArray<string>,
  names: ReadonlyArray<string>,
  options: { readonly perInstance: number; readonly perSecond: number; readonly warm: boolean }
): Promise<Measured> => {
  const share = (options.perInstance * names.length) / targets.length
  const each = (n: number, perSecond: number) =>
    Promise.all(targets.map((url) => drive(url, n, (16 * names.length) / targets.length, (perSecond * names.length) / targets.length)))
  // warm-up: every instance's JIT to its steady state (an instance started a moment ago spent ~1.5x per
  // conversation after 300 conversations), not only the first one's
  if (options.warm) await each((1_500 * names.length) / targets.length, 0)
  const pids = pidsOf(fleet, names)
  const cpuBefore = pids.map(cpuMs)
  const switchesBefore = pids.map(involuntarySwitches)
  const redisBefore = redisCommands(fleet.redis.port)
  const started = performance.now()
  await each(share, options.perSecond)
  const seconds = (performance.now() - started) / 1000
  const total = share * targets.length
  const cpu = pids.map((pid, i) => cpuMs(pid) - cpuBefore[i]!)
  const switches = pids.reduce((sum, pid, i) => sum + involuntarySwitches(pid) - switchesBefore[i]!, 0) / total
  const trips = (redisCommands(fleet.redis.port) - redisBefore - 1) / total
  const perInstance = cpu.map((c) => (c * 1000 * pids.length) / total)
  console.log(
    `${label.padEnd(40)} ${(total / seconds).toFixed(0).padStart(5)} conv/s ` +
      `${((cpu.reduce((a, b) => a + b, 0) * 1000) / total).toFixed(0).padStart(6)} µs CPU/conv  ` +
      `by instance: ${perInstance.map((c) => `${c.toFixed(0)} µs`).join(", ").padEnd(24)} ` +
      `${trips.toFixed(2)} Redis trips/conv  ${switches.toFixed(1)} preemptions/conv`
  )
  return { perInstance }
}

/**
 * The flatness target, at the fixed offered load: the busiest of three
 * instances behind haproxy spends at most 1.25x the CPU per conversation of
 * one instance alone behind haproxy, and of the same three driven directly.
 * The saturated ratio is printed beside it (information: the machine's
 * contention is in it).
 */
const FLAT_BOUND = 1.25

const flatness = (
  paced: { readonly one: Measured; readonly three: Measured; readonly direct: Measured },
  saturated: { readonly one: Measured; readonly three: Measured; readonly direct: Measured }
) => {
  const worst = (m: Measured) => Math.max(...m.perInstance)
  const vsOne = worst(paced.three) / worst(paced.one)
  const vsDirect = worst(paced.three) / worst(paced.direct)
  const pass = vsOne <= FLAT_BOUND && vsDirect <= FLAT_BOUND
  console.log(
    `\n${pass ? "PASS" : "MISS"}  CPU per conversation per instance stays flat at ${rate} conv/s per instance: the busiest ` +
      `of three behind haproxy ${worst(paced.three).toFixed(0)} µs against one alone behind haproxy ` +
      `${worst(paced.one).toFixed(0)} µs (${vsOne.toFixed(2)}x) and the same three driven directly ` +
      `${worst(paced.direct).toFixed(0)} µs (${vsDirect.toFixed(2)}x), target ≤ ${FLAT_BOUND}x each\n` +
      `info  saturated: the busiest of three behind haproxy ${(worst(saturated.three) / worst(saturated.one)).toFixed(2)}x ` +
      `one alone behind haproxy, ${(worst(saturated.three) / worst(saturated.direct)).toFixed(2)}x the three driven ` +
      `directly (five busy processes on two cores: see the preemptions column)`
  )
}

const main = async () => {
  console.log(`bench:fleet — conversations of 4 requests (plan_trip)\n`)
  console.log(`saturated: ${conversations} conversations, 16 at a time per instance`)
  const saturated = (n: number) => ({ perInstance: conversations / n, perSecond: 0, warm: true })
  const fixed = { perInstance: paced, perSecond: rate, warm: false }
  for (const singleUse of ["false", "true"]) {
    const memoryFleet = await startFleet({ env: { MRTR_SINGLE_USE: singleUse, MRTR_REDIS_URL: "" } })
    try {
      await measure(`1 direct, single use ${singleUse === "true" ? "in memory" : "off"}`, memoryFleet,
        [`http://127.0.0.1:${memoryFleet.ports.a}/mcp`], ["a"], saturated(1))
    } finally {
      await memoryFleet.stop()
    }
  }
  const fleet = await startFleet({ env: { MRTR_SINGLE_USE: "true" } })
  try {
    const direct = INSTANCES.map((name) => `http://127.0.0.1:${fleet.ports[name]}/mcp`)
    await measure("1 direct, single use on Redis", fleet, [direct[0]!], ["a"], saturated(1))
    await fleet.kill("b")
    await fleet.kill("c")
    await new Promise((r) => setTimeout(r, 1_000))
    const one = await measure("1 behind haproxy, on Redis", fleet, [fleet.url], ["a"], saturated(1))
    await fleet.start("b")
    await fleet.start("c")
    await new Promise((r) => setTimeout(r, 1_000))
    const three = await measure("3 behind haproxy, on Redis", fleet, [fleet.url], INSTANCES, saturated(3))
    const threeDirect = await measure("3 each driven directly, on Redis", fleet, direct, INSTANCES, saturated(3))

    console.log(`\nfixed offered load: ${rate} conversations/s per instance, ${paced} per instance`)
    const pacedThree = await measure("3 behind haproxy, on Redis", fleet, [fleet.url], INSTANCES, fixed)
    const pacedDirect = await measure("3 each driven directly, on Redis", fleet, direct, INSTANCES, fixed)
    await fleet.kill("b")
    await fleet.kill("c")
    await new Promise((r) => setTimeout(r, 1_000))
    const pacedOne = await measure("1 behind haproxy, on Redis", fleet, [fleet.url], ["a"], fixed)
    flatness(
      { one: pacedOne, three: pacedThree, direct: pacedDirect },
      { one, three, direct: threeDirect }
    )
  } finally {
    await fleet.stop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
