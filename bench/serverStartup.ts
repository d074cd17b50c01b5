/**
 * Start-up of the example servers, for `bench/index.ts`: the wall time from
 * spawning the process to the moment it prints `listening <url>` on stdout
 * (both servers print that line once their port is bound), for
 *
 * - the demo server (`examples/demo/server.ts --port 0`) and
 * - the conformance fixture server (`examples/conformance-server/index.ts --port 0`),
 *
 * each run two ways: `source` as the repository's npm scripts run examples
 * (`node --conditions=@mrtr/source --import tsx <file>`, TypeScript compiled
 * on the fly, npm's own start-up not included), and `compiled` as deployed
 * (bundled by esbuild into one module first, outside the timing, then plain
 * `node`). Each run's process is ended (SIGTERM, by its pid) once it listens.
 * Target: a median under 1 s. (`runs` runs compiled, at most 3 from source.)
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { compile } from "./processes.ts"

/** The server start-up target in milliseconds (median, process start to `listening`). */
export const SERVER_STARTUP_TARGET_MS = 1000

const root = fileURLToPath(new URL("..", import.meta.url))

export const SERVERS = [
  { name: "demo server", entry: join(root, "examples/demo/server.ts") },
  { name: "conformance fixture server", entry: join(root, "examples/conformance-server/index.ts") }
] as const

export interface ServerStartup {
  readonly name: string
  readonly mode: "source (tsx)" | "compiled (esbuild, node)"
  readonly median: number
  readonly min: number
  readonly runs: number
}

/** Spawns `node ...args` and resolves with the ms until stdout shows `listening`. */
const once = (args: ReadonlyArray<string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [...args, "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`no "listening" within 20 s: ${err.slice(0, 300)}`))
    }, 20_000)
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (!out.includes("listening ")) return
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6
      clearTimeout(timer)
      child.once("exit", () => resolve(elapsed))
      child.kill("SIGTERM")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString()
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      if (!out.includes("listening ")) reject(new Error(`exited ${code} before listening: ${err.slice(0, 300)}`))
    })
  })

const measure = async (
  name: string,
  mode: ServerStartup["mode"],
  args: ReadonlyArray<string>,
  runs: number
): Promise<ServerStartup> => {
  await once(args) // warms the OS file cache (and tsx's cache)
  const samples: Array<number> = []
  for (let i = 0; i < runs; i++) samples.push(await once(args))
  samples.sort((a, b) => a - b)
  return { name, mode, median: samples[Math.floor(samples.length / 2)]!, min: samples[0]!, runs }
}

/** Both servers, both ways, `runs` times each after a warm-up run; `dir` receives the compiled bundles. */
export const runServerStartup = async (dir: string, runs: number): Promise<ReadonlyArray<ServerStartup>> => {
  const results: Array<ServerStartup> = []
  for (const [i, server] of SERVERS.entries()) {
    // tsx start-ups take seconds: fewer runs (their spread is small next to the target)
    const sourceRuns = Math.min(runs, 3)
    results.push(
      await measure(
        server.name,
        "source (tsx)",
        ["--conditions=@mrtr/source", "--import", "tsx", server.entry],
        sourceRuns
      )
    )
    const bundle = await compile(server.entry, join(dir, `startup-${i}.mjs`))
    results.push(await measure(server.name, "compiled (esbuild, node)", [bundle], runs))
  }
  return results
}
