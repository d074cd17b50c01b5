/**
 * A URL-mode elicitation the user accepted that comes back unchanged (the
 * server waits for the interaction at the URL, e.g. a secure elicitation's
 * page not yet submitted): the client does not ask the user again; it calls
 * `ElicitationHandler.urlWait`, by default waiting with backoff (1 s, 2 s,
 * 4 s, ...) before retrying. A changed URL, or another key, is a new
 * question for the `url` handler.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Ref } from "effect"
import { TestClock } from "effect/testing"
import * as ElicitationHandler from "../src/ElicitationHandler.ts"
import * as McpClient from "../src/McpClient.ts"
import { clientLayer, complete, fakeServer, inputRequired } from "./fixtures.ts"

const page = (url: string) => ({
  method: "elicitation/create",
  params: { mode: "url", message: "Paste your key on our page", url }
})

describe("ElicitationHandler.urlWait", () => {
  it.effect("by default the same URL elicitation is retried after 1 s, 2 s, 4 s without asking the user again", () =>
    Effect.gen(function*() {
      const server = fakeServer((_, n) =>
        n <= 4
          ? inputRequired({ inputRequests: { api_key: page("https://mcp.example.com/p/1") }, requestState: `s${n}` })
          : complete("connected")
      )
      const asked = yield* Ref.make(0)
      const user = ElicitationHandler.layer({
        url: () => Effect.as(Ref.update(asked, (n) => n + 1), ElicitationHandler.accept())
      })
      const fiber = yield* McpClient.McpClient.use((client) => client.callTool({ name: "connect" })).pipe(
        Effect.provide(clientLayer(server, {}, user)),
        Effect.forkChild
      )
      // Move the test clock in 50 ms steps (letting real I/O settle after each) and note when each request arrived.
      const arrivals: Array<number> = []
      for (let now = 0; now <= 9_000 && arrivals.length < 5; now += 50) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2)))
        while (arrivals.length < server.received.length) arrivals.push(now)
        yield* TestClock.adjust("50 millis")
      }
      assert.strictEqual(arrivals.length, 5)
      assert.isAtMost(arrivals[1]! - arrivals[0]!, 100, "consented once, retried at once")
      const gaps = [arrivals[2]! - arrivals[1]!, arrivals[3]! - arrivals[2]!, arrivals[4]! - arrivals[3]!]
      gaps.forEach((gap, i) => assert.approximately(gap, [1000, 2000, 4000][i]!, 100, `wait ${i + 1}: ${gaps}`))
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(result.content, [{ type: "text", text: "connected" }])
      assert.strictEqual(yield* Ref.get(asked), 1, "the user was asked once")
      assert.deepStrictEqual(server.received.slice(1).map((r) => r.params.inputResponses), [
        { api_key: { action: "accept" } },
        { api_key: { action: "accept" } },
        { api_key: { action: "accept" } },
        { api_key: { action: "accept" } }
      ])
      assert.deepStrictEqual(server.received.slice(1).map((r) => r.params.requestState), ["s1", "s2", "s3", "s4"])
    }))

  it.effect("a custom urlWait sees the attempt and may cancel; a new URL is asked to the url handler", () =>
    Effect.gen(function*() {
      const server = fakeServer((_, n) =>
        n === 1
          ? inputRequired({ inputRequests: { api_key: page("https://mcp.example.com/p/1") } })
          : n <= 4
          ? inputRequired({ inputRequests: { api_key: page("https://mcp.example.com/p/2") } })
          : complete("gave up")
      )
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const user = ElicitationHandler.layer({
        url: (params) =>
          Effect.as(Ref.update(seen, (all) => [...all, `url ${params.url}`]), ElicitationHandler.accept()),
        urlWait: (params, context) =>
          Effect.as(
            Ref.update(seen, (all) => [...all, `wait ${context.attempt} ${params.url}`]),
            context.attempt >= 2 ? ElicitationHandler.cancel : ElicitationHandler.accept()
          )
      })
      yield* McpClient.McpClient.use((client) => client.callTool({ name: "connect" })).pipe(
        Effect.provide(clientLayer(server, {}, user)),
        Effect.ignore
      )
      assert.deepStrictEqual(yield* Ref.get(seen), [
        "url https://mcp.example.com/p/1",
        "url https://mcp.example.com/p/2",
        "wait 1 https://mcp.example.com/p/2",
        "wait 2 https://mcp.example.com/p/2"
      ])
      assert.deepStrictEqual(server.received.at(-1)?.params.inputResponses, { api_key: { action: "cancel" } })
    }))

  it.effect("rounds that only wait for accepted URLs do not count toward maxRounds; other rounds do", () =>
    Effect.gen(function*() {
      const ask = (n: number) =>
        n <= 6
          ? inputRequired({ inputRequests: { api_key: page("https://mcp.example.com/p/1") }, requestState: `s${n}` })
          : n <= 8
          ? inputRequired({ inputRequests: { api_key: page(`https://mcp.example.com/p/${n}`) }, requestState: `s${n}` })
          : complete("connected")
      const user = ElicitationHandler.layer({
        url: () => Effect.succeed(ElicitationHandler.accept()),
        urlWait: () => Effect.succeed(ElicitationHandler.accept())
      })
      const call = (maxRounds: number) =>
        McpClient.McpClient.use((client) => client.callTool({ name: "connect" }, { maxRounds })).pipe(
          Effect.provide(clientLayer(fakeServer((_, n) => ask(n)), {}, user))
        )
      // 1 question + 5 waits + 2 new URLs (new questions) + the result: 3 counted rounds
      const done = yield* call(4)
      assert.deepStrictEqual(done.content, [{ type: "text", text: "connected" }])
      const exceeded = yield* Effect.flip(call(3))
      assert.strictEqual(exceeded._tag, "MaxRoundsExceeded")
    }))

  it("urlBackoff: 1, 2, 4, 8, 16, then 30 seconds", () => {
    assert.deepStrictEqual(
      [1, 2, 3, 4, 5, 6, 7, 50].map((n) => Duration.toSeconds(ElicitationHandler.urlBackoff(n))),
      [1, 2, 4, 8, 16, 30, 30, 30]
    )
  })
})
