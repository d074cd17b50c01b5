/**
 * `npm run bench:paired -- --base <commit>`: what a change costs, measured as
 * paired runs of `ours` at `<commit>` (the base) and at the working tree.
 *
 * Both servers (`bench/servers.ts` of each tree, compiled with esbuild) run
 * side by side in child processes; every trial runs the base and the working
 * tree back to back, in alternating order (AB, BA, AB, ...), so that a change
 * of the machine's load between trials touches both alike. Each pair gives
 * one ratio (working tree / base, server CPU per conversation); the report
 * is the median ratio of the pairs with its spread (lowest and highest pair),
 * for the two-round `greet` conversation and for `ask_n` at N = 1 and 16
 * (`--growth-ns` to change). The load average at start and end is printed: on
 * a shared machine, read a run only together with it.
 *
 * The base's tree is a `git worktree` in a temporary directory whose
 * `node_modules` links to this checkout's, with `@mrtr/*` pointing at the
 * base's own packages; it is removed at the end.
 *
 * Options: `--base <commit>` (required), `--trials 9`, `--seconds 1.5`,
 * `--concurrency 32`, `--growth-ns 1,16`.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { conversation, nRounds, runPool, type Target, target } from "./driver.ts"
import { compile, type Server, startServer, stop, tempDir, trial } from "./processes.ts"
import { fixed, section, table, times } from "./report.ts"

const args = process.argv.slice(2)
const value = (name: string): string | undefined => {
  const index = args.indexOf(`--${name}`)
  return index < 0 ? undefined : args[index + 1]
}
const number = (name: string, fallback: number) => {
  const n = Number(value(name))
  return Number.isFinite(n) && n > 0 ? n : fallback
}
const base = value("base")
if (base === undefined) {
  console.error("usage: npm run bench:paired -- --base <commit> [--trials 9] [--seconds 1.5] [--concurrency 32]")
  process.exit(2)
}
const trials = number("trials", 9)
const seconds = number("seconds", 1.5)
const concurrency = number("concurrency", 32)
const growthNs = (value("growth-ns") ?? "1,16").split(",").map(Number).filter((n) => Number.isInteger(n) && n > 0)

const root = fileURLToPath(new URL("..", import.meta.url))

/** A worktree of `commit` whose `node_modules` reuses this checkout's, with `@mrtr/*` its own packages. */
const baseTree = (dir: string, commit: string): string => {
  const tree = join(dir, "base")
  execFileSync("git", ["-C", root, "worktree", "add", "--detach", "--quiet", tree, commit], { stdio: "inherit" })
  const modules = join(tree, "node_modules")
  mkdirSync(join(modules, "@mrtr"), { recursive: true })
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (entry !== "@mrtr" && entry !== ".bin") symlinkSync(join(root, "node_modules", entry), join(modules, entry))
  }
  for (const pkg of readdirSync(join(tree, "packages"))) {
    symlinkSync(join(tree, "packages", pkg), join(modules, "@mrtr", pkg))
  }
  // a package's own node_modules (untracked) comes from this checkout too
  for (const pkg of readdirSync(join(root, "packages"))) {
    try {
      symlinkSync(join(root, "packages", pkg, "node_modules"), join(tree, "packages", pkg, "node_modules"))
    } catch {
      // none
    }
  }
  return tree
}

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

interface Pairs {
  readonly base: Array<number>
  readonly head: Array<number>
}

/**
 * `trials` pairs of `task` on both servers, alternating which runs first; CPU per conversation of each. Every trial
 * opens its own keep-alive connections (a socket the other server's trial left idle may be closed by now).
 */
const paired = async (
  servers: { readonly base: Server; readonly head: Server },
  task: (target: Target) => () => Promise<number>
): Promise<Pairs> => {
  const pairs: Pairs = { base: [], head: [] }
  const once = async (server: Server, ms: number) => {
    const fresh = target(server.url, concurrency)
    try {
      return await trial(server, concurrency, ms, task(fresh))
    } finally {
      fresh.agent.destroy()
    }
  }
  for (const server of [servers.base, servers.head]) await once(server, 500)
  for (let i = 0; i < trials; i++) {
    const order = i % 2 === 0 ? (["base", "head"] as const) : (["head", "base"] as const)
    for (const which of order) pairs[which].push((await once(servers[which], seconds * 1000)).serverCpu)
  }
  return pairs
}

const row = (label: string, pairs: Pairs) => {
  const ratios = pairs.head.map((h, i) => h / pairs.base[i]!)
  return [
    label,
    fixed(median(pairs.base)),
    fixed(median(pairs.head)),
    times(median(ratios)),
    `${times(Math.min(...ratios))} - ${times(Math.max(...ratios))}`
  ]
}

const main = async () => {
  const dir = tempDir()
  const load0 = loadavg()[0]!
  let tree: string | undefined
  const servers: Array<Server> = []
  try {
    tree = baseTree(dir, base)
    const baseModule = await compile(join(tree, "bench/servers.ts"), join(dir, "base.mjs"))
    const headModule = await compile(join(root, "bench/servers.ts"), join(dir, "head.mjs"))
    const baseServer = await startServer(baseModule, "ours", { concurrency })
    servers.push(baseServer)
    const headServer = await startServer(headModule, "ours", { concurrency })
    servers.push(headServer)
    const both = { base: baseServer, head: headServer }
    for (const server of servers) {
      await runPool(Infinity, concurrency, () => conversation(server.target), 2000)
      server.target.agent.destroy()
    }
    const rows = [row("greet (2 requests)", await paired(both, (t) => () => conversation(t)))]
    for (const n of growthNs) {
      rows.push(
        row(
          `ask_n, N=${n} (${n + 1} requests)`,
          await paired(both, (t) => () => nRounds(t, n).then((r) => r.ms))
        )
      )
    }
    section(
      `Paired runs: ours at ${base} (base) and the working tree (head), ${trials} pairs of ${seconds} s, ${concurrency} ` +
        `concurrent, order alternating`
    )
    table(
      ["conversation", "base µs CPU/conv", "head µs CPU/conv", "head / base (median pair)", "pairs (min - max)"],
      rows
    )
    console.log(
      `server CPU per conversation: medians of the trials; the ratio is the median of the ${trials} pairs' own ratios. ` +
        `Load average (1 min): ${fixed(load0, 2)} at start, ${fixed(loadavg()[0]!, 2)} at end.`
    )
  } finally {
    await Promise.all(servers.map(stop))
    if (tree !== undefined) {
      execFileSync("git", ["-C", root, "worktree", "remove", "--force", tree], { stdio: "inherit" })
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
