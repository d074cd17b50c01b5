/**
 * A stdio server started with `StdioTransport.main`, with zero configuration
 * (so a random key ring, and its warning, while the layer is built). With the
 * argument `long-drain`, the transport's `drainTimeout` is an hour.
 */
import { Duration, Layer } from "effect"
import { McpServer, StdioTransport } from "../src/index.ts"
import { greet } from "./fixtures.ts"

StdioTransport.main(
  McpServer.tools(greet).pipe(Layer.provideMerge(McpServer.layer({ name: "stdio-main", version: "1" }))),
  process.argv[2] === "long-drain" ? { drainTimeout: Duration.hours(1) } : {}
)
