/**
 * Starts (and stops) a fleet on 127.0.0.1: a `redis-server`, three
 * instances of the demo server (`./instance.ts`, each its own Node
 * process on a free port) sharing a key ring and that Redis, and `haproxy`
 * (./haproxy.cfg: round-robin, no affinity) in front on another free port.
 * Used by `npm run fleet` (./index.ts) and the fleet tests (./fleet.test.ts on
 * the 2026-07-28 wire, ./legacy.test.ts for 2025-11-25 sessions).
 *
 * The instances are configured by the environment only, as a deployment
 * would: `MRTR_REQUEST_STATE_KEYS` (the shared key ring), `MRTR_REDIS_URL`,
 * `MRTR_SINGLE_USE`, and `MRTR_PUBLIC_BASE_URL` (the balancer's origin, where
 * every instance sends the interaction pages of URL-mode elicitation). `restart(name, env)` rolls one instance (SIGTERM, then
 * start again on the same port, e.g. with a new key ring); `kill(name)` is
 * SIGKILL; `logsOf(name)` is everything the instance's processes printed
 * (those stopped or killed included). Everything started here is stopped by `stop`, by pid.
 */
import { makeRequestMeta } from "@mrtr/protocol/Meta"
import type { ClientCapabilities } from "@mrtr/protocol/Schema"
import { freePort, type Proc, type RedisServer, spawnReady, startHaproxy, startRedis } from "@mrtr/test-support/infra"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"

/** The names of the instances, as in ./haproxy.cfg. */
export const INSTANCES = ["a", "b", "c"] as const
export type InstanceName = typeof INSTANCES[number]

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))
const instanceEntry = here("./instance.ts")

/** What the fleet's raw drivers declare they can answer: forms, sampling and roots. */
export const CLIENT_CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {} }

/**
 * A 2026-07-28 JSON-RPC request as the fleet's raw drivers send it (the tests and `bench/fleet.ts`): `params` with the
 * `_meta` of the protocol version and `capabilities`.
 */
export const request = (
  id: number,
  method: string,
  params: Record<string, unknown>,
  capabilities: object = CLIENT_CAPABILITIES
) => ({
  jsonrpc: "2.0",
  id,
  method,
  params: {
    ...params,
    _meta: makeRequestMeta({ clientCapabilities: capabilities as ClientCapabilities })
  }
})

/** A `tools/call` of the demo (`name`, `arguments`, and on a retry `inputResponses` and `requestState`). */
export const toolsCall = (id: number, params: Record<string, unknown>) => request(id, "tools/call", params)

/** A new key ring entry, `<id>:<base64url of 32 random bytes>` (the `MRTR_REQUEST_STATE_KEYS` syntax). */
export const newKey = (id: string): string => `${id}:${randomBytes(32).toString("base64url")}`

export interface Fleet {
  /** The balancer's URL: what clients use. */
  readonly url: string
  readonly redis: RedisServer
  readonly ports: Readonly<Record<InstanceName, number>>
  /** The environment each instance runs with now. */
  readonly envOf: (name: InstanceName) => Readonly<Record<string, string>>
  readonly restart: (name: InstanceName, env?: Readonly<Record<string, string>>) => Promise<void>
  readonly kill: (name: InstanceName) => Promise<void>
  /** The output (stdout and stderr) of every process the instance ran so far, in order. */
  readonly logsOf: (name: InstanceName) => string
  /** The pid of a running instance's process (for CPU accounting). */
  readonly pidOf: (name: InstanceName) => number
  readonly start: (name: InstanceName) => Promise<void>
  readonly stop: () => Promise<void>
}

export interface FleetOptions {
  /** Environment of every instance (e.g. `MRTR_SINGLE_USE`); the key ring and Redis URL are set unless given. */
  readonly env?: Readonly<Record<string, string>> | undefined
}

/** Starts Redis, the three instances and haproxy; stops what it started if any of them fails. */
export const startFleet = async (options: FleetOptions = {}): Promise<Fleet> => {
  const started: Array<() => Promise<void>> = []
  const stopAll = async () => {
    for (const stop of started.reverse()) await stop().catch(() => undefined)
    started.length = 0
  }
  try {
    const redis = await startRedis()
    started.push(() => redis.stop())
    const keys = newKey("k1")
    const ports = {} as Record<InstanceName, number>
    for (const name of INSTANCES) ports[name] = await freePort()
    const port = await freePort()
    const envs = {} as Record<InstanceName, Record<string, string>>
    const procs = {} as Record<InstanceName, Proc | undefined>
    // The output of the instance's earlier processes.
    const past: Record<InstanceName, string> = { a: "", b: "", c: "" }
    const start = async (name: InstanceName) => {
      procs[name] = await spawnReady(process.execPath, [
        ...sourceNodeArgs,
        instanceEntry,
        "--port",
        String(ports[name])
      ], {
        env: envs[name],
        ready: /listening /,
        label: `instance ${name}`,
        timeoutMs: 60_000
      })
    }
    const halt = async (name: InstanceName, signal: NodeJS.Signals) => {
      await procs[name]?.stop(signal)
      past[name] += procs[name]?.output() ?? ""
      procs[name] = undefined
    }
    for (const name of INSTANCES) {
      // Every instance sends interaction pages on the balancer's origin (URL-mode elicitation across the fleet).
      envs[name] = {
        MRTR_REQUEST_STATE_KEYS: keys,
        MRTR_REDIS_URL: redis.url,
        MRTR_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        ...options.env
      }
      started.push(() => halt(name, "SIGTERM"))
    }
    await Promise.all(INSTANCES.map(start))
    const haproxy = await startHaproxy(here("./haproxy.cfg"), {
      FLEET_HOST: "127.0.0.1",
      FLEET_PORT: String(port),
      FLEET_PORT_A: String(ports.a),
      FLEET_PORT_B: String(ports.b),
      FLEET_PORT_C: String(ports.c)
    }, port)
    started.push(() => haproxy.stop())
    return {
      url: `http://127.0.0.1:${port}/mcp`,
      redis,
      ports,
      envOf: (name) => envs[name],
      restart: async (name, env) => {
        await halt(name, "SIGTERM")
        if (env !== undefined) envs[name] = { ...envs[name], ...env }
        await start(name)
      },
      kill: (name) => halt(name, "SIGKILL"),
      logsOf: (name) => past[name] + (procs[name]?.output() ?? ""),
      pidOf: (name) => procs[name]?.pid ?? -1,
      start,
      stop: stopAll
    }
  } catch (error) {
    await stopAll()
    throw error
  }
}
