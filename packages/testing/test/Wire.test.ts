/**
 * Wire validation of an exploration, on by default: the official schemas
 * `@mrtr/testing` ships are the repository's copies, byte for byte, and a
 * server that sends an invalid message is caught unless `validate: false`.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpHandler } from "@mrtr/server"
import { Explore } from "@mrtr/testing"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"

const files = ["schema-2026-07-28.json", "schema-2025-11-25.json", "schema-tasks-draft.json"]

/** A server whose every result is a `CallToolResult` with a text block without its text. */
const broken = Layer.succeed(
  McpHandler,
  McpHandler.of({
    handle: (incoming) =>
      Effect.succeed({
        _tag: "Response" as const,
        httpStatus: 200,
        message: {
          jsonrpc: "2.0" as const,
          id: (incoming.message as { id: number }).id,
          result: { resultType: "complete", content: [{ type: "text" }] }
        }
      })
  })
)

describe("Explore's wire validation", () => {
  it("ships the official schemas the repository's tests use, unchanged", () => {
    for (const file of files) {
      const shipped = fs.readFileSync(new URL(`../schemas/${file}`, import.meta.url), "utf8")
      const spec = fs.readFileSync(new URL(`../../test-support/spec/${file}`, import.meta.url), "utf8")
      assert.strictEqual(shipped, spec, file)
    }
  })

  it("validates against the era's schema", () => {
    const ok = { content: [{ type: "text", text: "ok" }] }
    assert.isUndefined(Explore.wireValidator("CallToolResult", { resultType: "complete", ...ok }, "2026-07-28"))
    assert.include(Explore.wireValidator("CallToolResult", ok, "2026-07-28"), "resultType")
    assert.isUndefined(Explore.wireValidator("CallToolResult", ok, "2025-11-25"))
    assert.include(Explore.wireValidator("CallToolResult", { content: [{ type: "text" }] }, "2025-11-25"), "text")
    assert.include(Explore.wireValidator("GetTaskResult", { status: "working" }, "tasks"), "taskId")
  })

  it.live("is on by default: an invalid result is a violation", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Explore.check({ server: broken, tool: "any", runs: 3, seed: 1, modes: ["2026-07-28"] })
      )
      assert.instanceOf(error, Explore.ExplorationFailed)
      assert.strictEqual(error.violation.property, "wire")
      assert.include(error.violation.message, "CallToolResult")
    }))

  it.live("validate: false turns it off", () =>
    Effect.gen(function*() {
      const result = yield* Explore.check({ server: broken, tool: "any", runs: 3, seed: 1, validate: false })
      assert.strictEqual(result.runs, 3)
    }))
})
