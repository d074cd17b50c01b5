/**
 * Authorization end to end: `@mrtr/client` signs in to `@mrtr/server`
 * (HttpTransport + Authorization.layer) at a real authorization server
 * (oidc-provider on a free loopback port) through the whole code + PKCE flow
 * (PRM discovery from the 401, OIDC discovery, Dynamic Client Registration,
 * `resource`, RFC 9207 `iss`), drives an asking tool across three rounds,
 * steps up on a 403 `insufficient_scope` and completes, and keeps its tokens
 * in a 0600 file store; a person who signs in slower than the client's
 * `probeTimeout` and `requestTimeout` is not cut off by them (a `TestClock`
 * plays the slow person). Source: MCP 2026-07-28 basic/authorization.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Authorization as ClientAuth, HttpTransport as ClientHttp, McpClient, TokenStore } from "@mrtr/client"
import { Elicitation, RequestState } from "@mrtr/core"
import { Authorization, HttpTransport, McpServer, Tool } from "@mrtr/server"
import { type AuthorizationServer, headlessBrowser, startAuthorizationServer } from "@mrtr/test-support/oauth"
import { Deferred, type Duration, Effect, Fiber, Layer, ManagedRuntime, Option, Redacted, Schema } from "effect"
import { TestClock } from "effect/testing"
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ScriptedUser } from "../src/index.ts"

const Answer = Schema.Struct({ answer: Schema.String })

const survey = Tool.make("survey", {
  handler: () =>
    Effect.gen(function*() {
      const first = yield* Elicitation.form({ key: "first", message: "First?", schema: Answer })
      const second = yield* Elicitation.form({ key: "second", message: "Second?", schema: Answer })
      const auth = yield* Authorization.authInfo
      return `${Option.getOrThrow(auth).subject}: ${first.answer}+${second.answer}`
    })
})

const publish = Tool.make("publish", { scopes: ["mcp:write"], handler: () => Effect.succeed("published") })

const ping = Tool.make("ping", { handler: () => Effect.succeed("pong") })

let as: AuthorizationServer
beforeAll(async () => {
  as = await startAuthorizationServer({ scopes: ["mcp:basic", "mcp:write"] })
}, 30_000)
afterAll(() => as?.close())

const mcpServer = () =>
  HttpTransport.layer({ port: 0 }).pipe(
    Layer.provide(Authorization.layer({
      verifier: Authorization.jwt({ issuer: as.issuer, jwksUri: as.jwksUri }),
      requiredScopes: ["mcp:basic"],
      scopesSupported: ["mcp:basic"]
    })),
    Layer.provide(
      McpServer.tools(survey, publish, ping).pipe(
        Layer.provideMerge(McpServer.layer({
          name: "auth-e2e",
          version: "1.0.0",
          requestState: RequestState.RequestStateCodec.layer({
            keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(3) }])
          }).pipe(Layer.orDie)
        })),
        Layer.orDie
      )
    ),
    Layer.orDie
  )

/** A user agent that is `user`'s browser: it signs in and consents without a screen. */
const browserOf = (user: string, opened: Array<string>) => {
  const browser = headlessBrowser(user)
  return Layer.succeed(
    ClientAuth.UserAgent,
    ClientAuth.UserAgent.of({
      redirectUri: "http://127.0.0.1:1/callback",
      authorize: (url) =>
        Effect.tryPromise({
          try: () => (opened.push(url.href), browser(url.href)),
          catch: (cause) => new ClientAuth.AuthorizationError({ reason: "the browser failed", cause })
        })
    })
  )
}

const answers = ScriptedUser.layer({
  elicitation: { byKey: { first: ScriptedUser.accept({ answer: "a" }), second: ScriptedUser.accept({ answer: "b" }) } }
})

describe("authorization end to end (oidc-provider)", () => {
  it.live(
    "signs in with code + PKCE, runs three rounds, steps up on 403 and keeps the tokens in a 0600 file",
    () =>
      Effect.gen(function*() {
        const url = yield* HttpTransport.url
        const dir = mkdtempSync(join(tmpdir(), "mrtr-auth-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
        const file = join(dir, "config", "tokens.json")
        const opened: Array<string> = []
        const client = McpClient.layer({}).pipe(
          Layer.provide(ClientHttp.layerNode({ url })),
          Layer.provide(ClientAuth.layerWithStore({ clientName: "e2e" })),
          Layer.provide(browserOf("alice", opened)),
          Layer.provideMerge(TokenStore.layerFile(file)),
          Layer.provideMerge(answers)
        )
        const outcome = yield* Effect.gen(function*() {
          const mcp = yield* McpClient.McpClient
          const surveyed = yield* mcp.callTool({ name: "survey" })
          const published = yield* mcp.callTool({ name: "publish" })
          const store = yield* TokenStore.TokenStore
          return { surveyed, published, tokens: yield* store.getTokens(url) }
        }).pipe(Effect.provide(client))

        assert.strictEqual((outcome.surveyed.content[0] as { text: string }).text, "alice: a+b")
        assert.strictEqual((outcome.published.content[0] as { text: string }).text, "published")
        // One sign-in with the challenge's scope, one step-up with the union.
        assert.strictEqual(opened.length, 2)
        const first = new URL(opened[0]!).searchParams
        const second = new URL(opened[1]!).searchParams
        // The authorization server lists offline_access: it is added (SEP-2207).
        assert.strictEqual(first.get("scope"), "mcp:basic offline_access")
        assert.strictEqual(second.get("scope"), "mcp:basic offline_access mcp:write")
        assert.strictEqual(first.get("resource"), url)
        assert.strictEqual(first.get("code_challenge_method"), "S256")
        const tokens = Option.getOrThrow(outcome.tokens)
        assert.strictEqual(tokens.issuer, as.issuer)
        assert.isTrue(Redacted.isRedacted(tokens.accessToken))
        assert.notInclude(String(tokens.accessToken), Redacted.value(tokens.accessToken))
        assert.isDefined(tokens.refreshToken)
        assert.strictEqual(statSync(file).mode & 0o777, 0o600)

        // A new process with the same file signs in no more; its expired access token is refreshed.
        const saved = JSON.parse(readFileSync(file, "utf8"))
        saved.tokens[url].expiresAt = 1
        writeFileSync(file, JSON.stringify(saved))
        const reopened: Array<string> = []
        const again = yield* Effect.gen(function*() {
          const mcp = yield* McpClient.McpClient
          return yield* mcp.callTool({ name: "publish" })
        }).pipe(Effect.provide(
          McpClient.layer({}).pipe(
            Layer.provide(ClientHttp.layerNode({ url })),
            Layer.provide(ClientAuth.layerWithStore({})),
            Layer.provide(browserOf("alice", reopened)),
            Layer.provide(TokenStore.layerFile(file))
          )
        ))
        assert.strictEqual((again.content[0] as { text: string }).text, "published")
        assert.strictEqual(reopened.length, 0)
        const refreshed = JSON.parse(readFileSync(file, "utf8")).tokens[url]
        assert.notStrictEqual(refreshed.accessToken, saved.tokens[url].accessToken)
        assert.isAbove(refreshed.expiresAt, Date.now())
      }).pipe(Effect.provide(mcpServer())),
    { timeout: 30_000 }
  )

  it.live("concurrent first requests share one sign-in", () =>
    Effect.gen(function*() {
      const url = yield* HttpTransport.url
      const opened: Array<string> = []
      const results = yield* Effect.gen(function*() {
        const mcp = yield* McpClient.McpClient
        return yield* Effect.all(Array.from({ length: 4 }, () => mcp.callTool({ name: "ping" })), {
          concurrency: "unbounded"
        })
      }).pipe(Effect.provide(
        McpClient.layer({}).pipe(
          Layer.provide(ClientHttp.layerNode({ url })),
          Layer.provide(ClientAuth.layer({})),
          Layer.provide(browserOf("alice", opened))
        )
      ))
      assert.deepStrictEqual(results.map((r) => (r.content[0] as { text: string }).text), [
        "pong",
        "pong",
        "pong",
        "pong"
      ])
      assert.strictEqual(opened.length, 1)
    }).pipe(Effect.provide(mcpServer())), { timeout: 30_000 })

  it.live("a refused consent is a typed failure, not a hang", () =>
    Effect.gen(function*() {
      const url = yield* HttpTransport.url
      const refusing = Layer.succeed(
        ClientAuth.UserAgent,
        ClientAuth.UserAgent.of({
          redirectUri: "http://127.0.0.1:1/callback",
          authorize: () => Effect.fail(new ClientAuth.AuthorizationError({ reason: "the user said no" }))
        })
      )
      const error = yield* Effect.gen(function*() {
        const mcp = yield* McpClient.McpClient
        return yield* mcp.callTool({ name: "survey" })
      }).pipe(
        Effect.provide(
          McpClient.layer({}).pipe(
            Layer.provide(ClientHttp.layerNode({ url })),
            Layer.provide(ClientAuth.layer({})),
            Layer.provide(refusing),
            Layer.provideMerge(answers)
          )
        ),
        Effect.flip
      )
      assert.strictEqual(error._tag, "TransportError")
      assert.include(error.message, "the user said no")
    }).pipe(Effect.provide(mcpServer())), { timeout: 30_000 })
})

describe("a slow sign-in is the user's time, not the server's", () => {
  // The server on the real clock (its token checks read the time); the client under the test's TestClock.
  let runtime: ManagedRuntime.ManagedRuntime<HttpTransport.HttpEndpoint, never>
  let url: string
  beforeAll(async () => {
    runtime = ManagedRuntime.make(mcpServer())
    url = await runtime.runPromise(HttpTransport.url)
  }, 30_000)
  afterAll(() => runtime?.dispose())

  /** A user agent whose person reads the consent page for `reading` (of the test clock), then signs in as alice. */
  const slowBrowser = (reading: Duration.Input, opened: Deferred.Deferred<void>) => {
    const browser = headlessBrowser("alice")
    return Layer.succeed(
      ClientAuth.UserAgent,
      ClientAuth.UserAgent.of({
        redirectUri: "http://127.0.0.1:1/callback",
        authorize: (authorizationUrl) =>
          Deferred.succeed(opened, undefined).pipe(
            Effect.andThen(Effect.sleep(reading)),
            Effect.andThen(Effect.tryPromise({
              try: () => browser(authorizationUrl.href),
              catch: (cause) => new ClientAuth.AuthorizationError({ reason: "the browser failed", cause })
            }))
          )
      })
    )
  }

  const slowCall = (options: McpClient.Options, reading: Duration.Input, elapse: Duration.Input) =>
    Effect.gen(function*() {
      const opened = yield* Deferred.make<void>()
      const call = yield* Effect.gen(function*() {
        const mcp = yield* McpClient.McpClient
        return yield* mcp.callTool({ name: "ping" })
      }).pipe(
        Effect.provide(
          McpClient.layer(options).pipe(
            Layer.provide(ClientHttp.layerNode({ url })),
            Layer.provide(ClientAuth.layer({})),
            Layer.provide(slowBrowser(reading, opened))
          )
        ),
        Effect.forkChild
      )
      yield* Deferred.await(opened)
      // The person reads past every bound meant for the server's answers.
      yield* TestClock.adjust(elapse)
      return yield* Fiber.join(call)
    })

  it.effect(
    "era detection: a sign-in of 15 s behind the server/discover probe (probeTimeout 10 s) completes",
    () =>
      Effect.gen(function*() {
        const result = yield* slowCall({}, "15 seconds", "20 seconds")
        assert.strictEqual((result.content[0] as { text: string }).text, "pong")
      }),
    { timeout: 30_000 }
  )

  it.effect(
    "pinned to 2026-07-28: a sign-in of 90 s on the first request (requestTimeout 60 s) completes",
    () =>
      Effect.gen(function*() {
        const result = yield* slowCall({ protocol: "2026-07-28" }, "90 seconds", "100 seconds")
        assert.strictEqual((result.content[0] as { text: string }).text, "pong")
      }),
    { timeout: 30_000 }
  )

  it.effect(
    "the whole-call callTimeout counts the sign-in, as it counts answering a form",
    () =>
      Effect.gen(function*() {
        // callTimeout, the whole-call bound, counts the sign-in (as it counts answering a form).
        const error = yield* slowCall(
          { protocol: "2026-07-28", callTimeout: "30 seconds" },
          "90 seconds",
          "100 seconds"
        ).pipe(
          Effect.flip
        )
        assert.strictEqual(error._tag, "RequestTimeout")
        assert.include(error.message, "callTimeout")
      }),
    { timeout: 30_000 }
  )
})
