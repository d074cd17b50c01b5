/**
 * The clients of one upstream, leased per call.
 *
 * - A 2026-07-28 upstream reads the client's capabilities per request, so
 *   one client (one stdio process) serves every capability set: each call
 *   declares what its handlers answer (see `forward.ts`).
 * - A 2025-11-25 session (an HTTP session, a stdio process) is stateful:
 *   the upstream learns its capabilities once, at `initialize`, and keeps
 *   what it was told in it (the roots it listed, above all). So a session
 *   serves one share (`owner`: the caller's principal, else its client
 *   address's group, else the anonymous share) and one capability set,
 *   never two principals. Capability sets are first reduced to what the
 *   gateway can carry (`canonical`: elicitation form / url, sampling tools /
 *   context, roots), so at most 40 sets exist, and sessions are made to
 *   order only within bounds: `maxClients` in total and
 *   `maxClientsPerPrincipal` per share.
 * - A 2025-11-25 stdio session serves one call that may ask at a time
 *   (`exclusive`): over stdio a server's `elicitation/create`,
 *   `sampling/createMessage` or `roots/list` names no request, so with two
 *   calls in flight the client could not tell whose question it is. A call
 *   declaring any capability leases its session for its whole life (a held
 *   call until it ends); a second such call gets another session of the
 *   same share and set, within the same bounds, or `UpstreamBusy`. Over
 *   HTTP the server asks on the call's own stream, so a share's session
 *   serves its calls together. A session declaring nothing is never asked.
 * - A session whose call was abandoned before its response (`retire`: the
 *   caller left, a round suspended it, it timed out) is never leased again
 *   and closes with its last lease (a stdio process ends): its upstream may
 *   still ask for the abandoned call, and nobody is there to answer.
 *
 * The era is probed once, by the first client (the mirror's, declaring
 * nothing): the others are opened in the era it found, without a probe of
 * their own (a stdio server slow to answer would otherwise be probed again
 * by every process).
 *
 * Gotchas: a client is closed only when no call holds a lease on it: past a
 * bound the least recently used idle client is closed (past a share's
 * bound, its own, once idle for a minute, so that a caller switching
 * capability sets cannot make a process per call), and when none qualifies
 * the lease fails with
 * `UpstreamBusy` (JSON-RPC -32603, retry later) instead of taking another
 * caller's. A client whose connection failed is retired (`drop`): new calls
 * connect again, the calls still holding it end on their own, and it closes
 * with the last of them. The first client (no capabilities, the mirror's) is
 * never closed before the pool. Nothing of the downstream request (its
 * bearer token above all) reaches the upstream: only the upstream's own
 * `headers` / `env`.
 */
import { type Authorization, HttpTransport, McpClient, StdioTransport } from "@mrtr/client"
import type { ClientCapabilities, Implementation } from "@mrtr/protocol/Schema"
import { Clock, Context, Deferred, Duration, Effect, Exit, Layer, Metric, Schema, Scope } from "effect"
import * as Metrics from "../Metrics.ts"

/**
 * No client of the upstream can be made for this call now: `scope` says
 * which bound was hit (`"upstream"`: `maxClients` clients, all in use;
 * `"principal"` / `"address"` / `"anonymous"`: the caller's share of
 * `maxClientsPerPrincipal`, each in use or used within the last minute),
 * `limit` its size. The gateway answers
 * the call with JSON-RPC -32603 (InternalError: retry later).
 */
export class UpstreamBusy extends Schema.TaggedError<UpstreamBusy>()("UpstreamBusy", {
  upstream: Schema.String,
  scope: Schema.Literals(["upstream", "principal", "address", "anonymous"]),
  limit: Schema.Number
}) {
  override get message(): string {
    return `Upstream ${this.upstream} has no free client for this call: ${
      this.scope === "upstream"
        ? `its ${this.limit} clients are all in use`
        : `the ${this.limit} clients ${
          this.scope === "principal"
            ? "this user"
            : this.scope === "address"
            ? "this client address"
            : "unauthenticated callers"
        } may cause are in use or were used within the last minute`
    }; retry later`
  }
}

type Client = McpClient.McpClient["Service"]

interface Entry {
  readonly key: string
  /** The share that caused the client (`undefined`: the gateway's own). */
  readonly owner: string | undefined
  readonly scope: Scope.Closeable
  /** Connects once (cached); the client, once connected. */
  ready: Effect.Effect<Client, unknown>
  client: Client | undefined
  users: number
  /** When its last lease ended (ms). */
  idleSince: number
  retired: boolean
  closed: boolean
}

export interface Pool {
  /**
   * A client declaring `capabilities` (or, for a 2026-07-28 upstream, the
   * one client), held until the scope closes; `owner` is the caller's share
   * (`principal:…`, `address:…`, `anonymous`), `undefined` for the gateway's
   * own calls (the mirror's). Fails with `UpstreamBusy`, or the connection's
   * failure.
   */
  readonly lease: (
    capabilities: ClientCapabilities,
    owner: string | undefined
  ) => Effect.Effect<Client, unknown, Scope.Scope>
  /** The upstream's era, as the first client found it (connecting it if need be). */
  readonly era: Effect.Effect<"2026-07-28" | "2025-11-25", unknown>
  /** Retires `client` (after a transport failure): the next lease connects again. */
  readonly drop: (client: Client) => Effect.Effect<void>
  /**
   * Retires `client` after one of its calls was abandoned before its
   * response: never leased again, closed with its last lease (the base
   * client, a 2026-07-28 upstream's one client, is kept: it holds no call's
   * state).
   */
  readonly retire: (client: Client) => Effect.Effect<void>
  /** How many clients are open or connecting (each a stdio process, for a stdio upstream). */
  readonly size: () => number
  readonly close: Effect.Effect<void>
}

/** What the pool reads of an upstream (`Upstream.ts`'s `Upstream`, which it does not import: no cycle). */
type Upstream =
  | {
    readonly _tag: "Http"
    readonly name: string
    readonly url: string
    readonly headers?: Readonly<Record<string, string>> | undefined
  }
  | {
    readonly _tag: "Stdio"
    readonly name: string
    readonly command: string
    readonly args?: ReadonlyArray<string> | undefined
    readonly env?: Readonly<Record<string, string>> | undefined
    readonly cwd?: string | undefined
  }

/**
 * The capabilities the gateway can carry upstream, reduced to the flags it
 * answers by (whatever else a client declares inside them is dropped):
 * elicitation `form` / `url` (an empty object is form), sampling `tools` /
 * `context`, roots.
 */
export const canonical = (capabilities: ClientCapabilities): ClientCapabilities => {
  const out: Record<string, unknown> = {}
  const elicitation = capabilities.elicitation as Record<string, unknown> | undefined
  if (isRecord(elicitation)) {
    const form = Object.keys(elicitation).length === 0 || "form" in elicitation
    const url = "url" in elicitation
    if (form || url) out.elicitation = { ...(form ? { form: {} } : {}), ...(url ? { url: {} } : {}) }
  }
  const sampling = capabilities.sampling as Record<string, unknown> | undefined
  if (isRecord(sampling)) {
    out.sampling = { ...("context" in sampling ? { context: {} } : {}), ...("tools" in sampling ? { tools: {} } : {}) }
  }
  if (capabilities.roots !== undefined && capabilities.roots !== null) out.roots = {}
  return out as ClientCapabilities
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** How long a share's idle client stays before the share may replace it by one of another capability set. */
const REUSE_AFTER_MILLIS = 60_000

/** A session's key: the share it serves (none: the gateway's own) and its capability set. */
const keyOf = (capabilities: ClientCapabilities, owner: string | undefined): string =>
  `${owner ?? ""}\u0000${JSON.stringify(canonical(capabilities))}`
const BASE = keyOf({}, undefined)

const transportOf = (upstream: Upstream, authorization: Context.Context<Authorization.Authorization> | undefined) =>
  upstream._tag === "Http"
    ? HttpTransport.layerNode({
      url: upstream.url,
      ...(upstream.headers === undefined ? {} : { headers: upstream.headers })
    }).pipe(
      // the gateway's own OAuth client for this upstream, shared by its clients (one token per upstream)
      Layer.provide(authorization === undefined ? Layer.empty : Layer.succeedContext(authorization))
    )
    : StdioTransport.layerNode({
      command: upstream.command,
      ...(upstream.args === undefined ? {} : { args: upstream.args }),
      ...(upstream.env === undefined ? {} : { env: upstream.env }),
      ...(upstream.cwd === undefined ? {} : { cwd: upstream.cwd })
    })

const scopeOfOwner = (owner: string): "principal" | "address" | "anonymous" =>
  owner.startsWith("principal:") ? "principal" : owner.startsWith("address:") ? "address" : "anonymous"

export const make = (upstream: Upstream, options: {
  readonly clientInfo: Implementation
  readonly maxClients: number
  readonly maxClientsPerPrincipal: number
  readonly client: McpClient.Options
  /** The upstream's authorization (an HTTP upstream with `oauth`). */
  readonly authorization?: Context.Context<Authorization.Authorization> | undefined
  /** Runs after a failed connection or a lost one (the mirror then checks the upstream again). */
  readonly onUnavailable?: Effect.Effect<void> | undefined
}): Pool => {
  const unavailable = (reason: "connect" | "transport") =>
    Effect.all([
      Metric.update(Metric.withAttributes(Metrics.upstreamFailures, { upstream: upstream.name, reason }), 1),
      Metric.update(Metric.withAttributes(Metrics.upstreamAvailable, { upstream: upstream.name }), 0),
      options.onUnavailable ?? Effect.void
    ], { discard: true })
  const busy = (error: UpstreamBusy) =>
    Effect.andThen(
      Metric.update(Metric.withAttributes(Metrics.upstreamBusy, { upstream: upstream.name, scope: error.scope }), 1),
      Effect.fail(error)
    )

  // insertion order is recency: a lease moves its entry last
  const entries = new Set<Entry>()
  /** Every entry not closed yet, retired ones included. */
  const live = new Set<Entry>()

  const closeNow = (entry: Entry): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (entry.closed) return Effect.void
      entry.closed = true
      live.delete(entry)
      return Scope.close(entry.scope, Exit.void)
    })

  /** Out of the map (new leases connect again); closed now if idle, else with its last lease. */
  const retire = (entry: Entry): Effect.Effect<void> =>
    Effect.suspend(() => {
      entries.delete(entry)
      entry.retired = true
      return entry.users === 0 ? closeNow(entry) : Effect.void
    })

  /** The era the first client found, once connected: the other clients are opened in it, without a probe. */
  let era: "2026-07-28" | "2025-11-25" | undefined

  const connect = (scope: Scope.Closeable, capabilities: ClientCapabilities, isBase: boolean) =>
    Effect.gen(function*() {
      const layer = McpClient.layer({
        ...options.client,
        ...(!isBase && era !== undefined ? { protocol: era } : {}),
        clientInfo: options.clientInfo,
        // What a 2025-11-25 session declares at `initialize`; no handler Layer: each call brings its own,
        // and a 2026-07-28 request declares what they answer.
        capabilities
      }).pipe(Layer.provide(transportOf(upstream, options.authorization)))
      const context = yield* Layer.buildWithScope(layer, scope)
      const client = Context.get(context, McpClient.McpClient)
      // Connect now: a failure is this connection's, not a later call's.
      const start = yield* Clock.currentTimeMillis
      const connection = yield* client.connection
      if (isBase) {
        era = connection.era
        const probe = options.client.probeTimeout
        if (
          connection.era === "2025-11-25" && (options.client.protocol ?? "auto") === "auto" && probe !== undefined &&
          (yield* Clock.currentTimeMillis) - start >= Duration.toMillis(Duration.fromInputUnsafe(probe))
        ) {
          yield* Effect.logWarning(
            `Upstream ${upstream.name} did not answer server/discover within ${
              Duration.format(Duration.fromInputUnsafe(probe))
            }: taken as 2025-11-25 (its "protocol" skips the probe)`
          )
        }
      }
      return client
    })

  const entryOf = (key: string, capabilities: ClientCapabilities, owner: string | undefined): Entry => {
    const scope = Scope.makeUnsafe()
    const entry: Entry = {
      key,
      owner,
      scope,
      ready: Effect.never,
      client: undefined,
      users: 0,
      idleSince: 0,
      retired: false,
      closed: false
    }
    // Connects once, in the entry's scope: a caller that stops waiting (a timeout) does not abandon the connection
    // (its process would stay with the scope, and the next caller start another); the client's own bounds end it.
    let connected: Deferred.Deferred<Client, unknown> | undefined
    entry.ready = Effect.suspend(() => {
      if (connected !== undefined) return Deferred.await(connected)
      const done = connected = Deferred.makeUnsafe<Client, unknown>()
      return connect(scope, capabilities, key === BASE).pipe(
        Effect.tap((client) => Effect.sync(() => entry.client = client)),
        Effect.tapError(() => Effect.andThen(retire(entry), unavailable("connect"))),
        Effect.onExit((exit) => Deferred.done(done, exit)),
        Effect.forkIn(scope),
        Effect.andThen(Deferred.await(done))
      )
    })
    live.add(entry)
    return entry
  }

  /** The least recently used idle entry among `candidates` (never the mirror's), idle since `before` at the latest. */
  const idleOf = (candidates: Iterable<Entry>, before = Infinity): Entry | undefined => {
    for (const entry of candidates) {
      if (entry.users === 0 && entry.key !== BASE && entry.idleSince <= before) return entry
    }
    return undefined
  }

  /** Makes room for one more entry caused by `owner`, or fails. */
  const room = (owner: string | undefined): Effect.Effect<void, UpstreamBusy> =>
    Effect.gen(function*() {
      if (owner !== undefined) {
        const own = Array.from(entries).filter((entry) => entry.owner === owner)
        if (own.length >= options.maxClientsPerPrincipal) {
          // Its own idle client makes room only once idle a while: switching sets must not spawn a process per call.
          const idle = idleOf(own, (yield* Clock.currentTimeMillis) - REUSE_AFTER_MILLIS)
          if (idle === undefined) {
            return yield* busy(
              new UpstreamBusy({
                upstream: upstream.name,
                scope: scopeOfOwner(owner),
                limit: options.maxClientsPerPrincipal
              })
            )
          }
          yield* retire(idle)
        }
      }
      if (entries.size >= options.maxClients) {
        const idle = idleOf(entries)
        if (idle === undefined) {
          return yield* busy(
            new UpstreamBusy({ upstream: upstream.name, scope: "upstream", limit: options.maxClients })
          )
        }
        yield* retire(idle)
      }
    })

  const release = (entry: Entry) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      entry.users--
      if (entry.users === 0) entry.idleSince = now
      return entry.retired && entry.users === 0 ? closeNow(entry) : Effect.void
    })

  /** An entry of `key` a new lease may take: any, or for an `exclusive` one an idle one. */
  const reusable = (key: string, exclusive: boolean): Entry | undefined => {
    let found: Entry | undefined
    for (const entry of entries) {
      // the most recently used one: the others may be closed first
      if (entry.key === key && (!exclusive || entry.users === 0)) found = entry
    }
    return found
  }

  /** A lease on an entry of `owner` and `capabilities` (for an `exclusive` one, an idle one), made if need be. */
  const acquire = (capabilities: ClientCapabilities, owner: string | undefined, exclusive: boolean) =>
    Effect.acquireRelease(
      Effect.gen(function*() {
        const key = keyOf(capabilities, owner)
        let entry = reusable(key, exclusive)
        if (entry === undefined) {
          yield* room(owner)
          entry = entryOf(key, canonical(capabilities), owner)
        } else {
          entries.delete(entry)
        }
        entries.add(entry)
        entry.users++
        return entry
      }),
      release
    ).pipe(Effect.flatMap((entry) => entry.ready))

  /** The mirror's client: the first one, whose era says whether one client serves every share and capability set. */
  const base = acquire({}, undefined, false)

  const lease = (capabilities: ClientCapabilities, owner: string | undefined) =>
    Effect.gen(function*() {
      const first = yield* base
      if (keyOf(capabilities, owner) === BASE) return first
      const connection = yield* first.connection
      if (connection.era !== "2025-11-25") return first
      // over stdio a server's question cannot be told apart from another call's: one asking call per session
      const asks = Object.keys(canonical(capabilities)).length > 0
      return yield* acquire(capabilities, owner, upstream._tag === "Stdio" && asks)
    })

  const drop = (client: Client) =>
    Effect.suspend(() => {
      for (const entry of entries) {
        if (entry.client === client) return Effect.andThen(retire(entry), unavailable("transport"))
      }
      return Effect.void
    })

  const retireClient = (client: Client) =>
    Effect.suspend(() => {
      for (const entry of entries) {
        // the base client (a 2026-07-28 upstream's one client, the mirror's) keeps no call's state
        if (entry.client === client && entry.key !== BASE) {
          return retire(entry)
        }
      }
      return Effect.void
    })

  const close = Effect.suspend(() => {
    const all = Array.from(entries)
    entries.clear()
    return Effect.forEach(all, (entry) => {
      entry.retired = true
      return closeNow(entry)
    }, { discard: true })
  })

  const eraOf = Effect.scoped(Effect.flatMap(base, (client) => client.connection)).pipe(
    Effect.map((connection) => connection.era)
  )

  return { lease, era: eraOf, drop, retire: retireClient, size: () => live.size, close }
}
