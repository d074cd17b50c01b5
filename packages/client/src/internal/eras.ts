/**
 * The client's connection to one server, in the era the server speaks:
 * 2026-07-28 (stateless, `_meta` on every request, `input_required` rounds)
 * or 2025-11-25 (an `initialize` handshake, a session, and requests the
 * server makes in flight). Everything era-specific the client does is
 * reached from here; `McpClient` sends every request through `send`.
 *
 * This module holds the connection's types and `make`, which creates one
 * `ConnectionState` and builds the pieces over it, one concept a module:
 * - `connectionState.ts`: the shared state, the calls in flight, the JSON-RPC
 *   id counter, the 2025-11-25 headers and `respond`;
 * - `serverMessages.ts`: answering the server's requests under the bound
 *   (`bounded`) and dispatching what arrives outside a request's stream
 *   (`dispatch`);
 * - `connect.ts`: establishing the connection (`handshake`, the probe,
 *   `connect`);
 * - `eraSend.ts`: sending in the connection's era (`modernExchange`,
 *   `legacyExchange`, the session renewal, `send`);
 * - here: `takeDiscovered` and `rootsChanged`.
 *
 * What the connection does:
 * - `protocol: "auto"` probes once with `server/discover` (see `eraProbe.ts`)
 *   and remembers the verdict for the connection; `"2026-07-28"` and
 *   `"2025-11-25"` skip the probe. A legacy verdict whose `initialize` is
 *   refused the way a modern-only server refuses it (-32601, or -32022 /
 *   -32602 whose `data.supported` lists 2026-07-28) falls back to 2026-07-28.
 * - 2025-11-25: `initialize` (capabilities from the Layer's handlers,
 *   `roots.listChanged` when the roots handler reports changes), then
 *   `notifications/initialized`, `logging/setLevel` when a `logLevel` is
 *   configured and the server logs, the GET stream (HTTP), and
 *   `notifications/roots/list_changed` whenever the roots change. Requests
 *   carry `MCP-Protocol-Version` (HTTP) and only `_meta.progressToken`. A
 *   session the server no longer knows (HTTP 404, -32001) is initialized
 *   again once and the request re-sent. A request abandoned before its
 *   response is cancelled with `notifications/cancelled` (stdio: by the
 *   transport).
 * - Server requests (2025-11-25) are answered with the input handlers
 *   (`serverRequests.ts`): on a request's own stream they belong to that
 *   call; on the GET stream or stdio they belong to the one call in flight,
 *   or to the connection when there are several or none. At most 64 are
 *   answered at a time per connection; more are refused at once (-32603).
 *   On 2026-07-28 a server request on stdio gets -32601 (`ping` is answered
 *   in both eras).
 *
 * Source: MCP 2026-07-28, basic/versioning, basic/lifecycle; MCP 2025-11-25,
 * basic/lifecycle, basic/transports, client/roots, server/utilities/logging.
 */
import { Effect, Option, Semaphore } from "effect"
import type { DiscoverResult } from "@mrtr/protocol/Schema"
import { makeConnect, makeHandshake } from "./connect.ts"
import type { Deps, SendOptions } from "./eraTypes.ts"
import { type ActiveCall, type ConnectionState, legacyHeaders, respond } from "./connectionState.ts"
import { makeExchanges, makeSend } from "./eraSend.ts"
import { LEGACY_PROTOCOL_VERSION } from "./legacySession.ts"
import { MAX_PENDING_SERVER_REQUESTS, makeServerMessages } from "./serverMessages.ts"
import { callKeys } from "./serverRequests.ts"

export type { Connection, Deps, LegacyConnection, Protocol, SendOptions } from "./eraTypes.ts"

/** Builds the connection state (nothing is sent until the first request). */
export const make = (deps: Deps) => {
  const { transport } = deps
  const state: ConnectionState = {
    connection: undefined,
    discovered: undefined,
    lock: Semaphore.makeUnsafe(1),
    active: new Set<ActiveCall>(),
    connectionKeys: callKeys("", ""),
    pending: 0
  }
  // built in this order: each piece uses only the ones before it
  const { bounded, dispatch } = makeServerMessages(deps, state)
  const { legacyExchange, modernExchange } = makeExchanges(deps, state, { bounded })
  const handshake = makeHandshake(deps, state, { dispatch, legacyExchange })
  const connect = makeConnect(deps, state, { handshake, modernExchange })
  const send = makeSend(deps, state, { connect, handshake, legacyExchange, modernExchange })

  /** The probe's `DiscoverResult`, once (so the first `discover()` after the probe sends nothing). */
  const takeDiscovered: Effect.Effect<Option.Option<DiscoverResult>> = Effect.sync(() => {
    const result = state.discovered
    state.discovered = undefined
    return Option.fromNullishOr(result)
  })

  /** Sends `notifications/roots/list_changed` (2025-11-25 sessions only). */
  const rootsChanged: Effect.Effect<void> = Effect.suspend(() => {
    const current = state.connection
    return current === undefined || current.era !== "2025-11-25"
      ? Effect.void
      : respond(
        transport,
        { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
        legacyHeaders(transport, current.protocolVersion)
      )
  })

  return { connect, send, dispatch, takeDiscovered, rootsChanged }
}

/** The connection service built by `make`. */
export type Eras = ReturnType<typeof make>

export { LEGACY_PROTOCOL_VERSION }
export { MAX_PENDING_SERVER_REQUESTS }
