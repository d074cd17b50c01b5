/**
 * @mrtr/gateway: remote MCP servers mounted into an `McpServer`
 * (`Upstream`), and the gateway the `mrtr gateway` command serves (`Gateway`).
 *
 * @since 0.3.0
 */

/**
 * Upstream servers: HTTP or stdio, either era, mirrored and forwarded.
 *
 * @since 0.3.0
 */
export * as Upstream from "./Upstream.ts"

/**
 * A gateway from an `mcpServers` configuration file.
 *
 * @since 0.3.0
 */
export * as Gateway from "./Gateway.ts"

/**
 * Upstream calls held open between a 2026-07-28 client's rounds (in memory,
 * or across a fleet on Redis).
 *
 * @since 0.3.0
 */
export * as HeldCalls from "./HeldCalls.ts"

/**
 * The gateway's metrics: upstreams available, failed, busy.
 *
 * @since 0.4.0
 */
export * as Metrics from "./Metrics.ts"
