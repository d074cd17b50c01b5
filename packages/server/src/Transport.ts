/**
 * The contract between the protocol dispatcher (`McpServer`) and the
 * transports that carry its messages (Streamable HTTP, stdio, in-memory).
 *
 * A transport parses bytes into one JSON value per message, hands it to
 * `McpServer.handle` with the request's headers (HTTP only), and writes back
 * what `handle` replies: one response, nothing (a notification), or a stream
 * of messages (a `subscriptions/listen` channel, or a request that emitted
 * progress or log notifications before its response).
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @since 0.1.0
 */
import type { Effect, Stream } from "effect"
import type { AuthInfo } from "./internal/authInfo.ts"

/**
 * One incoming message, as a transport hands it to the dispatcher.
 *
 * - `message`: the parsed JSON value (anything: the dispatcher validates it).
 * - `headers`: HTTP only; looks a header up by case-insensitive name.
 * - `principal`: the authenticated user, when the transport knows one; bound
 *   into every sealed `requestState`.
 * - `auth`: the verified access token's caller and scopes (HTTP with
 *   `Authorization.layer`); its `principal` is the one above.
 * - `httpMethod`: HTTP only, `"POST"` when absent. A `GET` (a 2025-11-25
 *   session's stream) or `DELETE` (ends the session) has no `message`.
 * - `connection`: stdio only, the connection (one per process) a 2025-11-25
 *   session is bound to, with its writer for messages outside any request.
 * - `canStream`: `false` when the reply cannot be a stream (the client's
 *   `Accept` lacks `text/event-stream`); a 2025-11-25 request that needs
 *   input then fails at once instead of waiting for answers that cannot come.
 *
 * Source: MCP 2026-07-28 and 2025-11-25, basic/transports.
 *
 * @category models
 * @since 0.1.0
 */
export interface Incoming {
  readonly message: unknown
  readonly headers?: ((name: string) => string | undefined) | undefined
  readonly principal?: string | undefined
  readonly auth?: AuthInfo | undefined
  readonly httpMethod?: "POST" | "GET" | "DELETE" | undefined
  readonly connection?: Connection | undefined
  readonly canStream?: boolean | undefined
}

/**
 * A stdio connection as the dispatcher sees it: `send` writes a message to
 * the client outside any request (list-changed and resource-updated
 * notifications of a 2025-11-25 session); `onClose` registers what to do
 * when the connection ends (its session ends with it); `onInputEnd`
 * (optional) registers what to do as soon as the client's input ends,
 * before the transport drains the requests still running: nothing the
 * client sends can arrive any more, so what waits for it (a 2025-11-25
 * request's answers from the client) must give up at once. Compared by
 * identity.
 *
 * Source: MCP 2025-11-25, basic/transports (stdio).
 *
 * @category models
 * @since 0.2.0
 */
export interface Connection {
  readonly send: (message: WireMessage) => Effect.Effect<void>
  readonly onClose: (finalizer: Effect.Effect<void>) => void
  readonly onInputEnd?: ((finalizer: Effect.Effect<void>) => void) | undefined
}

/**
 * SSE event ids of a `Stream` reply (2025-11-25 sessions on HTTP):
 * `prime` is the id of an empty priming event to send first (none when
 * undefined), with `retry: <retryMs>` (the reconnection delay a client
 * should wait, in milliseconds) when given; `idOf` gives each message's
 * event id, for `Last-Event-ID`.
 *
 * Source: MCP 2025-11-25, basic/transports (resumability and redelivery).
 *
 * @category models
 * @since 0.2.0
 */
export interface EventIds {
  readonly prime: string | undefined
  readonly retryMs?: number | undefined
  readonly idOf: (message: WireMessage) => string | undefined
}

/**
 * A JSON-RPC message as written on the wire (already encoded).
 *
 * @category models
 * @since 0.1.0
 */
export type WireMessage = { readonly jsonrpc: "2.0" } & Readonly<Record<string, unknown>>

/**
 * What the dispatcher answers:
 * - `Response`: one JSON-RPC response (result or error) with the HTTP status
 *   the spec gives it (200, or 400/404/500 for errors).
 *   `headers`: extra HTTP response headers (`Mcp-Session-Id` on the
 *   response to a 2025-11-25 `initialize`).
 * - `Accepted`: the message was a notification or a response (HTTP 202, or
 *   `httpStatus`; nothing on stdio).
 * - `Stream`: messages to write in order, as SSE events on HTTP or lines on
 *   stdio, ending with the response when there is one. Used when a request
 *   emits notifications (progress, log) before its response, and for
 *   `subscriptions/listen`, whose stream ends only when the client goes away
 *   or the server shuts down. The transport interrupts the stream when the
 *   client disconnects, which cancels the request. `events`: SSE event ids
 *   (2025-11-25 sessions).
 *
 * @category models
 * @since 0.1.0
 */
export type Reply =
  | {
    readonly _tag: "Response"
    readonly message: WireMessage
    readonly httpStatus: number
    readonly headers?: Readonly<Record<string, string>> | undefined
  }
  | { readonly _tag: "Accepted"; readonly httpStatus?: number | undefined }
  | {
    readonly _tag: "Stream"
    readonly messages: Stream.Stream<WireMessage>
    readonly events?: EventIds | undefined
  }

/**
 * The dispatcher as transports see it. `handle` never fails: every problem
 * becomes a JSON-RPC error response. `requiredScopes(message)`, when
 * present, names the OAuth scopes the message's target (tool, prompt,
 * resource) declared; an authorizing transport checks them before `handle`
 * (HTTP 403 `insufficient_scope`, MCP 2026-07-28 basic/authorization).
 *
 * @category models
 * @since 0.1.0
 */
export interface Handler {
  readonly handle: (incoming: Incoming) => Effect.Effect<Reply>
  readonly requiredScopes?: ((message: unknown) => ReadonlyArray<string>) | undefined
}
