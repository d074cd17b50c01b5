/**
 * The directory of 2025-11-25 sessions shared by the instances of a fleet,
 * and the channel between them that carries what belongs to a request
 * running on another instance.
 *
 * What `initialize` established (`SessionRecord`: id, principal, negotiated
 * version, client capabilities and info, the `initialized` flag, the log
 * level, resource subscriptions) is written to the directory; any instance
 * that receives a message with a session id it does not hold looks it up
 * and serves the message itself, with a local replica of the session. The
 * idle timeout is the record's time to live, refreshed by every message.
 * `logging/setLevel`, `resources/subscribe` / `unsubscribe` and
 * `notifications/initialized` change the shared record; `DELETE` on any
 * instance ends the session everywhere (`Ended` to every instance, whose
 * requests of the session are interrupted).
 *
 * A request (`tools/call`, ...) runs on the instance that received it: that
 * instance holds its SSE stream and its server-to-client requests (legs),
 * whose JSON-RPC ids name the instance. An answer POSTed to another instance
 * is sent to the owner (`send`: `Answer`), which resolves the leg when it
 * belongs to that session; `notifications/cancelled` for a request not held
 * locally goes to every instance (`Cancel`); a GET with `Last-Event-ID` of
 * another instance's stream is served by asking the owner (`Resume`,
 * `StreamEvent`, `StreamEnd`), or fails its request when the owner is gone.
 *
 * Implementations: `SessionDirectory.local` (the default: the sessions of
 * this process are the whole directory, `shared: false`, as before: a fleet
 * needs affinity), and the Redis one of `@mrtr/server/Redis`
 * (`layerSessionDirectory`, part of `Redis.layerFleet`, given to
 * `McpServer.layer` as `shared`).
 *
 * Gotchas: delivery between instances is at most once (Redis pub/sub); a
 * `send` to an instance that is not listening (stopped, killed) reports
 * `false`, which is how a survivor tells that a request's owner is gone. A
 * directory that cannot answer fails with `SessionDirectoryUnavailable`
 * (the client gets HTTP 503 with JSON-RPC -32603), never a hang.
 * Source: MCP 2025-11-25, basic/transports (session management, multiple
 * connections), basic/lifecycle; `docs/architecture.md`, "Services a deployment swaps".
 *
 * @since 0.2.0
 */
import { Context, Effect, Layer, Schema, type Scope } from "effect"

/**
 * A session as the fleet shares it. `principal` is the authenticated caller
 * that opened it (only it may use the id); `subscriptions` the URIs of
 * `resources/subscribe`.
 *
 * @category models
 * @since 0.2.0
 */
export interface SessionRecord {
  readonly id: string
  readonly principal: string | undefined
  readonly protocolVersion: string
  readonly clientCapabilities: Readonly<Record<string, unknown>>
  readonly clientInfo: Readonly<Record<string, unknown>> | undefined
  readonly initialized: boolean
  readonly logLevel: string | undefined
  readonly subscriptions: ReadonlyArray<string>
}

/**
 * A change of a shared record: `notifications/initialized`,
 * `logging/setLevel`, `resources/subscribe` (refused past `max`
 * subscriptions: `change` then answers `"full"`), `resources/unsubscribe`.
 *
 * @category models
 * @since 0.2.0
 */
export type SessionChange =
  | { readonly _tag: "Initialized" }
  | { readonly _tag: "LogLevel"; readonly level: string }
  | { readonly _tag: "Subscribe"; readonly uri: string; readonly max: number }
  | { readonly _tag: "Unsubscribe"; readonly uri: string }

/**
 * What travels between instances:
 * - `Answer`: a client's JSON-RPC response (`result` or `error`) to the leg
 *   `id` of `session`, for the instance that owns the leg.
 * - `Cancel`: `notifications/cancelled` of the request `requestId` of
 *   `session` (to every instance, or to the owner of a lost stream).
 * - `Ended`: the session ended (DELETE): every replica ends.
 * - `Updated`: the record changed: every replica takes it.
 * - `Resume`: a GET with `Last-Event-ID` reached instance `replyTo` for the
 *   POST stream `stream` of the owner: the owner answers `StreamStart` at
 *   once, then sends that stream's events after `after` and its live ones,
 *   as `StreamEvent`s tagged `resume` (each with its SSE event id), and
 *   `StreamEnd` (`found: false` at once, instead of `StreamStart`, when it
 *   holds no such stream).
 *
 * @category models
 * @since 0.2.0
 */
export type Routed =
  | {
    readonly _tag: "Answer"
    readonly session: string
    readonly id: string
    readonly result?: unknown
    readonly error?: unknown
  }
  | { readonly _tag: "Cancel"; readonly session: string; readonly requestId: string | number; readonly reason: string }
  | { readonly _tag: "Ended"; readonly session: string }
  | { readonly _tag: "Updated"; readonly record: SessionRecord }
  | {
    readonly _tag: "Resume"
    readonly session: string
    readonly stream: string
    readonly after: number
    readonly resume: string
    readonly replyTo: string
  }
  | { readonly _tag: "StreamEvent"; readonly resume: string; readonly eventId: string; readonly message: unknown }
  | { readonly _tag: "StreamStart"; readonly resume: string }
  | { readonly _tag: "StreamEnd"; readonly resume: string; readonly found: boolean }

/**
 * The directory did not answer (unreachable, timed out, or an error reply):
 * the message that needed it is answered HTTP 503 with JSON-RPC -32603
 * ("retry later"), counted in `mrtr_redis_errors_total{operation:
 * "session"}` and logged at Warning.
 *
 * @category errors
 * @since 0.2.0
 */
export class SessionDirectoryUnavailable extends Schema.TaggedError<SessionDirectoryUnavailable>()(
  "SessionDirectoryUnavailable",
  { reason: Schema.String }
) {
  override get message(): string {
    return `The session directory is unavailable (${this.reason}); retry later`
  }
}

/**
 * The directory. `instanceId` names this instance in leg ids and stream ids
 * (a short random string of `[0-9a-f]`); `shared` is false for the local
 * directory (then the dispatcher's own sessions are the directory and no
 * other method is called). Times (`ttlMs`) are milliseconds; `lookup`
 * refreshes the record's time to live and answers it (undefined when it
 * does not exist: never created, expired, or ended); `change` applies a
 * change atomically and tells every instance (`Updated`); `remove` deletes
 * the record and tells every instance (`Ended`); `send` delivers to one
 * instance (`false`: nobody listens there), `broadcast` to every other one;
 * `listen` hands what other instances sent to `deliver`, for the current
 * scope.
 *
 * @category services
 * @since 0.2.0
 */
export class SessionDirectory extends Context.Service<SessionDirectory, {
  readonly instanceId: string
  readonly shared: boolean
  readonly create: (record: SessionRecord, ttlMs: number) => Effect.Effect<void, SessionDirectoryUnavailable>
  readonly lookup: (id: string, ttlMs: number) => Effect.Effect<SessionRecord | undefined, SessionDirectoryUnavailable>
  readonly change: (
    id: string,
    change: SessionChange,
    ttlMs: number
  ) => Effect.Effect<SessionRecord | "full" | undefined, SessionDirectoryUnavailable>
  readonly remove: (id: string) => Effect.Effect<void, SessionDirectoryUnavailable>
  readonly send: (instance: string, message: Routed) => Effect.Effect<boolean, SessionDirectoryUnavailable>
  readonly broadcast: (message: Routed) => Effect.Effect<void, SessionDirectoryUnavailable>
  readonly listen: (deliver: (message: Routed) => Effect.Effect<void>) => Effect.Effect<void, never, Scope.Scope>
}>()("@mrtr/server/SessionDirectory") {
  /**
   * The directory of one process (the default): sessions live in the
   * instance that created them; nothing is shared, nothing is sent.
   *
   * @since 0.2.0
   */
  static readonly local: Layer.Layer<SessionDirectory> = Layer.sync(SessionDirectory, () => makeLocal())
}

/**
 * A new random instance id: 12 characters of `[0-9a-f]`.
 *
 * @category constructors
 * @since 0.2.0
 */
export const newInstanceId = (): string => globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 12)

/**
 * The local directory's service (see {@link SessionDirectory.local}).
 *
 * @category constructors
 * @since 0.2.0
 */
export const makeLocal = (): SessionDirectory["Service"] =>
  SessionDirectory.of({
    instanceId: newInstanceId(),
    shared: false,
    create: () => Effect.void,
    lookup: () => Effect.undefined,
    change: () => Effect.undefined,
    remove: () => Effect.void,
    send: () => Effect.succeed(false),
    broadcast: () => Effect.void,
    listen: () => Effect.void
  })
