/**
 * The MCP 2025-11-25 lifecycle ("legacy" era): `initialize` with version
 * negotiation, `notifications/initialized`, and `ping`.
 *
 * A 2025-11-25 client opens a session with `initialize` (no per-request
 * `_meta` claims); the result names the negotiated version, the server's
 * capabilities and a top-level `serverInfo` (in 2026-07-28 it moves to
 * result `_meta`). Legacy results carry no `resultType`, `ttlMs` or
 * `cacheScope`: strict 2025 clients reject them.
 *
 * Gotcha: a dual-era server negotiates only handshake-era versions
 * (≤ 2025-11-25) through `initialize`; a client offering `2026-07-28` or an
 * unknown version is counter-offered `2025-11-25` (see {@link negotiate}).
 * Source: MCP 2025-11-25, basic/lifecycle; schema-2025-11-25.json
 * (`InitializeRequest`, `InitializeResult`, `InitializedNotification`,
 * `PingRequest`); 2026-07-28 basic/versioning (initialize selects legacy semantics).
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { Implementation, JsonObject, ProgressToken } from "../internal/base.ts"
import { JSONRPC_VERSION, RequestId } from "../JsonRpc.ts"

/**
 * The handshake-era revisions a dual-era server accepts in `initialize`,
 * newest first: `2025-11-25`, `2025-06-18`, `2025-03-26` (the versions the
 * official SDKs still offer).
 *
 * Source: MCP 2025-11-25, basic/lifecycle (version negotiation).
 *
 * @category constants
 * @since 0.2.0
 */
export const VERSIONS: ReadonlyArray<string> = ["2025-11-25", "2025-06-18", "2025-03-26"]

/**
 * The newest handshake-era revision, `"2025-11-25"`: the counter-offer to a
 * client whose `initialize` names a version the server cannot speak through
 * a handshake.
 *
 * @category constants
 * @since 0.2.0
 */
export const LATEST_VERSION = "2025-11-25" as const

/**
 * Version negotiation of `initialize`: the client's `requested` version when
 * it is one of {@link VERSIONS}, otherwise {@link LATEST_VERSION} (the spec's
 * "MUST respond with another version it supports, SHOULD be its latest"; the
 * client disconnects if it cannot use it).
 *
 * Source: MCP 2025-11-25, basic/lifecycle (version negotiation).
 *
 * @category versions
 * @since 0.2.0
 */
export const negotiate = (requested: unknown): string =>
  typeof requested === "string" && VERSIONS.includes(requested) ? requested : LATEST_VERSION

/**
 * The version a request on a session without `MCP-Protocol-Version`
 * is assumed to speak: `"2025-03-26"`.
 *
 * Source: MCP 2025-11-25, basic/transports (protocol version header).
 *
 * @category constants
 * @since 0.2.0
 */
export const DEFAULT_HEADERLESS_VERSION = "2025-03-26" as const

/**
 * Capabilities a 2025-11-25 client declares once, in `initialize`:
 * `{ experimental?, roots?: { listChanged? }, sampling?: { context?, tools? }, elicitation?: { form?, url? }, tasks? }`.
 * Unknown members are kept (the set is open).
 *
 * Source: schema-2025-11-25.json `ClientCapabilities`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ClientCapabilities = Schema.StructWithRest(
  Schema.Struct({
    experimental: Schema.optionalKey(Schema.Record(Schema.String, JsonObject)),
    roots: Schema.optionalKey(Schema.StructWithRest(
      Schema.Struct({ listChanged: Schema.optionalKey(Schema.Boolean) }),
      [JsonObject]
    )),
    sampling: Schema.optionalKey(Schema.StructWithRest(
      Schema.Struct({ context: Schema.optionalKey(JsonObject), tools: Schema.optionalKey(JsonObject) }),
      [JsonObject]
    )),
    elicitation: Schema.optionalKey(Schema.StructWithRest(
      Schema.Struct({ form: Schema.optionalKey(JsonObject), url: Schema.optionalKey(JsonObject) }),
      [JsonObject]
    )),
    tasks: Schema.optionalKey(JsonObject)
  }),
  [JsonObject]
)
/**
 * The decoded (`Type`) side of the 2025-11-25 `ClientCapabilities` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type ClientCapabilities = typeof ClientCapabilities.Type

/**
 * Capabilities a 2025-11-25 server announces in `InitializeResult`:
 * `{ experimental?, logging?, completions?, prompts?: { listChanged? }, resources?: { subscribe?, listChanged? }, tools?: { listChanged? }, tasks? }`.
 *
 * Source: schema-2025-11-25.json `ServerCapabilities`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ServerCapabilities = Schema.Struct({
  experimental: Schema.optionalKey(Schema.Record(Schema.String, JsonObject)),
  logging: Schema.optionalKey(JsonObject),
  completions: Schema.optionalKey(JsonObject),
  prompts: Schema.optionalKey(Schema.Struct({ listChanged: Schema.optionalKey(Schema.Boolean) })),
  resources: Schema.optionalKey(Schema.Struct({
    subscribe: Schema.optionalKey(Schema.Boolean),
    listChanged: Schema.optionalKey(Schema.Boolean)
  })),
  tools: Schema.optionalKey(Schema.Struct({ listChanged: Schema.optionalKey(Schema.Boolean) })),
  tasks: Schema.optionalKey(JsonObject)
})
/**
 * The decoded (`Type`) side of the 2025-11-25 `ServerCapabilities` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type ServerCapabilities = typeof ServerCapabilities.Type

/**
 * A legacy request's optional `_meta`: `progressToken` plus any other key
 * (no protocol-version or capability claims: those are 2026-07-28 only).
 *
 * Source: schema-2025-11-25.json `RequestParams._meta`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const RequestMeta = Schema.StructWithRest(
  Schema.Struct({ progressToken: Schema.optionalKey(ProgressToken) }),
  [JsonObject]
)
/**
 * The decoded (`Type`) side of the legacy `RequestMeta` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type RequestMeta = typeof RequestMeta.Type

/**
 * `initialize` params: `{ protocolVersion, capabilities, clientInfo, _meta? }`.
 *
 * Source: schema-2025-11-25.json `InitializeRequestParams`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InitializeRequestParams = Schema.Struct({
  _meta: Schema.optionalKey(RequestMeta),
  protocolVersion: Schema.String,
  capabilities: ClientCapabilities,
  clientInfo: Implementation
})
/**
 * The decoded (`Type`) side of the `InitializeRequestParams` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type InitializeRequestParams = typeof InitializeRequestParams.Type

/**
 * The `initialize` request as a JSON-RPC message:
 * `{ jsonrpc: "2.0", id, method: "initialize", params }`.
 *
 * Source: schema-2025-11-25.json `InitializeRequest`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InitializeRequest = Schema.Struct({
  jsonrpc: Schema.Literal(JSONRPC_VERSION),
  id: RequestId,
  method: Schema.Literal("initialize"),
  params: InitializeRequestParams
})
/**
 * The decoded (`Type`) side of the `InitializeRequest` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type InitializeRequest = typeof InitializeRequest.Type

/**
 * The `initialize` result: `{ protocolVersion, capabilities, serverInfo, instructions?, _meta? }`.
 * No `resultType`.
 *
 * Source: schema-2025-11-25.json `InitializeResult`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InitializeResult = Schema.Struct({
  _meta: Schema.optionalKey(JsonObject),
  protocolVersion: Schema.String,
  capabilities: ServerCapabilities,
  serverInfo: Implementation,
  instructions: Schema.optionalKey(Schema.String)
})
/**
 * The decoded (`Type`) side of the `InitializeResult` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type InitializeResult = typeof InitializeResult.Type

const notification = <M extends string, P extends Schema.Top>(method: M, params: P) =>
  Schema.Struct({
    jsonrpc: Schema.Literal(JSONRPC_VERSION),
    method: Schema.Literal(method),
    params: Schema.optionalKey(params)
  })

/**
 * `notifications/initialized` (client → server, once the result arrived).
 *
 * Source: schema-2025-11-25.json `InitializedNotification`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InitializedNotification = notification("notifications/initialized", JsonObject)
/**
 * The decoded (`Type`) side of the `InitializedNotification` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type InitializedNotification = typeof InitializedNotification.Type

/**
 * `ping` (either direction); the answer is exactly `{}`.
 *
 * Source: MCP 2025-11-25, basic/utilities/ping; schema `PingRequest`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const PingRequest = Schema.Struct({
  jsonrpc: Schema.Literal(JSONRPC_VERSION),
  id: RequestId,
  method: Schema.Literal("ping"),
  params: Schema.optionalKey(JsonObject)
})
/**
 * The decoded (`Type`) side of the `PingRequest` schema.
 *
 * @category models
 * @since 0.2.0
 */
export type PingRequest = typeof PingRequest.Type
