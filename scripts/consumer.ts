/**
 * `npm run test:consumer`: proves the packages work as an app outside this repository installs them.
 *
 * 1. Builds every package (`npm run build`) and packs each published one (`npm pack`) into a temporary folder.
 *    Each tarball is checked: it ships `dist/` (JavaScript and `.d.ts`), `README.md` and `LICENSE`, nothing of tests,
 *    and nothing its `exports`, `main`, `types` or `bin` resolve ends in `.ts` (other than `.d.ts`).
 * 2. Creates an app in a temporary folder outside the repository (`scripts/consumer-app/` is its source), whose
 *    `package.json` depends on the tarballs and on its own `effect` and `@effect/platform-node`, and installs it from
 *    the npm registry. `npm ls effect` must show one copy of `effect` (the packages declare it as a peer).
 * 3. For the machine's Node and for Node 22 and Node 24 (the npm packages `node@22` and `node@24`, installed into
 *    `.consumer/node-<major>/` of this repository, gitignored, never a dependency of the project):
 *    (a) compiles the app with that Node's `tsc` (strict, NodeNext, no `allowImportingTsExtensions`);
 *    (b) runs the compiled server and client with plain `node` and checks the two-round conversation completes;
 *    (c) runs the app's vitest tests (`@mrtr/testing`: a scripted user, and an exploration that validates the wire
 *        against the schemas the package ships);
 *    (d) runs the installed `mrtr` bin against the server (answers from a file) and checks it completes.
 *
 * Exits 1 on the first failure, naming the step and the Node version. Options: `--node <major>` (repeatable) to run
 * only those versions (`current` is the machine's), `--keep` to leave the temporary folders for inspection.
 */
import { type ChildProcess, spawn, spawnSync, type SpawnSyncOptions } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const APP_SOURCE = join(ROOT, "scripts", "consumer-app")
const NODES_DIR = join(ROOT, ".consumer")
/** The Node majors tested besides the machine's own (README: supported versions). */
const NODE_MAJORS = [22, 24] as const
const STEP_TIMEOUT_MS = 120_000

const log = (line: string) => process.stdout.write(`[consumer] ${line}\n`)

/** A failed step: thrown (never `process.exit` here), so `finally` blocks stop the servers and remove the folders. */
class StepFailed extends Error {}
const fail = (line: string): never => {
  throw new StepFailed(line)
}

/** npm's own `npm_*` variables (set by `npm run`) would make nested npm commands act on this repository. */
const cleanEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))),
  ...extra
})

const run = (what: string, command: string, args: ReadonlyArray<string>, options: SpawnSyncOptions = {}): string => {
  const result = spawnSync(command, args, {
    encoding: "utf8",
    env: cleanEnv(),
    timeout: STEP_TIMEOUT_MS * 3,
    maxBuffer: 64 * 1024 * 1024,
    ...options
  })
  if (result.status !== 0) {
    fail(
      `${what}: \`${command} ${args.join(" ")}\` exited ${result.status ?? result.signal}\n${result.stdout ?? ""}${
        result.stderr ?? ""
      }`
    )
  }
  return String(result.stdout ?? "")
}

// -- 1. Build and pack ------------------------------------------------------------------------------------------------

interface Packed {
  readonly name: string
  readonly file: string
}

const workspacePackages = (): ReadonlyArray<{ readonly dir: string; readonly manifest: Record<string, any> }> =>
  readdirSync(join(ROOT, "packages"))
    .map((dir) => join(ROOT, "packages", dir))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
    .filter(({ manifest }) => manifest.private !== true)

/** Every file path an `exports` map (any condition but the repository's own `@mrtr/source`) can resolve to. */
const exportTargets = (value: unknown): ReadonlyArray<string> =>
  typeof value === "string"
    ? [value]
    : value !== null && typeof value === "object"
    ? Object.entries(value).flatMap(([key, inner]) => key === "@mrtr/source" ? [] : exportTargets(inner))
    : []

const checkTarball = (name: string, manifest: Record<string, any>, files: ReadonlyArray<string>) => {
  const has = (path: string) => files.includes(path)
  for (const required of ["package.json", "README.md", "LICENSE", "dist/index.js", "dist/index.d.ts"]) {
    if (!has(required)) fail(`${name}: the tarball lacks ${required}`)
  }
  // The official JSON Schemas an exploration validates the wire against.
  if (name === "@mrtr/testing") {
    for (const schema of ["schema-2026-07-28.json", "schema-2025-11-25.json", "schema-tasks-draft.json"]) {
      if (!has(`schemas/${schema}`)) fail(`${name}: the tarball lacks schemas/${schema}`)
    }
  }
  const testish = files.filter((f) => /^(test|test-utils)\//.test(f) || /vitest\.config|\.test\.|tsbuildinfo/.test(f))
  if (testish.length > 0) fail(`${name}: the tarball ships test files: ${testish.join(", ")}`)
  const targets = [
    ...exportTargets(manifest.exports ?? {}),
    ...(manifest.main ? [manifest.main] : []),
    ...(manifest.types ? [manifest.types] : []),
    ...Object.values<string>(typeof manifest.bin === "string" ? { bin: manifest.bin } : manifest.bin ?? {})
  ]
  for (const target of targets) {
    const path = target.replace(/^\.\//, "")
    if (/\.(c|m)?ts$/.test(path) && !/\.d\.(c|m)?ts$/.test(path)) fail(`${name}: a consumer resolves ${target}`)
    if (!has(path)) fail(`${name}: ${target} is not in the tarball`)
  }
  // What the declarations import must be there too (no `.ts` sources behind a `.d.ts`).
  for (const file of files.filter((f) => f.endsWith(".d.ts"))) {
    if (!has(file.replace(/\.d\.ts$/, ".js"))) fail(`${name}: ${file} has no JavaScript beside it`)
  }
  for (const field of ["peerDependencies", "dependencies"] as const) {
    for (const [dep, range] of Object.entries<string>(manifest[field] ?? {})) {
      if (dep.startsWith("@mrtr/") && !range.startsWith("^")) {
        fail(`${name}: ${field}.${dep} is ${range}, not a caret range`)
      }
    }
  }
  if ((manifest.dependencies ?? {}).effect !== undefined) fail(`${name}: effect is a dependency, not a peer`)
}

const buildAndPack = (into: string): ReadonlyArray<Packed> => {
  log("building every package (npm run build)")
  run("build", "npm", ["run", "-s", "build"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] })
  return workspacePackages().map(({ dir, manifest }) => {
    const out = run(`npm pack ${manifest.name}`, "npm", ["pack", "--json", "--pack-destination", into], { cwd: dir })
    const [info] = JSON.parse(out) as ReadonlyArray<{ filename: string; files: ReadonlyArray<{ path: string }> }>
    if (info === undefined) return fail(`npm pack ${manifest.name}: no output`)
    checkTarball(manifest.name, manifest, info.files.map((f) => f.path))
    log(`packed ${manifest.name}: ${info.files.length} files`)
    return { name: manifest.name, file: join(into, info.filename) }
  })
}

// -- 2. The app -------------------------------------------------------------------------------------------------------

const devVersion = (name: string): string => {
  const manifest = JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8"))
  return `^${manifest.version}`
}

const createApp = (into: string, packed: ReadonlyArray<Packed>): string => {
  const app = join(into, "app")
  cpSync(APP_SOURCE, app, { recursive: true })
  const manifest = {
    name: "consumer-app",
    private: true,
    type: "module",
    // The app's own effect: the packages must use this copy (they declare it as a peer).
    dependencies: {
      ...Object.fromEntries(packed.map((p) => [p.name, `file:${p.file}`])),
      "effect": devVersion("effect"),
      "@effect/platform-node": devVersion("@effect/platform-node")
    },
    devDependencies: {
      "@effect/vitest": devVersion("@effect/vitest"),
      "@types/node": devVersion("@types/node"),
      "typescript": devVersion("typescript"),
      "vitest": devVersion("vitest")
    }
  }
  writeFileSync(join(app, "package.json"), JSON.stringify(manifest, null, 2) + "\n")
  log(`installing the app in ${app} (tarballs + its own effect, from the npm registry)`)
  run("npm install (app)", "npm", ["install", "--no-audit", "--no-fund"], { cwd: app })
  const ls = run("npm ls effect", "npm", ["ls", "effect", "--all", "--parseable"], { cwd: app })
  const copies = [...new Set(ls.split("\n").filter((line) => /node_modules[\\/]effect$/.test(line.trim())))]
  if (copies.length !== 1) fail(`npm ls effect shows ${copies.length} copies of effect:\n${copies.join("\n")}`)
  log(`npm ls effect: one copy (${copies[0]})`)
  return app
}

// -- 3. Per Node version ----------------------------------------------------------------------------------------------

/** The `node` binary of a major version, installed from the npm package `node@<major>` into `.consumer/`. */
const nodeBinary = (major: number): string => {
  const dir = join(NODES_DIR, `node-${major}`)
  const binary = join(dir, "node_modules", ".bin", "node")
  const works = () =>
    existsSync(binary) &&
    spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout?.trim().startsWith(`v${major}.`) === true
  if (works()) return binary
  log(`installing node@${major} into ${dir}`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  // The `node` package installs its binary from a preinstall script; npm >= 11.16 wants it allowed.
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: `node-${major}`, private: true, allowScripts: { node: true } }, null, 2) + "\n"
  )
  run(`npm install node@${major}`, "npm", ["install", "--no-audit", "--no-fund", `node@${major}`], { cwd: dir })
  if (!works()) fail(`node@${major} did not install a working binary at ${binary}`)
  return binary
}

/** Starts the compiled server and resolves with its URL once it prints `listening <url>`. */
const startServer = (node: string, app: string): Promise<{ readonly url: string; readonly child: ChildProcess }> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(node, [join(app, "dist", "src", "server.js")], { cwd: app, stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    child.stderr!.on("data", (chunk) => (stderr += String(chunk)))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`the server printed no URL within ${STEP_TIMEOUT_MS} ms\n${stderr}`))
    }, STEP_TIMEOUT_MS)
    child.on("exit", (code) => reject(new Error(`the server exited (${code}) before listening\n${stderr}`)))
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /^listening (\S+)/.exec(line)
      if (match) {
        clearTimeout(timer)
        resolvePromise({ url: match[1]!, child })
      }
    })
  })

const EXPECTED = "Booked MR107 for 3 nights; receipt filed under file:///home/me/trips"

const runFor = async (label: string, node: string, app: string) => {
  const env = cleanEnv({ PATH: `${dirname(node)}:${process.env.PATH ?? ""}` })
  const inApp = { cwd: app, env }
  log(`${label}: (a) tsc (strict, NodeNext)`)
  rmSync(join(app, "dist"), { recursive: true, force: true })
  run(`${label} tsc`, node, [join(app, "node_modules", "typescript", "bin", "tsc"), "-p", "."], inApp)

  log(`${label}: (b) server and client with plain node`)
  const server = await startServer(node, app).catch((error: Error) => fail(`${label} server: ${error.message}`))
  try {
    const out = run(`${label} client`, node, [join(app, "dist", "src", "client.js"), server.url], inApp)
    if (!out.includes(EXPECTED)) fail(`${label} client: expected "${EXPECTED}", got:\n${out}`)

    log(`${label}: (d) the installed mrtr bin`)
    const bin = join(app, "node_modules", "@mrtr", "cli", "bin", "mrtr.js")
    const cli = run(`${label} mrtr`, node, [
      bin,
      "call",
      "--http",
      server.url,
      "book_trip",
      JSON.stringify({ city: "Lisbon" }),
      "--answers",
      join(app, "answers.json")
    ], inApp)
    if (!cli.includes(EXPECTED)) fail(`${label} mrtr: expected "${EXPECTED}" on stdout, got:\n${cli}`)
  } finally {
    server.child.kill("SIGTERM")
  }

  log(`${label}: (c) vitest with @mrtr/testing`)
  const vitest = run(`${label} vitest`, node, [join(app, "node_modules", "vitest", "vitest.mjs"), "run"], inApp)
  // trips.test.ts (a scripted user) and explore.test.ts (an exploration, wire validation on).
  if (!/Tests\s+2 passed/.test(vitest.replace(/\x1b\[[0-9;]*m/g, ""))) {
    fail(`${label} vitest: no passing test reported\n${vitest}`)
  }
  log(`${label}: ok`)
}

// -- main -------------------------------------------------------------------------------------------------------------

const parseArgs = () => {
  const args = process.argv.slice(2)
  const only: Array<string> = []
  let keep = false
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--node") only.push(String(args[++i]))
    else if (args[i] === "--keep") keep = true
    else fail(`unknown option ${args[i]} (--node <major|current>, --keep)`)
  }
  return { only, keep }
}

const main = async () => {
  const { keep, only } = parseArgs()
  const work = mkdtempSync(join(tmpdir(), "mrtr-consumer-"))
  if (work.startsWith(ROOT)) fail(`the temporary folder ${work} is inside the repository`)
  try {
    const packed = buildAndPack(work)
    const app = createApp(work, packed)
    const versions: ReadonlyArray<readonly [string, string]> = [
      [`node ${process.version} (this machine)`, process.execPath] as const,
      ...NODE_MAJORS.map((major) => [`node ${major}`, String(major)] as const)
    ].filter(([, which]) => only.length === 0 || only.includes(which === process.execPath ? "current" : which))
    for (const [label, which] of versions) {
      const node = which === process.execPath ? which : nodeBinary(Number(which))
      const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim()
      await runFor(`${label.split(" (")[0]} ${version}`.replace(/^node \S+ /, "node "), node, app)
    }
    log(`passed on ${versions.length} Node version(s)`)
  } finally {
    if (keep) log(`kept ${work}`)
    else rmSync(work, { recursive: true, force: true })
  }
}

main().catch((error) => {
  process.stderr.write(
    `[consumer] FAILED: ${error instanceof StepFailed ? error.message : String(error?.stack ?? error)}\n`
  )
  process.exit(1)
})
