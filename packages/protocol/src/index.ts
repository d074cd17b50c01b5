/**
 * `@mrtr/protocol`: the wire model of MCP revision 2026-07-28 ("Multi
 * Round-Trip Requests") for Effect, one namespace per module: JSON-RPC
 * envelopes (`JsonRpc`), error codes (`ErrorCode`), request/result `_meta`
 * (`Meta`), message schemas (`Schema`), capability checks (`Capabilities`),
 * the Streamable HTTP header rules (`Headers`), the Tasks extension (`Tasks`)
 * and the 2025-11-25 wire (`Legacy`).
 *
 * Each module is also its own entry point: `import { McpError } from
 * "@mrtr/protocol/ErrorCode"` is `import { ErrorCode } from "@mrtr/protocol"`
 * then `ErrorCode.McpError`.
 *
 * @since 0.1.0
 */

/**
 * Which client capabilities an input request needs, and whether a client's
 * declared capabilities cover them.
 *
 * @since 0.1.0
 */
export * as Capabilities from "./Capabilities.ts"

/**
 * JSON-RPC error codes of MCP 2026-07-28, their HTTP status on Streamable
 * HTTP, and `McpError`, the typed error carrying a code.
 *
 * @since 0.1.0
 */
export * as ErrorCode from "./ErrorCode.ts"

/**
 * The Streamable HTTP request headers of 2026-07-28 (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), their encoding and the check that
 * they match the body.
 *
 * @since 0.1.0
 */
export * as Headers from "./Headers.ts"

/**
 * JSON-RPC 2.0 envelopes: requests, notifications, responses and errors.
 *
 * @since 0.1.0
 */
export * as JsonRpc from "./JsonRpc.ts"

/**
 * Protocol versions and the reserved `_meta` keys and objects of 2026-07-28.
 *
 * @since 0.1.0
 */
export * as Meta from "./Meta.ts"

/**
 * Text from a peer made safe to show on a terminal or write into a log line.
 *
 * @since 0.3.0
 */
export * as SafeText from "./SafeText.ts"

/**
 * Effect Schemas of the 2026-07-28 messages, with the MRTR types
 * (`InputRequiredResult`, `inputRequests`, `inputResponses`, `requestState`).
 *
 * @since 0.1.0
 */
export * as Schema from "./Schema.ts"

/**
 * The wire model of the Tasks extension (`io.modelcontextprotocol/tasks`).
 *
 * @since 0.1.0
 */
export * as Tasks from "./Tasks.ts"

/**
 * The MCP 2025-11-25 ("legacy") wire: initialize and version negotiation,
 * legacy-only utilities, server-to-client JSON-RPC requests.
 *
 * @since 0.2.0
 */
export * as Legacy from "./v2025_11_25/index.ts"
