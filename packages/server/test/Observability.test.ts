/**
 * What an operator sees: the conversation counters and rounds histogram, the
 * requestState rejections by reason (while the client sees the one frozen
 * error), and one `mrtr.round` span per MRTR request with its round and
 * outcome — from a real server's dispatcher.
 */
import { describe, expect, it } from "@effect/vitest"
import { RequestState } from "@mrtr/core"
import { validateWire } from "@mrtr/test-support/wire"
import { Effect, Metric, Tracer } from "effect"
import { McpServer, Observability } from "../src/index.ts"
import { request, serverLayer } from "./fixtures.ts"

const spans: Array<Tracer.Span> = []
const recording = Tracer.make({
  span(options) {
    const span = Tracer.nativeTracer.span(options)
    spans.push(span)
    return span
  }
})

const handle = (message: unknown) =>
  Effect.flatMap(Effect.service(McpServer.McpServer), (server) => server.handle({ message })).pipe(
    Effect.map((reply) => {
      if (reply._tag !== "Response") throw new Error(`expected a response, got ${reply._tag}`)
      validateWire("JSONRPCMessage", reply.message)
      return reply.message as any
    })
  )

const count = (metric: Metric.Metric<number, any>, attributes: Record<string, string>) =>
  Effect.map(Metric.value(Metric.withAttributes(metric as any, attributes)), (state: any) => state.count as number)

describe("Observability", () => {
  it.effect("counts conversations started and completed, their rounds, rejections by reason; one span per round", () =>
    Effect.gen(function*() {
      const started = yield* count(Observability.conversationsStarted, { method: "tools/call" })
      const completed = yield* count(Observability.conversationsCompleted, { method: "tools/call" })
      const rejected = yield* count(RequestState.rejectionsTotal, { reason: "decryption-failed" })
      spans.length = 0
      const first = yield* handle(request("tools/call", { name: "greet", arguments: { greeting: "Hi" } }))
      const state = first.result.requestState as string
      const done = yield* handle(request("tools/call", {
        name: "greet",
        arguments: { greeting: "Hi" },
        requestState: state,
        inputResponses: { name: { action: "accept", content: { name: "Ada" } } }
      }))
      expect(done.result.content[0].text).toBe("Hi, Ada!")
      // A state sealed for other arguments: the client sees the frozen error, the operator the reason.
      const foreign = yield* handle(request("tools/call", {
        name: "greet",
        arguments: { greeting: "Hello" },
        requestState: state,
        inputResponses: {}
      }))
      expect(foreign.error).toEqual({ code: -32602, message: "Invalid requestState" })

      expect(yield* count(Observability.conversationsStarted, { method: "tools/call" })).toBe(started + 1)
      expect(yield* count(Observability.conversationsCompleted, { method: "tools/call" })).toBe(completed + 1)
      expect(yield* count(RequestState.rejectionsTotal, { reason: "decryption-failed" })).toBe(rejected + 1)
      const rounds: any = yield* Metric.value(
        Metric.withAttributes(Observability.conversationRounds, { method: "tools/call" })
      )
      expect(rounds.count).toBeGreaterThanOrEqual(1)

      const roundSpans = spans.filter((span) => span.name === "mrtr.round")
      expect(roundSpans.map((span) => [span.attributes.get("mrtr.round"), span.attributes.get("mrtr.outcome")]))
        .toEqual([
          [1, "input_required"],
          [1, "complete"],
          [undefined, undefined]
        ])
      expect(roundSpans.every((span) => span.attributes.get("mrtr.target") === "greet")).toBe(true)
      // Both rounds of the conversation carry the same id (sealed in the state, so any instance reads it back).
      const conversationId = roundSpans[0]!.attributes.get("mrtr.conversation.id")
      expect(conversationId).toMatch(/^[A-Za-z0-9_-]{12}$/)
      expect(roundSpans[1]!.attributes.get("mrtr.conversation.id")).toBe(conversationId)
      expect(roundSpans[2]!.attributes.get("mrtr.requestState.reason")).toBe("decryption-failed")
    }).pipe(Effect.provide(serverLayer()), Effect.provideService(Tracer.Tracer, recording)))
})
