/**
 * The gateway's own sealed `requestState`, sent back to it tampered,
 * replayed, expired or by another principal: refused with the frozen
 * -32602, and the upstream never reached (its handler's run count does not
 * move).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { RequestState } from "@mrtr/core"
import { McpServer, MemoryTransport } from "@mrtr/server"
import * as Http from "@mrtr/test-support/http"
import { Harness } from "@mrtr/testing"
import { Effect, Layer } from "effect"
import { Upstream } from "../src/index.ts"
import { runs, serve, trip, upstreamServer, user } from "./fixtures.ts"

let hotels: Awaited<ReturnType<typeof serve>>
beforeAll(async () => {
  hotels = await serve(upstreamServer("hotels", [trip]))
})
afterAll(async () => {
  await hotels?.close()
})

/** A gateway whose states live `ttl` and are redeemed once. */
const gateway = () =>
  McpServer.mount("hotels", Upstream.layer(Upstream.http({ name: "hotels", url: hotels.url }))).pipe(
    Layer.provideMerge(McpServer.layer({
      name: "gateway",
      version: "1.0.0",
      requestState: RequestState.RequestStateCodec.layer({
        keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(5) }]),
        ttl: "2 seconds",
        singleUse: true
      }).pipe(Layer.orDie)
    })),
    Layer.orDie
  )

const answer = { "hotels/who": { action: "accept" as const, content: { name: "Eve" } } }

/** The first round's state of `hotels_trip` (the upstream asked its question). */
const firstState = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const first: any = yield* client.callTool({ name: "hotels_trip", arguments: { to: "Faro" } }, { maxRounds: 1 }).pipe(
    Effect.flip
  )
  return first.lastResult.requestState as string
})

const retry = (requestState: string) =>
  Effect.flatMap(
    McpClient.McpClient,
    (client) =>
      client.callTool({ name: "hotels_trip", arguments: { to: "Faro" }, inputResponses: answer, requestState }, {
        maxRounds: 1
      })
  )

const codeOf = (error: any) => error.code ?? error.error?.code

/** A raw 2026-07-28 `tools/call` of a client answering forms. */
const request = (params: Record<string, unknown>) =>
  Http.request("tools/call", params, { clientCapabilities: { elicitation: { form: {} } } })

describe("the gateway's state, tampered, replayed, expired or another principal's", () => {
  it.live("a tampered state is refused with -32602 and never reaches the upstream", () =>
    Effect.gen(function*() {
      const state = yield* firstState
      const before = runs.trip
      for (const tampered of [state.slice(0, -4) + (state.endsWith("AAAA") ? "BBBB" : "AAAA"), `${state}x`, "v2.x.y"]) {
        const refused = yield* Effect.flip(retry(tampered))
        expect(codeOf(refused)).toBe(-32602)
      }
      expect(runs.trip).toBe(before)
      // the genuine state still works
      const done = yield* retry(state)
      expect((done.content[0] as { text: string }).text).toBe("Eve goes to Faro")
    }).pipe(Effect.provide(Harness.layer({ server: gateway(), user }))))

  it.live("another principal's state is refused with -32602 and never reaches the upstream", () =>
    Effect.gen(function*() {
      const channel = yield* MemoryTransport.MemoryChannel
      const call = (principal: string, extra: Record<string, unknown> = {}) =>
        Effect.map(
          Effect.suspend(() => {
            const message = request({ name: "hotels_trip", arguments: { to: "Faro" }, ...extra })
            return channel.request(message, Http.mcpHeaders(message), principal)
          }),
          (messages) => messages.at(-1) as any
        )
      const first = yield* call("alice")
      expect(first.result.resultType).toBe("input_required")
      const state = first.result.requestState as string
      const before = runs.trip
      const refused = yield* call("bob", { inputResponses: answer, requestState: state })
      expect(refused.error.code).toBe(-32602)
      expect(runs.trip).toBe(before)
      const done = yield* call("alice", { inputResponses: answer, requestState: state })
      expect(done.result.content[0].text).toBe("Eve goes to Faro")
    }).pipe(Effect.provide(MemoryTransport.layer.pipe(Layer.provideMerge(gateway())))))

  it.live("a replayed state is refused with -32602 and never reaches the upstream", () =>
    Effect.gen(function*() {
      const state = yield* firstState
      const done = yield* retry(state)
      expect((done.content[0] as { text: string }).text).toBe("Eve goes to Faro")
      const before = runs.trip
      const refused = yield* Effect.flip(retry(state))
      expect(codeOf(refused)).toBe(-32602)
      expect(runs.trip).toBe(before)
    }).pipe(Effect.provide(Harness.layer({ server: gateway(), user }))))

  it.live("an expired state is refused with -32602 and never reaches the upstream", () =>
    Effect.gen(function*() {
      const state = yield* firstState
      yield* Effect.sleep("2500 millis")
      const before = runs.trip
      const refused = yield* Effect.flip(retry(state))
      expect(codeOf(refused)).toBe(-32602)
      expect(runs.trip).toBe(before)
    }).pipe(Effect.provide(Harness.layer({ server: gateway(), user }))))
})
