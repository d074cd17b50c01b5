/**
 * `TaskDriver.drive` on a scripted `tasks/get`: a failed task's error is the
 * task's JSON-RPC error as `McpError` when it is one, and a
 * `ProtocolViolation` (never a defect) when its code is no integer or its
 * message no string; a task's input requests are checked as a round's are
 * before any is answered.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpError } from "@mrtr/protocol/ErrorCode"
import { Cause, Effect, Exit } from "effect"
import * as TaskDriver from "../src/TaskDriver.ts"

const failedWith = (error: unknown) =>
  TaskDriver.drive({ taskId: "t1", status: "working" }, {
    request: () => Effect.succeed({ taskId: "t1", status: "failed", error }),
    answer: () => Effect.succeed(undefined)
  }).pipe(Effect.flip)

describe("TaskDriver.drive", () => {
  it.effect("a failed task fails with its JSON-RPC error", () =>
    Effect.gen(function*() {
      const error = yield* failedWith({ code: -32603, message: "boom", data: { at: 1 } })
      assert.instanceOf(error, McpError)
      if (error instanceof McpError) {
        assert.strictEqual(error.code, -32603)
        assert.deepStrictEqual(error.data, { at: 1 })
      }
    }))

  it.effect("a failed task whose error is malformed is a protocol error, not a defect", () =>
    Effect.gen(function*() {
      const malformed = [
        { code: 1.5, message: "x" },
        { code: 2 ** 53, message: "x" },
        { code: 1, message: 7 },
        null,
        "boom"
      ]
      for (const error of malformed) {
        const failure = yield* failedWith(error)
        assert.strictEqual(failure._tag, "ProtocolViolation")
        if (failure._tag === "ProtocolViolation") assert.include(failure.reason, "a failed task needs an error")
      }
    }))

  it.effect("a task's input requests are checked before any is answered: shapes, methods, how many", () =>
    Effect.gen(function*() {
      const elicit = {
        method: "elicitation/create",
        params: { mode: "form", message: "Name?", requestedSchema: { type: "object", properties: {} } }
      }
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [[elicit], "inputRequests is not an object"],
        [{ q: null }, "input request 'q' has an unknown method 'undefined'"],
        [{ q: { method: "elicitation/create", params: { mode: "form" } } }, "input request 'q' is malformed: "],
        [Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`q${i}`, elicit])), "65 input requests in one round"]
      ]
      for (const [inputRequests, reason] of cases) {
        let answered = 0
        const failure = yield* TaskDriver.drive({ taskId: "t1", status: "working" }, {
          request: () => Effect.succeed({ taskId: "t1", status: "input_required", inputRequests }),
          answer: () =>
            Effect.sync(() => {
              answered++
              return undefined
            })
        }).pipe(Effect.flip)
        assert.strictEqual(failure._tag, "ProtocolViolation")
        if (failure._tag === "ProtocolViolation") assert.include(failure.reason, reason)
        assert.strictEqual(answered, 0)
      }
    }))

  it.live("a task's well-formed input requests are answered once each, and the task goes on", () =>
    Effect.gen(function*() {
      const elicit = {
        method: "elicitation/create",
        params: { mode: "form", message: "Name?", requestedSchema: { type: "object", properties: {} } }
      }
      const statuses = [
        { taskId: "t1", status: "input_required", inputRequests: { q: elicit }, pollIntervalMs: 1 },
        { taskId: "t1", status: "input_required", inputRequests: { q: elicit }, pollIntervalMs: 1 },
        { taskId: "t1", status: "completed", result: { content: [] } }
      ]
      const asked: Array<ReadonlyArray<string>> = []
      const updates: Array<unknown> = []
      const result = yield* TaskDriver.drive({ taskId: "t1", status: "working" }, {
        request: (method, params) =>
          Effect.sync(() => {
            if (method === "tasks/update") {
              updates.push(params.inputResponses)
              return { taskId: "t1", status: "working" }
            }
            return statuses.shift()!
          }),
        answer: (inputRequests) =>
          Effect.sync(() => {
            asked.push(Object.keys(inputRequests))
            return { q: { action: "accept", content: {} } }
          })
      })
      assert.deepStrictEqual(result, { content: [] })
      assert.deepStrictEqual(asked, [["q"]])
      assert.strictEqual(updates.length, 1)
    }))

  it.effect("a task that keeps asking new questions is cancelled past maxRounds: MaxRoundsExceeded, not answers without end", () =>
    Effect.gen(function*() {
      let polls = 0
      let answered = 0
      const sent: Array<string> = []
      const failure = yield* TaskDriver.drive({ taskId: "t1", status: "working" }, {
        request: (method) =>
          Effect.sync(() => {
            sent.push(method)
            if (method !== "tasks/get") return { taskId: "t1", status: "working" }
            polls++
            const elicit = {
              method: "elicitation/create",
              params: { mode: "form", message: `Q${polls}?`, requestedSchema: { type: "object", properties: {} } }
            }
            return { taskId: "t1", status: "input_required", inputRequests: { q: elicit } }
          }),
        answer: () =>
          Effect.sync(() => {
            answered++
            return { q: { action: "accept", content: {} } }
          }),
        maxRounds: 3
      }).pipe(Effect.flip)
      assert.strictEqual(failure._tag, "MaxRoundsExceeded")
      // counted as the MRTR loop counts its requests: the tools/call, then two sets of answers
      assert.strictEqual(answered, 2)
      assert.include(sent, "tasks/cancel")
      const exit = yield* Effect.exit(TaskDriver.drive({ taskId: "t1" }, {
        request: () => Effect.succeed({ taskId: "t1", status: "working" }),
        answer: () => Effect.succeed(undefined),
        maxRounds: Number.NaN
      }))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
    }))

  it.effect("a task's status is shown only once its input requests are checked; null input requests are refused", () =>
    Effect.gen(function*() {
      const many = Object.fromEntries(
        Array.from({ length: 1001 }, (_, i) => [`q${i}`, { method: "roots/list", params: {} }])
      )
      for (const inputRequests of [many, null]) {
        const shown: Array<unknown> = []
        const failure = yield* TaskDriver.drive({ taskId: "t1" }, {
          request: () => Effect.succeed({ taskId: "t1", status: "input_required", inputRequests }),
          answer: () => Effect.succeed(undefined),
          onStatus: (change) => Effect.sync(() => void shown.push(change))
        }).pipe(Effect.flip)
        assert.strictEqual(failure._tag, "ProtocolViolation")
        assert.deepStrictEqual(shown, [])
      }
    }))
})
