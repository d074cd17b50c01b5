/**
 * In-memory client transport: hands each message straight to a server
 * dispatcher in the same process (a `Handler`, as `@mrtr/server` provides it
 * through its `McpHandler` service), with a JSON round trip (serialize +
 * parse) in both directions so client and server never share objects and
 * see exactly the wire shapes.
 *
 * The handler is typed structurally (`Handler` below), so this package does
 * not depend on `@mrtr/server`; `@mrtr/testing` wires the two together.
 * With `simulateHttp: true` the client's HTTP headers are passed along too
 * (as `Incoming.headers`), so the server checks them as it would on HTTP.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Stream } from "effect"
import { ClientTransport, decodeJson, encodeJson } from "./ClientTransport.ts"
import type { TransportError } from "./Errors.ts"

/**
 * One message as the dispatcher receives it: the parsed JSON value and,
 * when simulating HTTP, a case-insensitive header lookup.
 * (Structurally `Incoming` of `@mrtr/server`.)
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @since 0.1.0
 */
export interface Incoming {
  readonly message: unknown
  readonly headers?: ((name: string) => string | undefined) | undefined
}

/**
 * What the dispatcher answers: one response, `Accepted` for a notification,
 * or a stream of messages ending with the response.
 * (Structurally `Reply` of `@mrtr/server`.)
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @since 0.1.0
 */
export type Reply =
  | { readonly _tag: "Response"; readonly message: unknown; readonly httpStatus: number }
  | { readonly _tag: "Accepted" }
  | { readonly _tag: "Stream"; readonly messages: Stream.Stream<unknown> }

/**
 * A server dispatcher: `handle(incoming)` never fails.
 * (Structurally `Handler` of `@mrtr/server`, i.e. the `McpHandler` service.)
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @since 0.1.0
 */
export interface Handler {
  readonly handle: (incoming: Incoming) => Effect.Effect<Reply>
}

/**
 * Options: `simulateHttp` (default `false`) passes the client's HTTP headers
 * to the handler and makes the client compute them (`usesHeaders`), so the
 * server validates `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
 * `Mcp-Param-*` exactly as on Streamable HTTP.
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @since 0.1.0
 */
export interface Options {
  readonly simulateHttp?: boolean | undefined
}

const roundTrip = (value: unknown): Effect.Effect<unknown, TransportError> =>
  Effect.flatMap(encodeJson(value), decodeJson)

/**
 * Builds the transport over `handler`.
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @since 0.1.0
 */
export const make = (handler: Handler, options: Options = {}): ClientTransport["Service"] => {
  const simulateHttp = options.simulateHttp ?? false
  const deliver = (message: unknown, headers: Readonly<Record<string, string>>) =>
    Effect.gen(function*() {
      const wire = yield* roundTrip(message)
      const lowered = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))
      return yield* handler.handle(
        simulateHttp ? { message: wire, headers: (name) => lowered.get(name.toLowerCase()) } : { message: wire }
      )
    })
  return ClientTransport.of({
    kind: "memory",
    usesHeaders: simulateHttp,
    request: (message, headers) =>
      Stream.unwrap(deliver(message, headers).pipe(
        Effect.map((reply): Stream.Stream<unknown, TransportError> => {
          switch (reply._tag) {
            case "Accepted":
              return Stream.empty
            case "Response":
              return Stream.fromEffect(roundTrip(reply.message))
            case "Stream":
              return Stream.mapEffect(reply.messages, roundTrip)
          }
        })
      )),
    notify: (message, headers) => Effect.asVoid(deliver(message, headers)),
    notifications: Stream.never
  })
}

/**
 * The transport as a Layer over a given handler.
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @since 0.1.0
 */
export const layer = (handler: Handler, options?: Options): Layer.Layer<ClientTransport> =>
  Layer.succeed(ClientTransport, make(handler, options))
