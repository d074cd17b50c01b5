/**
 * The Redis `SessionDirectory` (2025-11-25 sessions of a fleet): each record
 * is one string key `<prefix>session:<id>` whose value is JSON
 * `{fixed, initialized, logLevel, subscriptions}` (`fixed`: the JSON of what
 * never changes: principal, version, capabilities, client info) with the
 * idle timeout as its `PX`; a lookup is one `GETEX ... PX` (answer and
 * refresh at once), a change one Lua script (read, change, write with a new
 * `PX`). Instances talk over pub/sub: `<prefix>instance:<instanceId>` to one
 * instance (the `PUBLISH` reply counts its listeners: 0 = the instance is
 * gone) and `<prefix>broadcast` to all (an instance skips its own).
 *
 * Gotchas: `fixed` stays a string so that Lua's cjson (which turns an empty
 * array into `{}`) never rewrites the client's capabilities; an empty
 * `subscriptions` may come back as `{}` and is read as `[]`. Every command
 * is bounded by `timeout` and fails with `SessionDirectoryUnavailable`
 * (counted as `operation: "session"`), never hangs. Single Redis (or
 * primary/replica), not Cluster: pub/sub and keys are assumed on one node.
 * Source: MCP 2025-11-25, basic/transports (session management).
 */
import { Duration, Effect, Queue, Schema } from "effect"
import * as Redis from "effect/persistence/Redis"
import {
  newInstanceId,
  type Routed,
  SessionDirectory,
  SessionDirectoryUnavailable,
  type SessionRecord
} from "../../SessionDirectory.ts"
import { boundedSend, reportFailure } from "./metrics.ts"

/** Options of the Redis session directory. */
export interface SessionDirectoryOptions {
  /** Prefix of keys and channels; one fleet shares it. @default "mrtr:legacy:" */
  readonly prefix?: string | undefined
  /** Most time one operation may wait for Redis. @default "1 second" */
  readonly timeout?: Duration.Input | undefined
  /** This instance's id, which routes answers to the instance running a request. @default a random id */
  readonly instanceId?: string | undefined
}

const Fixed = Schema.Struct({
  principal: Schema.optional(Schema.String),
  protocolVersion: Schema.String,
  clientCapabilities: Schema.Record(Schema.String, Schema.Unknown),
  clientInfo: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
})
const Stored = Schema.Struct({
  fixed: Schema.String,
  initialized: Schema.Boolean,
  logLevel: Schema.optional(Schema.NullOr(Schema.String)),
  // cjson writes an empty array as {}
  subscriptions: Schema.Union([Schema.Array(Schema.String), Schema.Record(Schema.String, Schema.Unknown)])
})
const decodeStored = Schema.decodeUnknownOption(Schema.fromJsonString(Stored))
const decodeFixed = Schema.decodeUnknownOption(Schema.fromJsonString(Fixed))

const RoutedSchema = Schema.Union([
  Schema.Struct({
    _tag: Schema.Literal("Answer"),
    session: Schema.String,
    id: Schema.String,
    result: Schema.optional(Schema.Unknown),
    error: Schema.optional(Schema.Unknown)
  }),
  Schema.Struct({
    _tag: Schema.Literal("Cancel"),
    session: Schema.String,
    requestId: Schema.Union([Schema.String, Schema.Number]),
    reason: Schema.String
  }),
  Schema.Struct({ _tag: Schema.Literal("Ended"), session: Schema.String }),
  Schema.Struct({
    _tag: Schema.Literal("Updated"),
    record: Schema.Struct({
      id: Schema.String,
      principal: Schema.optional(Schema.String),
      protocolVersion: Schema.String,
      clientCapabilities: Schema.Record(Schema.String, Schema.Unknown),
      clientInfo: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
      initialized: Schema.Boolean,
      logLevel: Schema.optional(Schema.String),
      subscriptions: Schema.Array(Schema.String)
    })
  }),
  Schema.Struct({
    _tag: Schema.Literal("Resume"),
    session: Schema.String,
    stream: Schema.String,
    after: Schema.Number,
    resume: Schema.String,
    replyTo: Schema.String
  }),
  Schema.Struct({
    _tag: Schema.Literal("StreamEvent"),
    resume: Schema.String,
    eventId: Schema.String,
    message: Schema.Unknown
  }),
  Schema.Struct({ _tag: Schema.Literal("StreamEnd"), resume: Schema.String, found: Schema.Boolean }),
  Schema.Struct({ _tag: Schema.Literal("StreamStart"), resume: Schema.String })
])
const Envelope = Schema.fromJsonString(Schema.Struct({ origin: Schema.String, message: RoutedSchema }))
const decodeEnvelope = Schema.decodeUnknownOption(Envelope)

const toStored = (record: SessionRecord): string =>
  JSON.stringify({
    fixed: JSON.stringify({
      ...(record.principal === undefined ? {} : { principal: record.principal }),
      protocolVersion: record.protocolVersion,
      clientCapabilities: record.clientCapabilities,
      ...(record.clientInfo === undefined ? {} : { clientInfo: record.clientInfo })
    }),
    initialized: record.initialized,
    logLevel: record.logLevel ?? null,
    subscriptions: record.subscriptions
  })

/** A stored value back as a record; undefined for a value this module did not write. */
export const fromStored = (id: string, value: unknown): SessionRecord | undefined => {
  const stored = decodeStored(value)
  if (stored._tag === "None") return undefined
  const fixed = decodeFixed(stored.value.fixed)
  if (fixed._tag === "None") return undefined
  const subscriptions = stored.value.subscriptions
  return {
    id,
    principal: fixed.value.principal,
    protocolVersion: fixed.value.protocolVersion,
    clientCapabilities: fixed.value.clientCapabilities,
    clientInfo: fixed.value.clientInfo,
    initialized: stored.value.initialized,
    logLevel: stored.value.logLevel ?? undefined,
    subscriptions: Array.isArray(subscriptions) ? subscriptions as ReadonlyArray<string> : []
  }
}

// KEYS: record. ARGV: ttlMs, change tag, value, max subscriptions.
const changeScript = `
local v = redis.call('GET', KEYS[1])
if not v then return false end
local r = cjson.decode(v)
local tag = ARGV[2]
if tag == 'Initialized' then r.initialized = true
elseif tag == 'LogLevel' then r.logLevel = ARGV[3]
else
  local subs = {}
  local found = false
  for _, uri in ipairs(r.subscriptions) do
    if uri == ARGV[3] then found = true end
    if not (tag == 'Unsubscribe' and uri == ARGV[3]) then table.insert(subs, uri) end
  end
  if tag == 'Subscribe' and not found then
    if #subs >= tonumber(ARGV[4]) then return 'full' end
    table.insert(subs, ARGV[3])
  end
  r.subscriptions = subs
end
local out = cjson.encode(r)
redis.call('SET', KEYS[1], out, 'PX', ARGV[1])
return out
`

/** The Redis session directory's service on a provided `Redis`. */
export const makeSessionDirectory = (
  options?: SessionDirectoryOptions
): Effect.Effect<SessionDirectory["Service"], never, Redis.Redis> =>
  Effect.map(Effect.service(Redis.Redis), (redis) => {
    const prefix = options?.prefix ?? "mrtr:legacy:"
    const timeout = Duration.fromInputUnsafe(options?.timeout ?? "1 second")
    const instanceId = options?.instanceId ?? newInstanceId()
    const key = (id: string) => `${prefix}session:${id}`
    const instanceChannel = (instance: string) => `${prefix}instance:${instance}`
    const broadcastChannel = `${prefix}broadcast`
    const unavailable = (reason: string, cause: unknown) =>
      Effect.andThen(
        reportFailure(
          "session",
          `Redis is unavailable (${reason}): the 2025-11-25 session directory cannot answer`,
          cause
        ),
        Effect.fail(new SessionDirectoryUnavailable({ reason }))
      )
    const send = boundedSend(redis, timeout, unavailable)
    const envelope = (message: Routed) => JSON.stringify({ origin: instanceId, message })
    const publish = (channel: string, message: Routed) => send<number>("PUBLISH", channel, envelope(message))
    const ttl = (ms: number) => String(Math.max(1, Math.ceil(ms)))
    return SessionDirectory.of({
      instanceId,
      shared: true,
      create: (record, ttlMs) => Effect.asVoid(send("SET", key(record.id), toStored(record), "PX", ttl(ttlMs))),
      lookup: (id, ttlMs) =>
        Effect.map(
          send<string | null>("GETEX", key(id), "PX", ttl(ttlMs)),
          (value) => value === null ? undefined : fromStored(id, value)
        ),
      change: (id, change, ttlMs) =>
        send<string | null>(
          "EVAL",
          changeScript,
          "1",
          key(id),
          ttl(ttlMs),
          change._tag,
          change._tag === "LogLevel" ? change.level : change._tag === "Initialized" ? "" : change.uri,
          change._tag === "Subscribe" ? String(change.max) : "0"
        ).pipe(
          Effect.flatMap((value): Effect.Effect<SessionRecord | "full" | undefined, SessionDirectoryUnavailable> => {
            if (value === "full") return Effect.succeed("full" as const)
            const record = value === null ? undefined : fromStored(id, value)
            return record === undefined
              ? Effect.succeed(undefined)
              : Effect.as(publish(broadcastChannel, { _tag: "Updated", record }), record)
          })
        ),
      remove: (id) =>
        Effect.andThen(send("DEL", key(id)), Effect.asVoid(publish(broadcastChannel, { _tag: "Ended", session: id }))),
      send: (instance, message) =>
        Effect.map(publish(instanceChannel(instance), message), (listeners) => listeners > 0),
      broadcast: (message) => Effect.asVoid(publish(broadcastChannel, message)),
      listen: (deliver) =>
        Effect.forEach(
          [instanceChannel(instanceId), broadcastChannel],
          (channel) =>
            Effect.flatMap(redis.subscribe(channel), (queue) =>
              Effect.forkScoped(
                Effect.forever(Effect.flatMap(Queue.take(queue), (message) => {
                  const decoded = decodeEnvelope(message.message)
                  if (decoded._tag === "None" || decoded.value.origin === instanceId) return Effect.void
                  // One message that cannot be handled must not end the subscription.
                  return deliver(decoded.value.message as Routed).pipe(
                    Effect.catchCause((cause) =>
                      Effect.logWarning("A session directory message could not be handled", cause)
                    )
                  )
                })).pipe(
                  Effect.catch((error) =>
                    reportFailure("subscribe", "Redis subscription of the session directory ended", error)
                  )
                )
              )),
          { discard: true }
        )
    })
  })
