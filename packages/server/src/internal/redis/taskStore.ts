/**
 * The fleet-wide `TaskStore` on Redis (re-exported by `@mrtr/server/Redis`
 * as `makeTaskStore`, `layerTaskStore`, `layerTaskStoreUrl`).
 *
 * Layout: each task is a hash `<prefix><taskId>` with `v` (a version,
 * starting at 1) and `r` (the `TaskRecord` as JSON, its journal included);
 * its key expires at `createdAt + ttlMs` (`PEXPIREAT`; kept without expiry
 * for `ttlMs: null`). `<prefix>index` is a sorted set of the task ids scored
 * by their expiry (`+inf` for none): the count of live tasks for `maxTasks`,
 * trimmed as it is read.
 *
 * Gotchas:
 * - `insert` is one Lua script (trim, count, write, expire, index): durable
 *   in Redis before it returns, as the spec's creation consistency needs.
 * - `modify` is optimistic: read `v` and `r`, apply `f`, then a Lua
 *   compare-and-set writes only if `v` is unchanged (else it reads again
 *   after a jittered backoff of up to 50 ms, up to 64 times, then fails
 *   `TaskStoreUnavailable` with reason
 *   `"contention"`); `f` may therefore run more than once. When `f` returns
 *   the record it was given (the same object), nothing is written.
 * - A command that fails, errs or gets no answer within `timeout` is a
 *   `TaskStoreUnavailable` (JSON-RPC -32603 for the task method), counted in
 *   `mrtr_redis_errors_total{operation="task"}` and logged at Warning; never
 *   a hang or a defect.
 * - `maxTasks` is global to every instance sharing the prefix, for tasks
 *   without a principal and, apart, for those of principals;
 *   `maxTasksPerPrincipal` bounds each principal, and each client address
 *   without one (`<prefix>share:<share>`, a sorted set like the index);
 *   `maxTaskBytes` each record. What all records weigh together is bounded
 *   by Redis' `maxmemory` (`noeviction`: the scripts that add are refused
 *   whole past it). The keys live in different hash slots: a single Redis (or a
 *   primary with replicas), not Redis Cluster. Instances' clocks must agree
 *   (expiry is computed from `createdAt`, as for the replay guard's `PXAT`).
 *
 * Source: ext-tasks `specification/draft/tasks.md` §Task Creation
 * Consistency; `docs/architecture.md`, "Services a deployment swaps".
 */
import { Clock, Duration, Effect } from "effect"
import * as Redis from "effect/persistence/Redis"
// A cycle with ../../Redis.ts (which re-exports this module), used only inside functions.
import {
  expired,
  type TaskRecord,
  TaskStore,
  TaskStoreFull,
  TaskStoreUnavailable,
  TaskTooLarge
} from "../../TaskStore.ts"
import { shareOf } from "../taskShare.ts"
import { boundedSend, reportFailure } from "./metrics.ts"

/**
 * Options of the Redis `TaskStore`.
 */
export interface TaskStoreOptions {
  /**
   * Prefix of the keys; every instance of a fleet must share it.
   *
   * @default "mrtr:task:"
   */
  readonly prefix?: string | undefined
  /**
   * Most live tasks in the store, fleet-wide; past it creating a task fails with `TaskStoreFull` (-32603).
   *
   * @default 10_000
   */
  readonly maxTasks?: number | undefined
  /** Most live tasks of one principal, or of one client address without a principal, fleet-wide. @default 1000 */
  readonly maxTasksPerPrincipal?: number | undefined
  /** Most bytes of one task's record (its JSON). @default 1048576 (1 MiB) */
  readonly maxTaskBytes?: number | undefined
  /**
   * Most time one Redis command may take.
   *
   * @default "1 second"
   */
  readonly timeout?: Duration.Input | undefined
}

// KEYS: record, index[, share index]. ARGV: now, maxTasks, record JSON, expireAt ("" = none), taskId, maxTasksPerPrincipal.
// The shebang without `allow-oom` makes Redis refuse the whole script past
// `maxmemory` (without flags it checks only the first write, here a trim,
// and lets the rest through).
const insertScript = `#!lua
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if #KEYS == 3 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 'fullShare' end
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 'full' end
if redis.call('EXISTS', KEYS[1]) == 1 then return 'collision' end
redis.call('HSET', KEYS[1], 'v', '1', 'r', ARGV[3])
local score = ARGV[4] == '' and '+inf' or ARGV[4]
if ARGV[4] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[4]) end
for i = 2, #KEYS do redis.call('ZADD', KEYS[i], score, ARGV[5]) end
return 'OK'
`

// KEYS: record. ARGV: expected version, record JSON. 1 = written, 0 = changed or gone meanwhile.
// Two flavours: a record that grows is refused past `maxmemory`; one that
// does not (a task settling, cancelled, released) is written all the same.
const compareAndSetBody = `
local v = redis.call('HGET', KEYS[1], 'v')
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', tostring(tonumber(v) + 1), 'r', ARGV[2])
return 1
`
const compareAndSetScript = `#!lua${compareAndSetBody}`
const compareAndSetShrinkingScript = `#!lua flags=allow-oom${compareAndSetBody}`

// KEYS: record, index. ARGV: taskId. Frees memory: runs past `maxmemory`.
const removeScript = `#!lua flags=allow-oom
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`

const MAX_ATTEMPTS = 64

/**
 * A fleet-wide `TaskStore` on the `Redis` service (see the module header).
 * Throws a `RangeError` for a `maxTasks` that is not a positive integer.
 */
export const makeTaskStore = (
  options?: TaskStoreOptions
): Effect.Effect<TaskStore["Service"], never, Redis.Redis> =>
  Effect.map(Effect.service(Redis.Redis), (redis) => {
    const prefix = options?.prefix ?? "mrtr:task:"
    const maxTasks = options?.maxTasks ?? 10_000
    if (!Number.isSafeInteger(maxTasks) || maxTasks < 1) {
      throw new RangeError("Redis.makeTaskStore: maxTasks must be a positive integer")
    }
    const maxPerShare = options?.maxTasksPerPrincipal ?? 1_000
    const maxTaskBytes = options?.maxTaskBytes ?? 1_048_576
    for (const [name, value] of [["maxTasksPerPrincipal", maxPerShare], ["maxTaskBytes", maxTaskBytes]] as const) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(`Redis.makeTaskStore: ${name} must be a positive integer`)
      }
    }
    const timeout = Duration.fromInputUnsafe(options?.timeout ?? "1 second")
    const index = prefix + "index"
    const key = (taskId: string) => prefix + taskId
    // Ids from the wire reach Redis only when they could be a task's (the runner's are UUIDs): never another key
    // under the prefix (`index`), never a long or odd one. Any other id is an unknown task, without a round trip.
    const wellFormed = (taskId: string) => taskId !== "index" && /^[A-Za-z0-9_-]{1,128}$/.test(taskId)

    const failed = (reason: string, cause: unknown) =>
      Effect.andThen(
        reportFailure("task", `Redis is unavailable (${reason}): the task store cannot answer`, cause),
        Effect.fail(new TaskStoreUnavailable({ store: "redis", reason }))
      )
    const send = boundedSend(redis, timeout, failed)
    const evalScript = <A>(script: string, keys: ReadonlyArray<string>, args: ReadonlyArray<string>) =>
      send<A>("EVAL", script, String(keys.length), ...keys, ...args)

    /** The live record and its version, or `undefined` (unknown, or expired at `now`). */
    const read = (taskId: string, now: number) =>
      !wellFormed(taskId) ?
        Effect.succeed(undefined) :
        Effect.flatMap(send<ReadonlyArray<string | null>>("HMGET", key(taskId), "v", "r"), (reply) => {
          const [version, json] = Array.isArray(reply) ? reply : []
          if (typeof version !== "string" || typeof json !== "string") return Effect.succeed(undefined)
          let record: TaskRecord
          try {
            record = JSON.parse(json) as TaskRecord
          } catch (cause) {
            return failed("a malformed record", cause)
          }
          return Effect.succeed(expired(record, now) ? undefined : { version, record, length: json.length })
        })

    const modify = <A>(
      taskId: string,
      f: (record: TaskRecord) => readonly [A, TaskRecord]
    ): Effect.Effect<A | undefined, TaskStoreUnavailable | TaskTooLarge> => {
      const attempt = (n: number): Effect.Effect<A | undefined, TaskStoreUnavailable | TaskTooLarge> =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.flatMap(
            read(taskId, now),
            (current): Effect.Effect<A | undefined, TaskStoreUnavailable | TaskTooLarge> => {
              if (current === undefined) return Effect.succeed(undefined)
              const [value, next] = f(current.record)
              if (next === current.record) {
                return Effect.succeed(value)
              }
              const json = JSON.stringify(next)
              if (json.length > current.length && Buffer.byteLength(json) > maxTaskBytes) {
                return Effect.fail(new TaskTooLarge({ limit: maxTaskBytes, scope: "task" }))
              }
              // A record that does not grow is written past `maxmemory` too (a cancel, a task settling).
              const script = json.length > current.length ? compareAndSetScript : compareAndSetShrinkingScript
              return Effect.flatMap(
                evalScript<number>(script, [key(taskId)], [current.version, json]),
                (written) =>
                  written === 1
                    ? Effect.succeed(value)
                    : n + 1 < MAX_ATTEMPTS
                    // Lost the race: read again after a jittered backoff (up to 50 ms), so writers spread out.
                    ? Effect.andThen(
                      Effect.sleep(Duration.millis(Math.random() * Math.min(50, 2 ** n))),
                      attempt(n + 1)
                    )
                    : failed("contention", undefined)
              )
            }
          ))
      return attempt(0)
    }

    return TaskStore.of({
      insert: (record) => {
        const json = JSON.stringify(record)
        if (Buffer.byteLength(json) > maxTaskBytes) {
          return Effect.fail(new TaskTooLarge({ limit: maxTaskBytes, scope: "task" }))
        }
        const share = shareOf(record)
        // Tasks without a principal and those of principals are two pools, each of `maxTasks`.
        const pool = record.call.principal === undefined ? index + ":anonymous" : index
        return Effect.flatMap(Clock.currentTimeMillis, (now) =>
          evalScript<string>(insertScript, [
            key(record.taskId),
            pool,
            ...(share === undefined ? [] : [prefix + "share:" + share])
          ], [
            String(now),
            String(maxTasks),
            json,
            record.ttlMs === null ? "" : String(Math.ceil(record.createdAt + record.ttlMs)),
            record.taskId,
            String(maxPerShare)
          ])).pipe(
            Effect.flatMap((reply): Effect.Effect<void, TaskStoreFull | TaskTooLarge | TaskStoreUnavailable> =>
              reply === "OK"
                ? Effect.void
                : reply === "fullShare"
                ? Effect.fail(
                  new TaskStoreFull({
                    maxTasks: maxPerShare,
                    scope: record.call.principal === undefined ? "address" : "principal"
                  })
                )
                : reply === "full"
                ? Effect.fail(new TaskStoreFull({ maxTasks }))
                : failed(`unexpected reply to insert: ${String(reply)}`, undefined)
            )
          )
      },
      get: (taskId) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.map(read(taskId, now), (current) => current?.record)),
      modify,
      remove: (taskId) =>
        wellFormed(taskId) ? Effect.asVoid(evalScript(removeScript, [key(taskId), index], [taskId])) : Effect.void
    })
  })
