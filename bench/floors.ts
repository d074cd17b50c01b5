/**
 * The servers the benchmarks measure ours against, shared by
 * `bench/servers.ts` (`npm run bench`) and `bench/profileServer.ts`: the bare
 * `node:http` floor answering the two rounds of `greet` with fixed JSON, and
 * the two reference floors that explain the gap to it (effect/http alone, and
 * our `HttpTransport` in front of a dispatcher answering the same fixed JSON).
 * Each `start*` binds 127.0.0.1 on a free port and resolves with the
 * endpoint's URL; the server lives as long as the process.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { HttpTransport, McpHandler, type Transport } from "@mrtr/server"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** The `requestedSchema` of `greet`'s one question. */
export const NAME_SCHEMA = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"]
} as const

const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "bench-bare", version: "1.0.0" } }
const ROUND_ONE = JSON.stringify({
  _meta: SERVER_INFO,
  resultType: "input_required",
  inputRequests: {
    name: {
      method: "elicitation/create",
      params: { mode: "form", message: "Your name?", requestedSchema: NAME_SCHEMA }
    }
  },
  requestState: "fixed-state"
})
const ROUND_TWO = JSON.stringify({
  _meta: SERVER_INFO,
  resultType: "complete",
  content: [{ type: "text", text: "Hello, Alice!" }]
})

/** The fixed JSON-RPC reply to a `greet` request: round one without `inputResponses`, else round two. */
const fixedReply = (message: unknown): string => {
  const m = message as { id: unknown; params?: { inputResponses?: unknown } }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":${
    m.params?.inputResponses === undefined ? ROUND_ONE : ROUND_TWO
  }}`
}

/** Builds `app` for the life of the process and resolves with the URL `url` reads from it. */
export const launch = <R>(app: Layer.Layer<R>, url: Effect.Effect<string, never, R>): Promise<string> =>
  new Promise((resolve, reject) => {
    Effect.runFork(
      Effect.gen(function*() {
        resolve(yield* url)
        return yield* Effect.never
      }).pipe(Effect.provide(app), Effect.scoped, Effect.tapCause((cause) => Effect.sync(() => reject(cause))))
    )
  })

/** Bare `node:http` answering the two rounds with fixed JSON: the floor. */
export const startBare = (): Promise<string> =>
  new Promise((resolve) => {
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const body = fixedReply(JSON.parse(Buffer.concat(chunks).toString("utf8")))
        response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
        response.end(body)
      })
    })
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`))
  })

/** effect/http alone (`HttpRouter` on `NodeHttpServer`), answering the fixed JSON. */
export const startEffectHttpFloor = (): Promise<string> => {
  const route = HttpRouter.add("POST", "/mcp", (request) =>
    Effect.map(
      Effect.orDie(request.text),
      (text) => HttpServerResponse.text(fixedReply(JSON.parse(text)), { contentType: "application/json" })
    ))
  const app = HttpRouter.serve(route, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.orDie
  )
  return launch(app, Effect.map(HttpServer.HttpServer, (server) => `${HttpServer.formatAddress(server.address)}/mcp`))
}

/**
 * Our `HttpTransport` (all its checks) in front of a dispatcher that answers
 * the fixed JSON; with `later`, two turns of the event loop later, as a
 * suspended round's reply comes.
 */
export const startTransportFloor = (options: { readonly later?: boolean } = {}): Promise<string> => {
  const reply = (message: unknown) =>
    Effect.sync(() =>
      ({
        _tag: "Response",
        message: JSON.parse(fixedReply(message)) as Transport.WireMessage,
        httpStatus: 200
      }) as const
    )
  const handler = Layer.succeed(
    McpHandler,
    McpHandler.of({
      handle: (incoming) =>
        options.later === true
          ? Effect.andThen(
            Effect.callback<void>((resume) => {
              setImmediate(() => setImmediate(() => resume(Effect.void)))
            }),
            reply(incoming.message)
          )
          : reply(incoming.message)
    })
  )
  return launch(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(handler), Layer.orDie), HttpTransport.url)
}
