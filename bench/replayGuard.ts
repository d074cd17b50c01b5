/**
 * `npm run bench:replay-guard`: the memory of the in-memory
 * `ReplayGuard` per live redeemed id (the capacity the README's Deployment
 * section documents), and the time of one redemption when the guard holds
 * that many. Not a test: prints a line per pool.
 *
 * Options: `--entries 100000` (ids per pool).
 */
import { RequestState } from "@mrtr/core"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const entries = arg("entries", 100_000)
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error("run with --expose-gc")

const heap = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

const measure = (label: string, principal: (i: number) => string | undefined) =>
  Effect.gen(function*() {
    const ids = Array.from({ length: entries }, () => randomBytes(16).toString("base64url"))
    const before = heap()
    const guard = yield* RequestState.ReplayGuard.makeMemory({ maxEntries: entries, maxEntriesPerPrincipal: entries })
    const started = performance.now()
    for (let i = 0; i < entries; i++) yield* guard.redeem(ids[i]!, Date.now() + 600_000, principal(i))
    const micros = ((performance.now() - started) * 1000) / entries
    const bytes = (heap() - before) / entries
    console.log(
      `${label}: ${entries} live ids, ${bytes.toFixed(0)} bytes per id, ${micros.toFixed(2)} µs per redemption`
    )
    return guard
  })

Effect.runPromise(Effect.gen(function*() {
  yield* measure("anonymous pool", () => undefined)
  yield* measure("principals pool (1,000 principals)", (i) => `user:${i % 1000}`)
}))
