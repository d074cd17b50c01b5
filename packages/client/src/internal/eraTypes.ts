/**
 * The types the client's era pieces share (`eras.ts` assembles them;
 * `connect.ts`, `eraSend.ts`, `serverMessages.ts` and `connectionState.ts`
 * use them): what was negotiated, what `McpClient` gives the connection, one
 * request as `McpClient` asks for it. In a module of their own so the pieces
 * and the module that assembles them do not import each other.
 */
import type { Duration, Effect, Scope } from "effect"
import type { LoggingLevel } from "@mrtr/protocol/Meta"
import type { ClientCapabilities, Implementation, ProgressToken, Tool } from "@mrtr/protocol/Schema"
import type { ClientTransport } from "../ClientTransport.ts"
import type { StreamNotification } from "./exchange.ts"
import type { Handlers } from "./inputHandlers.ts"
import type { InitializeResult } from "./legacySession.ts"
import type { Protocol, ServerRequest } from "../Models.ts"

/** Which revision the client speaks: detected (`"auto"`) or pinned. */
export type { Protocol } from "../Models.ts"

/** A 2025-11-25 session: the negotiated version, the `InitializeResult`, the capabilities declared. */
export interface LegacyConnection {
  readonly era: "2025-11-25"
  readonly protocolVersion: string
  readonly initialize: InitializeResult
  readonly capabilities: ClientCapabilities
}

/** The negotiated connection. */
export type Connection = { readonly era: "2026-07-28"; readonly protocolVersion: string } | LegacyConnection

/** What `McpClient` gives the connection. */
export interface Deps {
  readonly transport: ClientTransport["Service"]
  readonly protocol: Protocol
  readonly probeTimeout: Duration.Input
  /** The idle bound of the requests the connection makes itself (`initialize`, `logging/setLevel`). */
  readonly requestTimeout: Duration.Duration
  readonly clientInfo: Implementation
  readonly logLevel: LoggingLevel | undefined
  readonly layerHandlers: Handlers
  readonly declared: (handlers: Handlers) => ClientCapabilities
  readonly modernMeta: (capabilities: ClientCapabilities, progressToken: ProgressToken | undefined) => Record<string, unknown>
  readonly publish: (notification: { readonly method: string; readonly params?: Readonly<Record<string, unknown>> }) => Effect.Effect<void>
  readonly scope: Scope.Scope
}

/** One request as `McpClient` asks for it. */
export interface SendOptions {
  readonly method: string
  /** The params, given the `_meta` to put among them (absent when there is none to send). */
  readonly params: (meta: Record<string, unknown> | undefined) => Record<string, unknown>
  readonly capabilities: ClientCapabilities
  readonly progressToken?: ProgressToken | undefined
  readonly tool?: Tool | undefined
  /** The tool or prompt name / resource URI of an MRTR call (`""` otherwise). */
  readonly target: string
  readonly handlers: Handlers
  /** Whether a failing input handler fails the request (MRTR calls) or only answers the server with an error. */
  readonly failOnHandlerError: boolean
  readonly onNotification: (notification: StreamNotification) => Effect.Effect<void>
  /** `McpClient`'s `requestTimeout` for this request (see `exchange.ts`). */
  readonly requestTimeout: Duration.Duration
  /** Told of each server request answered for this call (2025-11-25). */
  readonly onServerRequest?: ((request: ServerRequest) => Effect.Effect<void>) | undefined
}
