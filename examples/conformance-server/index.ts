/**
 * The conformance fixture server: every tool, prompt and resource the official
 * MCP conformance suite (`@modelcontextprotocol/conformance`, server scenarios
 * at `--requirements 2026-07-28`) calls, served over Streamable HTTP.
 *
 * ```sh
 * npm run -s example:conformance-server -- --port 3000 [--host 127.0.0.1]
 * npm run -s example:conformance-server -- --stdio
 * ```
 *
 * Serves `http://<host>:<port>/mcp` (`--port 0` picks a free port) and prints
 * exactly one line on stdout when ready: `listening <url>`; with `--stdio`,
 * MCP on stdin/stdout until stdin ends (what `npm run conformance` puts
 * behind `mrtr gateway` as a stdio upstream). Logs go to stderr.
 * The MRTR handlers ask in direct style (`./mrtr.ts`); the runtime suspends
 * them into a sealed `requestState`. The server is `McpServer.layerConfig`:
 * configured from the environment (key ring from `MRTR_REQUEST_STATE_KEYS`,
 * else a random per-process key; `MRTR_REQUEST_STATE_TTL`, `MRTR_SINGLE_USE`),
 * everything else in this process. The Tasks fixtures (`./tasks.ts`) run as
 * tasks of the Tasks extension (SEP-2663) when the request declares it.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { HttpTransport, McpServer, StdioTransport } from "@mrtr/server"
import { Console, Effect, Layer, Logger, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import * as Everything from "./everything.ts"
import * as Mrtr from "./mrtr.ts"
import * as Stateless from "./stateless.ts"
import * as Tasks from "./tasks.ts"

/** The fixtures as one Layer on top of the server. */
export const ServerLive = Layer.mergeAll(
  McpServer.tools(...Mrtr.tools, ...Stateless.tools, ...Everything.tools, ...Tasks.tools),
  McpServer.prompts(Mrtr.prompt, ...Everything.prompts),
  McpServer.resources(...Everything.resources)
).pipe(
  Layer.provideMerge(McpServer.layerConfig({
    name: "mrtr-conformance-server",
    version: "0.1.0",
    title: "MRTR conformance fixture server",
    instructions: "Fixture server for the MCP conformance suite (2026-07-28, MRTR)."
  }))
)

const Port = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 65535 }, {
  message: "--port must be an integer between 0 and 65535 (0 picks a free port)"
}))

const command = Command.make(
  "conformance-server",
  {
    port: Flag.Int("port").pipe(
      Flag.withSchema(Port),
      Flag.withDescription("TCP port to listen on (0 picks a free port)"),
      Flag.withDefault(3000)
    ),
    host: Flag.String("host").pipe(
      Flag.withDescription("Interface to bind"),
      Flag.withDefault("127.0.0.1")
    ),
    stdio: Flag.Boolean("stdio").pipe(
      Flag.withDescription("Serve MCP on stdin/stdout instead of HTTP, until stdin ends"),
      Flag.withDefault(false)
    )
  },
  ({ host, port, stdio }) =>
    stdio ?
      StdioTransport.serve().pipe(Effect.provide(Layer.merge(ServerLive, NodeStdio.layer))) :
      Effect.gen(function*() {
        yield* Console.log(`listening ${yield* HttpTransport.url}`)
        return yield* Effect.never
      }).pipe(
        Effect.provide(HttpTransport.layer({ port, host }).pipe(Layer.provide(ServerLive)))
      )
).pipe(Command.withDescription("MCP 2026-07-28 conformance fixture server (Streamable HTTP, or --stdio)"))

command.pipe(
  Command.run({ version: "0.1.0" }),
  Effect.provideService(Logger.LogToStderr, true),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
