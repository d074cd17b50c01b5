/**
 * The verified-token cache of `Authorization.make` (`tokenCache`): a token
 * that verified is checked once, then remembered until `ttl` or its `exp`;
 * refused and unavailable outcomes are never remembered; the resource is part
 * of the key; `tokenCache: false` checks every request.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { Authorization } from "../src/index.ts"

/** A verifier counting its calls: `good-*` tokens verify (expiring `exp` seconds from now), `down` is unavailable. */
const counting = (exp = 3600) => {
  const calls: Array<string> = []
  const verifier: Authorization.TokenVerifier = {
    issuer: "https://as.example",
    verify: (token, resource) => {
      calls.push(`${token}@${resource}`)
      if (token === "down") return Effect.fail({ _tag: "Unavailable", description: "down", cause: undefined } as never)
      if (!token.startsWith("good-")) {
        return Effect.fail({ _tag: "Rejected", description: "The access token is invalid" } as never)
      }
      return Effect.succeed({
        issuer: "https://as.example",
        subject: token.slice(5),
        clientId: undefined,
        scopes: ["mcp:basic"],
        expiresAt: Math.floor(Date.now() / 1000) + exp,
        claims: {}
      })
    }
  }
  return { calls, verifier }
}

const request = (token: string) =>
  HttpServerRequest.fromWeb(
    new Request("http://mcp.example/mcp", { method: "POST", headers: { authorization: `Bearer ${token}` } })
  )

const authenticate = (server: Authorization.ResourceServer["Service"], token: string, host = "mcp.example") =>
  Effect.map(
    server.authenticate(request(token), `http://${host}/mcp`),
    (outcome) => outcome._tag === "Authenticated" ? outcome.auth.subject : outcome.response.status
  )

describe("Authorization tokenCache", () => {
  it.effect("a token that verified is checked once; another token, or the same for another resource, again", () =>
    Effect.gen(function*() {
      const { calls, verifier } = counting()
      const server = Authorization.make({ verifier })
      for (let i = 0; i < 5; i++) assert.strictEqual(yield* authenticate(server, "good-alice"), "alice")
      assert.strictEqual(yield* authenticate(server, "good-bob"), "bob")
      assert.strictEqual(yield* authenticate(server, "good-alice", "other.example"), "alice")
      assert.deepStrictEqual(calls, [
        "good-alice@http://mcp.example/mcp",
        "good-bob@http://mcp.example/mcp",
        "good-alice@http://other.example/mcp"
      ])
    }))

  it.effect("refused and unavailable tokens are checked every time", () =>
    Effect.gen(function*() {
      const { calls, verifier } = counting()
      const server = Authorization.make({ verifier })
      for (let i = 0; i < 3; i++) {
        assert.strictEqual(yield* authenticate(server, "forged"), 401)
        assert.strictEqual(yield* authenticate(server, "down"), 503)
      }
      assert.strictEqual(calls.length, 6)
    }))

  it.effect("an entry never outlives the token's exp; tokenCache: false checks every request", () =>
    Effect.gen(function*() {
      const expired = counting(-1)
      const server = Authorization.make({ verifier: expired.verifier })
      yield* authenticate(server, "good-alice")
      yield* authenticate(server, "good-alice")
      assert.strictEqual(expired.calls.length, 2, "a token past its exp is not remembered")

      const off = counting()
      const uncached = Authorization.make({ verifier: off.verifier, tokenCache: false })
      for (let i = 0; i < 3; i++) yield* authenticate(uncached, "good-alice")
      assert.strictEqual(off.calls.length, 3)
    }))

  it.live("an entry lives for ttl at most", () =>
    Effect.gen(function*() {
      const { calls, verifier } = counting()
      const server = Authorization.make({ verifier, tokenCache: { ttl: "50 millis" } })
      yield* authenticate(server, "good-alice")
      yield* authenticate(server, "good-alice")
      assert.strictEqual(calls.length, 1)
      yield* Effect.sleep("120 millis")
      yield* authenticate(server, "good-alice")
      assert.strictEqual(calls.length, 2)
    }))

  it("a capacity that is not a positive integer is refused when the server is built", () => {
    assert.throws(() => Authorization.make({ verifier: counting().verifier, tokenCache: { capacity: 0 } }), RangeError)
  })
})
