/**
 * The gateway's upstream metrics: an upstream down at start and one that dies
 * later show as unavailable (gauge 0) with their failures counted by reason;
 * a served one as available.
 */
import { describe, expect, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { McpServer } from "@mrtr/server"
import { Harness } from "@mrtr/testing"
import { Effect, Layer, Metric } from "effect"
import { Metrics, Upstream } from "../src/index.ts"
import { echo, gatewayKeys, serve, upstreamServer, user } from "./fixtures.ts"

const available = (upstream: string) =>
  Effect.map(
    Metric.value(Metric.withAttributes(Metrics.upstreamAvailable, { upstream })),
    (state) => (state as { readonly value: number }).value
  )
const failures = (upstream: string, reason: "connect" | "transport") =>
  Effect.map(
    Metric.value(Metric.withAttributes(Metrics.upstreamFailures, { upstream, reason })),
    (state) => (state as { readonly count: number }).count
  )

const gateway = (...mounts: ReadonlyArray<Layer.Layer<never, unknown, McpServer.McpServer>>) =>
  Layer.mergeAll(Layer.empty, ...mounts).pipe(
    Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
    Layer.orDie
  )

describe("the gateway's upstream metrics", () => {
  it.live("an upstream down at start is unavailable, its failed connections counted; a served one is available", () =>
    Effect.gen(function*() {
      const up = yield* Effect.acquireRelease(
        Effect.promise(() => serve(upstreamServer("metrics-up", [echo]))),
        (served) => Effect.promise(() => served.close())
      )
      const before = yield* failures("metrics-down", "connect")
      yield* Effect.gen(function*() {
        // the gateway started (its first listing of metrics-down failed and was given up after startTimeout)
        expect((yield* (yield* McpClient.McpClient).listTools()).tools.map((t) => t.name)).toEqual(["up_echo"])
        expect(yield* available("metrics-down")).toBe(0)
        expect(yield* failures("metrics-down", "connect")).toBeGreaterThan(before)
        expect(yield* available("metrics-up")).toBe(1)
      }).pipe(Effect.provide(Harness.layer({
        server: gateway(
          McpServer.mount(
            "down",
            Upstream.layer(Upstream.http({ name: "metrics-down", url: "http://127.0.0.1:9/mcp" }), {
              startTimeout: "2 seconds"
            })
          ),
          McpServer.mount("up", Upstream.layer(Upstream.http({ name: "metrics-up", url: up.url })))
        ),
        user
      })))
    }).pipe(Effect.scoped))

  it.live("an upstream that dies later: its lost connection is counted and it shows unavailable", () =>
    Effect.gen(function*() {
      const gone = yield* Effect.promise(() => serve(upstreamServer("metrics-gone", [echo])))
      const before = (yield* failures("metrics-gone", "transport")) + (yield* failures("metrics-gone", "connect"))
      yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        expect((yield* client.callTool({ name: "gone_echo", arguments: { text: "a" } })).content).toHaveLength(1)
        expect(yield* available("metrics-gone")).toBe(1)
        yield* Effect.promise(() => gone.close())
        const failed: any = yield* client.callTool({ name: "gone_echo", arguments: { text: "b" } }).pipe(Effect.flip)
        expect(failed.code).toBe(-32603)
        expect(yield* available("metrics-gone")).toBe(0)
        const after = (yield* failures("metrics-gone", "transport")) + (yield* failures("metrics-gone", "connect"))
        expect(after).toBeGreaterThan(before)
      }).pipe(Effect.provide(Harness.layer({
        server: gateway(
          McpServer.mount(
            "gone",
            Upstream.layer(Upstream.http({ name: "metrics-gone", url: gone.url }), { callTimeout: "5 seconds" })
          )
        ),
        user
      })))
    }))
})
