/**
 * 2025-11-25 sessions: what a legacy client declared in `initialize` and what
 * the server holds for it between messages (the negotiated version, the
 * capabilities the shim checks asks against, the log level of
 * `logging/setLevel`, resource subscriptions, the server-to-client requests
 * awaiting answers, the requests in flight, and the SSE event log used for
 * `Last-Event-ID` resumption).
 *
 * A session is created by `initialize`: on Streamable HTTP it is found by its
 * `Mcp-Session-Id` (a random UUID: visible ASCII, cryptographically secure),
 * on stdio by the connection. The store is bounded, by shares: a session
 * counts in its principal's share, else in its client address's
 * (`ClientAddress` at `initialize`). A share at `maxSessionsPerPrincipal`
 * makes room by ending its own least recently active session (one with a
 * GET stream too; never one with a request in progress), else its
 * `initialize` is refused (503); at `maxSessions` in all, the largest share
 * gives up its least recently active session (idle ones first) if it holds
 * more than the newcomer's, else the newcomer's own share does: a share
 * never ends a session of a share smaller than its own. Each session ends after `idleTimeout`
 * without traffic, each with at most `maxPendingLegs` unanswered
 * server-to-client requests. Idle sessions are swept on the next legacy
 * message, so memory returns to its baseline once sessions end. A stdio
 * session is neither swept nor evicted: it ends with its connection.
 *
 * Sessions and the fleet: with the local `SessionDirectory` (the default)
 * sessions live in this process only, and behind a load balancer a
 * 2025-11-25 client needs affinity (elsewhere its id is unknown: 404). With
 * a shared directory (Redis, `Redis.layerFleet`) no affinity is needed: the
 * store here holds the sessions this instance created and local replicas of
 * those it served a message of (`fleet.ts`), each refreshed from the
 * directory on every message, and ended when the directory says so. A
 * session ended to make room has its record deleted too (`makeStore`'s
 * `evicted`): otherwise its next message would rebuild it as a replica and
 * the shares would bound nothing. What
 * still lives in one process: a request's stream and its legs (the answers
 * are routed to the owner by the leg id, `mrtr.<instance>.<n>`), the event
 * logs (a `Last-Event-ID` of another instance's stream is served by asking
 * that instance, `resume.ts`; if it is gone the request fails with -32603),
 * and the GET stream (list changes and resource updates reach the instance
 * holding it).
 * Stream ids name their instance (`<instance>:<n>`, and for a POST stream
 * `:<base64url of the JSON request id>`), so any instance tells whose stream
 * a `Last-Event-ID` is. `maxSessions` bounds the sessions (and replicas) of
 * one instance. The 2026-07-28 wire never needs affinity.
 * Source: MCP 2025-11-25, basic/lifecycle, basic/transports (session management,
 * resumability).
 */
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import type { LoggingLevel } from "@mrtr/protocol/Meta"
import type { ClientCapabilities, Implementation } from "@mrtr/protocol/Schema"
import { type Cause, Deferred, Effect, Fiber, Queue } from "effect"
import type { WireMessage } from "../../Transport.ts"

/** The bounds of the session store; see the module header. */
export interface Limits {
  readonly maxSessions: number
  /** Most sessions of one principal, or of one client address without a principal. */
  readonly maxSessionsPerShare: number
  /** Milliseconds without any message before a session ends. */
  readonly idleTimeoutMs: number
  readonly maxPendingLegs: number
  /** Milliseconds a server-to-client request may wait for its answer. */
  readonly legTimeoutMs: number
}

/** How a leg ended when it did not get a result: the client's JSON-RPC error. */
export class LegRejected {
  readonly _tag = "LegRejected"
  constructor(readonly error: unknown) {}
}

/**
 * One SSE stream of a session (a POST's or the GET stream), with its recent
 * events for replay. A POST stream's `subscriber` is the connection its live
 * messages go to: the POST's own response, or, once the server closed that
 * connection (`detached`, SEP-1699 polling), the GET that resumed it with
 * `Last-Event-ID`. `done` once its response is recorded.
 */
export interface EventStream {
  readonly id: string
  readonly kind: "post" | "get"
  seq: number
  readonly events: Array<{ readonly seq: number; readonly message: WireMessage }>
  subscriber: Queue.Queue<WireMessage, Cause.Done> | undefined
  detached: boolean
  done: boolean
}

const MAX_EVENTS_PER_STREAM = 256
const MAX_STREAMS_KEPT = 32

/** A 2025-11-25 session. */
export interface Session {
  readonly id: string
  /** The instance that holds this copy of the session (names its legs and streams). */
  readonly instanceId: string
  /** The authenticated principal that opened the session; only it may use the session id. */
  readonly principal: string | undefined
  /** The share it counts in (`principal:<p>`, `address:<a>`, or undefined for neither): see the module header. */
  readonly share: string | undefined
  readonly protocolVersion: string
  readonly clientCapabilities: ClientCapabilities
  readonly clientInfo: Implementation | undefined
  logLevel: LoggingLevel | undefined
  initialized: boolean
  readonly subscriptions: Set<string>
  /** Server-to-client requests awaiting their answer, by JSON-RPC id. */
  readonly legs: Map<RequestId, Deferred.Deferred<unknown, LegRejected>>
  /** Client requests in progress, by JSON-RPC id (for `notifications/cancelled`). */
  readonly inflight: Map<RequestId, Fiber.Fiber<unknown, unknown>>
  nextLegId: number
  lastActive: number
  /** The GET stream's queue while one is open (HTTP); messages outside any request go there. */
  getStream: Queue.Queue<WireMessage, Cause.Done> | undefined
  /** stdio: where messages outside any request go. */
  readonly send: ((message: WireMessage) => Effect.Effect<void>) | undefined
  readonly streams: Map<string, EventStream>
  /** The SSE event id of every recorded message. */
  readonly eventIds: WeakMap<WireMessage, string>
  nextStream: number
  ended: boolean
  /** stdio: the client's input ended, so no answer to a server-to-client request can arrive (see `endInput`). */
  inputEnded: boolean
}

/** Longest JSON request id encoded in a POST stream's id (longer ones are left out: such a lost stream fails no request). */
const MAX_ENCODED_ID = 128

/**
 * Opens an event stream of `session` (HTTP SSE); its events get ids
 * `<stream>.<seq>`, the stream's id naming the instance (and, for the stream
 * of a POST, the request's JSON-RPC id).
 */
export const openStream = (session: Session, kind: "post" | "get" = "get", requestId?: RequestId): EventStream => {
  const json = requestId === undefined ? undefined : JSON.stringify(requestId)
  const encoded = json === undefined || json.length > MAX_ENCODED_ID
    ? ""
    : `:${Buffer.from(json).toString("base64url")}`
  const stream: EventStream = {
    id: `${session.instanceId}:${session.nextStream++}${kind === "post" ? encoded : ""}`,
    kind,
    seq: 0,
    events: [],
    subscriber: undefined,
    detached: false,
    done: false
  }
  session.streams.set(stream.id, stream)
  if (session.streams.size > MAX_STREAMS_KEPT) {
    const oldest = session.streams.keys().next().value
    if (oldest !== undefined) session.streams.delete(oldest)
  }
  return stream
}

/** Records `message` on `stream` and returns its event id (also kept in `session.eventIds`). */
export const record = (session: Session, stream: EventStream, message: WireMessage): string => {
  const seq = ++stream.seq
  stream.events.push({ seq, message })
  if (stream.events.length > MAX_EVENTS_PER_STREAM) stream.events.shift()
  const id = `${stream.id}.${seq}`
  session.eventIds.set(message, id)
  return id
}

/**
 * Records `message` on a POST stream and hands it to the stream's current
 * connection, if any; a response ends the stream (and that connection).
 */
export const deliver = (session: Session, stream: EventStream, message: WireMessage): void => {
  record(session, stream, message)
  const subscriber = stream.subscriber
  if (subscriber !== undefined) Queue.offerUnsafe(subscriber, message)
  if (!("method" in message)) finish(session, stream)
}

/**
 * Ends a POST stream: its current connection gets no more messages. A stream
 * the server never detached is forgotten at once (its connection saw every
 * message, and closing it cancels the request): only a detached one is kept
 * for the GET that resumes it, within the session's bound on kept streams.
 */
export const finish = (session: Session, stream: EventStream): void => {
  stream.done = true
  const subscriber = stream.subscriber
  stream.subscriber = undefined
  if (subscriber !== undefined) Queue.endUnsafe(subscriber)
  if (!stream.detached && session.streams.get(stream.id) === stream) session.streams.delete(stream.id)
}

/**
 * Hands a live POST stream to `queue`, the connection that resumed it (a GET
 * with `Last-Event-ID`, here or on another instance): the stream counts as
 * detached first, so the end of its previous connection (ended here) does not
 * cancel the request, and its later messages and response go to `queue`.
 */
export const takeOver = (stream: EventStream, queue: Queue.Queue<WireMessage, Cause.Done>): void => {
  stream.detached = true
  const previous = stream.subscriber
  stream.subscriber = queue
  if (previous !== undefined) Queue.endUnsafe(previous)
}

/** The events after `lastEventId` on its stream, and that stream; undefined for an unknown id. */
export const replayAfter = (
  session: Session,
  lastEventId: string
): { readonly stream: EventStream; readonly events: ReadonlyArray<WireMessage> } | undefined => {
  const dot = lastEventId.lastIndexOf(".")
  if (dot <= 0) return undefined
  const stream = session.streams.get(lastEventId.slice(0, dot))
  const seq = Number(lastEventId.slice(dot + 1))
  if (stream === undefined || !Number.isSafeInteger(seq)) return undefined
  return { stream, events: stream.events.filter((e) => e.seq > seq).map((e) => e.message) }
}

/**
 * What a stream id says (see {@link openStream}): its instance and, for a
 * POST stream, the request id; undefined for an id of no stream of ours.
 */
export const parseStreamId = (
  streamId: string
): { readonly instance: string; readonly requestId: RequestId | undefined } | undefined => {
  const [instance, n, encoded, ...rest] = streamId.split(":")
  if (instance === undefined || n === undefined || rest.length > 0 || !/^[0-9a-f]{1,32}$/.test(instance)) {
    return undefined
  }
  if (encoded === undefined) return { instance, requestId: undefined }
  try {
    const id: unknown = JSON.parse(Buffer.from(encoded, "base64url").toString("utf8"))
    return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id))
      ? { instance, requestId: id }
      : undefined
  } catch {
    return undefined
  }
}

/** Sends a message outside any request: the GET stream (HTTP) or the connection (stdio); dropped when neither. */
export const sendOutside = (session: Session, message: WireMessage): Effect.Effect<void> => {
  if (session.ended) return Effect.void
  if (session.send !== undefined) return session.send(message)
  const queue = session.getStream
  return queue === undefined ? Effect.void : Effect.asVoid(Queue.offer(queue, message))
}

/**
 * The client's input ended (stdio): no answer can arrive, so its pending legs fail now, and later ones at once
 * (the shim checks `inputEnded`); its requests run on, to answer what they can.
 */
export const endInput = (session: Session): Effect.Effect<void> =>
  Effect.suspend(() => {
    session.inputEnded = true
    const legs = Array.from(session.legs.values())
    session.legs.clear()
    return Effect.forEach(
      legs,
      (leg) => Deferred.fail(leg, new LegRejected({ code: -32603, message: "The client closed its input" })),
      { discard: true }
    )
  })

/** Ends a session: interrupts its requests, fails its pending legs, closes its GET stream. */
export const end = (session: Session): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (session.ended) return Effect.void
    session.ended = true
    const fibers = Array.from(session.inflight.values())
    session.inflight.clear()
    const legs = Array.from(session.legs.values())
    session.legs.clear()
    const queue = session.getStream
    session.getStream = undefined
    for (const stream of Array.from(session.streams.values())) finish(session, stream)
    session.streams.clear()
    return Effect.andThen(
      Effect.forEach(legs, (leg) => Deferred.fail(leg, new LegRejected({ code: -32603, message: "Session ended" })), {
        discard: true
      }),
      Effect.andThen(
        queue === undefined ? Effect.void : Queue.end(queue),
        Effect.forEach(fibers, (fiber) => Fiber.interrupt(fiber), { discard: true, concurrency: "unbounded" })
      )
    )
  })

/** The share of a session: its principal's, else its client address's; undefined for neither (one share). */
export const shareOf = (principal: string | undefined, address: string | undefined): string | undefined =>
  principal !== undefined ? `principal:${principal}` : address !== undefined ? `address:${address}` : undefined

/** What a new session starts with. */
export interface NewSession {
  readonly protocolVersion: string
  readonly clientCapabilities: ClientCapabilities
  readonly clientInfo: Implementation | undefined
  readonly send?: ((message: WireMessage) => Effect.Effect<void>) | undefined
  readonly principal: string | undefined
  /** The client address of the message that creates it (`ClientAddress`): its share without a principal. */
  readonly address: string | undefined
  readonly stored: boolean
  /** A replica of a session of the shared directory: its id and what it holds. */
  readonly replica?: {
    readonly id: string
    readonly initialized: boolean
    readonly logLevel: LoggingLevel | undefined
    readonly subscriptions: ReadonlyArray<string>
  } | undefined
}

/** The sessions of one server instance, bounded by `limits` (see the module header). */
export interface Store {
  readonly limits: Limits
  readonly sessions: Map<string, Session>
  /** Ends the sessions idle past `limits.idleTimeoutMs` (at most once a second). */
  readonly sweep: (now: number) => Effect.Effect<void>
  /** Makes room for one more session of `share`; false when none can be ended. */
  readonly makeRoom: (share: string | undefined) => Effect.Effect<boolean>
  readonly create: (fields: NewSession) => Session
  readonly get: (id: string) => Session | undefined
  /** Ends `session` (its streams closed, its calls interrupted). */
  readonly remove: (session: Session) => Effect.Effect<void>
}

/**
 * The store of a server's sessions. `evicted` runs for each session ended to
 * make room (with a shared directory: its record deleted, so that no instance
 * serves it again).
 */
export const makeStore = (
  limits: Limits,
  instanceId: string,
  evicted: (session: Session) => Effect.Effect<void> = () => Effect.void
): Store => {
  const sessions = new Map<string, Session>()
  let lastSweep = 0

  const sweep = (now: number): Effect.Effect<void> => {
    if (now - lastSweep < 1000) return Effect.void
    lastSweep = now
    const expired: Array<Session> = []
    for (const session of sessions.values()) {
      // A stdio session (`send`) lasts as long as its connection.
      if (
        session.send === undefined && session.inflight.size === 0 && now - session.lastActive > limits.idleTimeoutMs
      ) {
        expired.push(session)
      }
    }
    return Effect.forEach(expired, (session) => remove(session), { discard: true })
  }

  /** Sessions held, by share. */
  const shares = new Map<string | undefined, number>()

  const uncount = (session: Session) => {
    const count = (shares.get(session.share) ?? 1) - 1
    if (count <= 0) shares.delete(session.share)
    else shares.set(session.share, count)
  }

  const remove = (session: Session) =>
    Effect.suspend(() => {
      if (sessions.get(session.id) === session) {
        sessions.delete(session.id)
        uncount(session)
      }
      return end(session)
    })

  /** Ends `victim` to make room for another session: here and, through `evicted`, in the shared directory. */
  const evict = (victim: Session) => Effect.as(Effect.andThen(remove(victim), evicted(victim)), true)

  /** A session that may be ended to make room: not stdio's, and no request of it in progress. */
  const evictable = (session: Session) => session.send === undefined && session.inflight.size === 0

  /** The least recently active evictable session of `share`, those without a GET stream first. */
  const oldestOf = (share: string | undefined): Session | undefined => {
    let victim: Session | undefined
    for (const session of sessions.values()) {
      if (session.share !== share || !evictable(session)) continue
      if (
        victim === undefined ||
        (victim.getStream !== undefined && session.getStream === undefined) ||
        ((victim.getStream === undefined) === (session.getStream === undefined) &&
          session.lastActive < victim.lastActive)
      ) victim = session
    }
    return victim
  }

  /**
   * Makes room for one more session of `share` (see the module header): ends
   * a session of that share at its cap, else, with the store full, one of
   * the largest share holding more than `share`, else one of `share`; false
   * when none can be ended.
   */
  const makeRoom = (share: string | undefined): Effect.Effect<boolean> =>
    Effect.suspend(() => {
      const own = shares.get(share) ?? 0
      if (own >= limits.maxSessionsPerShare) {
        const victim = oldestOf(share)
        return victim === undefined ? Effect.succeed(false) : evict(victim)
      }
      if (sessions.size < limits.maxSessions) return Effect.succeed(true)
      // Shares from the largest down, those larger than the newcomer's first, then the newcomer's own.
      const larger = Array.from(shares).filter(([key, count]) => key !== share && count > own)
        .sort((a, b) => b[1] - a[1])
      for (const [key] of larger) {
        const victim = oldestOf(key)
        if (victim !== undefined) return evict(victim)
      }
      const victim = oldestOf(share)
      return victim === undefined ? Effect.succeed(false) : evict(victim)
    })

  const create = (fields: NewSession): Session => {
    const session: Session = {
      id: fields.replica?.id ?? globalThis.crypto.randomUUID(),
      instanceId,
      principal: fields.principal,
      share: shareOf(fields.principal, fields.address),
      protocolVersion: fields.protocolVersion,
      clientCapabilities: fields.clientCapabilities,
      clientInfo: fields.clientInfo,
      logLevel: fields.replica?.logLevel,
      initialized: fields.replica?.initialized ?? false,
      subscriptions: new Set(fields.replica?.subscriptions),
      legs: new Map(),
      inflight: new Map(),
      nextLegId: 0,
      lastActive: Date.now(),
      getStream: undefined,
      send: fields.send,
      streams: new Map(),
      eventIds: new WeakMap(),
      nextStream: 0,
      ended: false,
      inputEnded: false
    }
    if (fields.stored) {
      const replaced = sessions.get(session.id)
      if (replaced !== undefined) uncount(replaced)
      sessions.set(session.id, session)
      shares.set(session.share, (shares.get(session.share) ?? 0) + 1)
    }
    return session
  }

  return {
    limits,
    sessions,
    sweep,
    makeRoom,
    create,
    get: (id: string): Session | undefined => sessions.get(id),
    remove
  }
}
