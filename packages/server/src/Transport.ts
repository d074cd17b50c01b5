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
import type { AuthInfo } from "./Authorization.ts"

/**
 * One incoming message, as a transport hands it to the dispatcher.
 *
 * - `message`: the parsed JSON value (anything: the dispatcher validates it).
 * - `headers`: HTTP only; looks a header up by case-insensitive name.
 * - `principal`: the authenticated user, when the transport knows one; bound
 *   into every sealed `requestState`.
 * - `auth`: the verified access token's caller and scopes (HTTP with
 *   `Authorization.layer`); its `principal` is the one above.
 *
 * @since 0.1.0
 */
export interface Incoming {
  readonly message: unknown
  readonly headers?: ((name: string) => string | undefined) | undefined
  readonly principal?: string | undefined
  readonly auth?: AuthInfo | undefined
}

/**
 * A JSON-RPC message as written on the wire (already encoded).
 *
 * @since 0.1.0
 */
export type WireMessage = { readonly jsonrpc: "2.0" } & Readonly<Record<string, unknown>>

/**
 * What the dispatcher answers:
 * - `Response`: one JSON-RPC response (result or error) with the HTTP status
 *   the spec gives it (200, or 400/404/500 for errors).
 * - `Accepted`: the message was a notification (HTTP 202, nothing on stdio).
 * - `Stream`: messages to write in order, as SSE events on HTTP or lines on
 *   stdio, ending with the response when there is one. Used when a request
 *   emits notifications (progress, log) before its response, and for
 *   `subscriptions/listen`, whose stream ends only when the client goes away
 *   or the server shuts down. The transport interrupts the stream when the
 *   client disconnects, which cancels the request.
 *
 * @since 0.1.0
 */
export type Reply =
  | { readonly _tag: "Response"; readonly message: WireMessage; readonly httpStatus: number }
  | { readonly _tag: "Accepted" }
  | { readonly _tag: "Stream"; readonly messages: Stream.Stream<WireMessage> }

/**
 * The dispatcher as transports see it. `handle` never fails: every problem
 * becomes a JSON-RPC error response. `requiredScopes(message)`, when
 * present, names the OAuth scopes the message's target (tool, prompt,
 * resource) declared; an authorizing transport checks them before `handle`
 * (HTTP 403 `insufficient_scope`, MCP 2026-07-28 basic/authorization).
 *
 * @since 0.1.0
 */
export interface Handler {
  readonly handle: (incoming: Incoming) => Effect.Effect<Reply>
  readonly requiredScopes?: ((message: unknown) => ReadonlyArray<string>) | undefined
}
