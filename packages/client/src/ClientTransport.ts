/**
 * The contract between `McpClient` and the transports that carry its
 * messages (Streamable HTTP, stdio, in-memory).
 *
 * The client builds every JSON-RPC message itself (ids, `_meta`, MRTR
 * retries) and computes the HTTP headers that mirror it; a transport only
 * delivers a message and streams back what belongs to it: zero or more
 * notifications (progress, log) followed by the response, and on 2025-11-25
 * the requests the server makes while serving it. Messages arrive as parsed
 * JSON values (`unknown`); the client validates them and answers the
 * server's requests through `notify`.
 *
 * Source: MCP 2026-07-28, basic/transports; MCP 2025-11-25, basic/transports.
 *
 * @since 0.1.0
 */
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import type { Stream } from "effect"
import { Context, Effect } from "effect"
import { TransportError } from "./Errors.ts"

/**
 * A JSON-RPC request as the client sends it: `{ jsonrpc: "2.0", id, method, params }`.
 * In 2026-07-28 `params._meta` is always present.
 *
 * MCP 2026-07-28, schema `JSONRPCRequest`.
 *
 * @category models
 * @since 0.1.0
 */
export interface OutgoingRequest {
  readonly jsonrpc: "2.0"
  readonly id: RequestId
  readonly method: string
  readonly params: Readonly<Record<string, unknown>>
}

/**
 * A JSON-RPC notification as the client sends it (e.g.
 * `notifications/cancelled` on stdio): `{ jsonrpc: "2.0", method, params? }`.
 *
 * MCP 2026-07-28, schema `JSONRPCNotification`.
 *
 * @category models
 * @since 0.1.0
 */
export interface OutgoingNotification {
  readonly jsonrpc: "2.0"
  readonly method: string
  readonly params?: Readonly<Record<string, unknown>> | undefined
}

/**
 * A JSON-RPC response the client sends back to a request the server made
 * (2025-11-25 only: `elicitation/create`, `sampling/createMessage`,
 * `roots/list`, `ping`): `{ jsonrpc: "2.0", id, result }` or
 * `{ jsonrpc: "2.0", id, error: { code, message, data? } }`, `id` the
 * server's request id.
 *
 * MCP 2025-11-25, schema `JSONRPCResponse` / `JSONRPCError`.
 *
 * @category models
 * @since 0.1.0
 */
export type OutgoingResponse =
  | { readonly jsonrpc: "2.0"; readonly id: RequestId; readonly result: Readonly<Record<string, unknown>> }
  | {
    readonly jsonrpc: "2.0"
    readonly id: RequestId
    readonly error: { readonly code: number; readonly message: string; readonly data?: unknown }
  }

/**
 * A transport as `McpClient` sees it.
 *
 * - `kind`: `"http"`, `"stdio"` or `"memory"` (diagnostics).
 * - `usesHeaders`: `true` when the transport sends the HTTP headers the
 *   client computes (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
 *   `Mcp-Param-*`). The client then learns tools' `x-mcp-header`
 *   annotations from `tools/list` before calling them, and refuses tools
 *   whose annotations are invalid.
 * - `request(message, headers)`: sends one request; the stream emits the
 *   messages that belong to it, in order: notifications, then the response
 *   (the client stops pulling after the response). Interrupting the stream
 *   cancels the request (HTTP: the connection is closed; stdio: a
 *   `notifications/cancelled` is sent). Fails with `TransportError` when the
 *   message cannot be delivered or the stream ends without a response.
 * - `notify(message, headers)`: sends a message that expects no answer: a
 *   notification, or (2025-11-25) a response to a request the server made.
 * - `notifications`: messages that arrived outside any request's stream
 *   (stdio: notifications that cannot be tied to a request, and every
 *   request the server makes); never ends.
 * - `listen(headers)` (optional; HTTP): opens the 2025-11-25 GET stream of
 *   the session, which carries the server's requests and notifications that
 *   belong to no request. A server without one (HTTP 405) gives an empty
 *   stream.
 * - `signInMillis(now)` (optional; HTTP with `Authorization`): the
 *   milliseconds, in the `Clock`'s time, the transport has spent so far
 *   signing in (the user's consent, the authorization server's exchanges)
 *   rather than waiting for the MCP server; the client's `requestTimeout`
 *   and `probeTimeout` do not count them.
 *
 * Streamable HTTP transports keep the 2025-11-25 session themselves: the
 * `Mcp-Session-Id` a response sets is sent on every later request (an
 * `initialize` starts over without one) and ended with `DELETE` when the
 * transport closes.
 *
 * MCP 2026-07-28, basic/transports; MCP 2025-11-25, basic/transports.
 *
 * @category services
 * @since 0.1.0
 */
export class ClientTransport extends Context.Service<ClientTransport, {
  readonly kind: "http" | "stdio" | "memory"
  readonly usesHeaders: boolean
  readonly request: (
    message: OutgoingRequest,
    headers: Readonly<Record<string, string>>
  ) => Stream.Stream<unknown, TransportError>
  readonly notify: (
    message: OutgoingNotification | OutgoingResponse,
    headers: Readonly<Record<string, string>>
  ) => Effect.Effect<void, TransportError>
  readonly notifications: Stream.Stream<unknown>
  readonly listen?: ((headers: Readonly<Record<string, string>>) => Stream.Stream<unknown, TransportError>) | undefined
  readonly signInMillis?: ((now: number) => number) | undefined
}>()("@mrtr/client/ClientTransport") {}

/**
 * Serializes a message to JSON text, failing with `TransportError` when it
 * is not serializable (a cycle, a BigInt).
 *
 * MCP 2026-07-28, basic/transports (messages are UTF-8 encoded JSON-RPC).
 *
 * @category encoding
 * @since 0.1.0
 */
export const encodeJson = (message: unknown): Effect.Effect<string, TransportError> =>
  Effect.try({
    try: () => JSON.stringify(message),
    catch: (cause) => new TransportError({ reason: "Cannot serialize the message as JSON", cause })
  })

/**
 * Parses one JSON text, failing with `TransportError` when it is not JSON.
 *
 * MCP 2026-07-28, basic/transports (messages are UTF-8 encoded JSON-RPC).
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeJson = (text: string): Effect.Effect<unknown, TransportError> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (cause) => new TransportError({ reason: "The server sent invalid JSON", cause })
  })
