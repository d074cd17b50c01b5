/**
 * Start-up of the `mrtr` command as installed: `node packages/cli/bin/mrtr.js --help` (the compiled `dist/`, plain
 * `node`, no loader), run `runs` times one after another after a warm-up run (the OS file cache), measuring the wall
 * time from spawn to exit. Target: a median under 400 ms on the 2-core reference machine.
 *
 * Run alone: `npm run bench:startup [-- --runs 15]` (needs `npm run build` first; `npm run bench` reports it too).
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** The start-up target in milliseconds (median of `mrtr --help`). */
export const STARTUP_TARGET_MS = 400

const BIN = fileURLToPath(new URL("../packages/cli/bin/mrtr.js", import.meta.url))
const DIST = fileURLToPath(new URL("../packages/cli/dist/main.js", import.meta.url))

/** Wall times of `mrtr --help`, in milliseconds, sorted. */
export interface StartupResult {
  readonly samples: ReadonlyArray<number>
  readonly median: number
  readonly p95: number
}

const once = (): number => {
  const started = process.hrtime.bigint()
  const run = spawnSync(process.execPath, [BIN, "--help"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6
  if (run.status !== 0 || !run.stdout.includes("USAGE")) {
    throw new Error(`mrtr --help exited ${run.status}: ${run.stderr}`)
  }
  return elapsed
}

/** Runs `mrtr --help` once to warm the file cache, then `runs` times. */
export const runStartupBench = (runs = 15): StartupResult => {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`npm run build\` first`)
  once()
  const samples = Array.from({ length: runs }, once).sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!
  return { samples, median: at(0.5), p95: at(0.95) }
}

/** The report lines of a result. */
export const formatStartupBench = (result: StartupResult): ReadonlyArray<string> => [
  `mrtr --help (node ${process.version}, compiled dist/, ${result.samples.length} runs): ` +
  `median ${result.median.toFixed(0)} ms, p95 ${result.p95.toFixed(0)} ms, ` +
  `min ${result.samples[0]!.toFixed(0)} ms`,
  `target: median < ${STARTUP_TARGET_MS} ms: ${result.median < STARTUP_TARGET_MS ? "PASS" : "MISS"}`
]

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const index = process.argv.indexOf("--runs")
  const runs = index > 0 ? Number(process.argv[index + 1]) : 15
  for (const line of formatStartupBench(runStartupBench(Number.isInteger(runs) && runs > 0 ? runs : 15))) {
    console.log(line)
  }
}
