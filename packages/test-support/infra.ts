/**
 * Test and example helper: real infrastructure processes on 127.0.0.1 — a
 * free port, a child process started and awaited until it prints that it is
 * ready, `redis-server` (no persistence) and `haproxy` (foreground). Used by
 * the Redis tests, the fleet tests and `npm run fleet`; every process started
 * here is stopped by its handle (by pid), never by name.
 *
 * Gotchas: a free port is free when asked, not necessarily a moment later
 * (another process may take it): callers start at once. `redis-server` and
 * `haproxy` are Debian packages (scripts/system-deps.sh installs them).
 *
 * @since 0.1.0
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as net from "node:net"
import { afterAll, beforeAll } from "vitest"

/** A free TCP port on 127.0.0.1 (the OS picks it). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))
      )
    })
  })

/** A started child process: its output so far, its exit, and `stop` (SIGTERM, then SIGKILL after 3 s). */
export interface Proc {
  readonly pid: number
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
  readonly stop: (signal?: NodeJS.Signals) => Promise<void>
}

/**
 * Spawns `command` and resolves once its output (stdout or stderr) matches
 * `ready`; rejects with the output if it exits first or `timeoutMs` passes
 * (default 20 s), after killing it.
 */
export const spawnReady = (
  command: string,
  args: ReadonlyArray<string>,
  options: {
    /** Output that means ready; absent: ready once spawned. */
    readonly ready?: RegExp | undefined
    readonly env?: Record<string, string | undefined> | undefined
    readonly cwd?: string | undefined
    readonly timeoutMs?: number | undefined
    readonly label?: string | undefined
  }
): Promise<Proc> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    let settled = false
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill(signal)
      const timer = setTimeout(() => child.kill("SIGKILL"), 3_000)
      await exited
      clearTimeout(timer)
    }
    const proc: Proc = { pid: child.pid ?? -1, child, output: () => output, exited, stop }
    const timer = setTimeout(() => {
      if (settled) return
      settled = true
      void stop("SIGKILL")
      reject(new Error(`${options.label ?? command} not ready after ${options.timeoutMs ?? 20_000} ms:\n${output}`))
    }, options.timeoutMs ?? 20_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      if (output.length > 1_000_000) output = output.slice(-500_000)
      if (!settled && options.ready !== undefined && options.ready.test(output)) {
        settled = true
        clearTimeout(timer)
        resolve(proc)
      }
    }
    if (options.ready === undefined) {
      child.once("spawn", () => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve(proc)
      })
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.once("error", (error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      reject(error)
    })
    void exited.then((code) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      reject(new Error(`${options.label ?? command} exited (${code}) before it was ready:\n${output}`))
    })
  })

/** A `redis-server` of the test: its URL, and `stop`/`start` to take it down and bring it back on the same port. */
export interface RedisServer {
  readonly port: number
  readonly url: string
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
}

/**
 * A `redis-server` for the test file that calls it (at its top level): started before its first test, stopped after
 * its last. The returned value reads the running server (`port`, `url`, `stop`, `start`), so it can be used as soon
 * as the tests run.
 */
export const redisPerFile = (): RedisServer => {
  let server: RedisServer | undefined
  beforeAll(async () => {
    server = await startRedis()
  }, 30_000)
  afterAll(async () => {
    await server?.stop()
  })
  const running = (): RedisServer => {
    if (server === undefined) throw new Error("redisPerFile: redis-server is not started yet (use it inside a test)")
    return server
  }
  return {
    get port() {
      return running().port
    },
    get url() {
      return running().url
    },
    stop: () => running().stop(),
    start: () => running().start()
  }
}

/** Starts `redis-server` on 127.0.0.1 and a free port (or `port`), without persistence. */
export const startRedis = async (port?: number): Promise<RedisServer> => {
  const chosen = port ?? await freePort()
  let proc: Proc | undefined
  const start = async () => {
    proc = await spawnReady("redis-server", [
      "--port",
      String(chosen),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--maxmemory-policy",
      "noeviction",
      "--protected-mode",
      "no"
    ], { ready: /Ready to accept connections/, label: "redis-server" })
  }
  await start()
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    stop: async () => {
      await proc?.stop()
      proc = undefined
    },
    start
  }
}

/**
 * Starts `haproxy` in the foreground (`-db`) on `configFile`, whose `${VAR}`
 * references come from `env`; ready once it accepts connections on `port`.
 */
export const startHaproxy = async (
  configFile: string,
  env: Record<string, string>,
  port: number
): Promise<Proc> => {
  const proc = await spawnReady("haproxy", ["-db", "-f", configFile], { env, label: "haproxy" })
  await Promise.race([
    waitForPort(port),
    proc.exited.then((code) => Promise.reject(new Error(`haproxy exited (${code}):\n${proc.output()}`)))
  ])
  return proc
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port` (polls every 50 ms, up to `timeoutMs`). */
export const waitForPort = async (port: number, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1")
      socket.once("connect", () => (socket.destroy(), resolve(true)))
      socket.once("error", () => resolve(false))
    })
    if (open) return
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
