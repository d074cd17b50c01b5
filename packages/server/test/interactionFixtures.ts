/**
 * A real server for the interaction page tests: one tool asking for an API
 * key with `Elicitation.secure`, served by `HttpTransport.layer` on a free
 * loopback port with `InteractionPage.routes` mounted, plus raw JSON-RPC and
 * page helpers over `fetch`.
 */
import { Elicitation, RequestState } from "@mrtr/core"
import { mcpPost, request } from "@mrtr/test-support/http"
import { Effect, Layer, Schema, type Scope } from "effect"
import { HttpTransport, InteractionPage, McpServer, Tool } from "../src/index.ts"
import { keys } from "./fixtures.ts"

export const ApiKey = Schema.Struct({
  api_key: Schema.String.check(Schema.isMinLength(8)).annotate({
    title: "API key",
    description: "Starts with sk-"
  }),
  region: Schema.Literals(["eu", "us"]).annotate({ title: "Region" }),
  alerts: Schema.optionalKey(Schema.Boolean.annotate({ title: "Send alerts" }))
})

export const connect = Tool.make("connect", {
  description: "Connects to Acme with an API key asked on the server's own page",
  parameters: Schema.Struct({ ttlMs: Schema.optionalKey(Schema.Number) }),
  handler: ({ ttlMs }) =>
    Effect.gen(function*() {
      const value = yield* Elicitation.secure({
        key: "api_key",
        message: "Paste your Acme API key",
        schema: ApiKey,
        ...(ttlMs === undefined ? {} : { ttl: `${ttlMs} millis` })
      })
      return `connected to ${value.region} with a key of ${value.api_key.length} characters${
        value.alerts === true ? ", alerts on" : ""
      }`
    })
})

/** Starts the server; returns the MCP endpoint URL. `page` and `endpoint` are passed to the layers. */
export const startServer = (
  page: InteractionPage.Options = {},
  endpoint: HttpTransport.EndpointOptions = {}
): Effect.Effect<string, never, Scope.Scope> => {
  // Tests are single-user: the page of an unauthenticated conversation is anyone's who opens it (see singleUser).
  const interactions = InteractionPage.layer({ singleUser: true, ...page })
  const server = McpServer.tools(connect).pipe(
    Layer.provide(interactions),
    Layer.provideMerge(McpServer.layer({
      name: "acme-server",
      title: "Acme Connector",
      version: "1.0.0",
      requestState: RequestState.RequestStateCodec.layer({
        keyRing: RequestState.KeyRing.fromBytes(keys.map((bytes) => ({ bytes })))
      }).pipe(Layer.orDie)
    }))
  )
  return Layer.build(
    HttpTransport.layer({ port: 0, gracefulShutdownTimeout: "1 second", mount: InteractionPage.routes, ...endpoint })
      .pipe(
        Layer.provide(server),
        Layer.provide(interactions),
        Layer.orDie
      )
  ).pipe(Effect.flatMap((context) => Effect.provide(HttpTransport.url, context)))
}

export const URL_CAPS = { elicitation: { form: {}, url: {} } }

/** One `tools/call connect` POST (a first call, or a retry with `inputResponses` and `requestState`). */
export const callConnect = (
  url: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {}
): Effect.Effect<{ readonly status: number; readonly message: any }> =>
  Effect.map(
    mcpPost(
      url,
      request("tools/call", {
        name: "connect",
        arguments: {},
        ...params,
        _meta: { "io.modelcontextprotocol/clientInfo": { name: "test", version: "0" } }
      }, { clientCapabilities: URL_CAPS }),
      headers
    ),
    (reply) => ({ status: reply.status, message: reply.json })
  )

export const ACCEPT = { api_key: { action: "accept" } }
