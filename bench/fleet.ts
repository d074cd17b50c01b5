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
 *    per conversation there likely also holds what five busy processes
 *    (three instances, haproxy, Redis, the load generator) on two cores do
 *    to each other: preempted more often (the preemptions column, all
 *    threads), each instance resumes on cold caches.
 * 2. **Fixed offered load** (`--rate` conversations per second per instance,
 *    default 100, below what the machine can serve; `TRIALS` trials of 8 s,
 *    the three-instance ones interleaved): one instance behind haproxy, three
 *    behind haproxy, the three driven directly. Every instance gets the same
 *    load whatever the fleet's size and the cores are not saturated, so what
 *    is left is what the fleet itself adds per conversation (the balancer,
 *    rounds moving between instances, the shared state): the flatness target
 *    (PASS/MISS, see `flatness`: the busiest of three behind haproxy at most
 *    1.25x one alone behind haproxy and the same three driven directly, and
 *    at most a quarter of one alone's saturated cost above one alone; a
 *    trial that did not serve 95% of the offered load makes it a MISS).
 *
 * Options: `--conversations 2000` (saturated), `--rate 100`. Needs
 * redis-server and haproxy. Not a test: prints tables.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { type Fleet, INSTANCES, startFleet, toolsCall } from "../examples/fleet/fleet.ts"
import { post, type Target, target } from "./driver.ts"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const conversations = arg("conversations", 2_000)
/** The fixed offered load, in conversations per second per instance. */
const rate = arg("rate", 100)
/** Conversations per instance and trial at the fixed load (8 s at the default rate). */
const paced = rate * 8
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
    content: {
      traveller: "Ada",
      email: "ada@example.com",
      date: "2026-08-01",
      passengers: 1,
      firstClass: false,
      seat: "any"
    }
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
    const json = await post(targetOf(url), JSON.stringify(toolsCall(ids++, params)), "plan_trip")
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

/** Involuntary context switches of all the threads of `pid` (the event loop's and V8's and libuv's). */
const involuntarySwitches = (pid: number): number =>
  readdirSync(`/proc/${pid}/task`).reduce((sum, tid) => {
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8")
      return sum + Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)![1])
    } catch {
      return sum // a thread that ended meanwhile
    }
  }, 0)

/** What `measure` found: the CPU per conversation each instance spent on the conversations it served. */
interface Measured {
  readonly perInstance: ReadonlyArray<number>
  /** Conversations per second served, and (at a fixed load) offered. */
  readonly rate: number
  readonly offered: number | undefined
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
  const share = Math.round((options.perInstance * names.length) / targets.length)
  const each = (n: number, perSecond: number) =>
    Promise.all(
      targets.map((url) =>
        drive(url, n, (16 * names.length) / targets.length, (perSecond * names.length) / targets.length)
      )
    )
  // warm-up: every instance's JIT to its steady state (an instance started a moment ago spent ~1.5x per
  // conversation after 300 conversations), not only the first one's
  if (options.warm) await each(Math.round((1_500 * names.length) / targets.length), 0)
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
  return {
    perInstance,
    rate: total / seconds,
    offered: options.perSecond > 0 ? options.perSecond * names.length : undefined
  }
}

/**
 * The flatness target, at the fixed offered load (medians of `TRIALS`
 * interleaved trials): the busiest of three instances behind haproxy spends
 * at most 1.25x the CPU per conversation of one instance alone behind
 * haproxy and of the same three driven directly, and what it adds over one
 * alone is at most a quarter of one alone's saturated cost (so the bound in
 * µs does not grow with the higher cost per conversation an instance idle
 * between requests pays). A trial that served less than 95% of the offered
 * load did not run at that load: the target is then a MISS (invalid). The
 * saturated ratios are printed beside it (information: the two cores'
 * contention is in them).
 */
const FLAT_BOUND = 1.25
const TRIALS = 3

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const worst = (m: Measured) => Math.max(...m.perInstance)

const flatness = (
  paced: {
    readonly one: ReadonlyArray<Measured>
    readonly three: ReadonlyArray<Measured>
    readonly direct: ReadonlyArray<Measured>
  },
  saturated: { readonly one: Measured; readonly three: Measured; readonly direct: Measured }
) => {
  const three = median(paced.three.map(worst))
  const one = median(paced.one.map(worst))
  const direct = median(paced.direct.map(worst))
  const vsOne = three / one
  const vsDirect = three / direct
  const added = three - one
  const allowance = (FLAT_BOUND - 1) * worst(saturated.one)
  const all = [...paced.one, ...paced.three, ...paced.direct]
  const delivered = Math.min(...all.map((m) => m.rate / m.offered!))
  const valid = delivered >= 0.95
  const pass = valid && vsOne <= FLAT_BOUND && vsDirect <= FLAT_BOUND && added <= allowance
  console.log(
    `\n${pass ? "PASS" : "MISS"}  CPU per conversation per instance stays flat at ${rate} conv/s per instance ` +
      `(medians of ${TRIALS} trials): the busiest of three behind haproxy ${three.toFixed(0)} µs against one alone ` +
      `behind haproxy ${one.toFixed(0)} µs (${vsOne.toFixed(2)}x, ${added >= 0 ? "+" : ""}${
        added.toFixed(0)
      } µs) and the ` +
      `same three driven directly ${direct.toFixed(0)} µs (${
        vsDirect.toFixed(2)
      }x); target ≤ ${FLAT_BOUND}x each and ` +
      `at most +${allowance.toFixed(0)} µs (a quarter of one alone's saturated cost)` +
      (valid ? "" : `; INVALID: a trial served ${(delivered * 100).toFixed(0)}% of the offered load (< 95%)`) +
      `\ninfo  saturated: the busiest of three behind haproxy ${
        (worst(saturated.three) / worst(saturated.one)).toFixed(2)
      }x ` +
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
      await measure(
        `1 direct, single use ${singleUse === "true" ? "in memory" : "off"}`,
        memoryFleet,
        [`http://127.0.0.1:${memoryFleet.ports.a}/mcp`],
        ["a"],
        saturated(1)
      )
    } finally {
      await memoryFleet.stop()
    }
  }
  const fleet = await startFleet({ env: { MRTR_SINGLE_USE: "true" } })
  try {
    const direct = INSTANCES.map((name) => `http://127.0.0.1:${fleet.ports[name]}/mcp`)
    const onlyA = async () => {
      await fleet.kill("b")
      await fleet.kill("c")
      await new Promise((r) => setTimeout(r, 1_000))
    }
    const allThree = async () => {
      await fleet.start("b")
      await fleet.start("c")
      await new Promise((r) => setTimeout(r, 1_000))
    }
    await measure("1 direct, single use on Redis", fleet, [direct[0]!], ["a"], saturated(1))
    await onlyA()
    const one = await measure("1 behind haproxy, on Redis", fleet, [fleet.url], ["a"], saturated(1))
    const pacedOne: Array<Measured> = []
    console.log(`\nfixed offered load: ${rate} conversations/s per instance, ${paced} per instance and trial`)
    for (let trial = 0; trial < TRIALS; trial++) {
      pacedOne.push(await measure("1 behind haproxy, on Redis", fleet, [fleet.url], ["a"], fixed))
    }
    await allThree()
    console.log(`\nsaturated:`)
    const three = await measure("3 behind haproxy, on Redis", fleet, [fleet.url], INSTANCES, saturated(3))
    const threeDirect = await measure("3 each driven directly, on Redis", fleet, direct, INSTANCES, saturated(3))
    console.log(`\nfixed offered load, interleaved:`)
    const pacedThree: Array<Measured> = []
    const pacedDirect: Array<Measured> = []
    for (let trial = 0; trial < TRIALS; trial++) {
      pacedThree.push(await measure("3 behind haproxy, on Redis", fleet, [fleet.url], INSTANCES, fixed))
      pacedDirect.push(await measure("3 each driven directly, on Redis", fleet, direct, INSTANCES, fixed))
    }
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
