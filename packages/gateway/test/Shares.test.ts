/**
 * A 2025-11-25 stdio upstream behind the gateway, called by two principals
 * (real tokens of a real authorization server) and by two anonymous callers
 * (two client addresses): a session serves one caller's share, so one
 * caller's roots, questions and answers never reach another's call; a call
 * abandoned upstream leaves no question for anybody else; and one caller's
 * unanswered held call does not break anybody else's questions.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ElicitationHandler, HttpTransport as ClientHttp, McpClient, RootsHandler } from "@mrtr/client"
import { Authorization, HttpTransport, McpServer } from "@mrtr/server"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { type AuthorizationServer, issueToken, startAuthorizationServer } from "@mrtr/test-support/oauth"
import { Context, Effect, Layer } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Upstream } from "../src/index.ts"
import { gatewayKeys } from "./fixtures.ts"

const script = fileURLToPath(new URL("./bank-stdio.ts", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "mrtr-shares-"))

let as: AuthorizationServer
beforeAll(async () => {
  as = await startAuthorizationServer({ scopes: ["mcp:basic"] })
}, 60_000)
afterAll(async () => {
  await as?.close()
})

/** Two callers of one gateway: each its own headers (a bearer token, or a client address). */
interface Callers {
  readonly url: string
  readonly log: string
  readonly alice: Readonly<Record<string, string>>
  readonly bob: Readonly<Record<string, string>>
}

let gateways = 0

/** A gateway over HTTP in front of the bank upstream (stdio, 2025-11-25), its callers named, until the scope ends. */
const gateway = (mode: "principals" | "anonymous") =>
  Effect.gen(function*() {
    const log = join(dir, `bank-${++gateways}.log`)
    writeFileSync(log, "")
    const upstream = Upstream.stdio({
      name: "bank",
      command: process.execPath,
      args: [...sourceNodeArgs, script],
      env: { BANK_LOG: log }
    })
    const server = McpServer.mount("", Upstream.layer(upstream, { startTimeout: "60 seconds", protocol: "2025-11-25" }))
      .pipe(
        Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
        Layer.orDie
      )
    const transport = mode === "principals"
      ? HttpTransport.layer({ port: 0 }).pipe(
        Layer.provide(Authorization.layer({
          verifier: Authorization.jwt({ issuer: as.issuer, jwksUri: as.jwksUri }),
          requiredScopes: ["mcp:basic"]
        }))
      )
      : HttpTransport.layer({ port: 0, trustedProxies: ["127.0.0.1"] })
    const context = yield* Layer.build(transport.pipe(Layer.provide(server), Layer.orDie))
    const url = yield* Effect.provide(HttpTransport.url, context)
    if (mode === "anonymous") {
      return { url, log, alice: { "x-forwarded-for": "203.0.113.1" }, bob: { "x-forwarded-for": "198.51.100.7" } }
    }
    const bearer = (user: string) =>
      Effect.map(
        Effect.promise(() => issueToken(as, { user, resource: url, scope: "mcp:basic" })),
        (token) => ({ authorization: `Bearer ${token}` })
      )
    return { url, log, alice: yield* bearer("alice"), bob: yield* bearer("bob") } satisfies Callers
  })

/** A downstream client of the gateway sending `headers`, answering with `handlers`. */
const client = (
  url: string,
  headers: Readonly<Record<string, string>>,
  handlers: Layer.Layer<never> = Layer.empty,
  options: McpClient.Options = {}
) =>
  Effect.map(
    Layer.build(
      McpClient.layer(options).pipe(
        Layer.provide(ClientHttp.layerNode({ url, headers })),
        Layer.provide(handlers)
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

const textOf = (result: any) => (result.content[0] as { text: string }).text
const answering = (ok: string) =>
  ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ ok })) })
const held = (call: Effect.Effect<unknown, unknown>) =>
  Effect.map(Effect.flip(call), (error: any) => {
    expect(error._tag).toBe("MaxRoundsExceeded")
    return error.lastResult as { readonly inputRequests: Record<string, any>; readonly requestState: string }
  })

for (const mode of ["principals", "anonymous"] as const) {
  describe(`a 2025-11-25 stdio upstream, two ${mode === "principals" ? "principals" : "anonymous callers"}`, () => {
    it.live(
      "each caller's session keeps its own roots: one caller's roots never become another's",
      () =>
        Effect.gen(function*() {
          const { alice, bob, url } = yield* gateway(mode)
          const roots = (who: string) => RootsHandler.layer(() => Effect.succeed([{ uri: `file:///home/${who}` }]))
          const a = yield* client(url, alice, roots("alice"))
          expect(textOf(yield* a.callTool({ name: "allowed", arguments: { who: "alice" } }))).toBe(
            "alice may use file:///home/alice"
          )
          const b = yield* client(url, bob, roots("bob"))
          expect(textOf(yield* b.callTool({ name: "allowed", arguments: { who: "bob" } }))).toBe(
            "bob may use file:///home/bob"
          )
        }).pipe(Effect.scoped),
      120_000
    )

    it.live(
      "a question asked after its caller left reaches no other caller, and nobody's answer reaches it",
      () =>
        Effect.gen(function*() {
          const { alice, bob, log, url } = yield* gateway(mode)
          // Alice's call is held, waiting on her answer
          const a = yield* client(url, alice, answering("blue"))
          const first = yield* held(a.callTool({ name: "ask", arguments: { who: "alice" } }, { maxRounds: 1 }))
          expect(first.inputRequests["bank/elicitation-1"].params.message).toBe("alice: your favourite colour?")
          // Bob (a 2025-11-25 client) leaves before the upstream asks him
          const b = yield* client(url, bob, answering("bob's yes"), { protocol: "2025-11-25" })
          const left = yield* b.callTool({ name: "slow_ask", arguments: { who: "bob" } }).pipe(
            Effect.timeoutOption("300 millis")
          )
          expect(left._tag).toBe("None")
          yield* Effect.sleep("1500 millis")
          // Alice answers her own question: her call completes with her answer, never showing Bob's question
          const done = yield* a.callTool({
            name: "ask",
            arguments: { who: "alice" },
            requestState: first.requestState,
            inputResponses: { "bank/elicitation-1": { action: "accept", content: { ok: "blue" } } }
          }, { maxRounds: 1 })
          expect(textOf(done)).toBe("alice answered blue")
          expect(readFileSync(log, "utf8")).not.toContain("slow_ask for bob got accept")
        }).pipe(Effect.scoped),
      120_000
    )

    it.live(
      "one caller's unanswered held call leaves another's questions intact; past the caller's own bound, a JSON-RPC error",
      () =>
        Effect.gen(function*() {
          const { alice, bob, url } = yield* gateway(mode)
          const a = yield* client(url, alice, answering("never sent"))
          const b = yield* client(url, bob, answering("never sent"))
          const ask = (c: McpClient.McpClient["Service"], who: string) =>
            held(c.callTool({ name: "ask", arguments: { who } }, { maxRounds: 1 }))
          const message = (last: { readonly inputRequests: Record<string, any> }) =>
            last.inputRequests["bank/elicitation-1"].params.message
          // Alice's call: never answered
          expect(message(yield* ask(a, "alice"))).toBe("alice: your favourite colour?")
          // Bob's calls each ask Bob
          expect(message(yield* ask(b, "bob"))).toBe("bob: your favourite colour?")
          // Alice's second call gets a session of her own; her third finds her share full: a JSON-RPC error
          expect(message(yield* ask(a, "alice again"))).toBe("alice again: your favourite colour?")
          const busy: any = yield* Effect.flip(
            a.callTool({ name: "ask", arguments: { who: "alice" } }, { maxRounds: 1 })
          )
          expect(busy.code).toBe(-32603)
          expect(busy.message).toContain("Upstream bank has no free client")
        }).pipe(Effect.scoped),
      120_000
    )
  })
}
