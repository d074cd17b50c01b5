/**
 * `completion/complete` for a mounted upstream prompt or resource template is
 * forwarded to the upstream that owns it, under its own name or template
 * (the namespace stripped), with the other arguments as context: this
 * runtime's server on either revision, and the official v1 SDK server.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { McpServer, Prompt, Resource } from "@mrtr/server"
import { Harness } from "@mrtr/testing"
import { Effect, Layer, Schema } from "effect"
import { Upstream } from "../src/index.ts"
import { echo, gatewayKeys, serve, upstreamServer, user } from "./fixtures.ts"
import { listenV1 } from "./official-v1-upstream.ts"

/** What the upstream's completers were asked (a completion that reached it). */
const asked: Array<string> = []

const topic = Prompt.make("topic", {
  arguments: Schema.Struct({ subject: Schema.String }),
  completions: {
    subject: (value) =>
      Effect.sync(() => {
        asked.push(`subject:${value}`)
        return ["cats", "cars", "dogs"].filter((s) => s.startsWith(value))
      })
  },
  handler: ({ subject }) => Effect.succeed(`Write about ${subject}`)
})

const forecast = Resource.template({
  uriTemplate: "weather://{city}/{day}",
  name: "forecast",
  completions: {
    city: (value) => Effect.succeed(["Paris", "Porto", "Oslo"].filter((c) => c.startsWith(value))),
    // the other arguments come along as context
    day: (value, context) => Effect.succeed([`${value}day in ${context.city ?? "?"}`])
  },
  handler: ({ city, day }) => Effect.succeed(`${city} on ${day}: sunny`)
})

let upstream: Awaited<ReturnType<typeof serve>>
let v1: Awaited<ReturnType<typeof listenV1>>
beforeAll(async () => {
  upstream = await serve(
    Layer.mergeAll(McpServer.prompts(topic), McpServer.resources(forecast)).pipe(
      Layer.provideMerge(upstreamServer("completing", [echo]))
    )
  )
  v1 = await listenV1()
})
afterAll(async () => {
  await upstream?.close()
  await v1?.close()
})

const gateway = (protocol: "2026-07-28" | "2025-11-25") =>
  Layer.mergeAll(
    McpServer.mount("up", Upstream.layer(Upstream.http({ name: "up", url: upstream.url }), { protocol })),
    McpServer.mount("v1", Upstream.layer(Upstream.http({ name: "v1", url: v1.url })))
  ).pipe(
    Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
    Layer.orDie
  )

const cells = [
  ["2026-07-28", "2026-07-28"],
  ["2026-07-28", "2025-11-25"],
  ["2025-11-25", "2026-07-28"],
  ["2025-11-25", "2025-11-25"]
] as const

describe("completions of mounted upstream items", () => {
  for (const [downstream, upstreamEra] of cells) {
    it.effect(
      `${downstream} client, ${upstreamEra} upstream: a prompt argument and a template variable`,
      () =>
        Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const before = asked.length
          const subject = yield* client.complete({
            ref: { type: "ref/prompt", name: "up_topic" },
            argument: { name: "subject", value: "ca" }
          })
          expect(subject.completion.values).toEqual(["cats", "cars"])
          // it reached the upstream under the prompt's own name
          expect(asked.slice(before)).toEqual(["subject:ca"])

          const templates = (yield* client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)
          const template = templates.find((t) => t.includes("{city}"))!
          expect(template).not.toBe("weather://{city}/{day}")
          const city = yield* client.complete({
            ref: { type: "ref/resource", uri: template },
            argument: { name: "city", value: "P" }
          })
          expect(city.completion.values).toEqual(["Paris", "Porto"])
          const day = yield* client.complete({
            ref: { type: "ref/resource", uri: template },
            argument: { name: "day", value: "Mon" },
            context: { arguments: { city: "Oslo" } }
          })
          expect(day.completion.values).toEqual(["Monday in Oslo"])
        }).pipe(Effect.provide(Harness.layer({ server: gateway(upstreamEra), user, protocol: downstream }))),
      30_000
    )
  }

  it.effect("official v1 upstream: a completable prompt argument", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.complete({
        ref: { type: "ref/prompt", name: "v1_greeting" },
        argument: { name: "city", value: "P" }
      })
      expect(result.completion.values).toEqual(["Paris", "Porto", "Prague"])
    }).pipe(Effect.provide(Harness.layer({ server: gateway("2026-07-28"), user }))), 30_000)
})
