/**
 * Server-side one-time use of single-use `requestState`: the `ReplayGuard`
 * service that redeems each state's id (`jti`) at most once, its bounded
 * in-memory implementation, `ReplayGuardFull`, the distinct failure of a
 * guard with no room left, and `ReplayGuardUnavailable`, the failure of a
 * shared guard (Redis) that cannot be reached.
 *
 * Gotchas: a guard must never forget a live id to make room (the state could
 * then be replayed), and must never answer a full guard as a replay (an
 * honest client would be told its state was forged). The in-memory guard
 * keeps ids only until each state's own expiry, in two pools (requests
 * without a principal; authenticated principals, each bounded on its own), so
 * one client cannot take the room of others who are identified. Re-exported
 * by `RequestState`, where the codec uses it.
 * Source: MCP 2026-07-28, basic/patterns/mrtr ("One-time use must be enforced server-side").
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, Metric, Schema } from "effect"
import { ClientAddress, group } from "./ClientAddress.ts"

/**
 * A single-use `requestState` that is valid but cannot be redeemed now: the
 * {@link ReplayGuard} holds as many live (unexpired) redeemed ids as it may,
 * for the request's principal (`scope: "principal"`, at most
 * `maxEntriesPerPrincipal`), for requests without a principal from the
 * request's client address (`scope: "address"`, the same bound; see
 * `ClientAddress`) or for all requests without a principal
 * (`scope: "anonymous"`, at most `maxEntries`). Nothing is forgotten to make
 * room (that would allow a replay); room comes back as the oldest states
 * expire, at the latest one TTL later. `capacity` is the bound that was hit.
 *
 * Distinct from `RequestState.InvalidRequestState` (which would tell an honest
 * client its state was forged): the server answers JSON-RPC `-32603`
 * (InternalError) with this message, and the in-memory guard counts each in
 * the counter `mrtr_replay_guard_full_total` (attribute `scope`).
 *
 * @category errors
 * @since 0.1.0
 */
export class ReplayGuardFull extends Schema.TaggedError<ReplayGuardFull>()("ReplayGuardFull", {
  scope: Schema.Literals(["principal", "address", "anonymous"]),
  capacity: Schema.Number
}) {
  override get message(): string {
    return `The server cannot redeem this single-use requestState now: its replay guard holds ${this.capacity} live ` +
      `states ${
        this.scope === "principal"
          ? "for this principal"
          : this.scope === "address"
          ? "for unauthenticated requests from this address"
          : "for unauthenticated requests"
      }; retry later`
  }
}

/**
 * A single-use `requestState` that cannot be redeemed now because the shared
 * store behind the {@link ReplayGuard} (e.g. Redis) did not answer: not
 * reachable, timed out, or answered an error. `store` names the store
 * (`"redis"`), `reason` says what failed (for the log; never sent to clients).
 *
 * The guard fails closed: the state is neither accepted (it could be a
 * replay) nor reported as forged. The server answers JSON-RPC `-32603`
 * (InternalError) with the fixed message of this error, so the client may
 * retry the same request later. Requests carrying no single-use state are
 * unaffected.
 *
 * @category errors
 * @since 0.1.0
 */
export class ReplayGuardUnavailable extends Schema.TaggedError<ReplayGuardUnavailable>()("ReplayGuardUnavailable", {
  store: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return "The server cannot redeem this single-use requestState now: its shared replay guard is unavailable; retry later"
  }
}

/**
 * Options of {@link ReplayGuard.makeMemory}.
 *
 * - `maxEntries`: most live (unexpired) redeemed ids kept for requests
 *   without a principal, and, separately, for all principals together
 *   (default 100,000 each; some 90–110 bytes of bookkeeping per id plus the
 *   id string, see `bench/replayGuard.ts`, so about 15 MB each when full).
 *   Unauthenticated traffic therefore never takes the room of
 *   authenticated users.
 * - `maxEntriesPerPrincipal`: most live ids of one principal (default
 *   10,000), so one authenticated client cannot fill the guard for others;
 *   and, among requests without a principal, of one client address (the
 *   `ClientAddress` the transport provides), so one unauthenticated client
 *   cannot lock every other one out.
 *
 * An id is kept only until its state's own expiry; expired ids are evicted on
 * use. At a bound, redemption fails with {@link ReplayGuardFull} rather than
 * forget a live id that could then be replayed.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReplayGuardMemoryOptions {
  readonly maxEntries?: number | undefined
  readonly maxEntriesPerPrincipal?: number | undefined
}

/**
 * Counter of single-use redemptions refused because the in-memory
 * {@link ReplayGuard} was full, by `scope` (`principal` or `anonymous`).
 *
 * @category metrics
 * @since 0.1.0
 */
export const replayGuardFullTotal = Metric.counter("mrtr_replay_guard_full_total", {
  description: "Single-use requestState redemptions refused because the replay guard was full",
  incremental: true
})

/**
 * Counter of single-use redemptions answered by a {@link ReplayGuard}, by
 * `outcome` (`first`: accepted; `replayed`: already redeemed) and `store`
 * (`memory`, `redis`).
 *
 * @category metrics
 * @since 0.1.0
 */
export const replayGuardRedemptionsTotal = Metric.counter("mrtr_replay_guard_redemptions_total", {
  description: "Single-use requestState redemptions, by outcome (first, replayed) and store",
  incremental: true
})

/**
 * Gauge of the redeemed ids a {@link ReplayGuard} holds, by `store`. The
 * in-memory guard counts exactly what it keeps (expired ids leave as they are
 * pruned, on use); the Redis guard of `@mrtr/server/Redis` counts, on each
 * instance, the ids it redeemed first whose state has not expired yet, so
 * the sum over a fleet approximates the keys Redis holds (an instance that
 * restarts forgets its part). Process-wide: several guards of one process add up.
 *
 * @category metrics
 * @since 0.2.0
 */
export const replayGuardEntries = Metric.gauge("mrtr_replay_guard_entries", {
  description: "Redeemed single-use requestState ids held by the replay guard (redis: per instance, approximate)"
})

const memoryEntries = Metric.withAttributes(replayGuardEntries, { store: "memory" })

const memoryFirst = Metric.withAttributes(replayGuardRedemptionsTotal, { outcome: "first", store: "memory" })
const memoryReplayed = Metric.withAttributes(replayGuardRedemptionsTotal, { outcome: "replayed", store: "memory" })

const positiveInteger = (name: string, value: number): number => {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`ReplayGuard.makeMemory: ${name} must be a positive integer`)
  }
  return value
}

/**
 * Live redeemed ids of one pool (anonymous, or all principals), in insertion
 * order: ids arrive in roughly expiry order (one TTL per codec), so pruning
 * from the oldest stops at the first live id; a full sweep runs at a bound.
 */
const makePool = () => {
  const redeemed = new Map<string, { readonly expiresAt: number; readonly principal: string | undefined }>()
  const perPrincipal = new Map<string, number>()
  // Ids forgotten since the gauge was last updated (`drained`).
  let forgotten = 0
  const forget = (jti: string, principal: string | undefined) => {
    redeemed.delete(jti)
    forgotten++
    if (principal === undefined) return
    const left = (perPrincipal.get(principal) ?? 1) - 1
    if (left === 0) perPrincipal.delete(principal)
    else perPrincipal.set(principal, left)
  }
  return {
    has: (jti: string) => redeemed.has(jti),
    drained: () => {
      const n = forgotten
      forgotten = 0
      return n
    },
    size: () => redeemed.size,
    countOf: (principal: string) => perPrincipal.get(principal) ?? 0,
    add: (jti: string, expiresAt: number, principal: string | undefined) => {
      redeemed.set(jti, { expiresAt, principal })
      if (principal !== undefined) perPrincipal.set(principal, (perPrincipal.get(principal) ?? 0) + 1)
    },
    pruneHead: (now: number) => {
      for (const [jti, entry] of redeemed) {
        if (entry.expiresAt > now) return
        forget(jti, entry.principal)
      }
    },
    sweep: (now: number) => {
      for (const [jti, entry] of redeemed) {
        if (entry.expiresAt <= now) forget(jti, entry.principal)
      }
    }
  }
}

/**
 * Server-side one-time-use enforcement for single-use `requestState`.
 *
 * `redeem(jti, expiresAt, principal?)` answers `true` the first time an id is
 * redeemed and `false` afterwards; `expiresAt` (epoch ms) is when the state
 * expires, after which the guard may forget the id (the codec rejects expired
 * states before redeeming); `principal` is the authenticated principal the
 * state is bound to, if any, for per-principal bounds. Redemption must be
 * atomic. A guard that cannot take one more id fails with
 * {@link ReplayGuardFull} (never answers `false` for it: that is a replay);
 * a shared guard whose store cannot be reached fails with
 * {@link ReplayGuardUnavailable}.
 *
 * {@link ReplayGuard.layerMemory} keeps ids in process memory: right for one
 * instance only. A fleet needs a shared store: `@mrtr/server/Redis`
 * (`SET jti 1 NX PXAT expiresAt`), or another layer of this service provided
 * to `RequestState.RequestStateCodec.layer`.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr ("One-time use must be enforced server-side").
 *
 * @category services
 * @since 0.1.0
 */
export class ReplayGuard extends Context.Service<ReplayGuard, {
  readonly redeem: (
    jti: string,
    expiresAt: number,
    principal?: string | undefined
  ) => Effect.Effect<boolean, ReplayGuardFull | ReplayGuardUnavailable>
}>()("@mrtr/core/RequestState/ReplayGuard") {
  /**
   * An in-memory guard (see {@link ReplayGuardMemoryOptions} for its bounds):
   * each id is kept until its state's expiry, expired ids are evicted on use,
   * and a bound reached fails with {@link ReplayGuardFull}, counted in
   * {@link replayGuardFullTotal}. Time comes from the `Clock` service. Throws
   * a `RangeError` for a bound that is not a positive integer.
   *
   * @since 0.1.0
   */
  static readonly makeMemory = (options?: ReplayGuardMemoryOptions): Effect.Effect<ReplayGuard["Service"]> =>
    Effect.sync(() => {
      const maxEntries = positiveInteger("maxEntries", options?.maxEntries ?? 100_000)
      const maxPerPrincipal = positiveInteger("maxEntriesPerPrincipal", options?.maxEntriesPerPrincipal ?? 10_000)
      const anonymous = makePool()
      const authenticated = makePool()
      const full = (scope: "principal" | "address" | "anonymous", capacity: number) =>
        Effect.andThen(
          Effect.andThen(
            Metric.update(Metric.withAttributes(replayGuardFullTotal, { scope }), 1),
            Effect.logWarning(
              `ReplayGuard is full (${capacity} live ids, scope ${scope}): refusing single-use redemption`
            )
          ),
          Effect.fail(new ReplayGuardFull({ scope, capacity }))
        )
      return ReplayGuard.of({
        redeem: (jti, expiresAt, principal) =>
          Effect.contextWith((context: Context.Context<never>) => {
            const now = Context.get(context, Clock.Clock).currentTimeMillisUnsafe()
            const pool = principal === undefined ? anonymous : authenticated
            // The share counted: the principal's, else the client address's, IPv6 by its /48 (none: the anonymous
            // pool alone).
            const address = principal === undefined ? Context.get(context, ClientAddress) : undefined
            const share = principal ?? (address === undefined ? undefined : `address:${group(address)}`)
            pool.pruneHead(now)
            const gone = pool.drained()
            const pruned = gone === 0 ? Effect.void : Metric.modify(memoryEntries, -gone)
            if (pool.has(jti)) return Effect.as(Effect.andThen(pruned, Metric.update(memoryReplayed, 1)), false)
            if (share !== undefined && pool.countOf(share) >= maxPerPrincipal) {
              pool.sweep(now)
              if (pool.countOf(share) >= maxPerPrincipal) {
                return Effect.andThen(
                  Metric.modify(memoryEntries, -pool.drained() - gone),
                  full(principal === undefined ? "address" : "principal", maxPerPrincipal)
                )
              }
            }
            if (pool.size() >= maxEntries) {
              pool.sweep(now)
              if (pool.size() >= maxEntries) {
                return Effect.andThen(
                  Metric.modify(memoryEntries, -pool.drained() - gone),
                  full(principal === undefined ? "anonymous" : "principal", maxEntries)
                )
              }
            }
            pool.add(jti, expiresAt, share)
            // Ids pruned by this redemption (before or in a sweep) leave, the new one comes in.
            const delta = 1 - gone - pool.drained()
            return Effect.as(Effect.andThen(Metric.modify(memoryEntries, delta), Metric.update(memoryFirst, 1)), true)
          })
      })
    })

  /**
   * The default in-memory {@link ReplayGuard} (100,000 live ids without a
   * principal, 100,000 for all principals, 10,000 per principal). For a
   * single instance only; swap this layer for a shared store in a fleet.
   *
   * @since 0.1.0
   */
  static readonly layerMemory: Layer.Layer<ReplayGuard> = Layer.effect(ReplayGuard, ReplayGuard.makeMemory())
}
