/**
 * The service the transports (Streamable HTTP, stdio, in-memory) take the
 * dispatcher from.
 *
 * The dispatcher (`McpServer`) provides it; every transport layer requires it.
 * Tests provide a fake `Handler` with `Layer.succeed(McpHandler, handler)`.
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Handler } from "./Transport.ts"

/**
 * Service tag for the protocol dispatcher as transports see it: a `Handler`
 * (`handle(incoming) => Effect<Reply>`, never failing). See `Transport.ts`.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category services
 * @since 0.1.0
 */
export class McpHandler extends Context.Service<McpHandler, Handler>()("@mrtr/server/McpHandler") {}
