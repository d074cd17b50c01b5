/**
 * Deployment: the get-started server configured for production. The key ring comes from configuration (so every
 * instance and every restart opens the same states), states expire, each is redeemed once, and the HTTP endpoint is
 * bound, bounded and logged explicitly. Run it: `MRTR_REQUEST_STATE_KEYS=k1:<key> npx tsx examples/deployment/server.ts`.
 */
// #region server
import { NodeRuntime } from "@effect/platform-node"
import { Elicitation, RequestState } from "@mrtr/core"
import { HttpTransport, McpServer, Tool } from "@mrtr/server"
import { Console, Effect, Layer, Schema } from "effect"

const Name = Schema.Struct({ name: Schema.String })

const greet = Tool.make("greet", {
  handler: () =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "name", message: "Your name?", schema: Name })
      return `Hello, ${name}!`
    })
})

export const server = McpServer.tools(greet).pipe(
  Layer.provideMerge(McpServer.layer({
    name: "greeter", // with `audience`, what every state is bound to: the same on every instance
    version: "1.0.0",
    requestState: {
      keyRing: RequestState.KeyRing.fromConfig, // MRTR_REQUEST_STATE_KEYS="k2:<base64url>,k1:<base64url>"
      ttl: "10 minutes", // how long a round may wait for its answer
      singleUse: true // each state redeemed once; across a fleet, through Redis
    }
  }))
)
// #endregion server

// #region http
export const serve = (port: number) =>
  HttpTransport.layer({
    port,
    host: "0.0.0.0", // behind a balancer; the default is 127.0.0.1
    allowedHosts: ["mcp.example.com"], // the Host names this endpoint answers (DNS rebinding)
    maxBodyBytes: 1024 * 1024, // HTTP 413 above it
    sseKeepAlive: "15 seconds", // a comment line on a quiet stream, under proxies' idle timeouts
    gracefulShutdownTimeout: "20 seconds", // on SIGTERM, rounds in flight finish
    logRequests: true // one log line per HTTP request
  }).pipe(Layer.provide(server))
// #endregion http

if (import.meta.url === `file://${process.argv[1]}`) {
  Effect.gen(function*() {
    yield* Console.log(`listening ${yield* HttpTransport.url}`)
    return yield* Effect.never
  }).pipe(Effect.provide(serve(Number(process.argv[2] ?? 3000))), NodeRuntime.runMain)
}
