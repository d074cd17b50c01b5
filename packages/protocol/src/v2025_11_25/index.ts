/**
 * The MCP 2025-11-25 ("legacy") wire, as `Legacy.*` of `@mrtr/protocol`:
 * what exists only on the handshake era (initialize, sessions' utilities,
 * server-to-client JSON-RPC requests). Messages shared by both eras live in
 * the 2026-07-28 modules; only what differs per revision is here.
 * Source: MCP 2025-11-25; schema-2025-11-25.json.
 *
 * @since 0.2.0
 */
export * from "./Lifecycle.ts"
/** @since 0.1.0 */
export * from "./ServerRequests.ts"
/** @since 0.1.0 */
export * from "./Utilities.ts"
