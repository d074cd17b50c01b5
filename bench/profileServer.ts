/**
 * Server CPU per conversation and per request, measured the way a noisy,
 * shared machine allows: `process.cpuUsage()` of a server child process over
 * a fixed number of conversations, in paired, alternating trials, medians
 * shown. Optionally under `node --cpu-prof`, with a summary of the profile.
 *
 *   npx tsx --conditions=@mrtr/source bench/profileServer.ts compile <out.mjs>
 *   npx tsx --conditions=@mrtr/source bench/profileServer.ts compare [--trials 7] [--conversations 1500] <a.mjs> [<b.mjs> ...]
 *   npx tsx --conditions=@mrtr/source bench/profileServer.ts profile [--conversations 6000] [--kind ours|bare] <a.mjs> [<out-dir>]
 *   npx tsx --conditions=@mrtr/source bench/profileServer.ts floors [--trials 5] [--conversations 1500] <a.mjs>
 *   node <a.mjs> handler [--conversations 3000] [--trials 5] [--rounds N] [--concurrency 8]
 *   npx tsx --conditions=@mrtr/source bench/profileServer.ts summary <file.cpuprofile> [<the bundle it ran>]
 *
 * `compile` bundles this file (with the workspace packages' sources, as
 * `bench/index.ts` bundles `bench/servers.ts`) into one ES module: a server
 * child. Compiling once before a change and once after gives two bundles to
 * `compare` against each other in one run. Each bundle serves, per kind:
 *
 * - `ours`: `greet` (the two-round tool of `bench/servers.ts`) and `chain`
 *   (parameters `{ rounds: number }`: asks `rounds` one-field forms one after
 *   the other, keys `q0`, `q1`, ..., then completes), on `HttpTransport`;
 * - `bare`: `node:http` answering fixed JSON (the floor of `bench/servers.ts`);
 * - `effect-http-floor`, `transport-floor`: the reference floors of
 *   `bench/servers.ts`; `transport-floor-async` answers two turns of the event
 *   loop later, as a suspended round does.
 *
 * `compare` reports, per bundle: server CPU µs per `greet` conversation of
 * `ours` and of `bare` and their ratio; µs per request of `chain` at N = 1
 * and N = 16 rounds (a request of round k replays k - 1 earlier answers) and
 * the sealed `requestState`'s length per round. `floors` reports every kind
 * of one bundle (with the kernel's share). `handler` runs in the bundle's
 * own process, without HTTP. `profile` runs `ours` (or `--kind`) under
 * `--cpu-prof` and prints self time by module (from the bundle's esbuild
 * module comments) and the top functions; `writev` is set apart, as its
 * samples also count the wall time a loaded machine deschedules the writer.
 * The driver is the raw one of `bench/driver.ts` (keep-alive sockets, every
 * reply checked). On a shared machine, trust paired runs and CPU time.
 */
import { Elicitation, RequestState } from "@mrtr/core"
import { HttpTransport, McpHandler, McpServer, Tool } from "@mrtr/server"
import { Effect, Layer, Schema } from "effect"
import { type ChildProcess, fork } from "node:child_process"
import { randomBytes } from "node:crypto"
import { conversation, post, runPool, type Target, target } from "./driver.ts"
import { launch, startBare, startEffectHttpFloor, startTransportFloor } from "./floors.ts"
import { greet } from "./greet.ts"
import { compile as bundle } from "./processes.ts"

// -----------------------------------------------------------------------------
// Child: the servers
// -----------------------------------------------------------------------------

/** The `McpServer` layer of `ours`: `greet` and `chain` (see the module header). */
const oursServer = async () => {
  const Answer = Schema.Struct({ value: Schema.String })
  const chain = Tool.make("chain", {
    description: "Asks `rounds` questions, one per round",
    parameters: Schema.Struct({ rounds: Schema.Number }),
    handler: ({ rounds }) =>
      Effect.gen(function*() {
        let total = 0
        for (let i = 0; i < rounds; i++) {
          const { value } = yield* Elicitation.form({ key: `q${i}`, message: `Question ${i}?`, schema: Answer })
          total += value.length
        }
        return `answered ${rounds}: ${total}`
      })
  })
  return Layer.mergeAll(McpServer.tools(greet, chain)).pipe(
    Layer.provideMerge(McpServer.layer({
      name: "bench-ours",
      version: "1.0.0",
      requestState: RequestState.RequestStateCodec.layer({
        keyRing: RequestState.KeyRing.fromBytes([{ id: "bench", bytes: randomBytes(32) }])
      }).pipe(Layer.orDie)
    }))
  )
}

const startOurs = async (): Promise<string> =>
  launch(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(await oursServer()), Layer.orDie), HttpTransport.url)

/**
 * In process, without HTTP: `count` conversations straight through the
 * `McpHandler` (`McpServer.handle`), `--concurrency` at a time; prints the
 * CPU µs per conversation and per request of each of `trials` batches.
 * `rounds` 0 runs `greet`, N > 0 runs `chain` with N rounds. Isolates the
 * dispatcher and the engine from the transport.
 */
const inProcess = async (count: number, trials: number, rounds: number) => {
  const server = await oursServer()
  const tool = rounds === 0 ? "greet" : "chain"
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": tool
  }
  const incoming = (params: Record<string, unknown>) => ({
    message: JSON.parse(JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method: "tools/call",
      params: { name: tool, arguments: rounds === 0 ? {} : { rounds }, ...params, _meta: META }
    })),
    headers: (name: string) => headers[name.toLowerCase()],
    canStream: false
  })
  const requests = rounds === 0 ? 2 : rounds + 1
  await Effect.runPromise(
    Effect.gen(function*() {
      const handler = yield* McpHandler
      const one = Effect.gen(function*() {
        let params: Record<string, unknown> = {}
        for (let i = 0; i < requests; i++) {
          const reply: any = yield* handler.handle(incoming(params))
          const result = reply.message?.result
          if (i === requests - 1) {
            if (result?.resultType !== "complete") throw new Error(JSON.stringify(reply))
            return
          }
          if (result?.resultType !== "input_required") throw new Error(JSON.stringify(reply))
          const key = rounds === 0 ? "name" : `q${i}`
          const content = rounds === 0 ? { name: "Alice" } : { value: `answer number ${i}` }
          params = { inputResponses: { [key]: { action: "accept", content } }, requestState: result.requestState }
        }
      })
      for (let t = 0; t <= trials; t++) {
        const c0 = process.cpuUsage()
        yield* Effect.forEach(Array.from({ length: count }), () => one, { concurrency, discard: true })
        const c = process.cpuUsage(c0)
        const perConversation = (c.user + c.system) / count
        if (t > 0) {
          console.log(
            `in process, ${tool}${rounds === 0 ? "" : ` N=${rounds}`}, ${concurrency} at a time: ` +
              `${perConversation.toFixed(0)} µs CPU per conversation, ${
                (perConversation / requests).toFixed(0)
              } per request`
          )
        }
      }
    }).pipe(Effect.provide(server), Effect.scoped)
  )
}

/** The reference floors of ./floors.ts (`transport-floor-async`: the reply two turns of the event loop later). */
const startFloor = (kind: "effect-http-floor" | "transport-floor" | "transport-floor-async"): Promise<string> =>
  kind === "effect-http-floor"
    ? startEffectHttpFloor()
    : startTransportFloor({ later: kind === "transport-floor-async" })

const child = async (kind: string) => {
  const url = kind === "bare"
    ? await startBare()
    : kind === "effect-http-floor" || kind === "transport-floor" || kind === "transport-floor-async"
    ? await startFloor(kind)
    : await startOurs()
  process.on("message", (message: { type?: string }) => {
    if (message.type !== "cpu") return
    const cpu = process.cpuUsage()
    process.send!({ type: "cpu", cpuMicros: cpu.user + cpu.system, systemMicros: cpu.system })
  })
  // `--cpu-prof` writes its profile on a normal exit.
  process.on("disconnect", () => process.exit(0))
  process.send!({ type: "ready", url })
}

// -----------------------------------------------------------------------------
// Parent: driving and measuring
// -----------------------------------------------------------------------------

interface Server {
  readonly child: ChildProcess
  readonly target: Target
}

const start = (bundle: string, kind: string, execArgv: Array<string> = []): Promise<Server> =>
  new Promise((resolve, reject) => {
    const proc = fork(bundle, ["serve", kind], { execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] })
    proc.once("error", reject)
    proc.on("message", (message: { type?: string; url?: string }) => {
      if (message.type === "ready" && message.url !== undefined) {
        resolve({ child: proc, target: target(message.url, concurrency) })
      }
    })
  })

/** The system (kernel) part of the last CPU reading of each server. */
const systemMicros = new Map<Server, number>()

const cpuOf = (server: Server): Promise<number> =>
  new Promise((resolve) => {
    const listener = (message: { type?: string; cpuMicros?: number; systemMicros?: number }) => {
      if (message.type !== "cpu") return
      server.child.off("message", listener)
      systemMicros.set(server, message.systemMicros!)
      resolve(message.cpuMicros!)
    }
    server.child.on("message", listener)
    server.child.send({ type: "cpu" })
  })

const stop = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.child.once("exit", () => resolve())
    server.child.disconnect()
  })

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" }
}
let nextId = 1

const call = (t: Target, params: Record<string, unknown>): Promise<any> =>
  post(
    t,
    JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { ...params, _meta: META } }),
    String(params["name"])
  )

/** One `chain` conversation of `rounds` questions; resolves with the sealed state's length after each round. */
const chainConversation = async (t: Target, rounds: number): Promise<Array<number>> => {
  const sizes: Array<number> = []
  let requestState: string | undefined
  let inputResponses: Record<string, unknown> | undefined
  for (let i = 0; i <= rounds; i++) {
    const reply = await call(t, {
      name: "chain",
      arguments: { rounds },
      ...(inputResponses === undefined ? {} : { inputResponses }),
      ...(requestState === undefined ? {} : { requestState })
    })
    const result = reply.result
    if (i === rounds) {
      if (result?.resultType !== "complete") throw new Error(`chain: ${JSON.stringify(reply).slice(0, 300)}`)
      return sizes
    }
    if (result?.resultType !== "input_required" || result.inputRequests?.[`q${i}`] === undefined) {
      throw new Error(`chain round ${i}: ${JSON.stringify(reply).slice(0, 300)}`)
    }
    requestState = result.requestState
    sizes.push(requestState?.length ?? 0)
    inputResponses = { [`q${i}`]: { action: "accept", content: { value: `answer number ${i}` } } }
  }
  return sizes
}

let concurrency = 8

/** Server CPU µs per task over `count` tasks. */
const measure = async (server: Server, count: number, task: () => Promise<unknown>): Promise<number> => {
  const before = await cpuOf(server)
  await runPool(count, concurrency, task)
  return (await cpuOf(server)) - before
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** Server CPU µs per `greet` conversation of each kind, alternating kinds, medians. */
const floors = async (bundle: string, trials: number, conversations: number) => {
  const kinds = ["bare", "effect-http-floor", "transport-floor", "transport-floor-async", "ours"]
  const servers = await Promise.all(kinds.map((kind) => start(bundle, kind)))
  const samples = kinds.map(() => [] as Array<number>)
  const system = kinds.map(() => [] as Array<number>)
  for (const s of servers) await runPool(conversations, concurrency, () => conversation(s.target))
  for (let trial = 0; trial < trials; trial++) {
    for (let i = 0; i < kinds.length; i++) {
      const s = servers[i]!
      const system0 = systemMicros.get(s) ?? 0
      samples[i]!.push(await measure(s, conversations, () => conversation(s.target)) / conversations)
      system[i]!.push((systemMicros.get(s)! - system0) / conversations)
    }
  }
  kinds.forEach((kind, i) =>
    console.log(
      `${kind.padEnd(22)} ${median(samples[i]!).toFixed(0).padStart(5)} µs/conv, of which system ${
        median(system[i]!).toFixed(0).padStart(4)
      }  (${samples[i]!.map((x) => x.toFixed(0)).join(" ")})`
    )
  )
  for (const s of servers) await stop(s)
}

const compare = async (bundles: Array<string>, trials: number, conversations: number) => {
  const servers = await Promise.all(
    bundles.map(async (b) => ({ ours: await start(b, "ours"), bare: await start(b, "bare") }))
  )
  const rows = bundles.map(() => ({
    ours: [] as Array<number>,
    bare: [] as Array<number>,
    n1: [] as Array<number>,
    n16: [] as Array<number>
  }))
  const chainCount = (n: number) => Math.max(20, Math.round(conversations * 2 / (n + 1)))
  // Warm-up.
  for (const s of servers) {
    await runPool(conversations, concurrency, () => conversation(s.ours.target))
    await runPool(conversations, concurrency, () => conversation(s.bare.target))
    await runPool(chainCount(1), concurrency, () => chainConversation(s.ours.target, 1))
    await runPool(chainCount(16), concurrency, () => chainConversation(s.ours.target, 16))
  }
  for (let trial = 0; trial < trials; trial++) {
    // Alternate the order of the bundles from one trial to the next.
    const order = bundles.map((_, i) => i)
    if (trial % 2 === 1) order.reverse()
    for (const i of order) {
      const s = servers[i]!
      rows[i]!.ours.push(await measure(s.ours, conversations, () => conversation(s.ours.target)) / conversations)
      rows[i]!.bare.push(await measure(s.bare, conversations, () => conversation(s.bare.target)) / conversations)
      rows[i]!.n1.push(
        await measure(s.ours, chainCount(1), () => chainConversation(s.ours.target, 1)) / (chainCount(1) * 2)
      )
      rows[i]!.n16.push(
        await measure(s.ours, chainCount(16), () => chainConversation(s.ours.target, 16)) / (chainCount(16) * 17)
      )
    }
  }
  const sizes = await Promise.all(servers.map((s) => chainConversation(s.ours.target, 16)))
  console.log(
    `${trials} alternating trials of ${conversations} greet conversations (and as many chain requests), concurrency ${concurrency}; medians of server CPU (user + system)`
  )
  console.log(
    "bundle | ours µs/conv | bare µs/conv | ratio | chain N=1 µs/req | N=16 µs/req | ratio | state bytes r1, r2, r16 | bytes/answer"
  )
  bundles.forEach((b, i) => {
    const r = rows[i]!
    const o = median(r.ours), ba = median(r.bare), n1 = median(r.n1), n16 = median(r.n16)
    const sz = sizes[i]!
    console.log(
      `${b} | ${o.toFixed(0)} | ${ba.toFixed(0)} | ${(o / ba).toFixed(2)}x | ${n1.toFixed(0)} | ${n16.toFixed(0)} | ${
        (n16 / n1).toFixed(2)
      }x | ` +
        `${sz[0]}, ${sz[1]}, ${sz[15]} | ${((sz[15]! - sz[0]!) / 15).toFixed(1)}`
    )
    console.log(
      `  trials ours: ${r.ours.map((x) => x.toFixed(0)).join(" ")}; bare: ${
        r.bare.map((x) => x.toFixed(0)).join(" ")
      }; n1: ${r.n1.map((x) => x.toFixed(0)).join(" ")}; n16: ${r.n16.map((x) => x.toFixed(0)).join(" ")}`
    )
  })
  for (const s of servers) await Promise.all([stop(s.ours), stop(s.bare)])
}

const profile = async (bundle: string, dir: string, conversations: number, kind: string) => {
  const { mkdirSync, readdirSync } = await import("node:fs")
  mkdirSync(dir, { recursive: true })
  const server = await start(bundle, kind, ["--cpu-prof", `--cpu-prof-dir=${dir}`])
  await runPool(conversations, concurrency, () => conversation(server.target))
  await stop(server)
  const file = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort().pop()!
  await summary(`${dir}/${file}`)
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: ReadonlyArray<number>
}

/** Self time by package (node_modules package or workspace package) and the top functions. */
const summary = async (file: string) => {
  const { readFileSync } = await import("node:fs")
  const prof = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: Array<ProfileNode>
    samples: Array<number>
    timeDeltas: Array<number>
  }
  const byId = new Map(prof.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)))
  let total = 0
  let writev = 0
  const groups = new Map<string, number>()
  const fns = new Map<string, number>()
  for (const [id, t] of self) {
    const n = byId.get(id)!
    const fnName = n.callFrame.functionName || "(anonymous)"
    // `(idle)` is not CPU; `writev` is the socket write, whose samples also count the time the process
    // is descheduled by the wake-up of the reader on a loaded machine (the profiler samples wall time).
    if (fnName === "(idle)") continue
    if (fnName === "writev") {
      writev += t
      continue
    }
    total += t
    groups.set(groupOf(n), (groups.get(groupOf(n)) ?? 0) + t)
    const key = `${fnName} ${n.callFrame.url.split("/").slice(-1)[0]}:${n.callFrame.lineNumber + 1}`
    fns.set(key, (fns.get(key) ?? 0) + t)
  }
  const pct = (t: number) => `${((t / total) * 100).toFixed(1)}%`
  console.log(
    `profile ${file}: ${(total / 1000).toFixed(0)} ms of non-idle samples, besides ${
      (writev / 1000).toFixed(0)
    } ms in writev`
  )
  for (const [g, t] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
    console.log(`  ${pct(t).padStart(6)}  ${g}`)
  }
  console.log("top functions (self):")
  for (const [f, t] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${pct(t).padStart(6)}  ${f}`)
}

/**
 * The group of a profile node: for a frame of the bundle, the source module
 * its line falls in (esbuild's `// path` comments, see `indexBundle`); for
 * Node's own modules, the module; native frames by their kind.
 */
const groupOf = (n: ProfileNode): string => {
  const url = n.callFrame.url
  if (url === "") return n.callFrame.functionName.startsWith("(") ? n.callFrame.functionName : "native"
  if (url.startsWith("node:")) {
    return url.split("/")[0]! + (url.includes("internal/") ? ` ${url.split("internal/")[1]!.split("/")[0]}` : "")
  }
  const lineGroups = lineIndex.get(url)
  if (lineGroups !== undefined) {
    for (const [startLine, name] of lineGroups) if (n.callFrame.lineNumber + 1 >= startLine) return name
  }
  return url
}

/** For a bundle: its esbuild `// path` module comments, by line (descending), so frames group by source module's package. */
const lineIndex = new Map<string, Array<[number, string]>>()

const indexBundle = async (file: string) => {
  const { readFileSync } = await import("node:fs")
  const lines = readFileSync(file, "utf8").split("\n")
  const marks: Array<[number, string]> = []
  lines.forEach((line, i) => {
    const m = /^\/\/ (\S+\.(?:ts|js|mjs|cjs))$/.exec(line)
    if (m === null) return
    const path = m[1]!
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?:dist\/(?:esm\/)?)?(.*)$/.exec(path)
    const ws = /packages\/([^/]+)\/src\/(.*)$/.exec(path)
    marks.push([
      i + 1,
      pkg !== null
        ? `${pkg[1]} ${pkg[2]!.split("/").slice(0, 2).join("/")}`
        : ws !== null
        ? `@mrtr/${ws[1]} ${ws[2]}`
        : path
    ])
  })
  lineIndex.set(`file://${file}`, marks.reverse())
}

const compile = async (outfile: string) => {
  const { fileURLToPath } = await import("node:url")
  await bundle(fileURLToPath(import.meta.url), outfile, { external: ["esbuild"] })
  console.log(`compiled ${outfile}`)
}

const flag = (args: Array<string>, name: string, fallback: number): number => {
  const i = args.indexOf(name)
  if (i < 0) return fallback
  const value = Number(args[i + 1])
  args.splice(i, 2)
  return value
}

const main = async () => {
  const [command, ...args] = process.argv.slice(2)
  concurrency = flag(args, "--concurrency", 8)
  switch (command) {
    case "serve":
      return child(args[0]!)
    case "floors": {
      const trials = flag(args, "--trials", 5)
      const conversations = flag(args, "--conversations", 1500)
      return floors(args[0]!, trials, conversations)
    }
    case "handler":
      return inProcess(flag(args, "--conversations", 3000), flag(args, "--trials", 5), flag(args, "--rounds", 0))
    case "compile":
      return compile(args[0]!)
    case "compare": {
      const trials = flag(args, "--trials", 7)
      const conversations = flag(args, "--conversations", 1500)
      return compare(args, trials, conversations)
    }
    case "profile": {
      const conversations = flag(args, "--conversations", 6000)
      const kind = args[0] === "--kind" ? args.splice(0, 2)[1]! : "ours"
      const { resolve } = await import("node:path")
      await indexBundle(resolve(args[0]!))
      return profile(args[0]!, args[1] ?? "/tmp/mrtr-profile", conversations, kind)
    }
    case "summary": {
      if (args[1] !== undefined) await indexBundle((await import("node:path")).resolve(args[1]))
      return summary(args[0]!)
    }
    default:
      console.error(
        "usage: profileServer.ts compile <out.mjs> | compare <a.mjs> [<b.mjs> ...] | profile <a.mjs> [<dir>] | summary <file>"
      )
      process.exitCode = 2
  }
}

void main()
