/**
 * What the pieces of one connection (`eras.ts`) share: the mutable state of
 * the connection (`ConnectionState`, created by `eras.ts`'s `make` and handed
 * to each piece), the calls in flight, the process-wide JSON-RPC id counter,
 * and the two ways the connection writes outside a request's exchange
 * (`legacyHeaders`, `respond`).
 *
 * Gotchas:
 * - The state belongs to one connection: it lives in the object `make`
 *   creates, never in a module. Only the id counter is module-wide, on
 *   purpose (ids are unique across every client of the process).
 * - `connection` is set once the connection is established and replaced
 *   when a 2025-11-25 session is initialized again; both happen under
 *   `lock`, but readers (`dispatch`, `rootsChanged`) read it without it.
 * - `respond` never fails: a message the server cannot be given is logged
 *   (debug) and dropped.
 *
 * Source: MCP 2026-07-28, basic (JSON-RPC request ids); MCP 2025-11-25,
 * basic/lifecycle, basic/transports (the `MCP-Protocol-Version` header).
 */
import { type Deferred, Effect, type Semaphore } from "effect"
import type { DiscoverResult } from "@mrtr/protocol/Schema"
import type { ClientTransport } from "../ClientTransport.ts"
import type { InputHandlerError } from "../Errors.ts"
import type { Connection } from "./eraTypes.ts"
import type { Handlers } from "./inputHandlers.ts"
import type { ServerRequest } from "../Models.ts"
import type { CallKeys } from "./serverRequests.ts"

/**
 * JSON-RPC ids come from one process-wide counter, so no two requests sent by
 * any clients of this process share an id (a manual-mode retry made through a
 * fresh client still gets a new id).
 */
let nextRequestId = 1

/** The next JSON-RPC id (`nextRequestId++`). */
export const takeRequestId = (): number => nextRequestId++

/** Whether `u` is a JSON object (not `null`, not an array). */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** A 2025-11-25 call in flight: how the server requests that belong to it are answered and reported. */
export interface ActiveCall {
  readonly keys: CallKeys
  readonly handlers: Handlers
  readonly failed: Deferred.Deferred<never, InputHandlerError>
  readonly failOnHandlerError: boolean
  readonly onServerRequest?: ((request: ServerRequest) => Effect.Effect<void>) | undefined
}

/** The mutable state of one connection, created by `make` and shared by its pieces. */
export interface ConnectionState {
  /** The negotiated connection; `undefined` until it is established (nothing is sent before the first request). */
  connection: Connection | undefined
  /** The probe's `DiscoverResult`, until `takeDiscovered` takes it. */
  discovered: DiscoverResult | undefined
  /** One permit: the connection is established (or its session renewed) by one fiber at a time. */
  readonly lock: Semaphore.Semaphore
  /** The 2025-11-25 calls in flight (a server request outside any stream belongs to the one call, if only one). */
  readonly active: Set<ActiveCall>
  /** The key counters of the server requests that belong to the connection rather than to a call. */
  readonly connectionKeys: CallKeys
  /** How many server requests are being answered (at most `MAX_PENDING_SERVER_REQUESTS`). */
  pending: number
}

/** The headers of a 2025-11-25 message at `version`: `MCP-Protocol-Version` when the transport sends headers (`usesHeaders`), else none. */
export const legacyHeaders = (transport: ClientTransport["Service"], version: string): Record<string, string> =>
  transport.usesHeaders ? { "mcp-protocol-version": version } : {}

/** Sends `message` (an answer or a notification) outside any exchange; a failure is logged (debug), never raised. */
export const respond = (
  transport: ClientTransport["Service"],
  message: Parameters<ClientTransport["Service"]["notify"]>[0],
  headers: Record<string, string>
) =>
  transport.notify(message, headers).pipe(
    Effect.catch((error) => Effect.logDebug("Could not answer the server's request", error.message))
  )
