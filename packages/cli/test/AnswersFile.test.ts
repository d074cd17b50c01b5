/**
 * Answers files: the documented shorthands, full results, wrong shapes,
 * and the handlers' lookup by key with a fallback.
 * Source: MCP 2026-07-28, schema ElicitResult / CreateMessageResult / ListRootsResult.
 */
import { assert, describe, it } from "@effect/vitest"
import { ElicitationHandler, RootsHandler, SamplingHandler } from "@mrtr/client"
import { Effect } from "effect"
import * as AnswersFile from "../src/AnswersFile.ts"

const context = (key: string) => ({ key, method: "tools/call", target: "t", round: 1 })
const form = {
  message: "?",
  requestedSchema: {
    type: "object" as const,
    properties: { name: { type: "string" as const }, size: { type: "string" as const, enum: ["s", "m"] } },
    required: ["name"]
  }
}
const sampling = { messages: [{ role: "user" as const, content: { type: "text" as const, text: "hi" } }], maxTokens: 5 }

describe("answers file", () => {
  it.effect("parses a JSON object; anything else is refused", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* AnswersFile.parse("{\"a\": 1}"), { a: 1 })
      assert.strictEqual((yield* Effect.flip(AnswersFile.parse("[1]")))._tag, "AnswersFileError")
      assert.include((yield* Effect.flip(AnswersFile.parse("{"))).message, "not JSON")
    }))

  it.effect("form answers: an object is the accepted content; \"decline\" / \"cancel\"; a full ElicitResult", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* AnswersFile.toElicitResult("k", { name: "Ada" }, "form"), {
        action: "accept",
        content: { name: "Ada" }
      })
      assert.deepStrictEqual(yield* AnswersFile.toElicitResult("k", "decline", "form"), { action: "decline" })
      assert.deepStrictEqual(yield* AnswersFile.toElicitResult("k", "cancel", "form"), { action: "cancel" })
      assert.deepStrictEqual(
        yield* AnswersFile.toElicitResult("k", { action: "accept", content: { action: "x" } }, "form"),
        { action: "accept", content: { action: "x" } }
      )
      const wrong = yield* Effect.flip(AnswersFile.toElicitResult("k", { name: { nested: true } }, "form"))
      assert.strictEqual(wrong.key, "k")
      assert.include(wrong.message, "ElicitResult")
      assert.strictEqual((yield* Effect.flip(AnswersFile.toElicitResult("k", 42, "form")))._tag, "AnswersFileError")
    }))

  it.effect("URL answers: \"accept\" / true, \"decline\" / false, \"cancel\"", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* AnswersFile.toElicitResult("k", "accept", "url"), { action: "accept" })
      assert.deepStrictEqual(yield* AnswersFile.toElicitResult("k", true, "url"), { action: "accept" })
      assert.deepStrictEqual(yield* AnswersFile.toElicitResult("k", false, "url"), { action: "decline" })
      assert.deepStrictEqual(yield* AnswersFile.toElicitResult("k", "cancel", "url"), { action: "cancel" })
      // a URL elicitation takes no content object shorthand
      assert.strictEqual(
        (yield* Effect.flip(AnswersFile.toElicitResult("k", { a: 1 }, "url")))._tag,
        "AnswersFileError"
      )
    }))

  it.effect("sampling answers: a string is the text reply; an object a full CreateMessageResult", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* AnswersFile.toCreateMessageResult("k", "Paris"), {
        role: "assistant",
        content: { type: "text", text: "Paris" },
        model: "scripted",
        stopReason: "endTurn"
      })
      const full = { role: "assistant", content: { type: "text", text: "x" }, model: "m" }
      assert.deepStrictEqual(yield* AnswersFile.toCreateMessageResult("k", full), full as unknown)
      assert.strictEqual(
        (yield* Effect.flip(AnswersFile.toCreateMessageResult("k", { text: "x" })))._tag,
        "AnswersFileError"
      )
    }))

  it.effect("roots answers: URIs, root objects, or a full ListRootsResult", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* AnswersFile.toRoots("k", ["file:///a"]), [{ uri: "file:///a" }])
      assert.deepStrictEqual(yield* AnswersFile.toRoots("k", [{ uri: "file:///a", name: "a" }]), [{
        uri: "file:///a",
        name: "a"
      }])
      assert.deepStrictEqual(yield* AnswersFile.toRoots("k", { roots: [{ uri: "file:///b" }] }), [{ uri: "file:///b" }])
      assert.strictEqual((yield* Effect.flip(AnswersFile.toRoots("k", "file:///a")))._tag, "AnswersFileError")
    }))

  it.effect("the handlers answer by key, fall back for other keys, and fail with Unanswered without a fallback", () =>
    Effect.gen(function*() {
      const answers = { name: { name: "Ada" }, idea: "rail", roots: ["file:///r"], bad: { name: [1] } }
      const handlers = Effect.all({
        elicitation: Effect.service(ElicitationHandler.ElicitationHandler),
        sampling: Effect.service(SamplingHandler.SamplingHandler),
        roots: Effect.service(RootsHandler.RootsHandler)
      })
      const bare = yield* handlers.pipe(Effect.provide(AnswersFile.layer(answers)))
      assert.deepStrictEqual(yield* bare.elicitation.form!(form, context("name")), {
        action: "accept",
        content: { name: "Ada" }
      })
      assert.deepStrictEqual((yield* bare.sampling.createMessage(sampling, context("idea"))).content, {
        type: "text",
        text: "rail"
      })
      assert.deepStrictEqual(yield* bare.roots.listRoots(context("roots")), [{ uri: "file:///r" }])
      const missing = yield* Effect.flip(bare.elicitation.form!(form, context("other")))
      assert.strictEqual(missing._tag, "InputHandlerError")
      assert.instanceOf(missing.cause, AnswersFile.Unanswered)
      const invalid = yield* Effect.flip(bare.elicitation.form!(form, context("bad")))
      assert.instanceOf(invalid.cause, AnswersFile.AnswersFileError)
      // the answer is read for the question asked under its key
      assert.strictEqual(
        (yield* Effect.flip(bare.sampling.createMessage(sampling, context("name"))))._tag,
        "InputHandlerError"
      )

      const withFallback = yield* handlers.pipe(
        Effect.provide(AnswersFile.layer(answers, {
          form: () => Effect.succeed(ElicitationHandler.decline),
          listRoots: () => Effect.succeed([{ uri: "file:///fallback" }])
        }))
      )
      assert.deepStrictEqual(yield* withFallback.elicitation.form!(form, context("other")), { action: "decline" })
      assert.deepStrictEqual(yield* withFallback.elicitation.form!(form, context("name")), {
        action: "accept",
        content: { name: "Ada" }
      })
      assert.deepStrictEqual(yield* withFallback.roots.listRoots(context("elsewhere")), [{ uri: "file:///fallback" }])
    }))

  it("templates show what to write for a question", () => {
    assert.deepStrictEqual(AnswersFile.template({ method: "elicitation/create", params: form }), {
      name: "<string>",
      size: "<s | m, optional>"
    })
    assert.strictEqual(
      AnswersFile.template({ method: "sampling/createMessage", params: sampling }),
      "<the model's reply>"
    )
  })
})
