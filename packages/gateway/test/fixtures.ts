import { Elicitation, Mrtr, RequestState, Roots, Sampling } from "@mrtr/core"
import { HttpTransport, McpServer, Tool } from "@mrtr/server"
import { ScriptedUser } from "@mrtr/testing"
import { type Context, Effect, Exit, Layer, Schema, Scope } from "effect"

/** How many times the upstream's handlers ran (every round runs the handler from the top). */
export const runs = { plan: 0, trip: 0 }

/** An upstream tool asking in three rounds: a form, then sampling and roots together, then a confirmation. */
export const plan = Tool.make("plan", {
  description: "Plans a trip, asking the user",
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) =>
    Effect.gen(function*() {
      runs.plan++
      const { name } = yield* Elicitation.form({
        key: "who",
        message: `Who travels to ${city}?`,
        schema: Schema.Struct({ name: Schema.String })
      })
      const [idea, roots] = yield* Mrtr.all([
        Sampling.createMessage({
          key: "idea",
          messages: [{ role: "user", content: { type: "text", text: `Idea for ${city}` } }],
          maxTokens: 50
        }),
        Roots.list({ key: "roots" })
      ])
      const { ok } = yield* Elicitation.form({
        key: "confirm",
        message: `Book for ${name}?`,
        schema: Schema.Struct({ ok: Schema.Boolean })
      })
      return `${name} to ${city}: ${Sampling.textOf(idea)}, ${roots.length} root(s), booked=${ok}`
    })
})

/** An upstream tool asking one question. */
export const trip = Tool.make("trip", {
  parameters: Schema.Struct({ to: Schema.String }),
  handler: ({ to }) =>
    Effect.gen(function*() {
      runs.trip++
      const { name } = yield* Elicitation.form({
        key: "who",
        message: `Who goes to ${to}?`,
        schema: Schema.Struct({ name: Schema.String })
      })
      return `${name} goes to ${to}`
    })
})

export const echo = Tool.make("echo", {
  parameters: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text)
})

const keyRing = (fill: number) =>
  RequestState.RequestStateCodec.layer({
    keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(fill) }])
  })
    .pipe(Layer.orDie)

/** An upstream `McpServer` (both eras on one endpoint) with `tools`, served on 127.0.0.1. */
export const upstreamServer = (name: string, tools: ReadonlyArray<Tool.Tool<any, never>>) =>
  McpServer.tools(...tools).pipe(
    Layer.provideMerge(McpServer.layer({ name, version: "1.0.0", requestState: keyRing(7) })),
    Layer.orDie
  )

/** Serves `layer` over HTTP on a free port (with `transport`'s other options) until the returned `close`. */
export const serve = async (layer: Layer.Layer<any, unknown>, transport: HttpTransport.LayerOptions = {}) => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(
      HttpTransport.layer({ ...transport, port: 0 }).pipe(Layer.provideMerge(layer)),
      scope
    ) as Effect.Effect<
      Context.Context<any>,
      unknown
    >
  )
  const url = Effect.runSync(Effect.provide(HttpTransport.url, context))
  return { url, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

export const gatewayKeys = keyRing(3)

/** The user downstream of the gateway: answers by the question, whatever the key. */
export const user = ScriptedUser.layer({
  elicitation: {
    otherwise: (params: any) =>
      String(params.message).startsWith("Who")
        ? ScriptedUser.accept({ name: "Kim" })
        : ScriptedUser.accept({ ok: true })
  },
  sampling: { otherwise: ScriptedUser.text("eat pastries") },
  roots: [{ uri: "file:///srv" }]
})
