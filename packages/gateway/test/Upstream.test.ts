/**
 * Upstreams mounted into a gateway `McpServer`: `@mrtr/server` upstreams over
 * real HTTP, `@mrtr/client` downstream through the in-memory harness, in the
 * four cells of bridging (2026-07-28 / 2025-11-25 on each side).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { HttpTransport as ClientHttp, McpClient } from "@mrtr/client"
import { Mrtr } from "@mrtr/core"
import { McpServer, Tool } from "@mrtr/server"
import { Harness, Recorder } from "@mrtr/testing"
import { Context, Effect, Layer, Schema } from "effect"
import { Upstream } from "../src/index.ts"
import { echo, gatewayKeys, plan, runs, serve, trip, upstreamServer, user } from "./fixtures.ts"

let travel: Awaited<ReturnType<typeof serve>>
let hotels: Awaited<ReturnType<typeof serve>>

beforeAll(async () => {
  travel = await serve(upstreamServer("travel", [plan, echo]))
  hotels = await serve(upstreamServer("hotels", [trip]))
})
afterAll(async () => {
  await travel?.close()
  await hotels?.close()
})

const gateway = (
  protocol: "auto" | "2026-07-28" | "2025-11-25" = "auto",
  extra: Layer.Layer<never, any, McpServer.McpServer> = Layer.empty
) =>
  Layer.mergeAll(
    McpServer.mount("travel", Upstream.layer(Upstream.http({ name: "travel", url: travel.url }), { protocol })),
    McpServer.mount("hotels", Upstream.layer(Upstream.http({ name: "hotels", url: hotels.url }), { protocol })),
    extra
  ).pipe(
    Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
    Layer.orDie
  )

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

const EXPECTED = "Kim to Lisboa: eat pastries, 1 root(s), booked=true"

describe("Upstream", () => {
  it.effect("mirrors the upstreams' tools under their namespaces", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const listed = yield* client.listTools()
      expect(listed.tools.map((t) => t.name).sort()).toEqual(["hotels_trip", "travel_echo", "travel_plan"])
      expect(listed.tools.find((t) => t.name === "travel_plan")?.description).toBe("Plans a trip, asking the user")
      expect(textOf(yield* client.callTool({ name: "travel_echo", arguments: { text: "hi" } }))).toBe("hi")
    }).pipe(Effect.provide(Harness.layer({ server: gateway(), user }))))

  it.effect("2026-07-28 client -> 2026-07-28 upstream: the upstream's rounds are the gateway's, keys namespaced, its state sealed inside", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const rounds: Array<{ keys: ReadonlyArray<string>; state: string | undefined }> = []
      const result = yield* client.callTool({ name: "travel_plan", arguments: { city: "Lisboa" } }, {
        onRound: (round) =>
          Effect.sync(() => rounds.push({ keys: Object.keys(round.inputRequests), state: round.requestState }))
      })
      expect(textOf(result)).toBe(EXPECTED)
      expect(rounds.map((r) => [...r.keys].sort())).toEqual([["travel/who"], ["travel/idea", "travel/roots"], [
        "travel/confirm"
      ]])
      // the client sees the gateway's own sealed state (the gateway's key), never the upstream's
      const upstreamState = yield* directState(travel.url)
      const keyId = (state: string | undefined) => state?.split(".")[1]
      expect(keyId(upstreamState)).toBeDefined()
      for (const round of rounds) {
        expect(keyId(round.state)).toBeDefined()
        expect(keyId(round.state)).not.toBe(keyId(upstreamState))
      }
      const questions = (yield* Recorder.questions).map((q) => q.request.method)
      expect(questions).toEqual(["elicitation/create", "sampling/createMessage", "roots/list", "elicitation/create"])
    }).pipe(Effect.provide(Harness.layer({ server: gateway(), user }))))

  it.effect("2025-11-25 client -> 2026-07-28 upstream: the same handler, through the shim's in-flight requests", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      expect((yield* client.connection).era).toBe("2025-11-25")
      const result = yield* client.callTool({ name: "travel_plan", arguments: { city: "Lisboa" } })
      expect(textOf(result)).toBe(EXPECTED)
    }).pipe(Effect.provide(Harness.layer({ server: gateway(), user, protocol: "2025-11-25" }))))

  it.effect("2025-11-25 client -> 2025-11-25 upstream: in-flight requests answered in flight", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool({ name: "travel_plan", arguments: { city: "Lisboa" } })
      expect(textOf(result)).toBe(EXPECTED)
    }).pipe(Effect.provide(Harness.layer({ server: gateway("2025-11-25"), user, protocol: "2025-11-25" }))))

  it.effect("2026-07-28 client -> 2025-11-25 upstream: the upstream's in-flight requests become input_required rounds", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const rounds: Array<ReadonlyArray<string>> = []
      const result = yield* client.callTool({ name: "travel_plan", arguments: { city: "Lisboa" } }, {
        onRound: (round) => Effect.sync(() => rounds.push(Object.keys(round.inputRequests).sort()))
      })
      expect(textOf(result)).toBe(EXPECTED)
      expect(rounds.length).toBeGreaterThanOrEqual(3)
      for (const keys of rounds) for (const key of keys) expect(key.startsWith("travel/")).toBe(true)
    }).pipe(Effect.provide(Harness.layer({ server: gateway("2025-11-25"), user }))))

  it.effect("a composite tool fanning out to two upstreams asks both upstreams' questions in one round", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const rounds: Array<ReadonlyArray<string>> = []
      const result = yield* client.callTool({ name: "fanout", arguments: { city: "Porto" } }, {
        onRound: (round) => Effect.sync(() => rounds.push(Object.keys(round.inputRequests).sort()))
      })
      expect(textOf(result)).toBe("Kim to Porto: eat pastries, 1 root(s), booked=true | Kim goes to Porto")
      expect(rounds[0]).toEqual(["hotels/who", "travel/who"])
    }).pipe(Effect.provide(Harness.layer({ server: gateway("auto", fanout()), user }))))

  it.effect("a tampered, foreign or other-tool gateway state is refused with -32602 and never reaches the upstream", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const first = yield* client.callTool({ name: "hotels_trip", arguments: { to: "Faro" } }, { maxRounds: 1 }).pipe(
        Effect.flip
      )
      const state = (first as any).lastResult.requestState as string
      const before = runs.trip
      const tampered = state.slice(0, -4) + (state.endsWith("AAAA") ? "BBBB" : "AAAA")
      for (
        const params of [
          { name: "hotels_trip", arguments: { to: "Faro" }, requestState: tampered },
          { name: "hotels_trip", arguments: { to: "Lagos" }, requestState: state },
          { name: "travel_echo", arguments: { text: "x" }, requestState: state }
        ]
      ) {
        const refused: any = yield* client.callTool({
          ...params,
          inputResponses: { "hotels/who": { action: "accept", content: { name: "Eve" } } }
        }, { maxRounds: 1 }).pipe(Effect.flip)
        expect(refused.code ?? refused.error?.code).toBe(-32602)
      }
      expect(runs.trip).toBe(before)
    }).pipe(Effect.provide(Harness.layer({ server: gateway(), user }))))

  it.effect("an upstream down at start: the gateway starts and serves the others", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const listed = yield* client.listTools()
      expect(listed.tools.map((t) => t.name).sort()).toEqual(["hotels_trip", "travel_echo", "travel_plan"])
    }).pipe(Effect.provide(Harness.layer({
      server: gateway(
        "auto",
        McpServer.mount(
          "down",
          Upstream.layer(Upstream.http({ name: "down", url: "http://127.0.0.1:9/mcp" }), { startTimeout: "2 seconds" })
        )
      ),
      user
    }))))

  it.live("an upstream that dies later: its call fails with -32603 naming it, the others still answer", () =>
    Effect.gen(function*() {
      const gone = yield* Effect.promise(() => serve(upstreamServer("gone", [echo])))
      yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        expect(textOf(yield* client.callTool({ name: "gone_echo", arguments: { text: "a" } }))).toBe("a")
        yield* Effect.promise(() => gone.close())
        const failed: any = yield* client.callTool({ name: "gone_echo", arguments: { text: "b" } }).pipe(Effect.flip)
        expect(failed.code).toBe(-32603)
        expect(failed.message).toContain("Upstream gone is unavailable")
        expect(textOf(yield* client.callTool({ name: "travel_echo", arguments: { text: "c" } }))).toBe("c")
      }).pipe(Effect.provide(Harness.layer({
        server: gateway(
          "auto",
          McpServer.mount(
            "gone",
            Upstream.layer(Upstream.http({ name: "gone", url: gone.url }), { callTimeout: "5 seconds" })
          )
        ),
        user
      })))
    }))
})

// A composite tool of the gateway's own calling two upstreams concurrently.
const fanout = () =>
  Layer.unwrap(Effect.gen(function*() {
    const travelUp = yield* Upstream.connect(Upstream.http({ name: "travel", url: travel.url }))
    const hotelsUp = yield* Upstream.connect(Upstream.http({ name: "hotels", url: hotels.url }))
    return McpServer.tools(Tool.make("fanout", {
      parameters: Schema.Struct({ city: Schema.String }),
      handler: ({ city }) =>
        Effect.gen(function*() {
          const [a, b] = yield* Mrtr.all([
            travelUp.callTool({ name: "plan", arguments: { city } }),
            hotelsUp.callTool({ name: "trip", arguments: { to: city } })
          ])
          return `${textOf(a as any)} | ${textOf(b as any)}`
        })
    }))
  }))

/** The requestState the upstream itself seals for `plan`'s first round, asked directly. */
const directState = (url: string) =>
  Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(
      McpClient.layer({ protocol: "2026-07-28", capabilities: { elicitation: { form: {} } } }).pipe(
        Layer.provide(ClientHttp.layerNode({ url }))
      )
    )
    const failed: any = yield* Context.get(context, McpClient.McpClient).callTool(
      { name: "plan", arguments: { city: "Lisboa" } },
      { maxRounds: 1 }
    ).pipe(Effect.flip)
    return failed.lastResult.requestState as string
  }))
