/**
 * The server processes of `npm run bench`: `bench/servers.ts` compiled with
 * esbuild into one JavaScript module (as a deployment would ship it) and
 * forked once per server kind, plus the IPC to read a child's CPU time and
 * heap, and time-boxed trials that measure the server's CPU per
 * conversation.
 *
 * Gotchas: CPU is read from the child over IPC before and after a trial, so
 * it is the whole process's user + system time (all threads, GC included);
 * a child's exit before `ready` rejects `startServer`.
 */
import { type ChildProcess, fork } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { runPool, type Target, target } from "./driver.ts"
import type { ServerKind } from "./servers.ts"

export interface Server {
  readonly kind: ServerKind
  readonly child: ChildProcess
  readonly url: string
  readonly target: Target
}

interface Cpu {
  readonly cpuMicros: number
  readonly jwksFetches: number
}

export interface Memory {
  readonly heapUsed: number
  readonly rss: number
}

const serversEntry = fileURLToPath(new URL("./servers.ts", import.meta.url))

/** A fresh temporary directory (removed by the caller). */
export const tempDir = (): string => mkdtempSync(join(tmpdir(), "mrtr-bench-"))

/**
 * Bundles `entry` and everything it imports (the workspace packages'
 * TypeScript sources included, through the `@mrtr/source` condition) into one
 * ES module `outfile`, run on plain `node`. (Under tsx's on-the-fly loader
 * hooks the TypeScript servers ran 10-15% slower than their compiled code,
 * which measured tsx, not them.)
 */
export const compile = async (
  entry: string,
  outfile: string,
  options: { readonly external?: ReadonlyArray<string> } = {}
): Promise<string> => {
  const { build } = await import("esbuild")
  await build({
    entryPoints: [entry],
    ...(options.external === undefined ? {} : { external: [...options.external] }),
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    conditions: ["@mrtr/source"],
    // For the --profile summary (bench/profile.ts maps frames back to their sources); node does not load it.
    sourcemap: "external",
    // CommonJS dependencies bundled into an ES module still call `require`.
    banner: {
      js:
        "import { createRequire as __mrtrCreateRequire } from 'node:module'; const require = __mrtrCreateRequire(import.meta.url);"
    }
  })
  return outfile
}

/** `bench/servers.ts` compiled into `dir`. */
export const compileServers = (dir: string): Promise<string> => compile(serversEntry, join(dir, "servers.mjs"))

export interface StartOptions {
  readonly concurrency: number
  readonly env?: Readonly<Record<string, string>>
  /** Extra node flags (e.g. `--cpu-prof`). */
  readonly execArgv?: ReadonlyArray<string>
  /** Run `bench/servers.ts` from its TypeScript sources under tsx instead of `module`. */
  readonly uncompiled?: boolean
}

/** Forks `module <kind>` and resolves once it is listening. */
export const startServer = (module: string, kind: ServerKind, options: StartOptions): Promise<Server> =>
  new Promise((resolve, reject) => {
    const child = fork(options.uncompiled === true ? serversEntry : module, [kind], {
      execArgv: [
        "--expose-gc",
        ...(options.uncompiled === true ? ["--conditions=@mrtr/source", "--import", "tsx"] : []),
        ...(options.execArgv ?? [])
      ],
      env: { ...process.env, MRTR_REDIS_URL: "", ...options.env },
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`server ${kind} exited with ${code}`)))
    child.on("message", (message: { type?: string; url?: string; token?: string }) => {
      if (message.type === "ready" && message.url !== undefined) {
        const headers: Record<string, string> = message.token === undefined
          ? {}
          : { authorization: `Bearer ${message.token}` }
        resolve({ kind, child, url: message.url, target: target(message.url, options.concurrency, headers) })
      }
    })
  })

const ask = <A>(
  server: Server,
  type: "cpu" | "stats" | "profile-start" | "profile-stop",
  reply: string = type,
  extra: object = {}
): Promise<A> =>
  new Promise((resolve) => {
    const listener = (message: { type?: string }) => {
      if (message.type !== reply) return
      server.child.off("message", listener)
      resolve(message as A)
    }
    server.child.on("message", listener)
    server.child.send({ type, ...extra })
  })

/** The child's user + system CPU so far, µs. */
export const serverCpu = (server: Server): Promise<number> => ask<Cpu>(server, "cpu").then((c) => c.cpuMicros)

/** How many times the child's local JWKS was fetched so far (`ours-auth`; 0 for the others). */
export const jwksFetches = (server: Server): Promise<number> => ask<Cpu>(server, "cpu").then((c) => c.jwksFetches)

/** Starts the child's CPU profiler (`bench/servers.ts`, `profile-start`). */
export const startProfile = (server: Server): Promise<unknown> => ask(server, "profile-start", "profile-started")

/** Stops the child's CPU profiler and writes its `.cpuprofile` to `path`. */
export const stopProfile = (server: Server, path: string): Promise<unknown> =>
  ask(server, "profile-stop", "profile", { path })

/** The child's heap after two forced GCs. */
export const serverMemory = (server: Server): Promise<Memory> => ask<Memory>(server, "stats")

/** Ends the child (it exits on disconnect); resolves once it has exited. */
export const stop = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.child.removeAllListeners("exit")
    if (server.child.exitCode !== null || !server.child.connected) return resolve()
    server.child.once("exit", () => resolve())
    server.child.disconnect()
  })

export interface Trial {
  /** Conversations per second. */
  readonly rate: number
  readonly p50: number
  readonly p99: number
  /** Server CPU per conversation, µs. */
  readonly serverCpu: number
  /** Share of one core the load generator (this process) used. */
  readonly driverCpu: number
  readonly conversations: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN

const processCpu = () => {
  const usage = process.cpuUsage()
  return usage.user + usage.system
}

/**
 * One time-boxed trial: `concurrency` workers run `task` (one conversation,
 * resolving with its latency in ms) for `ms`; the server's CPU is read
 * before and after.
 */
export const trial = async (
  server: Server,
  concurrency: number,
  ms: number,
  task: (worker: number) => Promise<number>
): Promise<Trial> => {
  const before = await serverCpu(server)
  const driver0 = processCpu()
  let started = 0
  // round-robin slot numbers, for tasks that pick per-slot state (the legacy sessions)
  const { results, wallMs } = await runPool(Infinity, concurrency, () => task(started++ % concurrency), ms)
  const driverMicros = processCpu() - driver0
  const after = await serverCpu(server)
  const sorted = results.sort((a, b) => a - b)
  return {
    rate: (results.length / wallMs) * 1000,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    serverCpu: (after - before) / results.length,
    driverCpu: driverMicros / (wallMs * 1000),
    conversations: results.length
  }
}
