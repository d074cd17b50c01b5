/**
 * The smallest useful stdio server, for `bench/stdioFirstAnswer.ts`: one tool, `McpServer.layer` and
 * `StdioTransport.main`, importing `@mrtr/server` as an application would.
 */
import { McpServer, StdioTransport, Tool } from "@mrtr/server"
import { Effect, Layer, Schema } from "effect"

const greet = Tool.make("greet", {
  parameters: Schema.Struct({ name: Schema.String }),
  handler: ({ name }) => Effect.succeed(`Hello, ${name}!`)
})

StdioTransport.main(
  McpServer.tools(greet).pipe(Layer.provideMerge(McpServer.layer({ name: "minimal", version: "1.0.0" })))
)
