/**
 * The client address a request is counted by (the shares of unauthenticated
 * callers), over real HTTP on loopback: the socket's peer by default, with
 * any `X-Forwarded-For` ignored; the forwarded address only from a proxy
 * listed in `trustedProxies`; an invalid entry is refused when the options
 * are resolved.
 */
import { assert, describe, it } from "@effect/vitest"
import { ClientAddress, RequestState } from "@mrtr/core"
import { mcpPost } from "@mrtr/test-support/http"
import { Effect, Layer } from "effect"
import { HttpTransport, McpServer, Tool } from "../src/index.ts"
import { keys, request } from "./fixtures.ts"

const whoAmI = Tool.make("who_am_i", {
  handler: () => Effect.map(Effect.service(ClientAddress.ClientAddress), (address) => String(address))
})

const start = (endpoint: HttpTransport.EndpointOptions) =>
  Layer.build(
    HttpTransport.layer({ port: 0, ...endpoint }).pipe(
      Layer.provide(
        McpServer.tools(whoAmI).pipe(Layer.provideMerge(McpServer.layer({
          name: "address-test",
          version: "1",
          requestState: RequestState.RequestStateCodec.layer({
            keyRing: RequestState.KeyRing.fromBytes(keys.map((bytes) => ({ bytes })))
          }).pipe(Layer.orDie)
        })))
      ),
      Layer.orDie
    )
  ).pipe(Effect.flatMap((context) => Effect.provide(HttpTransport.url, context)))

const ask = (url: string, headers: Record<string, string> = {}) =>
  mcpPost(url, request("tools/call", { name: "who_am_i", arguments: {} }), headers).pipe(
    Effect.map((reply) => reply.json.result.content[0].text as string)
  )

describe("the client address of a request", () => {
  it.live(
    "is the socket's peer; X-Forwarded-For is ignored unless it comes from a trusted proxy",
    () =>
      Effect.gen(function*() {
        const plain = yield* start({})
        assert.strictEqual(yield* ask(plain), "127.0.0.1")
        assert.strictEqual(yield* ask(plain, { "x-forwarded-for": "203.0.113.9" }), "127.0.0.1")
        const proxied = yield* start({ trustedProxies: ["127.0.0.1"] })
        assert.strictEqual(yield* ask(proxied, { "x-forwarded-for": "203.0.113.9" }), "203.0.113.9")
        // A spoofed entry left of the one the trusted proxy appended is not taken.
        assert.strictEqual(yield* ask(proxied, { "x-forwarded-for": "6.6.6.6, 203.0.113.9" }), "203.0.113.9")
        assert.strictEqual(yield* ask(proxied), "127.0.0.1")
        const elsewhere = yield* start({ trustedProxies: ["10.0.0.0/8"] })
        assert.strictEqual(yield* ask(elsewhere, { "x-forwarded-for": "203.0.113.9" }), "127.0.0.1")
      }).pipe(Effect.scoped),
    30_000
  )

  it("an invalid trustedProxies entry is refused when the options are resolved", () => {
    assert.throws(() => HttpTransport.handleRequest({ trustedProxies: ["not-an-address"] }), /trustedProxies/)
  })
})
