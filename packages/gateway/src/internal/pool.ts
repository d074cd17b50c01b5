/**
 * The clients of one upstream: one `McpClient` per capability set the
 * gateway's own clients declared (a 2025-11-25 upstream learns a session's
 * capabilities once, at `initialize`, so each set needs a session of its own;
 * a 2026-07-28 upstream reads them per request, and shares the scheme).
 *
 * Gotchas: a client whose connection failed (a transport error: the stdio
 * child died, the HTTP server is gone) is closed and dropped, so the next
 * call connects again; the pool holds at most `maxClients` sets, the least
 * recently used one is closed past it. Nothing of the downstream request (its
 * bearer token above all) reaches the upstream: only the upstream's own
 * `headers` / `env`.
 */
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { type Authorization, HttpTransport, McpClient, StdioTransport } from "@mrtr/client"
import type { ClientCapabilities, Implementation } from "@mrtr/protocol/Schema"

interface Entry {
  readonly client: McpClient.McpClient["Service"]
  readonly scope: Scope.Closeable
}

export interface Pool {
  /** The client declaring `capabilities` (connected on first use). */
  readonly get: (capabilities: ClientCapabilities) => Effect.Effect<McpClient.McpClient["Service"], unknown>
  /** Closes the client of `capabilities` (after a transport failure): the next `get` connects again. */
  readonly drop: (capabilities: ClientCapabilities) => Effect.Effect<void>
  readonly close: Effect.Effect<void>
}

/** What the pool reads of an upstream (`Upstream.ts`'s `Upstream`, which it does not import: no cycle). */
type Upstream =
  | { readonly _tag: "Http"; readonly url: string; readonly headers?: Readonly<Record<string, string>> | undefined }
  | {
    readonly _tag: "Stdio"
    readonly command: string
    readonly args?: ReadonlyArray<string> | undefined
    readonly env?: Readonly<Record<string, string>> | undefined
    readonly cwd?: string | undefined
  }

const keyOf = (capabilities: ClientCapabilities): string => JSON.stringify(sorted(capabilities))
const sorted = (value: unknown): unknown =>
  typeof value !== "object" || value === null || Array.isArray(value)
    ? value
    : Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])]))

const transportOf = (upstream: Upstream, authorization: Context.Context<Authorization.Authorization> | undefined) =>
  upstream._tag === "Http"
    ? HttpTransport.layerNode({ url: upstream.url, ...(upstream.headers === undefined ? {} : { headers: upstream.headers }) }).pipe(
      // the gateway's own OAuth client for this upstream, shared by its clients (one token per upstream)
      Layer.provide(authorization === undefined ? Layer.empty : Layer.succeedContext(authorization))
    )
    : StdioTransport.layerNode({
      command: upstream.command,
      ...(upstream.args === undefined ? {} : { args: upstream.args }),
      ...(upstream.env === undefined ? {} : { env: upstream.env }),
      ...(upstream.cwd === undefined ? {} : { cwd: upstream.cwd })
    })

export const make = (upstream: Upstream, options: {
  readonly clientInfo: Implementation
  readonly maxClients: number
  readonly client: McpClient.Options
  /** The upstream's authorization (an HTTP upstream with `oauth`). */
  readonly authorization?: Context.Context<Authorization.Authorization> | undefined
}): Pool => {
  const entries = new Map<string, Entry>()
  const connecting = new Map<string, Effect.Effect<Entry, unknown>>()

  const closeEntry = (entry: Entry) => Scope.close(entry.scope, Exit.void)

  const connect = (key: string, capabilities: ClientCapabilities) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const layer = McpClient.layer({
        ...options.client,
        clientInfo: options.clientInfo,
        // The capabilities the gateway's own client declared; no handler Layer: each call brings its own.
        capabilities
      }).pipe(Layer.provide(transportOf(upstream, options.authorization)))
      const context = yield* Layer.buildWithScope(layer, scope).pipe(
        Effect.onError(() => Scope.close(scope, Exit.void))
      )
      const client = Context.get(context, McpClient.McpClient)
      // Connect now: a failure is this connection's, not a later call's.
      yield* client.connection.pipe(Effect.onError(() => Scope.close(scope, Exit.void)))
      const entry: Entry = { client, scope }
      entries.set(key, entry)
      while (entries.size > options.maxClients) {
        const [oldest, old] = entries.entries().next().value!
        entries.delete(oldest)
        yield* closeEntry(old)
      }
      return entry
    })

  const get = (capabilities: ClientCapabilities) =>
    Effect.suspend(() => {
      const key = keyOf(capabilities)
      const found = entries.get(key)
      if (found !== undefined) {
        // most recently used last
        entries.delete(key)
        entries.set(key, found)
        return Effect.succeed(found.client)
      }
      let pending = connecting.get(key)
      if (pending === undefined) {
        pending = Effect.runSync(Effect.cached(
          connect(key, capabilities).pipe(Effect.ensuring(Effect.sync(() => connecting.delete(key))))
        ))
        connecting.set(key, pending)
      }
      return Effect.map(pending, (entry) => entry.client)
    })

  const drop = (capabilities: ClientCapabilities) =>
    Effect.suspend(() => {
      const key = keyOf(capabilities)
      const found = entries.get(key)
      if (found === undefined) return Effect.void
      entries.delete(key)
      return closeEntry(found)
    })

  const close = Effect.suspend(() => {
    const all = Array.from(entries.values())
    entries.clear()
    return Effect.forEach(all, closeEntry, { discard: true })
  })

  return { get, drop, close }
}
