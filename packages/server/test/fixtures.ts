import { Elicitation, Mrtr, RequestState, Roots, Sampling } from "@mrtr/core"
import { makeRequestMeta } from "@mrtr/protocol/Meta"
import type { ClientCapabilities } from "@mrtr/protocol/Schema"
import { Effect, Layer, Schema } from "effect"
import { McpServer, Prompt, RequestContext, Resource, Tool } from "../src/index.ts"

export const Name = Schema.Struct({ name: Schema.String })

export const greet = Tool.make("greet", {
  description: "Greets the user by name",
  parameters: Schema.Struct({ greeting: Schema.String }),
  handler: ({ greeting }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "name", message: "Your name?", schema: Name })
      return `${greeting}, ${name}!`
    })
})

export const plan = Tool.make("plan", {
  description: "Three rounds: name, then sampling and roots together, then a confirmation",
  parameters: Schema.Struct({ city: Schema.String }),
  output: Schema.Struct({
    who: Schema.String,
    city: Schema.String,
    idea: Schema.String,
    roots: Schema.Number,
    ticket: Schema.Number
  }),
  handler: ({ city }) =>
    Effect.gen(function*() {
      const ticket = yield* Mrtr.step("ticket", Effect.sync(() => Math.floor(Math.random() * 1e9)), Schema.Number)
      const { name } = yield* Elicitation.form({ key: "who", message: `Who travels to ${city}?`, schema: Name })
      const [idea, roots] = yield* Mrtr.all([
        Sampling.createMessage({
          key: "idea",
          messages: [{ role: "user", content: { type: "text", text: `Idea for ${city}` } }],
          maxTokens: 50
        }),
        Roots.list({ key: "roots" })
      ])
      yield* Elicitation.form({
        key: "confirm",
        message: `Book for ${name}?`,
        schema: Schema.Struct({ ok: Schema.Boolean })
      })
      return { who: name, city, idea: (idea.content as { text: string }).text, roots: roots.length, ticket }
    })
})

export const fails = Tool.make("fails", {
  handler: () => Effect.fail(new Error("the tool broke"))
})

export const needsSampling = Tool.make("needs_sampling", {
  handler: () => Sampling.createMessage({ key: "s", messages: [], maxTokens: 5 }).pipe(Effect.map((r) => r.model))
})

export const progressTool = Tool.make("progress", {
  handler: () =>
    Effect.gen(function*() {
      yield* RequestContext.progress(1, { total: 2 })
      yield* RequestContext.log("info", "halfway")
      yield* RequestContext.progress(2, { total: 2 })
      return "done"
    })
})

export const topic = Prompt.make("topic", {
  arguments: Schema.Struct({ subject: Schema.String.annotate({ description: "What about" }) }),
  completions: { subject: (value) => Effect.succeed(["cats", "cars", "dogs"].filter((s) => s.startsWith(value))) },
  handler: ({ subject }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "name", message: "Name?", schema: Name })
      return `Write about ${subject} for ${name}`
    })
})

export const readme = Resource.make({
  uri: "test://readme",
  name: "readme",
  mimeType: "text/plain",
  handler: Effect.succeed("hello")
})

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

export const keys = [new Uint8Array(32).fill(9)]

export const serverLayer = (options: Partial<McpServer.Options> = {}) =>
  Layer.mergeAll(
    McpServer.tools(greet, plan, fails, needsSampling, progressTool),
    McpServer.prompts(topic),
    McpServer.resources(readme, file)
  ).pipe(
    Layer.provideMerge(McpServer.layer({
      name: "test-server",
      version: "1.0.0",
      ...options,
      requestState: RequestState.RequestStateCodec.layer({
        keyRing: RequestState.KeyRing.fromBytes(keys.map((bytes) => ({ bytes })))
      }).pipe(Layer.orDie)
    })),
    Layer.orDie
  )

export const ALL_CAPS = { elicitation: {}, sampling: {}, roots: {} }

let nextId = 1
export const request = (method: string, params: Record<string, unknown> = {}, capabilities: object = ALL_CAPS) => ({
  jsonrpc: "2.0",
  id: nextId++,
  method,
  params: {
    ...params,
    _meta: {
      ...makeRequestMeta({
        clientCapabilities: capabilities as ClientCapabilities,
        clientInfo: { name: "test", version: "0" }
      }),
      ...(params._meta as object ?? {})
    }
  }
})
