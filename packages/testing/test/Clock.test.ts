/**
 * Time in harness tests: under `@effect/vitest`'s `it.effect` (which installs
 * `TestClock`) a server whose handler sleeps, in a `Mrtr.step` or between
 * asks, completes by default, because the harness runs the server side on
 * the live clock; the test's own code keeps `TestClock`. With
 * `clock: "test"` the server follows the test's clock, driven by
 * `TestClock.adjust`.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Elicitation, Mrtr, RequestState } from "@mrtr/core"
import { McpServer, Tool } from "@mrtr/server"
import { validateWire } from "@mrtr/test-support/wire"
import { Clock, Effect, Fiber, Layer, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Harness, ScriptedUser } from "../src/index.ts"

/** A two-round tool that sleeps in a step, then between the asks, and reads the clock. */
const slow = Tool.make("slow", {
  parameters: Schema.Struct({ millis: Schema.Number }),
  handler: ({ millis }) =>
    Effect.gen(function*() {
      const waited = yield* Mrtr.step("wait", Effect.sleep(millis).pipe(Effect.as(millis)), Schema.Number)
      const { name } = yield* Elicitation.form({
        key: "who",
        message: "Who waits?",
        schema: Schema.Struct({ name: Schema.String })
      })
      yield* Effect.sleep(millis)
      const now = yield* Clock.currentTimeMillis
      return `${name} waited ${waited} ms at ${now > 1e12 ? "wall time" : "test time"}`
    })
})

const server = McpServer.tools(slow).pipe(
  Layer.provideMerge(McpServer.layer({
    name: "clock",
    version: "1.0.0",
    requestState: RequestState.RequestStateCodec.layer({
      keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(5) }])
    }).pipe(Layer.orDie)
  })),
  Layer.orDie
)

const user = ScriptedUser.layer({ elicitation: { byKey: { who: ScriptedUser.accept({ name: "Ada" }) } } })

const call = McpClient.McpClient.use((client) => client.callTool({ name: "slow", arguments: { millis: 20 } }))
const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

describe("Harness and time", () => {
  it.effect("under it.effect a handler that sleeps completes: the server runs on the live clock", () =>
    Effect.gen(function*() {
      const result = yield* call
      validateWire("CallToolResult", result)
      assert.strictEqual(textOf(result), "Ada waited 20 ms at wall time")
      // The test itself is still on TestClock.
      assert.strictEqual(yield* Clock.currentTimeMillis, 0)
      const requests = yield* Harness.requests
      assert.strictEqual(requests.length, 2)
      for (const request of requests) validateWire("CallToolRequest", request)
    }).pipe(Effect.provide(Harness.layer({ server, user }))))

  it.layer(Harness.layer({ server, user }))("it.layer", (it) => {
    it.effect("the same under a shared harness layer", () =>
      Effect.gen(function*() {
        assert.strictEqual(textOf(yield* call), "Ada waited 20 ms at wall time")
      }))
  })

  it.effect("clock: \"test\" puts the server on the test's clock: TestClock.adjust drives its sleeps", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(call)
      // Nothing completes until the test moves its clock past both sleeps.
      yield* TestClock.adjust("19 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      yield* TestClock.adjust("20 millis")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(textOf(result), "Ada waited 20 ms at test time")
    }).pipe(Effect.provide(Harness.layer({ server, user, clock: "test" }))))

  /** Manual mode: the first round's state, then a retry after the test moved its clock 11 minutes (past the 10-minute expiry). */
  const retryAfterEleventhMinute = Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const pending = yield* Effect.flip(client.callTool({ name: "slow", arguments: { millis: 0 } }))
    assert.strictEqual(pending._tag, "InputRequiredError")
    if (pending._tag !== "InputRequiredError" || pending.requestState === undefined) throw new Error("no state")
    yield* TestClock.adjust("11 minutes")
    return yield* Effect.result(client.callTool({
      name: "slow",
      arguments: { millis: 0 },
      inputResponses: { who: ScriptedUser.accept({ name: "Bo" }) },
      requestState: pending.requestState
    }))
  })
  const manual = { server, client: { capabilities: { elicitation: {} } } } as const

  it.effect("requestState expiry follows the server's clock: live by default, the TestClock with clock: \"test\"", () =>
    Effect.gen(function*() {
      const live = yield* retryAfterEleventhMinute.pipe(Effect.provide(Harness.layer(manual)))
      assert.isTrue(Result.isSuccess(live))
      if (Result.isSuccess(live)) assert.strictEqual(textOf(live.success), "Bo waited 0 ms at wall time")
      const test = yield* retryAfterEleventhMinute.pipe(Effect.provide(Harness.layer({ ...manual, clock: "test" })))
      assert.isTrue(Result.isFailure(test))
      if (Result.isFailure(test)) assert.match(String(test.failure.message), /Invalid requestState/)
    }))

  it.live("under it.live the server is on the live clock too", () =>
    Effect.gen(function*() {
      assert.strictEqual(textOf(yield* call), "Ada waited 20 ms at wall time")
    }).pipe(Effect.provide(Harness.layer({ server, user }))))
})
