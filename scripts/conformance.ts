/**
 * `npm run conformance`: runs the official MCP conformance suite against this
 * project's fixtures.
 *
 * 1. Installs the pinned runner (`node@22` and
 *    `@modelcontextprotocol/conformance@0.2.0-alpha.12`) into `.conformance/`
 *    (gitignored), unless it is already there at those versions. The runner
 *    needs Node 22; the npm package `node` ships that binary, so the project's
 *    own Node is left alone.
 * 2. Starts the fixture server (`examples/conformance-server/index.ts --port 0`),
 *    waits for its `listening <url>` line, and for each era runs
 *    `server --url <url> --requirements <era> -o .conformance/results/server-<era>`
 *    against that same process (2026-07-28, then 2025-11-25: one endpoint,
 *    both eras), then stops the server. Its stderr goes to
 *    `.conformance/results/server.log`.
 * 3. Client scenarios: when `examples/conformance-client/index.ts` exists,
 *    compiles it with its dependencies into one file (esbuild,
 *    `.conformance/client/conformance-client.mjs`) and runs
 *    `client --command "node .conformance/client/conformance-client.mjs" --scenario <s> --spec-version 2026-07-28`
 *    for every client scenario of the 2026-07-28 requirements (scored, `auth/*`
 *    included, and the unscored extensions without `--spec-version`), three at
 *    a time, with a 120 s per-scenario timeout, into
 *    `.conformance/results/client`, then each scenario of `CLIENT_SCENARIOS`
 *    (extra ones, run one by one with `--scenario <s>`); then each scenario of
 *    `LEGACY_CLIENT_SCENARIOS` at 2025-11-25 (scored by `list --requirements
 *    2025-11-25`) with `--scenario <s> --spec-version 2025-11-25` into
 *    `.conformance/results/client-2025-11-25`.
 * 4. Prints SUCCESS/FAILURE/WARNING counts per scenario and era (from each
 *    `checks.json`) and a summary line per era, writes
 *    `.conformance/results/summary.json`, and exits 1 when a scored scenario
 *    (the runner's own `list --requirements <era>`) has a FAILURE or produced
 *    no checks, or when the runner itself reports a failure (for a scored
 *    scenario run on its own too: a client that never finishes fails it,
 *    whatever its checks said). Scenarios the
 *    requirements file lists as not scored (extensions, pending) are reported
 *    but never fail the run, unless asked for with `--scenario`.
 *
 * 5. The Tasks extension leg (2026-07-28): the ten `tasks-*` scenarios
 *    (`TASKS_SCENARIOS`; those the requirements pass skipped are run one by
 *    one against the same fixture server), counted on a line of their own;
 *    any failure among them fails the run.
 *
 * 6. The gateway leg: `mrtr gateway` (`packages/cli/src/main.ts gateway
 *    --config <file> --port 0`, its config generated into a temporary
 *    directory) fronting the fixture server, once as an HTTP upstream (the
 *    fixture server of step 2) and once as a stdio one (the fixture server
 *    with `--stdio`, spawned by the gateway); for each, the same server
 *    scenarios as steps 2 and 5 (both eras' requirements, then the Tasks
 *    scenarios) against the gateway's URL, into
 *    `.conformance/results/gateway-<http|stdio>-<era>` and
 *    `gateway-<http|stdio>-tasks`, scored the same way, on summary lines of
 *    their own. The gateway's stderr goes to
 *    `.conformance/results/gateway-<http|stdio>.log`. The scenarios of
 *    `GATEWAY_KNOWN_GAPS` (each with its reason) are reported as KNWN and do
 *    not fail the run; any other failure of the gateway leg does.
 *
 * Options: `--server-only`, `--client-only`, `--era <2026-07-28|2025-11-25>`
 * (only that era's server scenarios; default both), `--scenario <name>`
 * (repeatable: run only these server scenarios, at the wire of `--era`,
 * default 2026-07-28), `--gateway-only` (only the gateway leg),
 * `--no-gateway` (no gateway leg), `--upstream <http|stdio>` (the gateway
 * leg over that upstream only; default both).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const DIR = join(ROOT, ".conformance")
const RESULTS = join(DIR, "results")
const REVISION = "2026-07-28"
/** The eras of the server leg, each against the same fixture server process. */
const ERAS = ["2026-07-28", "2025-11-25"] as const
type Era = typeof ERAS[number]
const PINNED = { conformance: "0.2.0-alpha.12", nodeMajor: 22 } as const
const RUNNER_JS = join(DIR, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
const RUNNER_NODE = join(DIR, "node_modules", ".bin", "node")
const SERVER_ENTRY = "examples/conformance-server/index.ts"
const TSX = join(ROOT, "node_modules", ".bin", "tsx")
/** `mrtr`, run from its sources as the fixture server is. */
const CLI_ENTRY = "packages/cli/src/main.ts"
/** How the gateway reaches the fixture server in the gateway leg. */
const UPSTREAMS = ["http", "stdio"] as const
type UpstreamKind = typeof UPSTREAMS[number]

/**
 * The client leg. Runs only when `CLIENT_ENTRY` exists: first every scenario
 * the 2026-07-28 requirements list (`client --requirements 2026-07-28`), then
 * each of `CLIENT_SCENARIOS` on its own (`client --scenario <s>
 * --spec-version 2026-07-28`), for scenarios outside the requirements.
 */
const CLIENT_ENTRY = "examples/conformance-client/index.ts"
/**
 * The client as one compiled file (esbuild, from the sources under the
 * `@mrtr/source` condition), run by `node`: the runner starts every scenario
 * at once, and as many `tsx` processes compiling TypeScript at the same time
 * would make the suite depend on an idle machine.
 */
const CLIENT_BUNDLE = join(DIR, "client", "conformance-client.mjs")
const CLIENT_COMMAND = `${process.execPath} ${relative(ROOT, CLIENT_BUNDLE)}`
const CLIENT_TIMEOUT_MS = "120000"
/** How many client scenarios run at once. */
const CLIENT_PARALLEL = 3
const CLIENT_SCENARIOS: ReadonlyArray<string> = []

/** The scenarios a client run wrote results for: `<out>/<name>-<ts>` and `<out>/auth/<name>-<ts>`. */
const clientScenariosRan = (outDir: string): ReadonlyArray<string> => {
  const names = (dir: string, prefix: string) =>
    existsSync(dir)
      ? readdirSync(dir)
        .map((name) => /^(.+)-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)$/.exec(name)?.[1])
        .filter((name): name is string => name !== undefined)
        .map((name) => `${prefix}${name}`)
      : []
  return [...names(outDir, ""), ...names(join(outDir, "auth"), "auth/")]
}

/** `checksFileOf` for client results, where `auth/<name>` lives in the `auth/` folder. */
const clientChecksFileOf = (outDir: string, scenario: string): string | undefined => {
  const slash = scenario.lastIndexOf("/")
  return slash < 0
    ? checksFileOf(outDir, "", scenario)
    : checksFileOf(join(outDir, scenario.slice(0, slash)), "", scenario.slice(slash + 1))
}
/**
 * The 2025-11-25 client scenarios that need no authorization (run with
 * `--spec-version 2025-11-25`, scored by `list --requirements 2025-11-25`);
 * the same client, which detects the era itself.
 */
const LEGACY_REVISION: Era = "2025-11-25"
const LEGACY_CLIENT_SCENARIOS = [
  "initialize",
  "tools_call",
  "elicitation-sep1034-client-defaults",
  "sse-retry"
] as const

/**
 * The Tasks extension leg (SEP-2663): its ten `tasks-*` server scenarios,
 * unscored by the 2026-07-28 requirements. Those the `--requirements` pass did
 * not run are run one by one, without `--spec-version` (which would skip
 * them), against the same fixture server, into `.conformance/results/tasks`.
 * They are reported on a summary line of their own; a failure fails the run.
 */
const TASKS_SCENARIOS = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition"
] as const

const runTasksLeg = async (url: string, target: Target): Promise<Array<ScenarioResult>> => {
  const serverOutDir = join(RESULTS, `${target.results}-${REVISION}`)
  const outDir = join(RESULTS, `${target.results === "server" ? "" : `${target.results}-`}tasks`)
  rmSync(outDir, { recursive: true, force: true })
  mkdirSync(outDir, { recursive: true })
  const results: Array<ScenarioResult> = []
  for (const scenario of TASKS_SCENARIOS) {
    const ran = checksFileOf(serverOutDir, "server-", scenario)
    const code = ran !== undefined
      ? 0
      : await runRunner(["server", "--url", url, "--scenario", scenario, "-o", relative(ROOT, outDir)])
    const result = summarize(target.leg, REVISION, scenario, false, ran ?? checksFileOf(outDir, "server-", scenario))
    results.push({ ...result, tasks: true, passed: result.passed && code === 0 })
  }
  return results
}

/** The rows to report: a tasks scenario once per leg, on its tasks row. */
const withoutTasksDuplicates = (results: ReadonlyArray<ScenarioResult>): Array<ScenarioResult> => {
  const tasks = new Set(results.filter((r) => r.tasks).map((r) => `${r.leg} ${r.scenario}`))
  return results.filter((r) => r.tasks || !(r.era === REVISION && tasks.has(`${r.leg} ${r.scenario}`)))
}

const tasksSummary = (results: ReadonlyArray<ScenarioResult>, leg: Leg): string | undefined => {
  const tasks = results.filter((r) => r.tasks && r.leg === leg)
  if (tasks.length === 0) return undefined
  const failed = tasks.filter((r) => !r.passed)
  return `${leg === "server" ? "" : `${leg}: `}Tasks extension (SEP-2663, unscored; a failure fails the run): ${
    tasks.length - failed.length
  }/${tasks.length} scenarios passed` +
    (failed.length > 0 ? ` (failing: ${failed.map((r) => r.scenario).join(", ")})` : "")
}

const SERVER_START_TIMEOUT_MS = 60_000

type Status = "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO"

interface Check {
  readonly id: string
  readonly status: Status
  readonly errorMessage?: string
}

/** Which suite a result is of: the fixture server's, the client's, or the gateway's over an upstream. */
type Leg = "server" | "client" | "gateway-http" | "gateway-stdio"

/** What the server scenarios run against: the fixture server, or the gateway in front of it. */
interface Target {
  readonly leg: Leg
  /** The results folders' prefix: `<results>-<era>`, `<results>-tasks` (`tasks` for the fixture server). */
  readonly results: string
  readonly url: string
}

interface ScenarioResult {
  readonly leg: Leg
  /** A scenario of the Tasks extension leg (step 5). */
  readonly tasks?: boolean | undefined
  readonly era: Era
  readonly scenario: string
  readonly scored: boolean
  readonly checksFile: string | undefined
  readonly counts: Record<Status, number>
  readonly failures: ReadonlyArray<{ readonly id: string; readonly message: string }>
  readonly passed: boolean
}

const log = (line: string) => process.stderr.write(`[conformance] ${line}\n`)

const fail = (message: string): never => {
  log(`error: ${message}`)
  process.exit(2)
}

// -- Options --------------------------------------------------------------------

const parseOptions = (argv: ReadonlyArray<string>) => {
  const scenarios: Array<string> = []
  let era: Era | undefined
  let serverLeg = true
  let clientLeg = true
  let gatewayLeg = true
  let upstreams: ReadonlyArray<UpstreamKind> = UPSTREAMS
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--server-only") clientLeg = false
    else if (arg === "--client-only") {
      serverLeg = false
      gatewayLeg = false
    } else if (arg === "--gateway-only") {
      serverLeg = false
      clientLeg = false
    } else if (arg === "--no-gateway") gatewayLeg = false
    else if (arg === "--upstream") {
      const value = argv[++i]
      if (!UPSTREAMS.includes(value as UpstreamKind)) fail(`--upstream needs one of ${UPSTREAMS.join(", ")}`)
      upstreams = [value as UpstreamKind]
    } else if (arg === "--scenario") {
      const value = argv[++i]
      if (value === undefined || value.startsWith("--")) fail("--scenario needs a scenario name")
      scenarios.push(value!)
    } else if (arg === "--era") {
      const value = argv[++i]
      if (!ERAS.includes(value as Era)) fail(`--era needs one of ${ERAS.join(", ")}`)
      era = value as Era
    } else if (arg === "--help" || arg === "-h") {
      process.stdout.write(
        "usage: npm run conformance -- [--server-only | --client-only | --gateway-only | --no-gateway] " +
          "[--upstream <http|stdio>] [--era <2026-07-28|2025-11-25>] [--scenario <name>]...\n"
      )
      process.exit(0)
    } else fail(`unknown option ${arg} (try --help)`)
  }
  if (!serverLeg && !clientLeg && !gatewayLeg) fail("these options leave nothing to run")
  const eras: ReadonlyArray<Era> = era !== undefined ? [era] : scenarios.length > 0 ? [REVISION] : ERAS
  return { scenarios, eras, serverLeg, clientLeg, gatewayLeg, upstreams }
}

// -- Installing the runner --------------------------------------------------------

const versionOf = (packageDir: string): string | undefined => {
  try {
    return JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).version
  } catch {
    return undefined
  }
}

/** The runner actually starts (a partial install fails here rather than mid-run). */
const runnerStarts = (): boolean =>
  spawnSync(RUNNER_NODE, [RUNNER_JS, "--version"], { cwd: ROOT, encoding: "utf8" }).stdout?.trim() ===
    PINNED.conformance

const installed = () => {
  const conformance = versionOf(join(DIR, "node_modules", "@modelcontextprotocol", "conformance"))
  const node = versionOf(join(DIR, "node_modules", "node"))
  return {
    conformance,
    node,
    ok: conformance === PINNED.conformance && node?.split(".")[0] === String(PINNED.nodeMajor) &&
      existsSync(RUNNER_NODE) && existsSync(RUNNER_JS) && runnerStarts()
  }
}

/**
 * The environment for npm: ours without the `npm_*` variables `npm run` sets
 * for the root project (`npm_config_local_prefix=<root>` and friends). They
 * reach the nested `npm install` the `node` package's preinstall runs; an
 * install started that way once left a partial tree here (most `.js` files of
 * the runner's dependencies missing), an install with a clean environment
 * never did.
 */
const cleanEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)))

const install = () => {
  mkdirSync(DIR, { recursive: true })
  // The `node` package installs its binary from a preinstall script; npm >= 11.16 wants it allowed.
  writeFileSync(
    join(DIR, "package.json"),
    JSON.stringify({ name: "conformance-runner", private: true, allowScripts: { node: true } }, null, 2) + "\n"
  )
  rmSync(join(DIR, "node_modules"), { recursive: true, force: true })
  rmSync(join(DIR, "package-lock.json"), { force: true })
  const npm = spawnSync("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--save-exact",
    `node@${PINNED.nodeMajor}`,
    `@modelcontextprotocol/conformance@${PINNED.conformance}`
  ], { cwd: DIR, env: cleanEnv(), stdio: ["ignore", "inherit", "inherit"] })
  if (npm.status !== 0) fail(`npm install in ${DIR} failed with status ${npm.status}`)
}

const ensureRunner = () => {
  const before = installed()
  if (before.ok) {
    log(`runner present: @modelcontextprotocol/conformance@${before.conformance}, node@${before.node}`)
    return
  }
  log(
    `installing the runner into ${relative(ROOT, DIR)}/ (found conformance=${before.conformance ?? "none"}, node=${
      before.node ?? "none"
    })`
  )
  install()
  const after = installed()
  if (!after.ok) {
    fail(
      `after npm install: conformance=${after.conformance}, node=${after.node}; expected ${PINNED.conformance} and ${PINNED.nodeMajor}.x`
    )
  }
  log(`installed @modelcontextprotocol/conformance@${after.conformance}, node@${after.node}`)
}

/** Runs the runner with Node 22, inheriting stdout/stderr. Resolves with its exit code. */
const runRunner = (args: ReadonlyArray<string>): Promise<number> =>
  new Promise((resolvePromise) => {
    const child = spawn(RUNNER_NODE, [RUNNER_JS, ...args], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] })
    child.on("error", (error) => fail(`could not start the runner: ${error.message}`))
    child.on("exit", (code, signal) => resolvePromise(code ?? (signal === null ? 1 : 128)))
  })

/** The scenarios the requirements file scores, per leg, as the runner itself lists them. */
const scoredScenarios = (revision: Era): { server: Set<string>; client: Set<string> } => {
  const listed = spawnSync(RUNNER_NODE, [RUNNER_JS, "list", "--requirements", revision], {
    cwd: ROOT,
    encoding: "utf8"
  })
  if (listed.status !== 0) fail(`runner list --requirements ${revision} failed: ${listed.stderr}`)
  const sets = { server: new Set<string>(), client: new Set<string>() }
  let section: keyof typeof sets | undefined
  for (const line of listed.stdout.split("\n")) {
    if (line.startsWith("Server scenarios")) section = "server"
    else if (line.startsWith("Client scenarios")) section = "client"
    else if (!line.startsWith("  ")) section = undefined
    else if (section !== undefined) {
      const match = /^ {2}- (\S+)$/.exec(line)
      if (match) sets[section].add(match[1]!)
    }
  }
  if (sets.server.size === 0) fail(`could not read the scored scenarios from \`list --requirements ${revision}\``)
  return sets
}

// -- The fixture server -----------------------------------------------------------

interface RunningServer {
  readonly url: string
  readonly stop: () => Promise<void>
}

/** The fixture server over HTTP. */
const startServer = (): Promise<RunningServer> =>
  startListening(
    "the fixture server",
    ["--conditions=@mrtr/source", SERVER_ENTRY, "--port", "0"],
    join(RESULTS, "server.log")
  )

/**
 * `mrtr gateway` in front of the fixture server: over HTTP at `fixtureUrl`,
 * or over stdio (the fixture server with `--stdio`, spawned by the gateway).
 * Its configuration is written into a temporary directory.
 */
const startGateway = (upstream: UpstreamKind, fixtureUrl: string | undefined): Promise<RunningServer> => {
  const server = upstream === "http"
    ? { url: fixtureUrl }
    : {
      command: process.execPath,
      args: ["--conditions=@mrtr/source", "--import", "tsx", SERVER_ENTRY, "--stdio"],
      cwd: ROOT
    }
  const config = join(mkdtempSync(join(tmpdir(), "mrtr-conformance-gateway-")), "mcp.json")
  // a single server: its names unprefixed, as the scenarios call them
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { conformance: server }, gateway: { name: "mrtr-conformance-gateway" } }, null, 2)
  )
  return startListening(
    `the gateway (${upstream} upstream)`,
    ["--conditions=@mrtr/source", CLI_ENTRY, "gateway", "--config", config, "--port", "0"],
    join(RESULTS, `gateway-${upstream}.log`)
  )
}

/** Runs `tsx <args>` until it prints `listening <url>` on stdout; its stderr goes to `logFile`. */
const startListening = (what: string, args: ReadonlyArray<string>, logFile: string): Promise<RunningServer> =>
  new Promise((resolvePromise, reject) => {
    mkdirSync(RESULTS, { recursive: true })
    const stderr = createWriteStream(logFile)
    const child: ChildProcess = spawn(TSX, args, {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"]
    })
    child.stderr!.pipe(stderr)
    let exited = false
    const exitedPromise = new Promise<void>((done) =>
      child.on("exit", () => {
        exited = true
        done()
      })
    )
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(
        new Error(
          `${what} printed no \`listening <url>\` line within ${SERVER_START_TIMEOUT_MS} ms (see ${logFile})`
        )
      )
    }, SERVER_START_TIMEOUT_MS)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      reject(
        new Error(`${what} exited (code ${code}, signal ${signal}) before it was ready; see ${logFile}`)
      )
    })
    const lines = createInterface({ input: child.stdout! })
    let seen = false
    lines.on("line", (line) => {
      if (seen) {
        log(`unexpected stdout from ${what}: ${line}`)
        return
      }
      seen = true
      const match = /^listening (http:\/\/\S+)$/.exec(line)
      if (match === null) {
        clearTimeout(timer)
        child.kill("SIGKILL")
        reject(new Error(`${what}'s first stdout line is not \`listening <url>\`: ${JSON.stringify(line)}`))
        return
      }
      clearTimeout(timer)
      const stop = async () => {
        if (exited) return
        child.kill("SIGTERM")
        const killer = setTimeout(() => child.kill("SIGKILL"), 10_000)
        await exitedPromise
        clearTimeout(killer)
      }
      resolvePromise({ url: match[1]!, stop })
    })
  })

// -- Results ------------------------------------------------------------------------

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/

/** The runner writes `<out>/<prefix><scenario>-<timestamp>/checks.json`; the newest wins. */
const checksFileOf = (outDir: string, prefix: string, scenario: string): string | undefined => {
  if (!existsSync(outDir)) return undefined
  const head = `${prefix}${scenario.replaceAll("/", "-")}-`
  const dirs = readdirSync(outDir)
    .filter((name) => name.startsWith(head) && TIMESTAMP.test(name.slice(head.length)))
    .sort()
  const newest = dirs.at(-1)
  if (newest === undefined) return undefined
  const file = join(outDir, newest, "checks.json")
  return existsSync(file) ? file : undefined
}

const summarize = (
  leg: Leg,
  era: Era,
  scenario: string,
  scored: boolean,
  checksFile: string | undefined
): ScenarioResult => {
  const counts: Record<Status, number> = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0, INFO: 0 }
  const failures: Array<{ id: string; message: string }> = []
  let checks: ReadonlyArray<Check> = []
  if (checksFile !== undefined) {
    try {
      checks = JSON.parse(readFileSync(checksFile, "utf8"))
    } catch (error) {
      failures.push({ id: "checks.json", message: `unreadable: ${String(error)}` })
    }
  } else {
    failures.push({ id: "checks.json", message: "the runner wrote no checks.json for this scenario" })
  }
  for (const check of checks) {
    counts[check.status] = (counts[check.status] ?? 0) + 1
    if (check.status === "FAILURE") failures.push({ id: check.id, message: check.errorMessage ?? "" })
  }
  const passed = checksFile !== undefined && checks.length > 0 && counts.FAILURE === 0 && failures.length === 0
  return { leg, era, scenario, scored, checksFile, counts, failures, passed }
}

const printTable = (results: ReadonlyArray<ScenarioResult>) => {
  const width = Math.max(...results.map((r) => r.scenario.length), 8)
  const out: Array<string> = ["", "=== Conformance summary (from checks.json) ===", ""]
  const legOf = (r: ScenarioResult) => r.tasks ? `${r.leg === "server" ? "" : `${r.leg}/`}tasks` : r.leg
  const legWidth = Math.max(...results.map((r) => legOf(r).length), 6)
  out.push(`     ${"scenario".padEnd(width)}  SUCCESS FAILURE WARNING  ${"leg".padEnd(legWidth)} era         scored`)
  for (const r of results) {
    const mark = r.passed ? "PASS" : knownGap(r) ? "KNWN" : "FAIL"
    out.push(
      `${mark} ${r.scenario.padEnd(width)}  ${String(r.counts.SUCCESS).padStart(7)} ${
        String(r.counts.FAILURE).padStart(7)
      } ${String(r.counts.WARNING).padStart(7)}  ${legOf(r).padEnd(legWidth)} ${r.era}  ${r.scored ? "yes" : "no"}`
    )
    if (knownGap(r)) out.push(`       known gap of the gateway: ${GATEWAY_KNOWN_GAPS[r.scenario]}`)
    for (const f of r.failures) out.push(`       ${r.scored ? "!" : "~"} ${f.id}: ${f.message.split("\n")[0]}`)
  }
  const closed = [...new Set(results.filter((r) => isGatewayLeg(r.leg) && r.passed).map((r) => r.scenario))]
    .filter((scenario) =>
      GATEWAY_KNOWN_GAPS[scenario] !== undefined &&
      !results.some((r) => isGatewayLeg(r.leg) && r.scenario === scenario && !r.passed)
    )
  if (closed.length > 0) {
    out.push("", `Known gaps of the gateway that pass now (take them off the list): ${closed.join(", ")}`)
  }
  out.push("")
  // the fixture server's and the client's scenarios on one line per era, each gateway leg on lines of its own
  const groups: ReadonlyArray<readonly [string, ReadonlyArray<Leg>]> = [
    ["", ["server", "client"]],
    ["gateway over HTTP, ", ["gateway-http"]],
    ["gateway over stdio, ", ["gateway-stdio"]]
  ]
  for (const [label, legs] of groups) {
    for (const era of ERAS) {
      const ofEra = results.filter((r) => r.era === era && !r.tasks && legs.includes(r.leg))
      if (ofEra.length === 0) continue
      const scored = ofEra.filter((r) => r.scored)
      const failed = scored.filter((r) => !r.passed)
      const unscoredFailed = ofEra.filter((r) => !r.scored && !r.passed)
      out.push(
        `${label}${era}: scored ${scored.length - failed.length}/${scored.length} scenarios passed` +
          (failed.length > 0 ? ` (failing: ${failed.map((r) => `${r.leg}:${r.scenario}`).join(", ")})` : "") +
          `; not scored: ${ofEra.length - scored.length} run, ${unscoredFailed.length} failing`
      )
    }
    for (const leg of legs) {
      const tasksLine = tasksSummary(results, leg)
      if (tasksLine !== undefined) out.push(tasksLine)
    }
  }
  process.stdout.write(out.join("\n") + "\n")
}

/** The client scenarios the requirements list as run but never scored (extensions, added after the release). */
const unscoredClientScenarios = (revision: Era): ReadonlyArray<string> => {
  const listed = spawnSync(RUNNER_NODE, [RUNNER_JS, "list", "--requirements", revision], {
    cwd: ROOT,
    encoding: "utf8"
  })
  if (listed.status !== 0) fail(`runner list --requirements ${revision} failed: ${listed.stderr}`)
  return listed.stdout.split("\n").flatMap((line) => {
    const match = /^ {4}- (\S+) \[client\]$/.exec(line)
    return match === null ? [] : [match[1]!]
  })
}

/** Runs `run` on each item, at most `limit` at a time. */
const inParallel = async <A>(
  items: ReadonlyArray<A>,
  limit: number,
  run: (item: A) => Promise<void>
): Promise<void> => {
  let next = 0
  const worker = async () => {
    while (next < items.length) await run(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}

// -- The compiled client ---------------------------------------------------------------

/** Bundles `CLIENT_ENTRY` with its dependencies into `CLIENT_BUNDLE` (ESM, Node 20+). */
const bundleClient = async (): Promise<void> => {
  const { build } = await import("esbuild")
  await build({
    entryPoints: [join(ROOT, CLIENT_ENTRY)],
    outfile: CLIENT_BUNDLE,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["@mrtr/source"],
    // CommonJS dependencies that `require` Node's modules, inside an ES module.
    banner: {
      js:
        "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
    },
    logLevel: "warning"
  })
}

// -- The server scenarios, against the fixture server or the gateway --------------------

type Options = ReturnType<typeof parseOptions>
type Scored = ReadonlyMap<Era, { readonly server: ReadonlySet<string>; readonly client: ReadonlySet<string> }>

/** Each era's requirements (or the `--scenario`s) against `target`, then the Tasks scenarios. */
const runServerSuites = async (
  target: Target,
  options: Options,
  scoredByEra: Scored
): Promise<{ results: Array<ScenarioResult>; runnerFailed: boolean }> => {
  const results: Array<ScenarioResult> = []
  let runnerFailed = false
  for (const era of options.eras) {
    const scored = scoredByEra.get(era)!
    const outDir = join(RESULTS, `${target.results}-${era}`)
    rmSync(outDir, { recursive: true, force: true })
    mkdirSync(outDir, { recursive: true })
    const selectors = options.scenarios.length > 0
      ? options.scenarios.map((scenario) => ["--scenario", scenario, "--spec-version", era, "--force"])
      : [["--requirements", era]]
    let runnerExit = 0
    for (const selector of selectors) {
      const code = await runRunner(["server", "--url", target.url, ...selector, "-o", relative(ROOT, outDir)])
      runnerExit = Math.max(runnerExit, code)
    }
    log(`server runner (${target.leg}, ${era}) exited with ${runnerExit}`)
    // With --requirements the runner fails only on scored scenarios; with --scenario, on any FAILURE.
    runnerFailed = runnerFailed || runnerExit !== 0
    const ran = readdirSync(outDir)
      .map((name) => /^server-(.+)-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)$/.exec(name)?.[1])
      .filter((name): name is string => name !== undefined)
    const expected = options.scenarios.length > 0 ? options.scenarios : [...scored.server]
    for (const scenario of new Set([...expected, ...ran])) {
      results.push(
        summarize(target.leg, era, scenario, scored.server.has(scenario), checksFileOf(outDir, "server-", scenario))
      )
    }
  }
  if (options.scenarios.length === 0 && options.eras.includes(REVISION)) {
    for (const result of await runTasksLeg(target.url, target)) results.push(result)
  }
  return { results, runnerFailed }
}

/** `runServerSuites` against `mrtr gateway` in front of the fixture server (`fixtureUrl` for an HTTP upstream). */
const runGatewaySuites = async (
  upstream: UpstreamKind,
  fixtureUrl: string | undefined,
  options: Options,
  scoredByEra: Scored
): Promise<{ results: Array<ScenarioResult>; runnerFailed: boolean }> => {
  log(`starting the gateway (${CLI_ENTRY} gateway) in front of the fixture server over ${upstream}`)
  const gateway = await startGateway(upstream, fixtureUrl).catch((error: Error) => fail(error.message))
  log(`gateway at ${gateway.url}`)
  try {
    await untilListed(gateway.url)
    const leg = await runServerSuites(
      { leg: `gateway-${upstream}`, results: `gateway-${upstream}`, url: gateway.url },
      options,
      scoredByEra
    )
    // the runner's own exit code counts the known gaps too: the rows decide
    return { results: leg.results, runnerFailed: false }
  } finally {
    await gateway.stop()
    log("gateway stopped")
  }
}

/**
 * The gateway leg's known gaps: scenarios it fails today, each for a reason
 * named here. Their rows say KNOWN and do not fail the run; any other failure
 * of the gateway leg does, and a known gap that passes says so (then take it
 * off this list).
 */
const GATEWAY_KNOWN_GAPS: Readonly<Record<string, string>> = {
  // keys are the gateway's own, `<upstream>/<key>`; the scenario looks for the fixture's "user_name"
  "input-required-result-basic-elicitation": "the gateway namespaces input request keys",
  "server-stateless": "sep-2575-http-server-no-independent-requests-on-stream, not analysed yet",
  "tools-call-with-logging": "over stdio at 2025-11-25, no log notification reached the runner; not analysed yet"
}

const isGatewayLeg = (leg: Leg) => leg === "gateway-http" || leg === "gateway-stdio"

/** A failing row that is a known gap of the gateway leg (reported, not failing the run). */
const knownGap = (r: ScenarioResult): boolean =>
  isGatewayLeg(r.leg) && !r.passed && GATEWAY_KNOWN_GAPS[r.scenario] !== undefined

/** The fixture's tool the gateway serves once it has listed its upstream. */
const LISTED_TOOL = "test_simple_text"

/**
 * Waits until the gateway serves the fixture server's tools: it listens
 * before its upstream answered (a stdio upstream may take a while to start),
 * and a scenario run meanwhile would find no tools.
 */
const untilListed = async (url: string): Promise<void> => {
  const deadline = Date.now() + SERVER_START_TIMEOUT_MS
  while (Date.now() < deadline) {
    const listed = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": REVISION,
        "mcp-method": "tools/list"
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": REVISION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { name: "conformance-script", version: "1.0.0" }
          }
        }
      })
    }).then((response) => response.text()).catch(() => "")
    if (listed.includes(`"${LISTED_TOOL}"`)) return
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 500))
  }
  fail(`the gateway at ${url} did not serve the fixture server's ${LISTED_TOOL} within ${SERVER_START_TIMEOUT_MS} ms`)
}

// -- Main -----------------------------------------------------------------------------

const main = async () => {
  const options = parseOptions(process.argv.slice(2))
  ensureRunner()
  const scoredByEra = new Map(ERAS.map((era) => [era, scoredScenarios(era)] as const))
  let results: Array<ScenarioResult> = []
  let serverRunnerFailed = false

  const runGateway = options.gatewayLeg && options.upstreams.length > 0
  if (options.serverLeg || (runGateway && options.upstreams.includes("http"))) {
    log(`starting the fixture server (${SERVER_ENTRY})`)
    const server = await startServer().catch((error: Error) => fail(error.message))
    log(`fixture server at ${server.url}`)
    try {
      if (options.serverLeg) {
        const leg = await runServerSuites({ leg: "server", results: "server", url: server.url }, options, scoredByEra)
        for (const result of leg.results) results.push(result)
        serverRunnerFailed = serverRunnerFailed || leg.runnerFailed
      }
      if (runGateway && options.upstreams.includes("http")) {
        const leg = await runGatewaySuites("http", server.url, options, scoredByEra)
        for (const result of leg.results) results.push(result)
        serverRunnerFailed = serverRunnerFailed || leg.runnerFailed
      }
    } finally {
      await server.stop()
      log("fixture server stopped")
    }
  }
  if (runGateway && options.upstreams.includes("stdio")) {
    const leg = await runGatewaySuites("stdio", undefined, options, scoredByEra)
    for (const result of leg.results) results.push(result)
    serverRunnerFailed = serverRunnerFailed || leg.runnerFailed
  }

  let clientRunnerFailed = false
  if (options.clientLeg && options.scenarios.length === 0) {
    if (!existsSync(join(ROOT, CLIENT_ENTRY))) {
      log(`client leg skipped: ${CLIENT_ENTRY} does not exist yet`)
    } else {
      log(`compiling the client (${CLIENT_ENTRY} -> ${relative(ROOT, CLIENT_BUNDLE)})`)
      await bundleClient()
      const outDir = join(RESULTS, "client")
      rmSync(outDir, { recursive: true, force: true })
      mkdirSync(outDir, { recursive: true })
      const runs: Array<readonly [string, Era]> = []
      if (options.eras.includes(REVISION)) {
        // The requirements' client scenarios, CLIENT_PARALLEL at a time (`--requirements` would start them all at
        // once, and on a busy machine the runner's own servers then answer too late): the scored ones at
        // 2026-07-28, the unscored ones (extensions) without `--spec-version`, which would skip them.
        const scoredClient = scoredByEra.get(REVISION)!.client
        const listed = [...scoredClient, ...unscoredClientScenarios(REVISION)]
        await inParallel(listed, CLIENT_PARALLEL, async (scenario) => {
          const scored = scoredClient.has(scenario)
          const code = await runRunner([
            "client",
            "--command",
            CLIENT_COMMAND,
            "--scenario",
            scenario,
            ...(scored ? ["--spec-version", REVISION] : []),
            "--timeout",
            CLIENT_TIMEOUT_MS,
            "-o",
            relative(ROOT, outDir)
          ])
          log(`client scenario ${scenario} (${REVISION}): runner exited with ${code}`)
          // the runner fails a scenario whose checks passed when the client did not finish (it timed out)
          if (code !== 0 && scored) clientRunnerFailed = true
        })
        for (const scenario of new Set([...listed, ...clientScenariosRan(outDir)])) {
          results.push(
            summarize("client", REVISION, scenario, scoredClient.has(scenario), clientChecksFileOf(outDir, scenario))
          )
        }
        for (const scenario of CLIENT_SCENARIOS) runs.push([scenario, REVISION] as const)
      }
      if (options.eras.includes(LEGACY_REVISION)) {
        for (const scenario of LEGACY_CLIENT_SCENARIOS) runs.push([scenario, LEGACY_REVISION] as const)
      }
      const legacyOutDir = join(RESULTS, `client-${LEGACY_REVISION}`)
      rmSync(legacyOutDir, { recursive: true, force: true })
      mkdirSync(legacyOutDir, { recursive: true })
      for (const [scenario, revision] of runs) {
        const dir = revision === REVISION ? outDir : legacyOutDir
        const code = await runRunner([
          "client",
          "--command",
          CLIENT_COMMAND,
          "--scenario",
          scenario,
          "--spec-version",
          revision,
          "-o",
          relative(ROOT, dir)
        ])
        log(`client scenario ${scenario} (${revision}): runner exited with ${code}`)
        const scored = scoredByEra.get(revision)!.client.has(scenario)
        // the runner fails a scenario whose checks passed when the client did not finish (it timed out)
        if (code !== 0 && scored) clientRunnerFailed = true
        results.push(summarize("client", revision, scenario, scored, checksFileOf(dir, "", scenario)))
      }
    }
  }

  results = withoutTasksDuplicates(results)
  printTable(results)
  writeFileSync(
    join(RESULTS, "summary.json"),
    JSON.stringify(
      results.map(({ checksFile, ...r }) => ({ ...r, checksFile: checksFile && relative(ROOT, checksFile) })),
      null,
      2
    ) + "\n"
  )
  if (serverRunnerFailed) log("a server runner reported a failure (its \"exited with\" line above)")
  if (clientRunnerFailed) {
    log(
      "a client runner reported a failure (its \"exited with\" line above: e.g. a client that did not finish in time)"
    )
  }
  const explicit = options.scenarios.length > 0
  const failed = results.some((r) => (r.scored || explicit || r.tasks === true) && !r.passed && !knownGap(r)) ||
    serverRunnerFailed ||
    clientRunnerFailed
  process.exit(failed ? 1 : 0)
}

main().catch((error) => fail(error instanceof Error ? error.stack ?? error.message : String(error)))
