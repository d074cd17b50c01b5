/**
 * `@mrtr/protocol`: the wire model of MCP revision 2026-07-28 ("Multi
 * Round-Trip Requests") for Effect: JSON-RPC envelopes, error codes,
 * request/result `_meta`, message schemas, capability checks and the
 * Streamable HTTP header rules.
 *
 * @since 0.1.0
 */
/** @since 0.1.0 */
export * from "./Capabilities.ts"
/** @since 0.1.0 */
export * from "./ErrorCode.ts"
/** @since 0.1.0 */
export * from "./Headers.ts"
/** @since 0.1.0 */
export * from "./JsonRpc.ts"
/** @since 0.1.0 */
export * from "./Meta.ts"
/** @since 0.1.0 */
export * from "./Schema.ts"
/** @since 0.1.0 */
export * from "./Tasks.ts"
/**
 * Text from a peer made safe to show on a terminal or write into a log line.
 *
 * @since 0.3.0
 */
export * as SafeText from "./SafeText.ts"
/**
 * The MCP 2025-11-25 ("legacy") wire: initialize and version negotiation,
 * legacy-only utilities, server-to-client JSON-RPC requests.
 *
 * @since 0.2.0
 */
export * as Legacy from "./v2025_11_25/index.ts"
