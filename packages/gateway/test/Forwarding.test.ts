/**
 * What the gateway relays of an upstream call besides its result: the
 * upstream's progress notifications (under the downstream request's own
 * progress token) and its log messages (at or above the downstream
 * request's log level), for a 2026-07-28 upstream. (A 2025-11-25
 * upstream's are not relayed yet.)
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { McpServer, RequestContext, Tool } from "@mrtr/server"
import { Harness } from "@mrtr/testing"
import { Effect, Layer, Schema } from "effect"
import { Upstream } from "../src/index.ts"
import { gatewayKeys, serve, upstreamServer, user } from "./fixtures.ts"

const work = Tool.make("work", {
  parameters: Schema.Struct({ steps: Schema.Number }),
  handler: ({ steps }) =>
    Effect.gen(function*() {
      for (let n = 1; n <= steps; n++) yield* RequestContext.progress(n, { total: steps, message: `step ${n}` })
      yield* RequestContext.log("debug", "a detail", "work")
      yield* RequestContext.log("warning", "almost done", "work")
      return `${steps} steps`
    })
})

let upstream: Awaited<ReturnType<typeof serve>>
beforeAll(async () => {
  upstream = await serve(upstreamServer("worker", [work]))
})
afterAll(async () => {
  await upstream?.close()
})

const gateway = (protocol: "2026-07-28" | "2025-11-25") =>
  McpServer.mount("up", Upstream.layer(Upstream.http({ name: "up", url: upstream.url }), { protocol })).pipe(
    Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
    Layer.orDie
  )

const relayed = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const seen: Array<{ method: string; params: any }> = []
  const result = yield* client.callTool({ name: "up_work", arguments: { steps: 3 } }, {
    progressToken: "downstream-token",
    onNotification: (notification) =>
      Effect.sync(() => void seen.push({ method: notification.method, params: notification.params }))
  })
  return { text: (result.content[0] as { text: string }).text, seen }
})

describe("the gateway relays an upstream call's progress and log messages", () => {
  for (const era of ["2026-07-28"] as const) {
    it.effect(`${era} upstream: progress under the downstream token, messages at the downstream's level`, () =>
      Effect.gen(function*() {
        const { seen, text } = yield* relayed
        expect(text).toBe("3 steps")
        expect(seen.filter((n) => n.method === "notifications/progress").map((n) => n.params)).toEqual(
          [1, 2, 3].map((n) => ({
            progressToken: "downstream-token",
            progress: n,
            total: 3,
            message: `step ${n}`
          }))
        )
        // the client asked for "info": the debug message stays behind
        expect(seen.filter((n) => n.method === "notifications/message").map((n) => n.params)).toEqual([
          { level: "warning", data: "almost done", logger: "work" }
        ])
      }).pipe(Effect.provide(Harness.layer({ server: gateway(era), user, client: { logLevel: "info" } }))))
  }
})
