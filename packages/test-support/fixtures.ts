/**
 * Test helper: the fixture tools every package's tests share, and one server of them all. `greet` asks one question,
 * `plan` three rounds (a form, then sampling and roots together, then a confirmation), `regional` mirrors an argument
 * into an `Mcp-Param-Region` header, `sign_in` asks a URL-mode elicitation, `slow` reports progress and logs; the
 * prompt `topic` and the resource template `test://files/{+path}` ask too.
 *
 * `stdioServerScript` is the one stdio fixture server: this `server` behind `StdioTransport.main`, for the tests that
 * spawn a server process (`node` with `sourceNodeArgs` of `./node.ts`).
 *
 * @since 0.1.0
 */
import type { ElicitationCancelled, ElicitationDeclined } from "@mrtr/core"
import { Elicitation, Mrtr, RequestState, Roots, Sampling } from "@mrtr/core"
import { McpServer, Prompt, RequestContext, Resource, Tool } from "@mrtr/server"
import { Effect, Layer, Schema } from "effect"
import { fileURLToPath } from "node:url"
import { testKeyRing } from "./http.ts"

const Name = Schema.Struct({ name: Schema.String })

/** One round: asks `name`. */
export const greet = Tool.make("greet", {
  parameters: Schema.Struct({ greeting: Schema.String }),
  handler: ({ greeting }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "name", message: "Your name?", schema: Name })
      return `${greeting}, ${name}!`
    })
})

/** Three rounds: `who`; then `idea` (sampling) and `roots` together; then `confirm`. Declines are caught. */
export const plan = Tool.make("plan", {
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "who", message: `Who travels to ${city}?`, schema: Name })
      const [idea, roots] = yield* Mrtr.all([
        Sampling.createMessage({
          key: "idea",
          messages: [{ role: "user", content: { type: "text", text: `Idea for ${city}` } }],
          maxTokens: 50
        }),
        Roots.list({ key: "roots" })
      ])
      const confirmed = yield* Elicitation.form({
        key: "confirm",
        message: `Book ${city} for ${name}?`,
        schema: Schema.Struct({ ok: Schema.Boolean })
      }).pipe(
        Effect.map((answer) => answer.ok ? "booked" : "not booked"),
        Effect.catchTag("ElicitationDeclined", (_: ElicitationDeclined) => Effect.succeed("declined")),
        Effect.catchTag("ElicitationCancelled", (_: ElicitationCancelled) => Effect.succeed("cancelled"))
      )
      const text = (idea.content as { readonly text: string }).text
      return `${name}: ${text} (${roots.length} roots) ${confirmed}`
    })
})

/** A tool whose `region` argument is mirrored into `Mcp-Param-Region` over HTTP. */
export const regional = Tool.make("regional", {
  parameters: Schema.Struct({
    region: Schema.String.annotate({ "x-mcp-header": "Region" } as Record<string, unknown>),
    query: Schema.String
  }),
  handler: ({ query, region }) => Effect.succeed(`${query} in ${region}`)
})

/** Sends the user to a URL (URL-mode elicitation). */
export const signIn = Tool.make("sign_in", {
  handler: () =>
    Elicitation.url({ key: "auth", message: "Sign in", url: "https://example.com/auth" }).pipe(Effect.as("signed in"))
})

/** Emits progress and a log line before answering. */
export const slowTool = Tool.make("slow", {
  handler: () =>
    Effect.gen(function*() {
      yield* RequestContext.progress(1, { total: 2 })
      yield* RequestContext.log("info", "halfway")
      yield* RequestContext.progress(2, { total: 2 })
      return "done"
    })
})

/** A prompt that asks for a name. */
export const topic = Prompt.make("topic", {
  arguments: Schema.Struct({ subject: Schema.String }),
  handler: ({ subject }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "name", message: "Name?", schema: Name })
      return `Write about ${subject} for ${name}`
    })
})

/** A resource template that asks for the roots. */
export const file = Resource.template({
  uriTemplate: "test://files/{+path}",
  name: "file",
  mimeType: "text/plain",
  handler: ({ path }) =>
    Effect.gen(function*() {
      const roots = yield* Roots.list({ key: "roots" })
      return `${path} under ${roots.map((r) => r.uri).join(",")}`
    })
})

/** The server: every fixture above, with a fixed key ring. */
export const server = Layer.mergeAll(
  McpServer.tools(greet, plan, regional, signIn, slowTool),
  McpServer.prompts(topic),
  McpServer.resources(file)
).pipe(
  Layer.provideMerge(McpServer.layer({
    name: "testing-fixture",
    version: "1.0.0",
    requestState: RequestState.RequestStateCodec.layer({ keyRing: testKeyRing(5) }).pipe(Layer.orDie)
  })),
  Layer.orDie
)

/** The path of the stdio fixture server: {@link server} over stdio, with `StdioTransport.main`. */
export const stdioServerScript = fileURLToPath(new URL("./stdio-server.ts", import.meta.url))
