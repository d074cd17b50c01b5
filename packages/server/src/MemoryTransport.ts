/**
 * In-memory transport: calls the dispatcher directly, with a JSON round trip
 * (serialize + parse) on every message in both directions, so callers see real
 * wire shapes (no `undefined` members, no class instances, no shared objects).
 * Meant for tests and as the server end of an in-process client transport.
 *
 * Source: MCP 2026-07-28, basic/transports (the message shapes are those of
 * Streamable HTTP; `headers` stand in for HTTP request headers).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Stream } from "effect"
import { McpHandler } from "./McpHandler.ts"
import type { Handler, Reply, WireMessage } from "./Transport.ts"

/**
 * The client side of an in-memory connection to the dispatcher.
 *
 * - `send(message, headers?, principal?)`: hands one message (any
 *   JSON-serializable value) to the dispatcher and returns its `Reply` with
 *   every outgoing message JSON round-tripped (`Stream` messages lazily, as
 *   they are pulled). `headers` are looked up case-insensitively, as on HTTP
 *   (e.g. `{ "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call" }`);
 *   `principal` is passed as `Incoming.principal`. Dies (defect) if `message`
 *   is not JSON-serializable (a caller bug, not a protocol error).
 * - `request(message, headers?, principal?)`: `send`, then all messages of
 *   the reply as an array: `[response]` for `Response`, `[]` for `Accepted`,
 *   and for `Stream` every message up to and including the response to the
 *   request's `id` (or until the stream ends). Do not use it for
 *   `subscriptions/listen`, whose stream has no response and does not end:
 *   use `send` and consume the stream.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category services
 * @since 0.1.0
 */
export class MemoryChannel extends Context.Service<MemoryChannel, {
  readonly send: (
    message: unknown,
    headers?: Readonly<Record<string, string>>,
    principal?: string
  ) => Effect.Effect<Reply>
  readonly request: (
    message: unknown,
    headers?: Readonly<Record<string, string>>,
    principal?: string
  ) => Effect.Effect<ReadonlyArray<WireMessage>>
}>()("@mrtr/server/MemoryChannel") {}

/**
 * Builds a `MemoryChannel` over a given `Handler` (no services needed).
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromHandler = (handler: Handler): MemoryChannel["Service"] => {
  const send = (
    message: unknown,
    headers?: Readonly<Record<string, string>>,
    principal?: string
  ): Effect.Effect<Reply> =>
    Effect.gen(function*() {
      const wire = yield* roundTrip(message)
      const lowered = new Map<string, string>()
      for (const [name, value] of Object.entries(headers ?? {})) lowered.set(name.toLowerCase(), value)
      const reply = yield* handler.handle({
        message: wire,
        headers: (name) => lowered.get(name.toLowerCase()),
        principal
      })
      switch (reply._tag) {
        case "Accepted":
          return reply
        case "Response":
          return { ...reply, message: yield* roundTrip(reply.message) }
        case "Stream":
          return { _tag: "Stream", messages: Stream.mapEffect(reply.messages, roundTrip) } satisfies Reply
      }
    })

  const request = (
    message: unknown,
    headers?: Readonly<Record<string, string>>,
    principal?: string
  ): Effect.Effect<ReadonlyArray<WireMessage>> =>
    Effect.flatMap(send(message, headers, principal), (reply) => {
      switch (reply._tag) {
        case "Accepted":
          return Effect.succeed([])
        case "Response":
          return Effect.succeed([reply.message])
        case "Stream":
          return Stream.runCollect(Stream.takeUntil(reply.messages, isFinalFor(requestIdOf(message))))
      }
    })

  return MemoryChannel.of({ send, request })
}

/**
 * Builds a `MemoryChannel` over the `McpHandler` in context.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<MemoryChannel["Service"], never, McpHandler> = Effect.map(McpHandler, fromHandler)

/**
 * Provides `MemoryChannel` over the `McpHandler` (the dispatcher).
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<MemoryChannel, never, McpHandler> = Layer.effect(MemoryChannel, make)

// -----------------------------------------------------------------------------
// Internal
// -----------------------------------------------------------------------------

const roundTrip = <A>(value: A): Effect.Effect<A> =>
  Effect.sync(() => {
    const json = JSON.stringify(value)
    if (json === undefined) {
      throw new Error(`MemoryTransport: value is not JSON-serializable: ${String(value)}`)
    }
    return JSON.parse(json) as A
  })

type RequestId = string | number

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const requestIdOf = (message: unknown): RequestId | undefined =>
  isObject(message) && typeof message["method"] === "string" &&
    (typeof message["id"] === "string" || typeof message["id"] === "number")
    ? message["id"]
    : undefined

const isFinalFor = (id: RequestId | undefined) => (message: WireMessage): boolean =>
  !("method" in message) && ("result" in message || "error" in message) &&
  (id === undefined || message["id"] === id)
