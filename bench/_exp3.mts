import { Effect, Layer, Stream } from "effect"
import { ClientTransport, ElicitationHandler, McpClient } from "@mrtr/client"
import { replyText } from "./cannedReplies.ts"
const stub = Layer.succeed(ClientTransport.ClientTransport, ClientTransport.ClientTransport.of({
  kind: "memory", usesHeaders: true,
  request: (message, headers) => Stream.fromEffect(Effect.sync(() => { console.log(JSON.stringify(message).length, JSON.stringify(message).slice(0, 600), JSON.stringify(headers)); return JSON.parse(replyText(message)) })),
  notify: () => Effect.void, notifications: Stream.never
}))
const user = ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ name: "Alice" })) })
await Effect.runPromise(Effect.gen(function*() {
  const mcp = yield* McpClient.McpClient
  yield* mcp.callTool({ name: "greet", arguments: {} })
  yield* mcp.callTool({ name: "greet", arguments: {} })
}).pipe(Effect.provide(McpClient.layer({ clientInfo: { name: "b", version: "1" } }).pipe(Layer.provide(Layer.merge(stub, user))))))
