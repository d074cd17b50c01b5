/**
 * The `TaskStore` service: where the Tasks extension (SEP-2663) keeps each
 * task's record and the replay journal of its handler, so that any server
 * instance sharing the store (and the `requestState` key ring) can answer
 * `tasks/get` and resume the task by replay after `tasks/update`.
 *
 * A record is plain JSON (a shared store serializes it): the wire fields of
 * the task (status, timestamps in epoch milliseconds, `ttlMs`,
 * `pollIntervalMs`), the call it runs (tool name, arguments, the request's
 * declared client capabilities and principal), the journal of its asks and
 * steps (sealed with the server's key ring), the outstanding `inputRequests` with the answers received for them,
 * the final `result` or `error`, and `owner`, the instance whose fiber runs
 * the handler right now (absent while the task waits for input: no fiber
 * exists then, the state is all here) with `leaseExpiresAt`, until when its
 * claim holds: the owner renews it while it runs (a heartbeat), so a
 * `working` task whose owner crashed (SIGKILL, no release) counts as orphaned
 * once the lease has passed, and the next `tasks/get` or `tasks/update` on
 * any instance resumes it by replay.
 *
 * {@link layerMemory} (the default) keeps records in process memory, bounded
 * by count (`maxTasks`, and per principal or client address
 * `maxTasksPerPrincipal`), by bytes (`maxTaskBytes` per record,
 * `maxBytesPerPrincipal` per principal or client address) and by time (each
 * record goes at `createdAt + ttlMs`, found lazily on access and by a
 * periodic sweep). A deployment swaps in a
 * shared store (`@mrtr/server/Redis`'s `layerTaskStore`, part of
 * `Redis.layerFleet`) through `McpServer.layer`'s `shared` option;
 * `modify` must then be atomic (a transaction or a compare-and-set
 * loop), and a store that cannot be reached fails with
 * {@link TaskStoreUnavailable} (JSON-RPC -32603, retry later).
 *
 * Gotcha: `insert` must be durable before it returns: the server answers
 * `CreateTaskResult` only after it, and the spec requires `tasks/get` to find
 * the task from then on (SEP-2663 §Task Creation Consistency).
 *
 * @since 0.1.0
 */
import type { ClientCapabilities, InputRequest } from "@mrtr/protocol/Schema"
import type { TaskStatus } from "@mrtr/protocol/Tasks"
import { Clock, Context, Duration, Effect, Layer, Schedule, Schema } from "effect"
import { shareOf } from "./internal/taskShare.ts"

/**
 * What a task runs: the `tools/call` it came from.
 *
 * - `tool`: the tool's name; `arguments`: the call's arguments object;
 * - `clientCapabilities`: what the creating request declared (the asks of the
 *   task are checked against it);
 * - `principal`: the authenticated user that created it, when there is one
 *   (only they may read, answer or cancel it).
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskCall {
  readonly tool: string
  readonly arguments: Readonly<Record<string, unknown>>
  readonly clientCapabilities: ClientCapabilities
  readonly principal?: string | undefined
  /**
   * The client address of a call without a principal, as grouped for shares (`ClientAddress.group`: IPv6 by its
   * /48): the share of the store it counts in.
   */
  readonly address?: string | undefined
}

/**
 * One task's record (see the module header). Times are epoch milliseconds
 * (`createdAt`, `lastUpdatedAt`); `ttlMs` is milliseconds from creation or
 * `null` (kept until deleted).
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskRecord {
  readonly taskId: string
  readonly status: TaskStatus
  readonly statusMessage?: string | undefined
  readonly createdAt: number
  readonly lastUpdatedAt: number
  readonly ttlMs: number | null
  readonly pollIntervalMs: number
  readonly owner?: string | undefined
  /** Epoch milliseconds until which `owner`'s claim holds (renewed by its heartbeat); absent: no lease (held until released). */
  readonly leaseExpiresAt?: number | undefined
  readonly call: TaskCall
  /**
   * The replay journal of the task's handler, sealed with the server's key
   * ring (`RequestStateCodec.sealStored`, bound to the task): a store holds
   * no answer or step result in clear (a secure elicitation's value
   * included). Opaque to the store. Absent while nothing is recorded (a
   * task started at its call, before its first round ends).
   */
  readonly journal?: string | undefined
  /** The outstanding asks, by the key the client answers (a key asked again carries a suffix, see `askedKeys`). */
  readonly inputRequests: Readonly<Record<string, InputRequest>>
  /** The answers received for them, by the handler's own key. */
  readonly answers: Readonly<Record<string, unknown>>
  /**
   * Every `inputRequests` key the task has published: a key must be unique
   * over the task's life (SEP-2663), so one asked again (an answer the form
   * refused, a secure page not completed yet) is published as `<key>#<n>`.
   * Absent before the first ask.
   */
  readonly askedKeys?: ReadonlyArray<string> | undefined
  /** The suffixed keys of `inputRequests`, each to the handler's key it answers. */
  readonly keyAliases?: Readonly<Record<string, string>> | undefined
  readonly result?: Readonly<Record<string, unknown>> | undefined
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown } | undefined
}

/**
 * The store holds as many live records as it may: `maxTasks` for calls
 * without a principal or for all principals together (`scope` absent),
 * or `maxTasksPerPrincipal` for the call's principal (`scope:
 * "principal"`) or, without a principal, for its client address (`scope:
 * "address"`). `maxTasks` is the bound that was hit. The server answers the
 * `tools/call` with JSON-RPC `-32603` (InternalError: retry later).
 *
 * @category errors
 * @since 0.1.0
 */
export class TaskStoreFull extends Schema.TaggedError<TaskStoreFull>()("TaskStoreFull", {
  maxTasks: Schema.Number,
  scope: Schema.optionalKey(Schema.Literals(["principal", "address"]))
}) {
  override get message(): string {
    return `The server holds its maximum of ${this.maxTasks} tasks${
      this.scope === "principal" ? " for this user" : this.scope === "address" ? " for this client address" : ""
    }; try again later`
  }
}

/**
 * A task's record would take more bytes (of JSON) than the store allows:
 * `maxTaskBytes` for one record (`scope: "task"`), or
 * `maxBytesPerPrincipal` for all live records of the call's principal or
 * client address (`scope: "principal"` / `"address"`), or
 * `maxAnonymousBytes` for all live records of calls without a principal
 * together (`scope: "anonymous"`). `limit` is the bound.
 * Creating the task answers JSON-RPC `-32603`; a running task that outgrows
 * it (its journal, answers of `tasks/update`) ends `failed` with this
 * message.
 *
 * @category errors
 * @since 0.4.0
 */
export class TaskTooLarge extends Schema.TaggedError<TaskTooLarge>()("TaskTooLarge", {
  limit: Schema.Number,
  scope: Schema.Literals(["task", "principal", "address", "anonymous"])
}) {
  override get message(): string {
    return this.scope === "task"
      ? `The task's record would exceed the server's ${this.limit} bytes per task`
      : `The tasks ${
        this.scope === "principal"
          ? "of this user"
          : this.scope === "address"
          ? "of this client address"
          : "of unauthenticated callers"
      } would exceed the server's ${this.limit} bytes; try again later`
  }
}

/**
 * A shared store (e.g. Redis) did not answer: unreachable, timed out, an
 * error reply, or a record that kept changing under a `modify`. `store` names
 * it (`"redis"`), `reason` says what failed (for the log; never sent to
 * clients). Nothing was written. The server answers the task method (or the
 * `tools/call` creating a task) with JSON-RPC `-32603` (InternalError) and
 * this error's fixed message, so the client may retry later.
 *
 * @category errors
 * @since 0.2.0
 */
export class TaskStoreUnavailable extends Schema.TaggedError<TaskStoreUnavailable>()("TaskStoreUnavailable", {
  store: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return "The server's task store is unavailable; retry later"
  }
}

/**
 * The store. Every operation sees only records that have not expired, and
 * fails with {@link TaskStoreUnavailable} when a shared store cannot answer
 * (the memory store never does).
 *
 * - `insert`: adds a new record, durably; fails with {@link TaskStoreFull}
 *   or {@link TaskTooLarge}.
 * - `get`: the record, or `undefined` for an unknown or expired id.
 * - `modify`: atomically replaces the record with `f`'s second element and
 *   returns its first; `undefined` when the id is unknown or expired. `f` may
 *   run more than once in a store that retries; it must be pure. Fails with
 *   {@link TaskTooLarge} (nothing written) when the new record outgrows a
 *   byte bound.
 * - `remove`: deletes the record (no-op when absent).
 *
 * @category services
 * @since 0.1.0
 */
export class TaskStore extends Context.Service<TaskStore, {
  readonly insert: (record: TaskRecord) => Effect.Effect<void, TaskStoreFull | TaskTooLarge | TaskStoreUnavailable>
  readonly get: (taskId: string) => Effect.Effect<TaskRecord | undefined, TaskStoreUnavailable>
  readonly modify: <A>(
    taskId: string,
    f: (record: TaskRecord) => readonly [A, TaskRecord]
  ) => Effect.Effect<A | undefined, TaskStoreUnavailable | TaskTooLarge>
  readonly remove: (taskId: string) => Effect.Effect<void, TaskStoreUnavailable>
}>()("@mrtr/server/TaskStore") {}

/**
 * The options of {@link layerMemory}. Shares: a call with a principal
 * counts in its principal's share, one without in its client address's
 * (`TaskCall.address`; none known: only the pool bounds it), so one user or
 * one unauthenticated client cannot take every other's room.
 *
 * @category models
 * @since 0.1.0
 */
export interface MemoryOptions {
  /** Most live tasks without a principal, and, apart, of all principals together. @default 10000 */
  readonly maxTasks?: number | undefined
  /** Most live tasks of one principal, or of one client address without a principal. @default 1000 */
  readonly maxTasksPerPrincipal?: number | undefined
  /** Most bytes of one task's record (its JSON: arguments, journal, answers). @default 1048576 (1 MiB) */
  readonly maxTaskBytes?: number | undefined
  /** Most bytes of the live records of one principal, or of one client address without a principal. @default 16777216 (16 MiB) */
  readonly maxBytesPerPrincipal?: number | undefined
  /**
   * Most bytes of the live records of all calls without a principal together, whatever their client addresses (many
   * addresses, or none known, cannot fill the process's memory). @default 67108864 (64 MiB)
   */
  readonly maxAnonymousBytes?: number | undefined
  /** How often expired records are dropped (also on access, and before an insert that finds a bound reached). @default 1 minute */
  readonly sweepInterval?: Duration.Input | undefined
}

const positiveInteger = (name: string, value: number): number => {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`TaskStore: ${name} must be a positive integer`)
  return value
}

/**
 * Whether `record` has expired at `now` (epoch ms): `createdAt + ttlMs`
 * passed; never for `ttlMs: null`.
 *
 * @category guards
 * @since 0.2.0
 */
export const expired = (record: TaskRecord, now: number): boolean =>
  record.ttlMs !== null && now >= record.createdAt + record.ttlMs

/**
 * Builds an in-memory store (see {@link layerMemory}); requires a `Scope`
 * for its sweeping fiber.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeMemory = Effect.fnUntraced(function*(options: MemoryOptions = {}) {
  const maxTasks = positiveInteger("maxTasks", options.maxTasks ?? 10_000)
  const maxPerShare = positiveInteger("maxTasksPerPrincipal", options.maxTasksPerPrincipal ?? 1_000)
  const maxTaskBytes = positiveInteger("maxTaskBytes", options.maxTaskBytes ?? 1_048_576)
  const maxShareBytes = positiveInteger("maxBytesPerPrincipal", options.maxBytesPerPrincipal ?? 16_777_216)
  const maxAnonymousBytes = positiveInteger("maxAnonymousBytes", options.maxAnonymousBytes ?? 67_108_864)
  const records = new Map<string, { record: TaskRecord; bytes: number; share: string | undefined }>()
  const shares = new Map<string, { count: number; bytes: number }>()
  const pools = { anonymous: 0, principals: 0 }
  let anonymousBytes = 0
  const poolOf = (record: TaskRecord) => record.call.principal === undefined ? "anonymous" : "principals"
  const account = (share: string | undefined, record: TaskRecord, count: number, bytes: number) => {
    pools[poolOf(record)] += count
    if (record.call.principal === undefined) anonymousBytes += bytes
    if (share === undefined) return
    const current = shares.get(share) ?? { count: 0, bytes: 0 }
    const next = { count: current.count + count, bytes: current.bytes + bytes }
    if (next.count === 0) shares.delete(share)
    else shares.set(share, next)
  }
  const drop = (taskId: string) => {
    const entry = records.get(taskId)
    if (entry === undefined) return
    records.delete(taskId)
    account(entry.share, entry.record, -1, -entry.bytes)
  }
  const sweep = (now: number) => {
    for (const [taskId, entry] of records) if (expired(entry.record, now)) drop(taskId)
  }
  const live = (taskId: string, now: number): TaskRecord | undefined => {
    const entry = records.get(taskId)
    if (entry === undefined) return undefined
    if (expired(entry.record, now)) {
      drop(taskId)
      return undefined
    }
    return entry.record
  }
  const scopeOf = (record: TaskRecord) =>
    record.call.principal === undefined ? "address" as const : "principal" as const
  /** Why `record` (replacing `bytesBefore` of its share) cannot be kept, if it cannot. */
  const tooLarge = (record: TaskRecord, share: string | undefined, bytes: number, bytesBefore: number) =>
    bytes > maxTaskBytes
      ? new TaskTooLarge({ limit: maxTaskBytes, scope: "task" })
      : share !== undefined && (shares.get(share)?.bytes ?? 0) - bytesBefore + bytes > maxShareBytes
      ? new TaskTooLarge({ limit: maxShareBytes, scope: scopeOf(record) })
      : record.call.principal === undefined && anonymousBytes - bytesBefore + bytes > maxAnonymousBytes
      ? new TaskTooLarge({ limit: maxAnonymousBytes, scope: "anonymous" })
      : undefined
  const full = (record: TaskRecord, share: string | undefined) =>
    share !== undefined && (shares.get(share)?.count ?? 0) >= maxPerShare
      ? new TaskStoreFull({ maxTasks: maxPerShare, scope: scopeOf(record) })
      : pools[poolOf(record)] >= maxTasks
      ? new TaskStoreFull({ maxTasks })
      : undefined
  yield* Clock.currentTimeMillis.pipe(
    Effect.map(sweep),
    Effect.repeat(Schedule.spaced(options.sweepInterval ?? Duration.minutes(1))),
    Effect.forkScoped
  )
  return TaskStore.of({
    insert: (record) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const share = shareOf(record)
        const bytes = Buffer.byteLength(JSON.stringify(record))
        let refused: TaskStoreFull | TaskTooLarge | undefined = full(record, share) ?? tooLarge(record, share, bytes, 0)
        if (refused !== undefined) {
          sweep(now)
          refused = full(record, share) ?? tooLarge(record, share, bytes, 0)
        }
        if (refused !== undefined) return Effect.fail(refused)
        records.set(record.taskId, { record, bytes, share })
        account(share, record, 1, bytes)
        return Effect.void
      }),
    get: (taskId) => Effect.map(Clock.currentTimeMillis, (now) => live(taskId, now)),
    modify: (taskId, f) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const record = live(taskId, now)
        if (record === undefined) return Effect.succeed(undefined)
        const [value, next] = f(record)
        if (next === record) return Effect.succeed(value)
        const entry = records.get(taskId)!
        const bytes = Buffer.byteLength(JSON.stringify(next))
        const refused = bytes > entry.bytes ? tooLarge(next, entry.share, bytes, entry.bytes) : undefined
        if (refused !== undefined) return Effect.fail(refused)
        records.set(taskId, { record: next, bytes, share: entry.share })
        account(entry.share, next, 0, bytes - entry.bytes)
        return Effect.succeed(value)
      }),
    remove: (taskId) => Effect.sync(() => drop(taskId))
  })
})

/**
 * The in-memory `TaskStore` as a Layer: one process, bounded by `maxTasks`
 * and each task's TTL. Build it once and provide it to several servers in
 * one process to share tasks between them (tests of resumption by replay).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory = (options: MemoryOptions = {}): Layer.Layer<TaskStore> =>
  Layer.effect(TaskStore, makeMemory(options))
