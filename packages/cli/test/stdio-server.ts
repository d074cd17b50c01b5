/**
 * A tiny MCP server on stdio for the `mrtr --stdio` tests (spawned with
 * `node --import tsx`): `greet` asks a form, a model and the roots over two
 * rounds; `broken` reports a tool error; `sign_in` asks a URL-mode
 * elicitation.
 */
import { NodeRuntime, NodeStdio } from "@effect/platform-node"
import { Elicitation, Mrtr, Roots, Sampling } from "@mrtr/core"
import { McpServer, StdioTransport, Tool } from "@mrtr/server"
import { Effect, Layer, References, Schema } from "effect"

const greet = Tool.make("greet", {
  parameters: Schema.Struct({ greeting: Schema.String }),
  handler: ({ greeting }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({
        key: "name",
        message: "Your name?",
        schema: Schema.Struct({ name: Schema.String })
      })
      const [idea, roots] = yield* Mrtr.all([
        Sampling.createMessage({
          key: "idea",
          messages: [{ role: "user", content: { type: "text", text: `An idea for ${name}?` } }],
          maxTokens: 20
        }),
        Roots.list({ key: "roots" })
      ])
      return `${greeting}, ${name}! ${Sampling.textOf(idea)} (roots: ${roots.map((root) => root.uri).join(", ")})`
    })
})

const broken = Tool.make("broken", {
  handler: () => Effect.succeed({ content: [{ type: "text" as const, text: "out of order" }], isError: true })
})

const signIn = Tool.make("sign_in", {
  handler: () =>
    Elicitation.url({ key: "auth", message: "Sign in", url: "https://example.com/auth" }).pipe(Effect.as("signed in"))
})

const server = McpServer.tools(greet, broken, signIn).pipe(
  Layer.provideMerge(McpServer.layer({ name: "cli-test-stdio", version: "1.0.0" })),
  Layer.orDie
)

StdioTransport.serve().pipe(
  Effect.provide(NodeStdio.layer),
  Effect.provide(server),
  // stdout is the protocol channel: every log line (the server's startup warning too) goes to stderr
  Effect.provideService(References.LogToStderr, true),
  NodeRuntime.runMain
)
