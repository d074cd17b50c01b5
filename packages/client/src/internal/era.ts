/**
 * What a protocol revision does for the client, as one interface: `Era`.
 * `McpClient` selects one implementation per connection (`eraSelection.ts`:
 * pinned by `Options.protocol`, or after the `server/discover` probe) and
 * then sends every request through it:
 *
 * - `v2026_07_28/era.ts`: stateless requests carrying `_meta` and the
 *   standard headers; servers answer `input_required` and the client's
 *   input loop (`inputLoop.ts`) retries.
 * - `v2025_11_25/era.ts`: a session opened by `initialize`; the server's
 *   own `elicitation/create`, `sampling/createMessage` and `roots/list`
 *   requests, answered while a request is in flight.
 *
 * The types here are what the era implementations, their selection and
 * their users share; in a module of their own so that none of them imports
 * another for its types.
 *
 * Source: MCP 2026-07-28, basic/versioning, basic/lifecycle; MCP 2025-11-25,
 * basic/lifecycle, basic/transports.
 */
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import type { LoggingLevel } from "@mrtr/protocol/Meta"
import type { ClientCapabilities, DiscoverResult, Implementation, ProgressToken, Tool } from "@mrtr/protocol/Schema"
import type { Duration, Effect, Option, Scope, Stream } from "effect"
import type { ClientTransport } from "../ClientTransport.ts"
import type { InputHandlerError, RequestError } from "../Errors.ts"
import type { Connection, ServerRequest } from "../Models.ts"
import type { StreamNotification } from "./exchange.ts"
import type { Handlers } from "./inputHandlers.ts"

/** One request as a caller asks an era to send it (the params without `_meta`: the era adds its own). */
export interface EraRequest {
  readonly method: string
  readonly params: Readonly<Record<string, unknown>>
  /** The tool or prompt name / resource URI of an MRTR call (`""` otherwise): the call the server's requests belong to. */
  readonly target: string
  /** The called tool's definition, for its `x-mcp-header` annotations (2026-07-28 over HTTP). */
  readonly tool?: Tool | undefined
}

/**
 * How one call is made, resolved once per call by `McpClient` (from its
 * options, the call's `CallOptions` and the input handlers in context) and
 * kept for each of its rounds.
 */
export interface CallContext {
  /** The input handlers answering this call (the call site's first, then the client Layer's). */
  readonly handlers: Handlers
  /** The capabilities the requests declare (2026-07-28 `_meta`; fixed at `initialize` on 2025-11-25). */
  readonly capabilities: ClientCapabilities
  readonly progressToken: ProgressToken | undefined
  /** The longest wait for the next message of one request's answer (see `exchange.ts`). */
  readonly requestTimeout: Duration.Duration
  readonly onNotification: (notification: StreamNotification) => Effect.Effect<void>
  /** Told of each server request answered for this call (2025-11-25). */
  readonly onServerRequest: ((request: ServerRequest) => Effect.Effect<void>) | undefined
  /** Whether a failing input handler fails the call (MRTR calls) or is only answered to the server (-32603). */
  readonly failOnHandlerError: boolean
}

/** A protocol revision as the client speaks it over one connection. */
export interface Era {
  /** The connection as `McpClient.connection` shows it (on 2025-11-25 the current session's). */
  readonly connection: Connection
  /**
   * What the era knows of `server/discover` without asking: the probe's
   * result once (2026-07-28), or one built from the `InitializeResult`
   * (2025-11-25); `None` when `server/discover` must be sent.
   */
  readonly discovered: Effect.Effect<Option.Option<DiscoverResult>>
  /** Whether `tools/call` mirrors `x-mcp-header` annotations into headers (2026-07-28 over HTTP). */
  readonly mirrorsToolHeaders: boolean
  /**
   * Sends one request and returns its `result` object. On 2025-11-25 the
   * requests the server makes while serving it are answered with
   * `call.handlers`, and a session the server no longer knows is renewed
   * once.
   */
  readonly send: (
    request: EraRequest,
    call: CallContext
  ) => Effect.Effect<Record<string, unknown>, RequestError | InputHandlerError>
  /**
   * Answers a request the server sent outside any request's stream (stdio,
   * the 2025-11-25 GET stream): with the input handlers on 2025-11-25,
   * `ping` only on 2026-07-28.
   */
  readonly serve: (request: Record<string, unknown> & { readonly id: RequestId }) => Effect.Effect<void>
  /** Tells the server the client's roots changed (2025-11-25: `notifications/roots/list_changed`). */
  readonly rootsChanged: Effect.Effect<void>
  /**
   * 2026-07-28: a `subscriptions/listen` stream of the notifications `filter` asks for (the first one
   * `notifications/subscriptions/acknowledged`); it ends when the server ends the subscription with its result.
   * `undefined` on 2025-11-25, whose list changes come outside any request (`McpClient.notifications`).
   */
  readonly listen:
    | ((
      filter: Readonly<Record<string, unknown>>,
      capabilities: ClientCapabilities
    ) => Stream.Stream<{ readonly method: string; readonly params?: Readonly<Record<string, unknown>> }, RequestError>)
    | undefined
}

/** What `McpClient` gives the era it selects. */
export interface EraSettings {
  readonly transport: ClientTransport["Service"]
  readonly clientInfo: Implementation
  readonly logLevel: LoggingLevel | undefined
  /** The idle bound of the requests an era makes itself (`initialize`, `logging/setLevel`). */
  readonly requestTimeout: Duration.Duration
  /** The input handlers the client Layer was built with (2025-11-25: they fix the session's capabilities). */
  readonly layerHandlers: Handlers
  /** The capabilities declared for a set of handlers (with the client's configured ones). */
  readonly declared: (handlers: Handlers) => ClientCapabilities
  /** Publishes a notification that belongs to no request. */
  readonly publish: (notification: {
    readonly method: string
    readonly params?: Readonly<Record<string, unknown>>
  }) => Effect.Effect<void>
  /** The client's scope: fibers that outlive a request (the GET stream, server requests outside a stream). */
  readonly scope: Scope.Scope
}
