/**
 * The replay guards' own CPU per redemption, in this process, for the
 * features section of `npm run bench`: `redeem(jti, expiresAt)` of fresh
 * random ids, `n` of them 32 at a time (after `n / 4` of warm-up), on the
 * in-memory guard (`ReplayGuard.makeMemory`) and on the Redis guard
 * (`@mrtr/server/Redis`'s `layerReplayGuardUrl`: one `SET NX PXAT` per
 * redemption, on its own connection to the redis-server of the run).
 *
 * This isolates what the end-to-end difference (a server with single use on
 * minus one with it off) measures with ±tens of µs of noise on a shared
 * machine: the client side of the Redis round trip (encode the command,
 * parse the reply, the fiber waiting on the socket).
 */
import { RequestState } from "@mrtr/core"
import * as Redis from "@mrtr/server/Redis"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"

export interface GuardCost {
  /** µs of this process's CPU per redemption. */
  readonly memory: number
  readonly redis: number | undefined
}

const cpu = () => {
  const usage = process.cpuUsage()
  return usage.user + usage.system
}

const measure = (guard: RequestState.ReplayGuard["Service"], n: number) =>
  Effect.gen(function*() {
    const redeem = () => guard.redeem(randomBytes(16).toString("base64url"), Date.now() + 600_000)
    yield* Effect.forEach(Array.from({ length: n / 4 }), redeem, { concurrency: 32, discard: true })
    const c0 = cpu()
    const outcomes = yield* Effect.forEach(Array.from({ length: n }), redeem, { concurrency: 32 })
    if (outcomes.some((first) => !first)) throw new Error("a fresh id was refused")
    return (cpu() - c0) / n
  })

/** Both guards (Redis when `redisUrl` is given), `n` redemptions each. */
export const guardCost = (redisUrl: string | undefined, n = 20_000): Promise<GuardCost> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const memory = yield* measure(yield* RequestState.ReplayGuard.makeMemory({ maxEntries: 2 * n }), n)
      if (redisUrl === undefined) return { memory, redis: undefined }
      const redis = yield* Effect.gen(function*() {
        return yield* measure(yield* RequestState.ReplayGuard, n)
      }).pipe(Effect.provide(Redis.layerReplayGuardUrl(redisUrl)))
      return { memory, redis }
    }).pipe(Effect.scoped)
  )
