/**
 * Protocol versions and the reserved `_meta` keys of MCP 2026-07-28.
 *
 * Revision 2026-07-28 is stateless (SEP-2575): there is no `initialize`
 * handshake, so every request carries the protocol version and the client's
 * capabilities in `params._meta`, and results may carry the server's identity
 * in `result._meta`. This module holds the version constants, the reserved
 * key names, and Effect Schemas for the request / result / notification
 * `_meta` objects.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { ClientCapabilities, Implementation, ProgressToken } from "./internal/base.ts"
import { RequestId } from "./JsonRpc.ts"

/**
 * The protocol revision this package implements: `"2026-07-28"`.
 *
 * MCP 2026-07-28, basic/versioning.
 *
 * @category constants
 * @since 0.1.0
 */
export const PROTOCOL_VERSION = "2026-07-28" as const

/**
 * The newest revision that still uses `initialize` and sessions:
 * `"2025-11-25"` (the "legacy" wire).
 *
 * MCP 2026-07-28, basic/versioning (backward compatibility).
 *
 * @category constants
 * @since 0.1.0
 */
export const LEGACY_PROTOCOL_VERSION = "2025-11-25" as const

/**
 * Versions this implementation can speak, preferred first. Used for
 * `DiscoverResult.supportedVersions` and for the `supported` list of an
 * `UnsupportedProtocolVersionError` (-32022).
 *
 * MCP 2026-07-28, basic/versioning (protocol version negotiation).
 *
 * @category constants
 * @since 0.1.0
 */
export const SUPPORTED_PROTOCOL_VERSIONS: ReadonlyArray<string> = [PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSION]

/**
 * True if `version` is one of `SUPPORTED_PROTOCOL_VERSIONS`.
 *
 * @category guards
 * @since 0.1.0
 */
export const isSupportedProtocolVersion = (version: string): boolean => SUPPORTED_PROTOCOL_VERSIONS.includes(version)

/**
 * Reserved `_meta` key names (prefix `io.modelcontextprotocol/`).
 *
 * - `protocolVersion`, `clientCapabilities` (required on every request),
 *   `clientInfo` (SHOULD), `logLevel` (optional; when absent the server MUST
 *   NOT emit `notifications/message` for that request): request `_meta`.
 * - `serverInfo`: result `_meta` (SHOULD be present).
 * - `subscriptionId`: notification `_meta` on `subscriptions/listen` streams.
 *
 * MCP 2026-07-28, basic (`_meta`), schema `RequestMetaObject` / `ResultMetaObject`.
 *
 * @category constants
 * @since 0.1.0
 */
export const MetaKey = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId"
} as const

/**
 * Syslog severity levels used by `notifications/message` and the
 * `io.modelcontextprotocol/logLevel` request key, from least to most severe:
 * `debug`, `info`, `notice`, `warning`, `error`, `critical`, `alert`,
 * `emergency`.
 *
 * MCP 2026-07-28, schema `LoggingLevel`; server/utilities/logging.
 *
 * @category schemas
 * @since 0.1.0
 */
export const LoggingLevel = Schema.Literals([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
])
/**
 * The decoded (`Type`) side of the `LoggingLevel` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type LoggingLevel = typeof LoggingLevel.Type

const Rest = Schema.Record(Schema.String, Schema.Unknown)

/**
 * The `params._meta` object every 2026-07-28 request carries:
 *
 * - `io.modelcontextprotocol/protocolVersion`: string, required
 * - `io.modelcontextprotocol/clientCapabilities`: `ClientCapabilities`, required (`{}` = none)
 * - `io.modelcontextprotocol/clientInfo`: `Implementation`, optional
 * - `io.modelcontextprotocol/logLevel`: `LoggingLevel`, optional
 * - `progressToken`: `ProgressToken`, optional
 * - any other key: kept as is
 *
 * A request lacking a required key must be answered with -32602 (HTTP 400).
 *
 * MCP 2026-07-28, schema `RequestMetaObject`; basic (request metadata).
 *
 * @category schemas
 * @since 0.1.0
 */
export const RequestMeta = Schema.StructWithRest(
  Schema.Struct({
    "io.modelcontextprotocol/protocolVersion": Schema.String,
    "io.modelcontextprotocol/clientCapabilities": ClientCapabilities,
    "io.modelcontextprotocol/clientInfo": Schema.optionalKey(Implementation),
    "io.modelcontextprotocol/logLevel": Schema.optionalKey(LoggingLevel),
    progressToken: Schema.optionalKey(ProgressToken)
  }),
  [Rest]
)
/**
 * The decoded (`Type`) side of the `RequestMeta` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type RequestMeta = typeof RequestMeta.Type

/**
 * The `_meta` object of a result: `io.modelcontextprotocol/serverInfo`
 * (`Implementation`, SHOULD be present) plus any other keys.
 *
 * MCP 2026-07-28, schema `ResultMetaObject`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResultMeta = Schema.StructWithRest(
  Schema.Struct({
    "io.modelcontextprotocol/serverInfo": Schema.optionalKey(Implementation)
  }),
  [Rest]
)
/**
 * The decoded (`Type`) side of the `ResultMeta` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ResultMeta = typeof ResultMeta.Type

/**
 * The `_meta` object of a server notification:
 * `io.modelcontextprotocol/subscriptionId` (the id of the
 * `subscriptions/listen` request whose stream carries it) plus any other keys.
 *
 * MCP 2026-07-28, schema `NotificationMetaObject`; basic/patterns/subscriptions.
 *
 * @category schemas
 * @since 0.1.0
 */
export const NotificationMeta = Schema.StructWithRest(
  Schema.Struct({
    "io.modelcontextprotocol/subscriptionId": Schema.optionalKey(RequestId)
  }),
  [Rest]
)
/**
 * The decoded (`Type`) side of the `NotificationMeta` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type NotificationMeta = typeof NotificationMeta.Type

/**
 * Builds a request `_meta` object for `PROTOCOL_VERSION` (or `options.protocolVersion`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeRequestMeta = (options: {
  readonly clientCapabilities: ClientCapabilities
  readonly clientInfo?: Implementation | undefined
  readonly logLevel?: LoggingLevel | undefined
  readonly progressToken?: ProgressToken | undefined
  readonly protocolVersion?: string | undefined
}): RequestMeta => {
  const meta: Record<string, unknown> = {
    [MetaKey.protocolVersion]: options.protocolVersion ?? PROTOCOL_VERSION,
    [MetaKey.clientCapabilities]: options.clientCapabilities
  }
  if (options.clientInfo !== undefined) meta[MetaKey.clientInfo] = options.clientInfo
  if (options.logLevel !== undefined) meta[MetaKey.logLevel] = options.logLevel
  if (options.progressToken !== undefined) meta.progressToken = options.progressToken
  return meta as RequestMeta
}
