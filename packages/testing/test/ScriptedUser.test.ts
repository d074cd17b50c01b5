/**
 * `ScriptedUser` and `Recorder` on their own: which handlers a script
 * provides, and how an answer is chosen (key, then predicate, then
 * otherwise). Source: MCP 2026-07-28, client/elicitation, client/sampling,
 * client/roots.
 */
import { assert, describe, it } from "@effect/vitest"
import { ElicitationHandler, RootsHandler, SamplingHandler } from "@mrtr/client"
import type { ElicitRequestFormParams } from "@mrtr/protocol/Schema"
import { Effect, Option } from "effect"
import { Recorder, ScriptedUser } from "../src/index.ts"

const form = (message: string): ElicitRequestFormParams => ({
  message,
  requestedSchema: { type: "object", properties: {} }
})

const context = (key: string) => ({ key, method: "tools/call", target: "t", round: 1 })

describe("ScriptedUser", () => {
  it.effect("provides only the scripted kinds", () =>
    Effect.gen(function*() {
      const present = Effect.all({
        elicitation: Effect.serviceOption(ElicitationHandler.ElicitationHandler),
        sampling: Effect.serviceOption(SamplingHandler.SamplingHandler),
        roots: Effect.serviceOption(RootsHandler.RootsHandler)
      })
      const onlyRoots = yield* present.pipe(Effect.provide(ScriptedUser.layer({ roots: [] })))
      assert.isTrue(Option.isNone(onlyRoots.elicitation))
      assert.isTrue(Option.isNone(onlyRoots.sampling))
      assert.isTrue(Option.isSome(onlyRoots.roots))
      const all = yield* present.pipe(
        Effect.provide(ScriptedUser.layer({ elicitation: {}, sampling: { tools: true }, roots: [] }))
      )
      assert.isTrue(Option.isSome(all.elicitation) && all.elicitation.value.url === undefined)
      assert.isTrue(Option.isSome(all.sampling) && all.sampling.value.tools === true)
    }))

  it.effect("chooses by key, then by the first matching predicate, then otherwise; and records", () =>
    Effect.gen(function*() {
      const handler = yield* ElicitationHandler.ElicitationHandler
      const ask = (key: string, message: string) => handler.form!(form(message), context(key))
      assert.deepStrictEqual(yield* ask("name", "delete everything?"), { action: "accept", content: { name: "A" } })
      assert.deepStrictEqual(yield* ask("other", "delete everything?"), { action: "decline" })
      assert.deepStrictEqual(yield* ask("other", "really delete?"), { action: "cancel" })
      assert.deepStrictEqual(yield* ask("other", "hello"), { action: "accept", content: { echo: "hello" } })
      const questions = yield* Recorder.questions
      assert.deepStrictEqual(questions.map((q) => [q.key, (q.answer as { action?: string } | undefined)?.action]), [
        ["name", "accept"],
        ["other", "decline"],
        ["other", "cancel"],
        ["other", "accept"]
      ])
      assert.strictEqual(questions[0]!.request.method, "elicitation/create")
      yield* Recorder.clear
      assert.deepStrictEqual(yield* Recorder.questions, [])
    }).pipe(Effect.provide(ScriptedUser.layer({
      elicitation: {
        byKey: { name: ScriptedUser.accept({ name: "A" }) },
        when: [
          [(params) => params.message.startsWith("delete"), ScriptedUser.decline],
          [(params) => params.message.includes("delete"), ScriptedUser.cancel]
        ],
        otherwise: (params) => Effect.succeed(ScriptedUser.accept({ echo: params.message }))
      }
    }))))

  it.effect("scripted sampling and roots", () =>
    Effect.gen(function*() {
      const sampling = yield* SamplingHandler.SamplingHandler
      const roots = yield* RootsHandler.RootsHandler
      const sampled = yield* sampling.createMessage({ messages: [], maxTokens: 5 }, context("s"))
      assert.deepStrictEqual(sampled, {
        role: "assistant",
        content: { type: "text", text: "hi" },
        model: "scripted-model",
        stopReason: "endTurn"
      })
      assert.deepStrictEqual(yield* roots.listRoots(context("r")), [{ uri: "file:///r/t" }])
      assert.deepStrictEqual((yield* Recorder.questionsOf("roots")).map((q) => q.answer), [{
        roots: [{ uri: "file:///r/t" }]
      }])
    }).pipe(Effect.provide(ScriptedUser.layer({
      sampling: { byKey: { s: ScriptedUser.text("hi") } },
      roots: (ctx) => [{ uri: `file:///${ctx.key}/${ctx.target}` }]
    }))))
})
