/**
 * What the gateway relays of an upstream call besides its result: the
 * upstream's progress notifications (under the downstream request's own
 * progress token) and its log messages (at or above the downstream
 * request's log level), from an upstream of either revision to a client of
 * either revision; from a call held for a 2026-07-28 client, on the round in
 * flight; from the official v1 SDK server.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Elicitation, Mrtr } from "@mrtr/core"
import { McpServer, RequestContext, Tool } from "@mrtr/server"
import { Harness } from "@mrtr/testing"
import { Effect, Layer, Schema } from "effect"
import { Upstream } from "../src/index.ts"
import { gatewayKeys, serve, upstreamServer, user } from "./fixtures.ts"
import { listenV1 } from "./official-v1-upstream.ts"

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

/** Progress 1 (once: a step), a question, progress 2. */
const asking = Tool.make("asking", {
  handler: () =>
    Effect.gen(function*() {
      yield* Mrtr.step("first", Effect.as(RequestContext.progress(1, { total: 2 }), null), Schema.Null)
      const { name } = yield* Elicitation.form({
        key: "who",
        message: "Who works?",
        schema: Schema.Struct({ name: Schema.String })
      })
      yield* RequestContext.progress(2, { total: 2 })
      return `${name} worked`
    })
})

let upstream: Awaited<ReturnType<typeof serve>>
let v1: Awaited<ReturnType<typeof listenV1>>
beforeAll(async () => {
  upstream = await serve(upstreamServer("worker", [work, asking]))
  v1 = await listenV1()
})
afterAll(async () => {
  await upstream?.close()
  await v1?.close()
})

type Era = "2026-07-28" | "2025-11-25"

const gateway = (protocol: Era) =>
  Layer.mergeAll(
    McpServer.mount("up", Upstream.layer(Upstream.http({ name: "up", url: upstream.url }), { protocol })),
    McpServer.mount("v1", Upstream.layer(Upstream.http({ name: "v1", url: v1.url })))
  ).pipe(
    Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
    Layer.orDie
  )

const call = (name: string, args: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const seen: Array<{ method: string; params: any }> = []
    const result = yield* client.callTool({ name, arguments: args }, {
      progressToken: "downstream-token",
      onNotification: (notification) =>
        Effect.sync(() => void seen.push({ method: notification.method, params: notification.params }))
    })
    return {
      text: (result.content[0] as { text: string }).text,
      progress: seen.filter((n) => n.method === "notifications/progress").map((n) => n.params),
      messages: seen.filter((n) => n.method === "notifications/message").map((n) => n.params)
    }
  })

const cells = [
  ["2026-07-28", "2026-07-28"],
  ["2026-07-28", "2025-11-25"],
  ["2025-11-25", "2026-07-28"],
  ["2025-11-25", "2025-11-25"]
] as const

describe("the gateway relays an upstream call's progress and log messages", () => {
  for (const [downstream, upstreamEra] of cells) {
    it.effect(
      `${downstream} client, ${upstreamEra} upstream: progress under the downstream token, messages at its level`,
      () =>
        Effect.gen(function*() {
          const { messages, progress, text } = yield* call("up_work", { steps: 3 })
          expect(text).toBe("3 steps")
          expect(progress).toEqual(
            [1, 2, 3].map((n) => ({ progressToken: "downstream-token", progress: n, total: 3, message: `step ${n}` }))
          )
          // the client asked for "info": the debug message stays behind
          expect(messages).toEqual([{ level: "warning", data: "almost done", logger: "work" }])
        }).pipe(
          Effect.provide(
            Harness.layer({ server: gateway(upstreamEra), user, protocol: downstream, client: { logLevel: "info" } })
          )
        ),
      30_000
    )
  }

  it.effect(
    "2026-07-28 client, 2025-11-25 upstream: a held call's progress goes to the round in flight",
    () =>
      Effect.gen(function*() {
        const { progress, text } = yield* call("up_asking")
        expect(text).toBe("Kim worked")
        expect(progress).toEqual([1, 2].map((n) => ({ progressToken: "downstream-token", progress: n, total: 2 })))
      }).pipe(Effect.provide(Harness.layer({ server: gateway("2025-11-25"), user }))),
    30_000
  )

  for (const downstream of ["2026-07-28", "2025-11-25"] as const) {
    it.effect(
      `official v1 upstream, ${downstream} client: its progress and log messages reach the client`,
      () =>
        Effect.gen(function*() {
          const { messages, progress, text } = yield* call("v1_report")
          expect(text).toBe("reported")
          expect(progress).toEqual(
            [1, 2].map((n) => ({ progressToken: "downstream-token", progress: n, total: 2, message: `step ${n}` }))
          )
          expect(messages).toEqual([{ level: "warning", data: "almost done", logger: "report" }])
        }).pipe(
          Effect.provide(
            Harness.layer({ server: gateway("2026-07-28"), user, protocol: downstream, client: { logLevel: "info" } })
          )
        ),
      30_000
    )
  }
})
