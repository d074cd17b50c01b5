/**
 * `Harness`: runs an `@mrtr/server` server and an `@mrtr/client` client
 * together in memory, for `@effect/vitest` tests (`it.effect`, `it.layer`).
 *
 * The client talks to the server's dispatcher (`McpHandler`) through the
 * in-memory transport (JSON round trip both ways, optionally with the HTTP
 * headers checked as on Streamable HTTP), so a test exercises the real wire:
 * `_meta`, `input_required` rounds, sealed `requestState`, the user's
 * answers. Every message the client sends (with the HTTP headers it
 * computed) and every reply it gets is logged in `Wire`, for assertions on
 * what went over the wire.
 *
 * Time: the server side (handlers, `Mrtr.step`s, `requestState` expiry) runs
 * on the live clock by default, so a handler that sleeps completes under
 * `it.effect` (whose `TestClock` only moves when the test adjusts it) while the
 * test's own code stays on `TestClock`. `clock: "test"` puts the server on the
 * test's clock instead: then fork the call and move time with
 * `TestClock.adjust` (for example to expire a `requestState`). Gotcha: the
 * client side (its input handlers, its backoff between state-only rounds)
 * runs in the test's fiber, on the test's clock either way.
 *
 * **Example** (A test of a tool with a scripted user)
 *
 * ```ts
 * import { it } from "@effect/vitest"
 * import { McpClient } from "@mrtr/client"
 * import { Elicitation } from "@mrtr/core"
 * import { McpServer, Tool } from "@mrtr/server"
 * import { Harness, Recorder, ScriptedUser } from "@mrtr/testing"
 * import { Effect, Layer, Schema } from "effect"
 *
 * const bookTrip = Tool.make("book_trip", {
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   handler: Effect.fn(function*({ city }) {
 *     const { from } = yield* Elicitation.form({ key: "dates", message: "From?", schema: Schema.Struct({ from: Schema.String }) })
 *     return `${city} from ${from}`
 *   })
 * })
 *
 * const TestLayer = Harness.layer({
 *   server: McpServer.tools(bookTrip).pipe(Layer.provideMerge(McpServer.layer({ name: "s", version: "1" }))),
 *   user: ScriptedUser.layer({ elicitation: { byKey: { dates: ScriptedUser.accept({ from: "2026-08-01" }) } } })
 * })
 *
 * it.layer(TestLayer)((it) => {
 *   it.effect("books a trip", () =>
 *     Effect.gen(function*() {
 *       const client = yield* McpClient.McpClient
 *       const result = yield* client.callTool({ name: "book_trip", arguments: { city: "Oslo" } })
 *       const questions = yield* Recorder.questions
 *       return [result, questions]
 *     }))
 * })
 * ```
 *
 * Source: MCP 2026-07-28, basic/transports, basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import { ClientTransport, McpClient, MemoryTransport } from "@mrtr/client"
import { McpHandler } from "@mrtr/server"
import type { Transport } from "@mrtr/server"
import { Clock, Context, Effect, Layer, Ref, Stream } from "effect"

/**
 * One logged message on the in-memory wire: `direction` (`"request"` for a
 * message the client sent, `"reply"` for one the server sent back), the JSON
 * `message` (as carried, after a JSON round trip) and, for requests, the HTTP
 * `headers` the client computed (empty unless `simulateHttp`).
 *
 * MCP 2026-07-28, basic/transports, basic/patterns/mrtr.
 *
 * @category models
 * @since 0.1.0
 */
export interface WireEntry {
  readonly direction: "request" | "reply"
  readonly message: unknown
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * The wire log: `entries` (everything, in order), `requests` (only the
 * messages the client sent), `clear`.
 *
 * MCP 2026-07-28, basic/transports, basic/patterns/mrtr.
 *
 * @category services
 * @since 0.1.0
 */
export class Wire extends Context.Service<Wire, {
  readonly entries: Effect.Effect<ReadonlyArray<WireEntry>>
  readonly requests: Effect.Effect<ReadonlyArray<Record<string, any>>>
  readonly clear: Effect.Effect<void>
}>()("@mrtr/testing/Harness/Wire") {}

/**
 * Every message the client sent so far (JSON-RPC requests and
 * notifications), as the server received them.
 *
 * MCP 2026-07-28, basic/transports, basic/patterns/mrtr.
 *
 * @category accessors
 * @since 0.1.0
 */
export const requests: Effect.Effect<ReadonlyArray<Record<string, any>>, never, Wire> = Wire.use((w) => w.requests)

/**
 * Every logged entry (requests with their headers, and replies), in order.
 *
 * MCP 2026-07-28, basic/transports, basic/patterns/mrtr.
 *
 * @category accessors
 * @since 0.1.0
 */
export const entries: Effect.Effect<ReadonlyArray<WireEntry>, never, Wire> = Wire.use((w) => w.entries)

const copy = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

/**
 * Wraps a client transport so every message through it is logged.
 */
const logging = (
  transport: ClientTransport.ClientTransport["Service"],
  log: Ref.Ref<ReadonlyArray<WireEntry>>
): ClientTransport.ClientTransport["Service"] => {
  const record = (entry: WireEntry) => Ref.update(log, (all) => [...all, entry])
  return {
    ...transport,
    request: (message, headers) =>
      Stream.unwrap(
        record({ direction: "request", message: copy(message), headers: { ...headers } }).pipe(
          Effect.as(
            Stream.tap(transport.request(message, headers), (reply) => record({ direction: "reply", message: reply }))
          )
        )
      ),
    notify: (message, headers) =>
      record({ direction: "request", message: copy(message), headers: { ...headers } }).pipe(
        Effect.andThen(transport.notify(message, headers))
      )
  }
}

/** The real clock: `Clock`'s default, whatever the caller's context provides (e.g. `TestClock`). */
const liveClock: Clock.Clock = Clock.Clock.defaultValue()

/**
 * Runs the dispatcher on the live clock: the call, and a streamed reply's
 * messages, which the client pulls later in its own (test) fiber.
 */
const onLiveClock = (handler: Transport.Handler): Transport.Handler => ({
  handle: (incoming) =>
    handler.handle(incoming).pipe(
      Effect.map((reply) =>
        reply._tag === "Stream"
          ? { ...reply, messages: Stream.provideService(reply.messages, Clock.Clock, liveClock) }
          : reply
      ),
      Effect.provideService(Clock.Clock, liveClock)
    )
})

/**
 * Options of the harness.
 *
 * MCP 2026-07-28, basic/transports, basic/patterns/mrtr; MCP 2025-11-25, basic/lifecycle.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options<RS, ES, RSIn, RU, EU, RUIn> {
  /**
   * A Layer providing the server's `McpHandler` (e.g. `McpServer.tools(...)` merged with `McpServer.layer(...)`); its
   * other outputs (e.g. `McpServer`) are exposed to the test too.
   */
  readonly server: Layer.Layer<RS | McpHandler, ES, RSIn>
  /**
   * A Layer providing input handlers (usually `ScriptedUser.layer`); its outputs (e.g. `Recorder`) are exposed to the
   * test. Without it the client declares no capabilities and runs in manual mode.
   *
   * @default undefined (no handlers: manual mode)
   */
  readonly user?: Layer.Layer<RU, EU, RUIn> | undefined
  /**
   * `McpClient` options (`maxRounds`, `stateOnlyBackoff`, ...).
   *
   * @default {}
   */
  readonly client?: McpClient.Options | undefined
  /**
   * Pass the client's HTTP headers to the server, which then checks them as on Streamable HTTP.
   *
   * @default false
   */
  readonly simulateHttp?: boolean | undefined
  /**
   * The revision the client speaks (`McpClient.Options.protocol`): `"2026-07-28"` (no probe, so the wire log holds
   * only the test's own requests), `"2025-11-25"` (`initialize`, then the server's in-flight requests answered by the
   * same `user` Layer, keys derived as the server derives them) or `"auto"`. Overrides `client.protocol`.
   *
   * @default "2026-07-28"
   */
  readonly protocol?: McpClient.Protocol | undefined
  /**
   * The clock the server side runs on. `"live"`: the real clock, whatever the test runs on (`it.effect`'s `TestClock`
   * included), so sleeps and timeouts in handlers take their real (short) time. `"test"`: the clock of the fiber that
   * makes the call (under `it.effect` the `TestClock`: fork the call, then `TestClock.adjust`).
   *
   * @default "live"
   */
  readonly clock?: "live" | "test" | undefined
}

/**
 * The harness as a Layer: provides `McpClient`, the `Wire` log, and the
 * outputs of the `server` and `user` Layers.
 *
 * MCP 2026-07-28, basic/transports, basic/patterns/mrtr.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <RS, ES, RSIn, RU = never, EU = never, RUIn = never>(
  options: Options<RS, ES, RSIn, RU, EU, RUIn>
): Layer.Layer<McpClient.McpClient | Wire | RS | McpHandler | RU, ES | EU, RSIn | RUIn> => {
  const wire = Layer.unwrap(Effect.gen(function*() {
    const log = yield* Ref.make<ReadonlyArray<WireEntry>>([])
    const handler = yield* McpHandler
    const service = Wire.of({
      entries: Ref.get(log),
      requests: Effect.map(
        Ref.get(log),
        (all) => all.filter((e) => e.direction === "request").map((e) => e.message as Record<string, any>)
      ),
      clear: Ref.set(log, [])
    })
    const transport = yield* MemoryTransport.makeScoped(
      options.clock === "test" ? handler : onLiveClock(handler),
      { simulateHttp: options.simulateHttp ?? false }
    )
    return Layer.merge(
      Layer.succeed(Wire, service),
      Layer.succeed(ClientTransport.ClientTransport, logging(transport, log))
    )
  }))
  const client = McpClient.layer({
    ...options.client,
    protocol: options.protocol ?? options.client?.protocol ?? "2026-07-28"
  }).pipe(Layer.provideMerge(wire))
  const withUser: Layer.Layer<any, any, any> = options.user === undefined
    ? client
    : client.pipe(Layer.provideMerge(options.user))
  // The server's items keep the context their layer was built in (Clock included): build it on the live clock too.
  const server = options.clock === "test"
    ? options.server
    : options.server.pipe(Layer.provide(Layer.succeed(Clock.Clock, liveClock)))
  return withUser.pipe(Layer.provideMerge(server)) as unknown as Layer.Layer<
    McpClient.McpClient | Wire | RS | McpHandler | RU,
    ES | EU,
    RSIn | RUIn
  >
}

/**
 * A client transport Layer over the `McpHandler` in context (for tests that
 * build their own client).
 *
 * MCP 2026-07-28, basic/transports, basic/patterns/mrtr.
 *
 * @category layers
 * @since 0.1.0
 */
export const transport = (
  options: MemoryTransport.Options = {}
): Layer.Layer<ClientTransport.ClientTransport, never, McpHandler> =>
  Layer.effect(
    ClientTransport.ClientTransport,
    McpHandler.use((handler) => MemoryTransport.makeScoped(handler, options))
  )
