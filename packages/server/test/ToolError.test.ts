/**
 * Tool execution errors (MCP 2026-07-28, server/tools): a tool's typed
 * failure reaches the model as a result that says what failed, even when the
 * error has no `message` (a `Schema.TaggedError` with fields only); it is
 * logged and reported with its cause to the request's `ErrorReporter`s; and
 * `onError` maps a tool's errors to results of the user's choice.
 */
import { describe, expect, it } from "@effect/vitest"
import { RequestState } from "@mrtr/core"
import { validateWire } from "@mrtr/test-support/wire"
import { Data, Effect, ErrorReporter, Layer, Logger, Schema } from "effect"
import { McpServer, Tool, ToolError } from "../src/index.ts"
import { request } from "./fixtures.ts"

class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { id: Schema.Number, table: Schema.String }) {}
class Busy extends Data.TaggedError("Busy")<{}> {}
class Described extends Schema.TaggedError<Described>()("Described", { message: Schema.String }) {}

const lookup = Tool.make("lookup", {
  parameters: Schema.Struct({ id: Schema.Number }),
  handler: ({ id }) => Effect.fail(new NotFound({ id, table: "users" }))
})
const busy = Tool.make("busy", { handler: () => Effect.fail(new Busy()) })
const described = Tool.make("described", { handler: () => Effect.fail(new Described({ message: "the disk is full" })) })
const mapped = Tool.make("mapped", {
  parameters: Schema.Struct({ id: Schema.Number }),
  handler: ({ id }) => Effect.fail(new NotFound({ id, table: "users" })),
  onError: (error) => `No user with id ${error.id}; try another id`
})
const mappedNotAnError = Tool.make("mapped_soft", {
  handler: () => Effect.fail(new Busy()),
  onError: () => ({ content: [{ type: "text", text: "try again later" }], isError: false })
})

const logs: Array<string> = []
const capture = Logger.layer([
  Logger.make(({ message }) => void logs.push(Array.isArray(message) ? message.join(" ") : String(message)))
])

const layer = McpServer.tools(lookup, busy, described, mapped, mappedNotAnError).pipe(
  Layer.provideMerge(McpServer.layer({
    name: "tool-errors",
    version: "1.0.0",
    requestState: RequestState.RequestStateCodec.layer({
      keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(5) }])
    }).pipe(Layer.orDie)
  })),
  Layer.provideMerge(capture)
)

const call = (name: string, args: Record<string, unknown> = {}) =>
  McpServer.McpServer.use((server) => server.handle({ message: request("tools/call", { name, arguments: args }) }))
    .pipe(
      Effect.map((reply) => {
        if (reply._tag !== "Response") throw new Error(`expected a Response, got ${reply._tag}`)
        validateWire("JSONRPCResultResponse", reply.message)
        return reply.message.result as { content: Array<{ text: string }>; isError?: boolean }
      })
    )

describe("tool execution errors", () => {
  it.effect("a typed failure without a message says its tag and fields, and is logged", () =>
    Effect.gen(function*() {
      logs.length = 0
      const result = yield* call("lookup", { id: 42 })
      expect(result.isError).toBe(true)
      expect(result.content[0]!.text).toBe("NotFound {\"id\":42,\"table\":\"users\"}")
      expect(logs.some((line) => line.includes("Tool lookup failed: NotFound {\"id\":42,\"table\":\"users\"}"))).toBe(
        true
      )
      const tagOnly = yield* call("busy")
      expect(tagOnly).toMatchObject({ isError: true, content: [{ text: "Busy" }] })
      const withMessage = yield* call("described")
      expect(withMessage).toMatchObject({ isError: true, content: [{ text: "the disk is full" }] })
    }).pipe(Effect.provide(layer)))

  it.effect("onError maps the tool's errors to results (isError: true unless the result says otherwise)", () =>
    Effect.gen(function*() {
      logs.length = 0
      const result = yield* call("mapped", { id: 7 })
      expect(result).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "No user with id 7; try another id" }]
      })
      expect(logs.some((line) => line.includes("Tool mapped failed"))).toBe(true)
      const soft = yield* call("mapped_soft")
      expect(soft.isError).toBe(false)
      expect(soft.content[0]!.text).toBe("try again later")
    }).pipe(Effect.provide(layer)))

  it.effect("the failure is reported, cause and all, to the request's ErrorReporters (onError or not)", () =>
    Effect.gen(function*() {
      const reported: Array<unknown> = []
      const reporter: ErrorReporter.ErrorReporter = {
        [ErrorReporter.TypeId]: ErrorReporter.TypeId,
        report: ({ cause }) => {
          for (const reason of cause.reasons) if (reason._tag === "Fail") reported.push(reason.error)
        }
      }
      yield* Effect.all([call("lookup", { id: 42 }), call("mapped", { id: 7 })]).pipe(
        Effect.provideService(ErrorReporter.CurrentErrorReporters, new Set([reporter]))
      )
      expect(reported).toHaveLength(2)
      for (const [i, id] of [42, 7].entries()) {
        expect(reported[i]).toBeInstanceOf(NotFound)
        expect(reported[i]).toMatchObject({ id })
      }
    }).pipe(Effect.provide(layer)))

  it("describe is never empty, whatever was failed with", () => {
    for (
      const failure of [
        new NotFound({ id: 1, table: "t" }),
        new Busy(),
        "",
        undefined,
        null,
        0,
        { a: 1n },
        Object.create(null)
      ]
    ) {
      expect(ToolError.describe(failure).length).toBeGreaterThan(0)
    }
    expect(ToolError.describe({ _tag: "Oops", reason: "x" })).toBe("Oops {\"reason\":\"x\"}")
    expect(ToolError.describe(new Error("plain"))).toBe("plain")
  })
})
