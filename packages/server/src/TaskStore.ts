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
 * by count (`maxTasks`) and time (each record goes at `createdAt + ttlMs`,
 * found lazily on access and by a periodic sweep). A deployment swaps in a
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
import { Clock, Context, Duration, Effect, Layer, Schedule, Schema } from "effect"
import type { ClientCapabilities, InputRequest, TaskStatus } from "@mrtr/protocol"

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
 * The store holds `maxTasks` records that have not expired: it cannot take
 * another. The server answers the `tools/call` with JSON-RPC `-32603`
 * (InternalError: the server is saturated, not the client's fault).
 *
 * @category errors
 * @since 0.1.0
 */
export class TaskStoreFull extends Schema.TaggedError<TaskStoreFull>()("TaskStoreFull", {
  maxTasks: Schema.Number
}) {
  override get message(): string {
    return `The server holds its maximum of ${this.maxTasks} tasks; try again later`
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
 * - `insert`: adds a new record, durably; fails with {@link TaskStoreFull}.
 * - `get`: the record, or `undefined` for an unknown or expired id.
 * - `modify`: atomically replaces the record with `f`'s second element and
 *   returns its first; `undefined` when the id is unknown or expired. `f` may
 *   run more than once in a store that retries; it must be pure.
 * - `remove`: deletes the record (no-op when absent).
 *
 * @category services
 * @since 0.1.0
 */
export class TaskStore extends Context.Service<TaskStore, {
  readonly insert: (record: TaskRecord) => Effect.Effect<void, TaskStoreFull | TaskStoreUnavailable>
  readonly get: (taskId: string) => Effect.Effect<TaskRecord | undefined, TaskStoreUnavailable>
  readonly modify: <A>(
    taskId: string,
    f: (record: TaskRecord) => readonly [A, TaskRecord]
  ) => Effect.Effect<A | undefined, TaskStoreUnavailable>
  readonly remove: (taskId: string) => Effect.Effect<void, TaskStoreUnavailable>
}>()("@mrtr/server/TaskStore") {}

/**
 * The options of {@link layerMemory}: `maxTasks` (default 10 000 records),
 * `sweepInterval` (default 1 minute; expired records are also dropped on
 * access and before an insert that finds the store full).
 *
 * @category models
 * @since 0.1.0
 */
export interface MemoryOptions {
  readonly maxTasks?: number | undefined
  readonly sweepInterval?: Duration.Input | undefined
}

/**
 * Whether `record` has expired at `now` (epoch ms): `createdAt + ttlMs`
 * passed; never for `ttlMs: null`.
 *
 * @category utils
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
  const maxTasks = options.maxTasks ?? 10_000
  const records = new Map<string, TaskRecord>()
  const sweep = (now: number) => {
    for (const [taskId, record] of records) if (expired(record, now)) records.delete(taskId)
  }
  const live = (taskId: string, now: number): TaskRecord | undefined => {
    const record = records.get(taskId)
    if (record === undefined) return undefined
    if (expired(record, now)) {
      records.delete(taskId)
      return undefined
    }
    return record
  }
  yield* Clock.currentTimeMillis.pipe(
    Effect.map(sweep),
    Effect.repeat(Schedule.spaced(options.sweepInterval ?? Duration.minutes(1))),
    Effect.forkScoped
  )
  return TaskStore.of({
    insert: (record) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (records.size >= maxTasks) sweep(now)
        if (records.size >= maxTasks) return Effect.fail(new TaskStoreFull({ maxTasks }))
        records.set(record.taskId, record)
        return Effect.void
      }),
    get: (taskId) => Effect.map(Clock.currentTimeMillis, (now) => live(taskId, now)),
    modify: (taskId, f) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const record = live(taskId, now)
        if (record === undefined) return undefined
        const [value, next] = f(record)
        records.set(taskId, next)
        return value
      }),
    remove: (taskId) => Effect.sync(() => void records.delete(taskId))
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
