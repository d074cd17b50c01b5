/**
 * The fleet-wide `InteractionStore` of URL-mode (secure) elicitation pages on
 * Redis (re-exported by `@mrtr/server/Redis` as `makeInteractionStore`,
 * `layerInteractionStore`, `layerInteractionStoreUrl`; the layout and the
 * bounds are in its docstring there).
 *
 * Gotchas: the value of a completed page is the page's ciphertext, sealed to
 * the interaction's `sealingKey` (`InteractionSeal`), never the secret in
 * clear; every change of a record is one Lua script (create with the
 * bounds, complete once, take once), so two instances cannot both complete
 * or both take a page; time is the `Clock`'s (instances' clocks must agree);
 * a failed operation is `InteractionStoreUnavailable`, counted and logged by
 * `reportFailure`, never a defect.
 *
 * Source: MCP 2026-07-28, client/elicitation (URL mode).
 *
 * @internal
 */
import { InteractionStore } from "@mrtr/core"
import { Duration, Effect } from "effect"
import { SecureRandom } from "effect/crypto"
import * as Redis from "effect/persistence/Redis"
import { byteAccountsLua } from "./byteAccounts.ts"
import * as RedisMetrics from "./metrics.ts"

/** Options of the store: see `Redis.InteractionStoreOptions`. */
export interface InteractionStoreOptions {
  /** Prefix of the keys, shared by every instance of a fleet. @default "mrtr:interaction:" */
  readonly prefix?: string | undefined
  /** The most interactions without a principal, and, separately, of all principals together, fleet-wide. @default 10000 */
  readonly maxEntries?: number | undefined
  /** The most interactions of one principal, or of one client address without a principal, fleet-wide. @default 100 */
  readonly maxEntriesPerPrincipal?: number | undefined
  /** The most bytes (forms and sealed values) of one principal, or of one client address without a principal, fleet-wide. @default 1048576 (1 MiB) */
  readonly maxBytesPerPrincipal?: number | undefined
  /** The most bytes (forms and sealed values) of every interaction without a principal together, fleet-wide. @default 33554432 (32 MiB) */
  readonly maxAnonymousBytes?: number | undefined
  /** The most time one operation may wait for Redis. @default "1 second" */
  readonly timeout?: Duration.Input | undefined
}

// The accounts a record counts in are named by suffixes kept in the record (`pool`: `anonymous` or `principals`;
// `share`: `principal:<principal>`, `address:<address>` or empty): `<prefix>count:<suffix>`, a sorted set of ids
// scored by when their record is forgotten (a count of live records, trimmed as it is read: what the memory
// store's sweep does), and `<prefix>bytes:<suffix>`, a hash of each id's bytes (its form, and its sealed value
// while stored) and their sum (`#total`, never an id), trimmed with it. Every script gets the prefix (ARGV[1]) and
// reaches the accounts of the record it changes from there (a single Redis, not Redis Cluster, as documented).
const accountsLua = `${byteAccountsLua}
local P = ARGV[1]
local function trimAccount(s, now) trim(P .. 'count:' .. s, P .. 'bytes:' .. s, now) end
local function totalOf(s) return total(P .. 'bytes:' .. s) end
local function weigh(s, id, delta)
  local b = P .. 'bytes:' .. s
  if redis.call('HEXISTS', b, id) == 1 then
    redis.call('HINCRBY', b, id, delta)
    redis.call('HINCRBY', b, '#total', delta)
  end
end
-- Counts delta more bytes of the record at key (whose id is id) in its pool and share.
local function weighRecord(key, id, delta)
  local s = redis.call('HMGET', key, 'pool', 'share')
  if s[1] then weigh(s[1], id, delta) end
  if s[2] and s[2] ~= '' then weigh(s[2], id, delta) end
end
`

// The record's current state (an expired pending or completed one becomes
// `expired`, its value deleted and its bytes given back) as
// `{state, csrf, expiresAt, form}`, or nil; `expireValues`, the values of every page expired by now.
const currentLua = `
${accountsLua}
local function current(key, id, now)
  local v = redis.call('HMGET', key, 'state', 'csrf', 'expiresAt', 'form')
  if not v[1] then return nil end
  if (v[1] == 'pending' or v[1] == 'completed') and tonumber(v[3]) <= now then
    local held = redis.call('HSTRLEN', key, 'content')
    redis.call('HSET', key, 'state', 'expired')
    redis.call('HDEL', key, 'content')
    if held > 0 then weighRecord(key, id, -held) end
    redis.call('ZREM', P .. 'values', id)
    v[1] = 'expired'
  end
  return v
end
-- Expires every stored value whose page expired by now (\`<prefix>values\`: the ids of completed records scored by
-- their expiresAt), giving its bytes back, as the memory store does before it refuses.
local function expireValues(now)
  local due = redis.call('ZRANGEBYSCORE', P .. 'values', '-inf', now)
  for _, id in ipairs(due) do current(P .. id, id, now) end
  if #due > 0 then redis.call('ZREMRANGEBYSCORE', P .. 'values', '-inf', now) end
end
`

// KEYS: record, pool set[, share set] (declared; their byte hashes are named from the prefix).
// ARGV: prefix, now, forgetAt, maxEntries, maxPerPrincipal, csrf, expiresAt, form, id, pool, share ('' = none),
// form bytes, maxBytesPerPrincipal, maxAnonymousBytes.
// Declared with a shebang and no `allow-oom` flag, as every script that adds
// data: Redis refuses it whole past `maxmemory` (a script without flags is
// checked only at its first write, here a trim, and then runs to its end).
const createScript = `#!lua
${currentLua}
local now = tonumber(ARGV[2])
local forgetAt = tonumber(ARGV[3])
local id, pool, share = ARGV[9], ARGV[10], ARGV[11]
local bytes = tonumber(ARGV[12])
expireValues(now)
trimAccount(pool, now)
if share ~= '' then
  trimAccount(share, now)
  if redis.call('ZCARD', P .. 'count:' .. share) >= tonumber(ARGV[5]) then return 'fullPrincipal' end
end
if redis.call('ZCARD', P .. 'count:' .. pool) >= tonumber(ARGV[4]) then return 'fullScope' end
if share ~= '' and totalOf(share) + bytes > tonumber(ARGV[13]) then return 'heavyPrincipal' end
if pool == 'anonymous' and totalOf(pool) + bytes > tonumber(ARGV[14]) then return 'heavyScope' end
if redis.call('EXISTS', KEYS[1]) == 1 then return 'collision' end
redis.call('HSET', KEYS[1], 'state', 'pending', 'csrf', ARGV[6], 'expiresAt', ARGV[7], 'form', ARGV[8],
  'pool', pool, 'share', share)
redis.call('PEXPIREAT', KEYS[1], forgetAt)
local accounts = { pool }
if share ~= '' then accounts[2] = share end
for _, s in ipairs(accounts) do
  local z, b = P .. 'count:' .. s, P .. 'bytes:' .. s
  redis.call('ZADD', z, forgetAt, id)
  redis.call('HSET', b, id, bytes)
  redis.call('HINCRBY', b, '#total', bytes)
  for _, k in ipairs({ z, b }) do
    if redis.call('PEXPIRETIME', k) < forgetAt then redis.call('PEXPIREAT', k, forgetAt) end
  end
end
return 'OK'
`

// ARGV of get, complete and take: prefix, now, id[, …].
// The scripts that only shrink a record run past `maxmemory` too (`allow-oom`).
const getScript = `#!lua flags=allow-oom
${currentLua}
return current(KEYS[1], ARGV[3], tonumber(ARGV[2]))
`

// Adds the value (ARGV[4]) unless it would take the record's share past maxBytesPerPrincipal (ARGV[5]) or, without
// a principal, every interaction without one past maxAnonymousBytes (ARGV[6]): refused past `maxmemory` (the page
// answers 503, try again).
const completeScript = `#!lua
${currentLua}
local now = tonumber(ARGV[2])
local v = current(KEYS[1], ARGV[3], now)
if not v then return 'unknown' end
if v[1] == 'expired' then return 'expired' end
if v[1] ~= 'pending' then return 'alreadyCompleted' end
local bytes = #ARGV[4]
expireValues(now)
local s = redis.call('HMGET', KEYS[1], 'pool', 'share')
if s[2] and s[2] ~= '' then
  trimAccount(s[2], now)
  if totalOf(s[2]) + bytes > tonumber(ARGV[5]) then return 'full' end
end
if s[1] == 'anonymous' then
  trimAccount(s[1], now)
  if totalOf(s[1]) + bytes > tonumber(ARGV[6]) then return 'full' end
end
redis.call('HSET', KEYS[1], 'state', 'completed', 'content', ARGV[4])
weighRecord(KEYS[1], ARGV[3], bytes)
redis.call('ZADD', P .. 'values', v[3], ARGV[3])
if redis.call('PEXPIRETIME', P .. 'values') < tonumber(v[3]) then redis.call('PEXPIREAT', P .. 'values', v[3]) end
return 'completed'
`

const takeScript = `#!lua flags=allow-oom
${currentLua}
local v = current(KEYS[1], ARGV[3], tonumber(ARGV[2]))
if not v or v[1] ~= 'completed' then return nil end
local content = redis.call('HGET', KEYS[1], 'content')
redis.call('HSET', KEYS[1], 'state', 'handedOut')
redis.call('HDEL', KEYS[1], 'content')
if content then weighRecord(KEYS[1], ARGV[3], -#content) end
redis.call('ZREM', P .. 'values', ARGV[3])
return content
`

const interactionStates: ReadonlyArray<string> = ["pending", "completed", "handedOut", "expired"]

const positive = (name: string, value: number): number => {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`Redis.makeInteractionStore: ${name} must be a positive integer`)
  }
  return value
}

/** The store on the `Redis` service: see `Redis.makeInteractionStore`. */
export const makeInteractionStore = (
  options?: InteractionStoreOptions
): Effect.Effect<InteractionStore.InteractionStore["Service"], never, Redis.Redis | SecureRandom.SecureRandom> =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const random = yield* SecureRandom.SecureRandom
    const prefix = options?.prefix ?? "mrtr:interaction:"
    const maxEntries = positive("maxEntries", options?.maxEntries ?? 10_000)
    const maxPerPrincipal = positive("maxEntriesPerPrincipal", options?.maxEntriesPerPrincipal ?? 100)
    const maxShareBytes = positive("maxBytesPerPrincipal", options?.maxBytesPerPrincipal ?? 1_048_576)
    const maxAnonymousBytes = positive("maxAnonymousBytes", options?.maxAnonymousBytes ?? 33_554_432)
    const timeout = Duration.fromInputUnsafe(options?.timeout ?? "1 second")
    const failed = (reason: string, cause: unknown) =>
      Effect.andThen(
        RedisMetrics.reportFailure(
          "interaction",
          `Redis is unavailable (${reason}): the interaction store cannot answer`,
          cause
        ),
        Effect.fail(new InteractionStore.InteractionStoreUnavailable({ reason }))
      )
    const send = RedisMetrics.boundedSend(redis, timeout, failed)
    const run = <A>(script: string, keys: ReadonlyArray<string>, args: ReadonlyArray<string>) =>
      send<A>("EVAL", script, String(keys.length), ...keys, ...args)
    const now = Effect.clockWith((clock) => Effect.sync(() => clock.currentTimeMillisUnsafe()))
    const key = (id: string) => prefix + id
    // Only well-formed ids reach Redis (never another key under the prefix).
    const wellFormed = (id: string) => /^[A-Za-z0-9_-]{43}$/.test(id)
    const toInteraction = (id: string, reply: unknown): InteractionStore.Interaction | undefined => {
      if (!Array.isArray(reply) || typeof reply[0] !== "string" || !interactionStates.includes(reply[0])) {
        return undefined
      }
      const form = JSON.parse(String(reply[3])) as InteractionStore.InteractionForm
      return {
        id,
        csrfToken: String(reply[1]),
        message: form.message,
        requestedSchema: form.requestedSchema,
        ...(form.principal === undefined ? {} : { principal: form.principal }),
        sealingKey: form.sealingKey,
        expiresAt: Number(reply[2]),
        state: reply[0] as InteractionStore.InteractionState
      }
    }
    const create = (
      form: InteractionStore.InteractionForm,
      ttlMillis: number
    ): Effect.Effect<
      InteractionStore.Interaction,
      InteractionStore.InteractionStoreFull | InteractionStore.InteractionStoreUnavailable
    > =>
      Effect.gen(function*() {
        const bytes = yield* random.randomBytes(64)
        const at = yield* now
        const ttl = Math.max(1, Math.floor(ttlMillis))
        const interaction: InteractionStore.Interaction = {
          id: Buffer.from(bytes.subarray(0, 32)).toString("base64url"),
          csrfToken: Buffer.from(bytes.subarray(32)).toString("base64url"),
          message: form.message,
          requestedSchema: form.requestedSchema,
          ...(form.principal === undefined ? {} : { principal: form.principal }),
          sealingKey: form.sealingKey,
          expiresAt: at + ttl,
          state: "pending"
        }
        const forgetAt = at + ttl + Math.max(ttl, 60_000)
        const pool = form.principal === undefined ? "anonymous" : "principals"
        const share = form.principal === undefined
          ? (form.address === undefined ? "" : "address:" + form.address)
          : "principal:" + form.principal
        const json = JSON.stringify({
          message: form.message,
          requestedSchema: form.requestedSchema,
          ...(form.principal === undefined ? {} : { principal: form.principal }),
          sealingKey: form.sealingKey
        })
        const sets = [prefix + "count:" + pool, ...(share === "" ? [] : [prefix + "count:" + share])]
        const reply = yield* run<string>(createScript, [key(interaction.id), ...sets], [
          prefix,
          String(at),
          String(forgetAt),
          String(maxEntries),
          String(maxPerPrincipal),
          interaction.csrfToken,
          String(interaction.expiresAt),
          json,
          interaction.id,
          pool,
          share,
          String(Buffer.byteLength(json)),
          String(maxShareBytes),
          String(maxAnonymousBytes)
        ])
        switch (reply) {
          case "OK":
            return interaction
          case "fullPrincipal":
            return yield* new InteractionStore.InteractionStoreFull({
              scope: form.principal === undefined ? "address" : "principal",
              capacity: maxPerPrincipal
            })
          case "fullScope":
            return yield* new InteractionStore.InteractionStoreFull({
              scope: form.principal === undefined ? "anonymous" : "principal",
              capacity: maxEntries
            })
          case "heavyPrincipal":
            return yield* new InteractionStore.InteractionStoreFull({
              scope: form.principal === undefined ? "address" : "principal",
              capacity: maxShareBytes,
              unit: "bytes"
            })
          case "heavyScope":
            return yield* new InteractionStore.InteractionStoreFull({
              scope: "anonymous",
              capacity: maxAnonymousBytes,
              unit: "bytes"
            })
          default:
            // 256 random bits collided, or Redis answered something else.
            return yield* failed(`unexpected reply to create: ${String(reply)}`, undefined)
        }
      })
    return InteractionStore.InteractionStore.of({
      create,
      get: (id) =>
        !wellFormed(id) ?
          Effect.succeed(undefined) :
          Effect.flatMap(now, (at) => run<unknown>(getScript, [key(id)], [prefix, String(at), id])).pipe(
            Effect.map((reply) => toInteraction(id, reply))
          ),
      // The value arrives sealed to the interaction's `sealingKey` (the page seals it): never in clear here.
      complete: (id, sealed) =>
        !wellFormed(id) ?
          Effect.succeed("unknown" as const) :
          Effect.flatMap(now, (at) =>
            run<string>(completeScript, [key(id)], [
              prefix,
              String(at),
              id,
              sealed,
              String(maxShareBytes),
              String(maxAnonymousBytes)
            ])).pipe(
              Effect.map((reply) => reply as InteractionStore.CompleteOutcome)
            ),
      take: (id) =>
        !wellFormed(id) ?
          Effect.succeed(undefined) :
          Effect.flatMap(now, (at) => run<string | null>(takeScript, [key(id)], [prefix, String(at), id])).pipe(
            Effect.map((reply) => typeof reply === "string" ? reply : undefined)
          )
    })
  })
