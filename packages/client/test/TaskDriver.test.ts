/**
 * `TaskDriver.drive` on a scripted `tasks/get`: a failed task's error is the
 * task's JSON-RPC error as `McpError` when it is one, and a
 * `ProtocolViolation` (never a defect) when its code is no integer or its
 * message no string.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpError } from "@mrtr/protocol"
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
      const malformed = [{ code: 1.5, message: "x" }, { code: 2 ** 53, message: "x" }, { code: 1, message: 7 }, null, "boom"]
      for (const error of malformed) {
        const failure = yield* failedWith(error)
        assert.strictEqual(failure._tag, "ProtocolViolation")
        if (failure._tag === "ProtocolViolation") assert.include(failure.reason, "a failed task needs an error")
      }
    }))
})
