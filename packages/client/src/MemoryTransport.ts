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
import { Effect, Layer, Queue, type Scope, Stream } from "effect"
import { ClientTransport, decodeJson, encodeJson } from "./ClientTransport.ts"
import type { TransportError } from "./Errors.ts"

/**
 * One message as the dispatcher receives it: the parsed JSON value and,
 * when simulating HTTP, a case-insensitive header lookup.
 * (Structurally `Incoming` of `@mrtr/server`.)
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @category models
 * @since 0.1.0
 */
export interface Incoming {
  readonly message: unknown
  readonly headers?: ((name: string) => string | undefined) | undefined
  readonly httpMethod?: "POST" | "GET" | "DELETE" | undefined
  readonly connection?: Connection | undefined
}

/**
 * A stdio-like connection as the dispatcher sees it (structurally
 * `Connection` of `@mrtr/server`): `send` writes a message to the client
 * outside any request; `onClose` registers what to run when the connection
 * ends (`makeScoped` / `layer`: when their scope closes; `make`: never).
 * Compared by identity: one per transport.
 *
 * MCP 2025-11-25, basic/transports (stdio).
 *
 * @category models
 * @since 0.1.0
 */
export interface Connection {
  readonly send: (message: { readonly jsonrpc: "2.0" } & Readonly<Record<string, unknown>>) => Effect.Effect<void>
  readonly onClose: (finalizer: Effect.Effect<void>) => void
}

/**
 * What the dispatcher answers: one response, `Accepted` for a notification,
 * or a stream of messages ending with the response.
 * (Structurally `Reply` of `@mrtr/server`.)
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @category models
 * @since 0.1.0
 */
export type Reply =
  | {
    readonly _tag: "Response"
    readonly message: unknown
    readonly httpStatus: number
    readonly headers?: Readonly<Record<string, string>> | undefined
  }
  | { readonly _tag: "Accepted"; readonly httpStatus?: number | undefined }
  | { readonly _tag: "Stream"; readonly messages: Stream.Stream<unknown> }

/**
 * A server dispatcher: `handle(incoming)` never fails.
 * (Structurally `Handler` of `@mrtr/server`, i.e. the `McpHandler` service.)
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @category models
 * @since 0.1.0
 */
export interface Handler {
  readonly handle: (incoming: Incoming) => Effect.Effect<Reply>
}

/**
 * Options of the in-memory transport.
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * Passes the client's HTTP headers to the handler and makes the client compute them (`usesHeaders`), so the server
   * validates `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` exactly as on Streamable HTTP.
   *
   * @default false
   */
  readonly simulateHttp?: boolean | undefined
}

const roundTrip = (value: unknown): Effect.Effect<unknown, TransportError> =>
  Effect.flatMap(encodeJson(value), decodeJson)

/**
 * Builds the transport over `handler`.
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (handler: Handler, options: Options = {}): ClientTransport["Service"] =>
  build(handler, options).transport

/**
 * Builds the transport over `handler` in a scope: when the scope closes,
 * the connection ends (what the server registered with `onClose` runs, e.g.
 * ending its 2025-11-25 session).
 *
 * MCP 2026-07-28, basic/transports; MCP 2025-11-25, basic/transports (stdio).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeScoped = (
  handler: Handler,
  options: Options = {}
): Effect.Effect<ClientTransport["Service"], never, Scope.Scope> =>
  Effect.acquireRelease(Effect.sync(() => build(handler, options)), (built) => built.close).pipe(
    Effect.map((built) => built.transport)
  )

const build = (handler: Handler, options: Options) => {
  const simulateHttp = options.simulateHttp ?? false
  // creating an unbounded queue is synchronous and cannot fail
  const outside = Effect.runSync(Queue.unbounded<unknown>())
  const finalizers: Array<Effect.Effect<void>> = []
  const connection: Connection = {
    send: (message) => Effect.flatMap(roundTrip(message), (wire) => Queue.offer(outside, wire)).pipe(Effect.ignore),
    onClose: (finalizer) => void finalizers.push(finalizer)
  }
  const close = Effect.suspend(() => Effect.forEach(finalizers.splice(0), (f) => Effect.ignore(f), { discard: true }))
  let sessionId: string | undefined
  const deliver = (message: unknown, headers: Readonly<Record<string, string>>, httpMethod?: "GET") =>
    Effect.gen(function*() {
      const wire = httpMethod === "GET" ? undefined : yield* roundTrip(message)
      const lowered = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))
      if (simulateHttp) {
        if (isRecord(wire) && wire.method === "initialize") sessionId = undefined
        if (sessionId !== undefined && !lowered.has("mcp-session-id")) lowered.set("mcp-session-id", sessionId)
      }
      const reply = yield* handler.handle(
        simulateHttp
          ? {
            message: wire,
            headers: (name) => lowered.get(name.toLowerCase()),
            ...(httpMethod === undefined ? {} : { httpMethod })
          }
          : { message: wire, connection }
      )
      if (simulateHttp && reply._tag === "Response") {
        const issued = Object.entries(reply.headers ?? {}).find(([name]) => name.toLowerCase() === "mcp-session-id")
          ?.[1]
        if (issued !== undefined) sessionId = issued
      }
      return reply
    })
  const replyStream = (reply: Reply): Stream.Stream<unknown, TransportError> => {
    switch (reply._tag) {
      case "Accepted":
        return Stream.empty
      case "Response":
        return Stream.fromEffect(roundTrip(reply.message))
      case "Stream":
        return Stream.mapEffect(reply.messages, roundTrip)
    }
  }
  const transport = ClientTransport.of({
    kind: "memory",
    usesHeaders: simulateHttp,
    request: (message, headers) => Stream.unwrap(deliver(message, headers).pipe(Effect.map(replyStream))),
    notify: (message, headers) => Effect.asVoid(deliver(message, headers)),
    notifications: Stream.fromQueue(outside),
    ...(simulateHttp
      ? { listen: (headers) => Stream.unwrap(deliver(undefined, headers, "GET").pipe(Effect.map(replyStream))) }
      : {})
  })
  return { transport, close }
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The transport as a Layer over a given handler (the connection ends with
 * the Layer).
 *
 * MCP 2026-07-28, basic/transports.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (handler: Handler, options?: Options): Layer.Layer<ClientTransport> =>
  Layer.effect(ClientTransport, makeScoped(handler, options))
