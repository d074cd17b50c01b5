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
import * as RedisMetrics from "./metrics.ts"

/** Options of the store: see `Redis.InteractionStoreOptions`. */
export interface InteractionStoreOptions {
  readonly prefix?: string | undefined
  readonly maxEntries?: number | undefined
  readonly maxEntriesPerPrincipal?: number | undefined
  readonly timeout?: Duration.Input | undefined
}

// KEYS: record, scope set (anonymous or all principals)[, share set: the
// principal's, or, without one, the client address's].
// ARGV: now, forgetAt, maxEntries, maxPerPrincipal, csrf, expiresAt, form, id.
// The sets hold the ids scored by when their record is forgotten: a count of
// live records, trimmed as it is read (what the memory store's sweep does).
// Declared with a shebang and no `allow-oom` flag, as every script that adds
// data: Redis refuses it whole past `maxmemory` (a script without flags is
// checked only at its first write, here a trim, and then runs to its end).
const createScript = `#!lua
local now = tonumber(ARGV[1])
local forgetAt = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if #KEYS == 3 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 'fullPrincipal' end
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 'fullScope' end
if redis.call('EXISTS', KEYS[1]) == 1 then return 'collision' end
redis.call('HSET', KEYS[1], 'state', 'pending', 'csrf', ARGV[5], 'expiresAt', ARGV[6], 'form', ARGV[7])
redis.call('PEXPIREAT', KEYS[1], forgetAt)
for i = 2, #KEYS do
  redis.call('ZADD', KEYS[i], forgetAt, ARGV[8])
  local t = redis.call('PEXPIRETIME', KEYS[i])
  if t < forgetAt then redis.call('PEXPIREAT', KEYS[i], forgetAt) end
end
return 'OK'
`

// The record's current state (an expired pending or completed one becomes
// `expired`, its value deleted) as `{state, csrf, expiresAt, form}`, or nil.
const currentLua = `
local function current(key, now)
  local v = redis.call('HMGET', key, 'state', 'csrf', 'expiresAt', 'form')
  if not v[1] then return nil end
  if (v[1] == 'pending' or v[1] == 'completed') and tonumber(v[3]) <= now then
    redis.call('HSET', key, 'state', 'expired')
    redis.call('HDEL', key, 'content')
    v[1] = 'expired'
  end
  return v
end
`

// The scripts that only shrink a record run past `maxmemory` too (`allow-oom`).
const getScript = `#!lua flags=allow-oom
${currentLua}
return current(KEYS[1], tonumber(ARGV[1]))
`

// Adds the value: refused past `maxmemory` (the page answers 503, try again).
const completeScript = `#!lua
${currentLua}
local v = current(KEYS[1], tonumber(ARGV[1]))
if not v then return 'unknown' end
if v[1] == 'expired' then return 'expired' end
if v[1] ~= 'pending' then return 'alreadyCompleted' end
redis.call('HSET', KEYS[1], 'state', 'completed', 'content', ARGV[2])
return 'completed'
`

const takeScript = `#!lua flags=allow-oom
${currentLua}
local v = current(KEYS[1], tonumber(ARGV[1]))
if not v or v[1] ~= 'completed' then return nil end
local content = redis.call('HGET', KEYS[1], 'content')
redis.call('HSET', KEYS[1], 'state', 'handedOut')
redis.call('HDEL', KEYS[1], 'content')
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
        const sets = form.principal === undefined
          ? [
            prefix + "count:anonymous",
            ...(form.address === undefined ? [] : [prefix + "count:address:" + form.address])
          ]
          : [prefix + "count:principals", prefix + "count:principal:" + form.principal]
        const reply = yield* run<string>(createScript, [key(interaction.id), ...sets], [
          String(at),
          String(forgetAt),
          String(maxEntries),
          String(maxPerPrincipal),
          interaction.csrfToken,
          String(interaction.expiresAt),
          JSON.stringify({
            message: form.message,
            requestedSchema: form.requestedSchema,
            ...(form.principal === undefined ? {} : { principal: form.principal }),
            sealingKey: form.sealingKey
          }),
          interaction.id
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
          Effect.flatMap(now, (at) => run<unknown>(getScript, [key(id)], [String(at)])).pipe(
            Effect.map((reply) => toInteraction(id, reply))
          ),
      // The value arrives sealed to the interaction's `sealingKey` (the page seals it): never in clear here.
      complete: (id, sealed) =>
        !wellFormed(id) ?
          Effect.succeed("unknown" as const) :
          Effect.flatMap(now, (at) => run<string>(completeScript, [key(id)], [String(at), sealed])).pipe(
            Effect.map((reply) => reply as InteractionStore.CompleteOutcome)
          ),
      take: (id) =>
        !wellFormed(id) ?
          Effect.succeed(undefined) :
          Effect.flatMap(now, (at) => run<string | null>(takeScript, [key(id)], [String(at)])).pipe(
            Effect.map((reply) => typeof reply === "string" ? reply : undefined)
          )
    })
  })
