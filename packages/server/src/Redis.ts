/**
 * Shared state of a fleet on Redis: the connection (`effect/persistence/Redis`
 * on `@effect/platform-node`'s `NodeRedis`, the `redis` client) and the
 * fleet-wide single-use `ReplayGuard`, `NotificationBus`,
 * `InteractionStore` (URL-mode interaction pages), `TaskStore` (Tasks
 * extension; `internal/redis/taskStore.ts`) and `SessionDirectory`
 * (2025-11-25 sessions) on it. {@link layerFleet} provides all five on one
 * connection; {@link layerFleetConfig} reads the URL from the environment.
 * Imported as `@mrtr/server/Redis` only by an app that uses it, so a server
 * that never uses Redis never loads the `redis` client (an optional peer
 * dependency).
 *
 * ```ts
 * import { RequestState } from "@mrtr/core"
 * import { InteractionPage, McpServer } from "@mrtr/server"
 * import * as Redis from "@mrtr/server/Redis"
 *
 * const keyRing = RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(7) }])
 *
 * const fleet = Redis.layerFleet({ url: "redis://127.0.0.1:6379" })
 * const server = McpServer.layer({ name: "s", version: "1.0.0", requestState: { keyRing, singleUse: true }, shared: fleet })
 * const page = InteractionPage.layer({ store: fleet })
 * ```
 *
 * Gotchas:
 * - Redemption is one atomic `SET <prefix><jti> 1 NX PXAT <expiresAt>`: the
 *   first instance to redeem a state wins, every other one sees it redeemed,
 *   and Redis forgets the id exactly when the state expires.
 * - Unreachable Redis fails closed: a single-use state cannot be redeemed
 *   (`ReplayGuardUnavailable`, JSON-RPC -32603, counted in
 *   `mrtr_redis_errors_total`, logged at Warning) rather than accepted. The
 *   client is offline-queue free: a command sent while the connection is
 *   down fails at once instead of waiting for the reconnection, and every
 *   command is bounded by a timeout, so nothing hangs. The client reconnects
 *   by itself (exponential backoff up to 2 s); service resumes with it.
 * - At start-up an unreachable Redis fails the layer with a `RedisError`.
 * - Per-principal bounds of the in-memory guard do not apply: Redis'
 *   `maxmemory` bounds the guard (use `noeviction`, never an evicting policy,
 *   or a redeemed id could be forgotten and its state replayed).
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr ("One-time use must be enforced
 * server-side"); `docs/architecture.md`, "Services a deployment swaps".
 *
 * @since 0.1.0
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { InteractionStore, InvalidOption, RequestState } from "@mrtr/core"
import { Config, Duration, Effect, Layer, Metric, Queue, Redacted, Schema, SchemaIssue } from "effect"
import { SecureRandom } from "effect/crypto"
import * as Redis from "effect/persistence/Redis"
import { makeEntryCounter } from "./internal/redis/guardEntries.ts"
import * as RedisInteractionStore from "./internal/redis/interactionStore.ts"
import * as LegacySessions from "./internal/redis/legacySessions.ts"
import * as RedisMetrics from "./internal/redis/metrics.ts"
import * as RedisTaskStore from "./internal/redis/taskStore.ts"
import { NotificationBus } from "./NotificationBus.ts"
import * as SessionDirectory from "./SessionDirectory.ts"
import { type TaskStore, TaskStore as TaskStoreService } from "./TaskStore.ts"

/**
 * Name of the environment variable with the Redis URL
 * (`redis://[[user]:password@]host:port[/db]`, or `rediss://` for TLS), read
 * by {@link layerFleetConfig} and {@link layerClientConfig}.
 *
 * @category config
 * @since 0.1.0
 */
export const urlConfigName = "MRTR_REDIS_URL"

/**
 * Counter of failed Redis operations (unreachable, timed out, error reply),
 * by `operation` (`connect`, `redeem`, `publish`, `subscribe`, `interaction`,
 * `task`, `session`).
 *
 * @category metrics
 * @since 0.1.0
 */
export const redisErrorsTotal = RedisMetrics.redisErrorsTotal

/**
 * Counter of single-use redemptions, by `outcome` (`first`, `replayed`) and
 * `store` (`redis`, `memory`); defined in `@mrtr/core`'s `ReplayGuard`.
 *
 * @category metrics
 * @since 0.1.0
 */
export const replayGuardRedemptionsTotal = RequestState.replayGuardRedemptionsTotal

/**
 * Options of the Redis connection ({@link layerClient}).
 *
 * - `url`: the Redis URL (see {@link urlConfigName}).
 * - `connectTimeout`: how long the initial connection (and each reconnection
 *   attempt) may take, default 2 seconds.
 *
 * @category models
 * @since 0.1.0
 */
export interface ClientOptions {
  readonly url: string
  readonly connectTimeout?: Duration.Input | undefined
}

/**
 * The `Redis` service of `effect/persistence/Redis` (and `NodeRedis`) on a
 * `redis` client configured for a fleet: no offline queue (a command while
 * disconnected fails at once), a bounded connection time, reconnection with
 * backoff once connected. Fails with a `RedisError` when Redis cannot be
 * reached at start-up (logged, counted under `operation: "connect"`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerClient = (
  options: ClientOptions
): Layer.Layer<Redis.Redis | NodeRedis.NodeRedis, Redis.RedisError | InvalidOption> => {
  const invalid = checkClientOptions("Redis.layerClient", options)
  if (invalid !== undefined) return failed(invalid)
  return NodeRedis.layer({
    url: options.url,
    disableOfflineQueue: true,
    socket: { connectTimeout: Duration.toMillis(Duration.fromInputUnsafe(options.connectTimeout ?? "2 seconds")) }
  }).pipe(
    Layer.tapError((error) =>
      RedisMetrics.reportFailure(
        "connect",
        "Redis is unreachable: the server cannot start with shared state",
        error.cause,
        "Error"
      )
    )
  )
}

// A Layer that fails with `error` when built.
const failed = <A>(error: InvalidOption): Layer.Layer<A, InvalidOption> =>
  Layer.unwrap<A, never, never, InvalidOption, never>(Effect.fail(error))

// A URL that is not redis:// or rediss:// (the value is not shown: it may hold a password), or a bad connectTimeout.
const checkClientOptions = (layer: string, options: ClientOptions): InvalidOption | undefined => {
  let protocol: string | undefined
  try {
    protocol = new URL(options.url).protocol
  } catch {
    protocol = undefined
  }
  if (protocol !== "redis:" && protocol !== "rediss:") {
    return new InvalidOption({
      layer,
      option: "url",
      value: `a${protocol === undefined ? " malformed URL" : ` ${protocol} URL`} (not shown: it may hold a password)`,
      expected: "a redis:// or rediss:// URL"
    })
  }
  const timeout = Duration.fromInput(options.connectTimeout ?? "2 seconds")
  if (timeout._tag === "None" || !Duration.isFinite(timeout.value) || !(Duration.toMillis(timeout.value) > 0)) {
    return InvalidOption.of(layer, "connectTimeout", options.connectTimeout, "a finite, positive duration")
  }
  return undefined
}

/**
 * {@link layerClient} with the URL from `MRTR_REDIS_URL` (required here: a
 * missing value is a `ConfigError`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerClientConfig: Layer.Layer<
  Redis.Redis | NodeRedis.NodeRedis,
  Redis.RedisError | Config.ConfigError | InvalidOption
> = Layer.unwrap(Effect.map(Config.Redacted(urlConfigName), (url) => layerClient({ url: Redacted.value(url) })))

/**
 * Options of the Redis `ReplayGuard` ({@link makeReplayGuard}).
 *
 * - `prefix`: prefix of the keys, default `"mrtr:jti:"`. Instances of one
 *   fleet must share it; servers of different audiences may too (ids are
 *   random 128-bit values).
 * - `timeout`: most time one redemption may wait for Redis, default 1
 *   second; past it the redemption fails with `ReplayGuardUnavailable`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReplayGuardOptions {
  readonly prefix?: string | undefined
  readonly timeout?: Duration.Input | undefined
}

const unavailable = (reason: string, cause: unknown) =>
  Effect.andThen(
    RedisMetrics.reportFailure(
      "redeem",
      `Redis is unavailable (${reason}): single-use requestState cannot be redeemed`,
      cause
    ),
    Effect.fail(new RequestState.ReplayGuardUnavailable({ store: "redis", reason }))
  )

const redeemed = (outcome: "first" | "replayed") =>
  Metric.update(Metric.withAttributes(replayGuardRedemptionsTotal, { outcome, store: "redis" }), 1)

/**
 * A fleet-wide `ReplayGuard` on the `Redis` service: `redeem(jti,
 * expiresAt)` is `SET <prefix><jti> 1 NX PXAT <expiresAt>`, `true` when the
 * key was set (the first redemption anywhere in the fleet), `false` when it
 * existed. Fails with `ReplayGuardUnavailable` (never `false`, never a
 * hang) when Redis does not answer within `timeout` or answers an error.
 * Each first redemption counts in `mrtr_replay_guard_entries{store="redis"}`
 * until its state expires (this instance's share, kept current every second
 * while the guard's scope, when it has one, is open).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeReplayGuard = (
  options?: ReplayGuardOptions
): Effect.Effect<RequestState.ReplayGuard["Service"], never, Redis.Redis> =>
  Effect.map(Effect.zip(Effect.service(Redis.Redis), makeEntryCounter), ([redis, entries]) => {
    const prefix = options?.prefix ?? "mrtr:jti:"
    const send = RedisMetrics.boundedSend(redis, Duration.fromInputUnsafe(options?.timeout ?? "1 second"), unavailable)
    // Each redemption writes its own token, so that a redemption this guard gave up on can be undone (see `release`).
    const instance = globalThis.crypto.randomUUID()
    let attempts = 0
    return RequestState.ReplayGuard.of({
      redeem: (jti, expiresAt) => {
        const token = `${instance}.${++attempts}`
        // A SET that got no answer in time may still run once Redis gets to it (a stalled, not a refused,
        // connection) and spend the id of a retry we refused with "retry later": the release, sent after it on the
        // same connection, runs after it and deletes the id if (and only if) that SET wrote it.
        const release = redis.send("EVAL", releaseScript, "1", prefix + jti, token).pipe(
          Effect.timeout("1 minute"),
          Effect.ignore
        )
        return send<string | null>("SET", prefix + jti, token, "NX", "PXAT", String(Math.ceil(expiresAt))).pipe(
          Effect.onError(() => Effect.asVoid(Effect.forkDetach(release))),
          Effect.flatMap((reply) => {
            const first = reply === "OK"
            return Effect.as(
              first ? Effect.andThen(entries.added(expiresAt), redeemed("first")) : redeemed("replayed"),
              first
            )
          })
        )
      }
    })
  })

// Deletes KEYS[1] when it holds ARGV[1] (the token of the redemption being released).
const releaseScript =
  `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`

/**
 * The Redis `ReplayGuard` as a Layer on a provided `Redis` service.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerReplayGuard = (
  options?: ReplayGuardOptions
): Layer.Layer<RequestState.ReplayGuard, never, Redis.Redis> =>
  Layer.effect(RequestState.ReplayGuard, makeReplayGuard(options))

/**
 * The Redis `ReplayGuard` with its own connection to `url`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerReplayGuardUrl = (
  url: string,
  options?: ReplayGuardOptions
): Layer.Layer<RequestState.ReplayGuard, Redis.RedisError | InvalidOption> =>
  layerReplayGuard(options).pipe(Layer.provide(layerClient({ url })))

// Every kind of `NotificationBus.Notification`, tagged with the publishing instance.
const BusMessage = Schema.fromJsonString(Schema.Union([
  Schema.Struct({ origin: Schema.String, _tag: Schema.Literal("ResourceUpdated"), uri: Schema.String }),
  Schema.Struct({
    origin: Schema.String,
    _tag: Schema.Literal("ListChanged"),
    kind: Schema.Literals(["tools", "prompts", "resources"])
  }),
  Schema.Struct({
    origin: Schema.String,
    _tag: Schema.Literal("TaskStatus"),
    taskId: Schema.String,
    principal: Schema.optionalKey(Schema.String),
    task: Schema.Record(Schema.String, Schema.Unknown)
  })
]))
const decodeBusMessage = Schema.decodeUnknownOption(BusMessage)
const encodeBusMessage = Schema.encodeSync(BusMessage)

/**
 * Options of the Redis {@link NotificationBus} ({@link layerNotificationBus}).
 *
 * - `channel`: the pub/sub channel, default `"mrtr:notifications"`; every
 *   instance of a fleet must use the same.
 *
 * @category models
 * @since 0.1.0
 */
export interface NotificationBusOptions {
  readonly channel?: string | undefined
}

/**
 * A fleet-wide {@link NotificationBus} on Redis pub/sub: `publish` is
 * `PUBLISH <channel> {"origin","_tag",...}` (each kind of
 * `NotificationBus.Notification` as JSON), `listen` subscribes to the
 * channel and skips the instance's own messages (and malformed ones). A
 * publish that fails is logged and counted (`operation: "publish"`), never
 * failed: the local delivery has happened already.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerNotificationBus = (
  options?: NotificationBusOptions
): Layer.Layer<NotificationBus, never, Redis.Redis> =>
  Layer.effect(
    NotificationBus,
    Effect.map(Effect.service(Redis.Redis), (redis) => {
      const channel = options?.channel ?? "mrtr:notifications"
      const origin = crypto.randomUUID()
      const failed = (operation: string) => (error: Redis.RedisError) =>
        RedisMetrics.reportFailure(operation, `Redis is unavailable: notification ${operation} failed`, error.cause)
      return NotificationBus.of({
        publish: (notification) =>
          redis.send("PUBLISH", channel, encodeBusMessage({ origin, ...notification } as typeof BusMessage.Type)).pipe(
            Effect.timeout("1 second"),
            Effect.catchTag("RedisError", failed("publish")),
            Effect.catchTag("TimeoutError", () => failed("publish")(new Redis.RedisError({ cause: "timeout" }))),
            Effect.asVoid
          ),
        listen: (deliver) =>
          Effect.flatMap(redis.subscribe(channel), (queue) =>
            Effect.forkScoped(
              Effect.forever(Effect.flatMap(Queue.take(queue), (message) => {
                const decoded = decodeBusMessage(message.message)
                if (decoded._tag === "None" || decoded.value.origin === origin) return Effect.void
                const { origin: _, ...notification } = decoded.value
                return deliver(notification)
              })).pipe(Effect.catch((error) => failed("subscribe")(error as Redis.RedisError)))
            )).pipe(Effect.asVoid)
      })
    })
  )

/**
 * The Redis {@link NotificationBus} with its own connection to `url`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerNotificationBusUrl = (
  url: string,
  options?: NotificationBusOptions
): Layer.Layer<NotificationBus, Redis.RedisError | InvalidOption> =>
  layerNotificationBus(options).pipe(Layer.provide(layerClient({ url })))

/**
 * Options of the Redis `InteractionStore` ({@link makeInteractionStore}).
 *
 * - `prefix`: prefix of the keys, default `"mrtr:interaction:"`. Instances
 *   of one fleet must share it (a page completed on one instance resumes the
 *   conversation on another).
 * - `maxEntries`, `maxEntriesPerPrincipal`, `maxBytesPerPrincipal`,
 *   `maxAnonymousBytes`: the bounds of the memory store
 *   (`InteractionStore.InteractionStoreMemoryOptions`; defaults 10,000, 100,
 *   1 MiB and 32 MiB; the per-principal bounds also cap each client address
 *   without a principal), enforced fleet-wide, so clients cannot fill Redis
 *   with pages and values.
 * - `timeout`: most time one operation may wait for Redis, default 1 second.
 *
 * @category models
 * @since 0.1.0
 */
export type InteractionStoreOptions = RedisInteractionStore.InteractionStoreOptions

/**
 * Redis did not answer an `InteractionStore` operation (unreachable, timed
 * out, or an error reply): the typed failure of every operation of the Redis
 * store, counted in `mrtr_redis_errors_total` under `operation:
 * "interaction"` and logged at Warning. `Elicitation.secure` fails with it
 * (the tool's error unless the handler catches it); the page answers 503.
 * Nothing is accepted or handed out on a failed operation. (Defined in
 * `@mrtr/core`'s `InteractionStore`; re-exported here.)
 *
 * @category errors
 * @since 0.1.0
 */
export const InteractionStoreUnavailable = InteractionStore.InteractionStoreUnavailable
/**
 * The type of {@link InteractionStoreUnavailable}.
 *
 * @category models
 * @since 0.1.0
 */
export type InteractionStoreUnavailable = InteractionStore.InteractionStoreUnavailable

/**
 * A fleet-wide `InteractionStore` on the `Redis` service, with the memory
 * store's semantics: each interaction is a hash `<prefix><id>` (`state`,
 * `csrf`, `expiresAt`, `form` with the interaction's public key, and
 * `content` while completed: the value sealed to that key by the page,
 * never in clear, see `InteractionSeal`) whose key
 * expires (`PEXPIREAT`) one TTL (at least a minute) after the page does, so
 * the page can still say it expired or was used; `create`, `get`,
 * `complete` and `take` are each one Lua script, so a page is completed once
 * and a value handed out once (then deleted) across the fleet. The bounds
 * are counted in sorted sets (`<prefix>count:anonymous`,
 * `<prefix>count:principals`, `<prefix>count:principal:<principal>`,
 * `<prefix>count:address:<address>`) of ids scored by when their record is
 * forgotten, each with a hash `<prefix>bytes:<same suffix>` of each id's
 * bytes (form, and sealed value until taken or expired) and their total,
 * checked in the create and complete scripts. Time comes from the `Clock`
 * service (instances' clocks must agree, as for the `PXAT` of the replay
 * guard), ids from `SecureRandom`. The keys of one store live in different
 * hash slots: use a single Redis (or a primary with replicas), not Redis
 * Cluster. A failed Redis operation fails with
 * {@link InteractionStoreUnavailable}. Throws a `RangeError` for a bound that is not a positive integer.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeInteractionStore: (
  options?: InteractionStoreOptions
) => Effect.Effect<InteractionStore.InteractionStore["Service"], never, Redis.Redis | SecureRandom.SecureRandom> =
  RedisInteractionStore.makeInteractionStore

/**
 * The Redis `InteractionStore` as a Layer on a provided `Redis` service
 * (WebCrypto randomness).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerInteractionStore = (
  options?: InteractionStoreOptions
): Layer.Layer<InteractionStore.InteractionStore, never, Redis.Redis> =>
  Layer.effect(InteractionStore.InteractionStore, makeInteractionStore(options)).pipe(
    Layer.provide(SecureRandom.layerWebCrypto)
  )

/**
 * The Redis `InteractionStore` with its own connection to `url`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerInteractionStoreUrl = (
  url: string,
  options?: InteractionStoreOptions
): Layer.Layer<InteractionStore.InteractionStore, Redis.RedisError | InvalidOption> =>
  layerInteractionStore(options).pipe(Layer.provide(layerClient({ url })))

// -- Tasks (SEP-2663) ----------------------------------------------------------

/**
 * Options of the Redis `TaskStore` ({@link makeTaskStore}): `prefix` (default
 * `"mrtr:task:"`, shared by the fleet), the memory store's bounds, enforced
 * fleet-wide (`maxTasks`, default 10,000 without a principal and apart for
 * principals, past it `TaskStoreFull`, -32603; `maxTasksPerPrincipal`,
 * `maxTaskBytes`, `maxBytesPerPrincipal`, `maxAnonymousBytes`, past them
 * `TaskTooLarge`), `timeout` (most time one command may take, default 1
 * second).
 *
 * @category models
 * @since 0.2.0
 */
export type TaskStoreOptions = RedisTaskStore.TaskStoreOptions

/**
 * A fleet-wide `TaskStore` on the `Redis` service: each task a hash
 * `<prefix><taskId>` (`v` version, `r` the record as JSON) expiring at
 * `createdAt + ttlMs` (`PEXPIREAT`; none for `ttlMs: null`), counted in
 * sorted sets (`<prefix>index`, `<prefix>index:anonymous`,
 * `<prefix>share:<share>`) with their bytes beside them. `insert` is one Lua script,
 * durable before it returns; `modify` an optimistic compare-and-set on `v`
 * (its `f` may run more than once). A command that fails or gets no answer
 * within `timeout` fails with `TaskStore.TaskStoreUnavailable` (JSON-RPC
 * -32603 "retry later"), counted in `mrtr_redis_errors_total{operation="task"}`
 * and logged at Warning. A single Redis, not Redis Cluster. Throws a
 * `RangeError` for a `maxTasks` that is not a positive integer.
 *
 * @category constructors
 * @since 0.2.0
 */
export const makeTaskStore: (
  options?: TaskStoreOptions
) => Effect.Effect<TaskStore["Service"], never, Redis.Redis> = RedisTaskStore.makeTaskStore

/**
 * The Redis `TaskStore` as a Layer on a provided `Redis` service.
 *
 * @category layers
 * @since 0.2.0
 */
export const layerTaskStore = (options?: TaskStoreOptions): Layer.Layer<TaskStore, never, Redis.Redis> =>
  Layer.effect(TaskStoreService, makeTaskStore(options))

/**
 * The Redis `TaskStore` with its own connection to `url`.
 *
 * @category layers
 * @since 0.2.0
 */
export const layerTaskStoreUrl = (
  url: string,
  options?: TaskStoreOptions
): Layer.Layer<TaskStore, Redis.RedisError | InvalidOption> =>
  layerTaskStore(options).pipe(Layer.provide(layerClient({ url })))
// -----------------------------------------------------------------------------
// 2025-11-25 sessions of a fleet (internal/redis/legacySessions.ts)
// -----------------------------------------------------------------------------

/**
 * Options of the Redis `SessionDirectory` ({@link layerSessionDirectory}):
 * `prefix` of keys and channels (default `"mrtr:legacy:"`, shared by a
 * fleet), `timeout` of one operation (default 1 second; past it
 * `SessionDirectoryUnavailable`), `instanceId` (default random).
 *
 * @category models
 * @since 0.2.0
 */
export type SessionDirectoryOptions = LegacySessions.SessionDirectoryOptions

/**
 * A fleet-wide `SessionDirectory` (2025-11-25 sessions without affinity) on
 * the `Redis` service: records as keys with the idle timeout as their TTL
 * (`GETEX ... PX` on every message), changes by a Lua script, and pub/sub
 * between instances (answers to legs, cancellations, ended and updated
 * sessions). See `SessionDirectory.ts` and `internal/redis/legacySessions.ts`.
 *
 * @category layers
 * @since 0.2.0
 */
export const layerSessionDirectory = (
  options?: SessionDirectoryOptions
): Layer.Layer<SessionDirectory.SessionDirectory, never, Redis.Redis> =>
  Layer.effect(SessionDirectory.SessionDirectory, LegacySessions.makeSessionDirectory(options))

/**
 * The Redis `SessionDirectory` with its own connection to `url`.
 *
 * @category layers
 * @since 0.2.0
 */
export const layerSessionDirectoryUrl = (
  url: string,
  options?: SessionDirectoryOptions
): Layer.Layer<SessionDirectory.SessionDirectory, Redis.RedisError | InvalidOption> =>
  layerSessionDirectory(options).pipe(Layer.provide(layerClient({ url })))

// -----------------------------------------------------------------------------
// The whole fleet
// -----------------------------------------------------------------------------

/**
 * Options of {@link layerFleet}: the connection ({@link ClientOptions}) and,
 * for each service, its own options (prefixes, bounds, timeouts; every
 * instance of a fleet must use the same prefixes and channel).
 *
 * @since 0.4.0
 * @category models
 */
export interface FleetOptions extends ClientOptions {
  /** @default {} (see {@link ReplayGuardOptions}) */
  readonly replayGuard?: ReplayGuardOptions | undefined
  /** @default {} (see {@link TaskStoreOptions}) */
  readonly taskStore?: TaskStoreOptions | undefined
  /** @default {} (see {@link InteractionStoreOptions}) */
  readonly interactionStore?: InteractionStoreOptions | undefined
  /** @default {} (see {@link NotificationBusOptions}) */
  readonly notificationBus?: NotificationBusOptions | undefined
  /** @default {} (see {@link SessionDirectoryOptions}) */
  readonly sessionDirectory?: SessionDirectoryOptions | undefined
}

/**
 * The services a fleet shares, all on Redis: what `McpServer.layer` takes as
 * `shared` (`ReplayGuard`, `TaskStore`, `NotificationBus`,
 * `SessionDirectory`) and `InteractionPage.layer` as `store`
 * (`InteractionStore`).
 *
 * @since 0.4.0
 * @category models
 */
export type FleetServices =
  | RequestState.ReplayGuard
  | TaskStore
  | InteractionStore.InteractionStore
  | NotificationBus
  | SessionDirectory.SessionDirectory

/**
 * Every service of {@link FleetServices} on one connection to `url`
 * ({@link layerClient}; subscriptions get connections of their own). Give the
 * same Layer value to `McpServer.layer({ shared })` and
 * `InteractionPage.layer({ store })`: a Layer is built once per app, so they
 * share the connection. Fails with a `RedisError` when Redis is unreachable
 * at start-up, and with `InvalidOption` for an option out of range (a URL
 * that is not `redis://`/`rediss://`, a bound that is not a positive integer).
 *
 * @since 0.4.0
 * @category layers
 */
export const layerFleet = (options: FleetOptions): Layer.Layer<FleetServices, Redis.RedisError | InvalidOption> =>
  Layer.mergeAll(
    layerReplayGuard(options.replayGuard),
    layerTaskStore(options.taskStore),
    layerInteractionStore(options.interactionStore),
    layerNotificationBus(options.notificationBus),
    layerSessionDirectory(options.sessionDirectory)
  ).pipe(Layer.provide(layerClient(options)))

/**
 * {@link layerFleet} with the URL from `MRTR_REDIS_URL` (through
 * `effect/Config`; required: absent or empty, a `ConfigError`) and the other
 * options as given.
 *
 * @since 0.4.0
 * @category layers
 */
export const layerFleetConfig = (
  options: Omit<FleetOptions, "url"> = {}
): Layer.Layer<FleetServices, Redis.RedisError | InvalidOption | Config.ConfigError> =>
  Layer.unwrap(Effect.map(nonEmptyUrl, (url) => layerFleet({ ...options, url })))

const nonEmptyUrl: Effect.Effect<string, Config.ConfigError> = Effect.flatMap(
  Config.Redacted(urlConfigName),
  (url) =>
    Redacted.value(url).trim() === ""
      ? Effect.fail(
        new Config.ConfigError(
          new Schema.SchemaError(
            new SchemaIssue.Pointer([urlConfigName], new SchemaIssue.InvalidValue({ message: "must not be empty" }))
          )
        )
      )
      : Effect.succeed(Redacted.value(url))
)
