/**
 * Time to the first answer of a stdio server: the wall time from spawning a minimal server (`bench/stdioMinimal.ts`:
 * one tool, `StdioTransport.main`) to the line that answers the `server/discover` written to its stdin at once, the
 * probe a client sends first. Clients give the probe a short budget (the AI SDK's is 1 s, then it falls back to
 * 2025-11-25), so this is what a host feels at start. Run two ways, after a warm-up run (the OS file cache):
 *
 * - `installed`: plain `node` on the entry compiled by esbuild with `@mrtr/*` left external, so they load from their
 *   packages' `dist/` as an application that installed them loads them (needs `npm run build` first);
 * - `bundled`: the entry and everything it imports bundled into one module by esbuild, then plain `node`;
 * - `effect floor (installed)`: `bench/stdioFloor.ts`, no MCP code, only the `effect` import every Effect application
 *   pays and a fixed answer: the part of `installed` this project cannot remove.
 *
 * Target: a median under 300 ms on the 2-core reference machine. Each process is ended by closing its stdin.
 * Run alone: `npm run bench:stdio-startup [-- --runs 15]`.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { compile } from "./processes.ts"

/** The target in milliseconds (median, spawn to the answer of `server/discover`). */
export const STDIO_FIRST_ANSWER_TARGET_MS = 300

const ENTRY = fileURLToPath(new URL("./stdioMinimal.ts", import.meta.url))
const FLOOR = fileURLToPath(new URL("./stdioFloor.ts", import.meta.url))
const ROOT = fileURLToPath(new URL("..", import.meta.url))

const DISCOVER = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "server/discover",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0" }
    }
  }
}) + "\n"

/** Spawns `node module`, writes the probe at once, resolves with the ms until its answer's line. */
const once = (module: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [module], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] })
    let out = ""
    let err = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`no answer within 20 s: ${err.slice(0, 300)}`))
    }, 20_000)
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (!out.includes("\n")) return
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6
      clearTimeout(timer)
      if (!out.includes("\"supportedVersions\"")) reject(new Error(`not a DiscoverResult: ${out.slice(0, 300)}`))
      child.once("exit", () => resolve(elapsed))
      child.stdin.end()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString()
    })
    child.once("exit", (code) => {
      if (out.includes("\n")) return
      clearTimeout(timer)
      reject(new Error(`the server exited (${code}) before answering: ${err.slice(0, 300)}`))
    })
    child.stdin.write(DISCOVER)
  })

/** Medians and minimums of `runs` runs (after one warm-up) of each way. */
export interface StdioFirstAnswer {
  readonly mode: "installed" | "bundled" | "effect floor (installed)"
  readonly median: number
  readonly min: number
  readonly runs: number
}

export const runStdioFirstAnswer = async (runs = 15): Promise<ReadonlyArray<StdioFirstAnswer>> => {
  // Inside the repository, so that the installed entry resolves its packages from its node_modules.
  const cache = join(ROOT, "node_modules", ".cache")
  mkdirSync(cache, { recursive: true })
  const dir = mkdtempSync(join(cache, "mrtr-stdio-startup-"))
  try {
    const modules = [
      ["installed", await compile(ENTRY, join(dir, "installed.mjs"), { external: ["@mrtr/*", "effect", "@effect/*"] })],
      ["bundled", await compile(ENTRY, join(dir, "bundled.mjs"))],
      ["effect floor (installed)", await compile(FLOOR, join(dir, "floor.mjs"), { external: ["effect", "@effect/*"] })]
    ] as const
    const results: Array<StdioFirstAnswer> = []
    for (const [mode, module] of modules) {
      await once(module)
      const samples: Array<number> = []
      for (let i = 0; i < runs; i++) samples.push(await once(module))
      samples.sort((a, b) => a - b)
      results.push({ mode, median: samples[Math.floor(samples.length / 2)]!, min: samples[0]!, runs })
    }
    return results
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const at = process.argv.indexOf("--runs")
  const runs = at === -1 ? 15 : Number(process.argv[at + 1])
  for (const result of await runStdioFirstAnswer(runs)) {
    const verdict = result.mode === "effect floor (installed)"
      ? "(no target)"
      : result.median < STDIO_FIRST_ANSWER_TARGET_MS
      ? "PASS"
      : "MISS"
    console.log(
      `stdio first answer (${result.mode}): median ${result.median.toFixed(0)} ms, min ${result.min.toFixed(0)} ms ` +
        `over ${result.runs} runs (target < ${STDIO_FIRST_ANSWER_TARGET_MS} ms) ${verdict}`
    )
  }
}
