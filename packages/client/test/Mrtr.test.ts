/**
 * The input_required loop (MCP 2026-07-28, basic/patterns/mrtr) against
 * scripted in-memory servers, including misbehaving ones: every call ends as
 * documented, within the round cap, with the right typed error, and no
 * request carries stale MRTR fields. Every request the fake server receives
 * is validated against the official JSON Schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Ref, Schedule } from "effect"
import { TestClock } from "effect/testing"
import * as ElicitationHandler from "../src/ElicitationHandler.ts"
import * as Errors from "../src/Errors.ts"
import * as McpClient from "../src/McpClient.ts"
import * as MemoryTransport from "../src/MemoryTransport.ts"
import * as RootsHandler from "../src/RootsHandler.ts"
import * as SamplingHandler from "../src/SamplingHandler.ts"
import { clientLayer, complete, elicit, type FakeServer, fakeServer, inputRequired, roots, sample } from "./fixtures.ts"

const acceptAlice = ElicitationHandler.layer({
  form: () => Effect.succeed(ElicitationHandler.accept({ name: "Alice" }))
})

const fast = { stateOnlyBackoff: Schedule.spaced("1 millis") }

const callTool = (params: McpClient.CallToolParams = { name: "t" }, options?: McpClient.CallOptions) =>
  McpClient.McpClient.use((client) => client.callTool(params, options))

/** The MRTR fields of a received request. */
const mrtrFields = (request: Record<string, any>) => ({
  inputResponses: request.params.inputResponses,
  requestState: request.params.requestState
})

const assertValid = (server: FakeServer) => assert.deepStrictEqual(server.invalid, [])

describe("input_required loop", () => {
  it.effect("answers, then retries with a new id, the original params, inputResponses and the echoed state", () =>
    Effect.gen(function*() {
      const state = " {\"a\": [1, 2],\n \"é\": \"\u2028\u0000\"}  ==\t"
      const server = fakeServer((_, n) =>
        n === 1 ? inputRequired({ inputRequests: { user_name: elicit() }, requestState: state }) : complete("Hello")
      )
      const result = yield* callTool({ name: "greet", arguments: { greeting: "Hi", nested: { a: [1] } } }).pipe(
        Effect.provide(clientLayer(server, {}, acceptAlice))
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "Hello" }])
      const [first, second] = server.received
      assert.strictEqual(server.received.length, 2)
      assert.notStrictEqual(first!.id, second!.id)
      assert.deepStrictEqual(second!.params.name, first!.params.name)
      assert.deepStrictEqual(second!.params.arguments, first!.params.arguments)
      assert.deepStrictEqual(second!.params._meta, first!.params._meta)
      // byte-for-byte
      assert.strictEqual(second!.params.requestState, state)
      assert.deepStrictEqual(second!.params.inputResponses, {
        user_name: { action: "accept", content: { name: "Alice" } }
      })
      assert.deepStrictEqual(mrtrFields(first!), { inputResponses: undefined, requestState: undefined })
      assertValid(server)
    }))

  it.effect("omits requestState when the server gave none", () =>
    Effect.gen(function*() {
      const server = fakeServer((_, n) =>
        n === 1 ? inputRequired({ inputRequests: { confirm: elicit() } }) : complete()
      )
      yield* callTool().pipe(Effect.provide(clientLayer(server, {}, acceptAlice)))
      assert.isFalse("requestState" in server.received[1]!.params)
      assert.deepStrictEqual(Object.keys(server.received[1]!.params.inputResponses), ["confirm"])
      assertValid(server)
    }))

  it.effect("input_required forever: stops after maxRounds (default 10) with the last result", () =>
    Effect.gen(function*() {
      const server = fakeServer((_, n) =>
        inputRequired({ inputRequests: { [`q${n}`]: elicit(`question ${n}`) }, requestState: `s${n}` })
      )
      const error = yield* callTool().pipe(Effect.provide(clientLayer(server, {}, acceptAlice)), Effect.flip)
      assert.strictEqual(error._tag, "MaxRoundsExceeded")
      if (error._tag !== "MaxRoundsExceeded") return
      assert.strictEqual(error.rounds, 10)
      assert.strictEqual(server.received.length, 10)
      assert.deepStrictEqual((error.lastResult as any).requestState, "s10")
      // Each retry answers exactly the previous round's keys, with the previous round's state: nothing stale.
      for (let i = 1; i < server.received.length; i++) {
        assert.deepStrictEqual(Object.keys(server.received[i]!.params.inputResponses), [`q${i}`])
        assert.strictEqual(server.received[i]!.params.requestState, `s${i}`)
      }
      assert.strictEqual(new Set(server.received.map((r) => r.id)).size, 10)
      assertValid(server)
    }))

  it.effect("maxRounds is configurable per client and per call", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => inputRequired({ inputRequests: { q: elicit() } }))
      const layer = clientLayer(server, { maxRounds: 3 }, acceptAlice)
      const a = yield* callTool().pipe(Effect.provide(layer), Effect.flip)
      assert.strictEqual(a._tag, "MaxRoundsExceeded")
      assert.strictEqual(server.received.length, 3)
      const b = yield* callTool({ name: "t" }, { maxRounds: 1 }).pipe(Effect.provide(layer), Effect.flip)
      assert.strictEqual(b._tag, "MaxRoundsExceeded")
      assert.strictEqual(server.received.length, 4)
    }))

  it.effect("an empty inputRequests map with no state is a protocol error, not a loop", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => inputRequired({ inputRequests: {} }))
      const error = yield* callTool().pipe(Effect.provide(clientLayer(server, {}, acceptAlice)), Effect.flip)
      assert.strictEqual(error._tag, "ProtocolViolation")
      assert.strictEqual(server.received.length, 1)
    }))

  it.effect("an input_required result with neither field is a protocol error", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => ({ resultType: "input_required" }))
      const error = yield* callTool().pipe(Effect.provide(clientLayer(server)), Effect.flip)
      assert.strictEqual(error._tag, "ProtocolViolation")
      assert.strictEqual(server.received.length, 1)
    }))

  it.effect("an input request of an unknown method is a protocol error and nothing is answered", () =>
    Effect.gen(function*() {
      const asked = yield* Ref.make(0)
      const counting = ElicitationHandler.layer({
        form: () => Ref.update(asked, (n) => n + 1).pipe(Effect.as(ElicitationHandler.accept({ name: "x" })))
      })
      const server = fakeServer(() =>
        inputRequired({ inputRequests: { a: elicit(), b: { method: "tasks/create", params: {} } }, requestState: "s" })
      )
      const error = yield* callTool().pipe(Effect.provide(clientLayer(server, {}, counting)), Effect.flip)
      assert.strictEqual(error._tag, "ProtocolViolation")
      if (error._tag === "ProtocolViolation") assert.include(error.reason, "tasks/create")
      assert.strictEqual(server.received.length, 1)
      assert.strictEqual(yield* Ref.get(asked), 0)
    }))

  it.effect("a malformed input request of a known method is a protocol error", () =>
    Effect.gen(function*() {
      const server = fakeServer(() =>
        inputRequired({ inputRequests: { a: { method: "sampling/createMessage", params: {} } } })
      )
      const error = yield* callTool().pipe(Effect.provide(clientLayer(server, {}, acceptAlice)), Effect.flip)
      assert.strictEqual(error._tag, "ProtocolViolation")
      if (error._tag === "ProtocolViolation") assert.include(error.reason, "input request 'a' is malformed: ")
      assert.strictEqual(server.received.length, 1)
    }))

  it.effect("each malformed input_required shape is a protocol error saying what is wrong, and nothing is retried", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [
          { resultType: "input_required", inputRequests: [elicit()], requestState: "s" },
          "inputRequests is not an object"
        ],
        [
          { resultType: "input_required", inputRequests: { q: elicit() }, requestState: 7 },
          "requestState is not a string"
        ],
        [
          { resultType: "input_required", inputRequests: { q: "elicit" } },
          "input request 'q' has an unknown method 'undefined'"
        ],
        [
          {
            resultType: "input_required",
            inputRequests: { q: { method: "elicitation/create", params: { mode: "form" } } }
          },
          "input request 'q' is malformed: "
        ],
        // What the server wrote is quoted escaped in the reason: a resultType, a key, a key inside a schema path.
        [{ resultType: "evil\u2028INFO forged\u202e" }, "unknown resultType 'evil\\u2028INFO forged\\u202e'"],
        [
          {
            resultType: "input_required",
            inputRequests: {
              q: {
                method: "elicitation/create",
                params: {
                  mode: "form",
                  message: "m",
                  requestedSchema: { type: "object", properties: { "x\u2028y\u009b": { type: 5 } } }
                }
              }
            }
          },
          "x\\u2028y\\u009b"
        ],
        // A server's key is quoted escaped in the reason.
        [
          { resultType: "input_required", inputRequests: { "a\n[ERROR] forged": { method: "x" } } },
          "input request 'a\\n[ERROR] forged' has an unknown method 'x'"
        ],
        [
          { resultType: "input_required", inputRequests: { q: { method: { toString: 1 } } } },
          "input request 'q' has an unknown method 'an object'"
        ],
        // More than a round may carry (MAX_INPUT_REQUESTS): refused before any handler runs.
        [
          {
            resultType: "input_required",
            inputRequests: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`q${i}`, elicit()]))
          },
          "65 input requests in one round; the client answers at most 64"
        ]
      ]
      for (const [result, reason] of cases) {
        const server = fakeServer(() => result)
        const error = yield* callTool().pipe(Effect.provide(clientLayer(server, {}, acceptAlice)), Effect.flip)
        assert.strictEqual(error._tag, "ProtocolViolation")
        if (error._tag === "ProtocolViolation") {
          assert.include(error.reason, reason)
          assert.notMatch(error.reason, /[\u2028\u2029\u202e\u009b]/)
          assert.deepStrictEqual(error.result, result)
        }
        assert.strictEqual(server.received.length, 1)
      }
    }))

  /** Each of `calls` returns its effect without throwing, and the effect fails with a defect. */
  const diesWithoutThrowing = (calls: ReadonlyArray<() => Effect.Effect<unknown, unknown>>) =>
    Effect.forEach(calls, (make) => {
      let call: Effect.Effect<unknown, unknown> | undefined
      assert.doesNotThrow(() => {
        call = make()
      })
      return Effect.map(Effect.exit(call!), (exit) => assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause)))
    }, { discard: true })

  it.effect("a callTimeout that is no duration is a defect of the call's effect, not a throw of the method", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => ({ content: [] }))
      const client = yield* McpClient.McpClient.pipe(Effect.provide(clientLayer(server)))
      const calls: Array<() => Effect.Effect<unknown, unknown>> = [
        () => client.callTool({ name: "t" }, { callTimeout: "banana" as never }),
        () => client.getPrompt({ name: "p" }, { callTimeout: "banana" as never }),
        () => client.readResource({ uri: "test://r" }, { callTimeout: "banana" as never }),
        () => client.listTools(undefined, { callTimeout: "banana" as never })
      ]
      yield* diesWithoutThrowing(calls)
      assert.strictEqual(server.received.length, 0)
    }))

  it.effect("an MRTR method given params that are no object fails with a defect, with or without HTTP headers", () =>
    Effect.gen(function*() {
      for (const simulateHttp of [false, true]) {
        const server = fakeServer(() => ({ content: [] }))
        const client = yield* McpClient.McpClient.pipe(
          Effect.provide(
            McpClient.layer({ protocol: "2026-07-28" }).pipe(
              Layer.provide(MemoryTransport.layer(server.handler, { simulateHttp }))
            )
          )
        )
        const calls: Array<() => Effect.Effect<unknown, unknown>> = [
          () => client.callTool(undefined as never),
          () => client.getPrompt(undefined as never),
          () => client.readResource(undefined as never)
        ]
        yield* diesWithoutThrowing(calls)
        assert.strictEqual(server.received.length, 0)
      }
    }))

  it.effect("a JSON-RPC error whose code is no safe integer is a protocol error, not a defect", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => ({ error: { code: 2 ** 53, message: "x" } }))
      const error = yield* callTool().pipe(Effect.provide(clientLayer(server)), Effect.flip)
      assert.strictEqual(error._tag, "ProtocolViolation")
      if (error._tag === "ProtocolViolation") assert.strictEqual(error.reason, "malformed JSON-RPC error")
    }))

  it.effect("a maxRounds that is no number is a defect, per call and on the layer, and nothing is sent", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => inputRequired({ inputRequests: { q: elicit() } }))
      for (const maxRounds of [Number.NaN, "banana" as never]) {
        const perCall = yield* callTool({ name: "t" }, { maxRounds }).pipe(
          Effect.provide(clientLayer(server, {}, acceptAlice)),
          Effect.exit
        )
        assert.isTrue(Exit.isFailure(perCall) && Cause.hasDies(perCall.cause))
        const onLayer = yield* callTool().pipe(
          Effect.provide(clientLayer(server, { maxRounds }, acceptAlice)),
          Effect.exit
        )
        assert.isTrue(Exit.isFailure(onLayer) && Cause.hasDies(onLayer.cause))
      }
      assert.strictEqual(server.received.length, 0)
    }))

  it.effect("a protocol outside the three revisions is a defect of the layer, not a silent \"auto\", and nothing is sent", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => ({ content: [] }))
      for (const protocol of ["banana", "2026-07-29", "", null] as const) {
        const exit = yield* callTool().pipe(
          Effect.provide(clientLayer(server, { protocol: protocol as never })),
          Effect.exit
        )
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      }
      assert.strictEqual(server.received.length, 0)
    }))

  it.live("a negative timeout (-Infinity included) expires at once instead of turning the bound off", () =>
    Effect.gen(function*() {
      const silent: MemoryTransport.Handler = { handle: () => Effect.never }
      const layer = McpClient.layer({ protocol: "2026-07-28" }).pipe(Layer.provide(MemoryTransport.layer(silent)))
      for (
        const [options, bound] of [
          [{ callTimeout: -Infinity }, "call"],
          [{ callTimeout: -5 }, "call"],
          [{ requestTimeout: -Infinity }, "request"]
        ] as const
      ) {
        const error = yield* callTool({ name: "t" }, options).pipe(
          Effect.provide(layer),
          Effect.flip,
          Effect.timeout("2 seconds")
        )
        assert.instanceOf(error, Errors.RequestTimeout)
        if (error instanceof Errors.RequestTimeout) assert.strictEqual(error.bound, bound)
      }
    }))

  it.live("the tool listing before a first call over HTTP keeps to the call's requestTimeout", () =>
    Effect.gen(function*() {
      const methods: Array<string> = []
      const server: MemoryTransport.Handler = {
        handle: ({ message }) =>
          Effect.suspend(() => {
            const request = message as Record<string, any>
            methods.push(request.method)
            // a server that never answers tools/list, and answers the call
            return request.method === "tools/list" ? Effect.never : Effect.succeed({
              _tag: "Response" as const,
              message: { jsonrpc: "2.0", id: request.id, result: complete("done") },
              httpStatus: 200
            })
          })
      }
      const layer = McpClient.layer({ protocol: "2026-07-28" }).pipe(
        Layer.provide(MemoryTransport.layer(server, { simulateHttp: true }))
      )
      const result = yield* callTool({ name: "t" }, { requestTimeout: "300 millis" }).pipe(
        Effect.provide(layer),
        Effect.timeout("5 seconds")
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "done" }])
      assert.deepStrictEqual(methods, ["tools/list", "tools/call"])
    }))

  it.effect("a missing resultType means complete, even when the result looks like input_required", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => ({
        content: [{ type: "text", text: "legacy" }],
        inputRequests: { q: elicit() },
        requestState: "s"
      }))
      const result = yield* callTool().pipe(Effect.provide(clientLayer(server, {}, acceptAlice)))
      assert.strictEqual(result.resultType, "complete")
      assert.deepStrictEqual(result.content, [{ type: "text", text: "legacy" }])
      assert.strictEqual(server.received.length, 1)
    }))

  it.effect("an unknown resultType is a protocol error", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => ({ resultType: "task", taskId: "1" }))
      const error = yield* callTool().pipe(Effect.provide(clientLayer(server, {}, acceptAlice)), Effect.flip)
      assert.strictEqual(error._tag, "ProtocolViolation")
      if (error._tag === "ProtocolViolation") {
        assert.include(error.reason, "task")
        assert.deepStrictEqual(error.result, { resultType: "task", taskId: "1" })
      }
      assert.strictEqual(server.received.length, 1)
    }))

  it.effect("a non-string resultType is a protocol error", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => ({ resultType: 7, content: [] }))
      const error = yield* callTool().pipe(Effect.provide(clientLayer(server)), Effect.flip)
      assert.strictEqual(error._tag, "ProtocolViolation")
    }))

  it.effect("input_required on a method that may not return it is a protocol error", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => inputRequired({ requestState: "s" }))
      const error = yield* McpClient.McpClient.use((c) => c.listTools()).pipe(
        Effect.provide(clientLayer(server)),
        Effect.flip
      )
      assert.strictEqual(error._tag, "ProtocolViolation")
      assert.strictEqual(server.received.length, 1)
    }))

  it.live("state-only rounds: retries with the state only, no stale inputResponses", () =>
    Effect.gen(function*() {
      const server = fakeServer((_, n) =>
        n === 1
          ? inputRequired({ inputRequests: { q: elicit() }, requestState: "s1" })
          : n === 2
          ? inputRequired({ requestState: "s2" })
          : n === 3
          ? inputRequired({ inputRequests: {}, requestState: "s3" })
          : complete()
      )
      yield* callTool().pipe(Effect.provide(clientLayer(server, fast, acceptAlice)))
      assert.strictEqual(server.received.length, 4)
      assert.deepStrictEqual(mrtrFields(server.received[1]!), {
        inputResponses: { q: { action: "accept", content: { name: "Alice" } } },
        requestState: "s1"
      })
      assert.deepStrictEqual(mrtrFields(server.received[2]!), { inputResponses: undefined, requestState: "s2" })
      assert.deepStrictEqual(mrtrFields(server.received[3]!), { inputResponses: undefined, requestState: "s3" })
      assertValid(server)
    }))

  it.live("a new state each round: always the latest one is echoed", () =>
    Effect.gen(function*() {
      const server = fakeServer((_, n) =>
        n <= 4 ? inputRequired({ requestState: `state-${n}-${"x".repeat(n)}` }) : complete()
      )
      yield* callTool().pipe(Effect.provide(clientLayer(server, fast)))
      assert.strictEqual(server.received.length, 5)
      for (let i = 1; i < 5; i++) {
        assert.strictEqual(server.received[i]!.params.requestState, `state-${i}-${"x".repeat(i)}`)
      }
    }))

  it.live("state-only forever ends at the round cap", () =>
    Effect.gen(function*() {
      const server = fakeServer((_, n) => inputRequired({ requestState: `s${n}` }))
      const error = yield* callTool().pipe(Effect.provide(clientLayer(server, { ...fast, maxRounds: 5 })), Effect.flip)
      assert.strictEqual(error._tag, "MaxRoundsExceeded")
      assert.strictEqual(server.received.length, 5)
    }))

  it.effect("backs off between state-only rounds (default schedule: 100 ms, doubling)", () =>
    Effect.gen(function*() {
      const server = fakeServer((_, n) => n <= 3 ? inputRequired({ requestState: `s${n}` }) : complete())
      const fiber = yield* callTool().pipe(Effect.provide(clientLayer(server)), Effect.forkChild)
      // the call's time bounds race it in fibers of their own: let them all start
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow
      assert.strictEqual(server.received.length, 1)
      yield* TestClock.adjust("99 millis")
      assert.strictEqual(server.received.length, 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(server.received.length, 2)
      yield* TestClock.adjust("199 millis")
      assert.strictEqual(server.received.length, 2)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(server.received.length, 3)
      yield* TestClock.adjust("400 millis")
      yield* Fiber.join(fiber)
      assert.strictEqual(server.received.length, 4)
    }))

  it.live("fulfils the input requests of a round concurrently", () =>
    Effect.gen(function*() {
      // Each handler waits until all three have started: a sequential client would never finish.
      const started = yield* Ref.make(0)
      const allStarted = yield* Deferred.make<void>()
      const arrive = Ref.updateAndGet(started, (n) => n + 1).pipe(
        Effect.flatMap((n) => n === 3 ? Deferred.succeed(allStarted, undefined) : Effect.void),
        Effect.andThen(Deferred.await(allStarted))
      )
      const user = Layer.mergeAll(
        ElicitationHandler.layer({ form: () => arrive.pipe(Effect.as(ElicitationHandler.accept({ name: "A" }))) }),
        SamplingHandler.layer({
          createMessage: () =>
            arrive.pipe(
              Effect.as({ role: "assistant" as const, content: { type: "text" as const, text: "Paris" }, model: "m" })
            )
        }),
        RootsHandler.layer(() => arrive.pipe(Effect.as([{ uri: "file:///w", name: "w" }])))
      )
      const server = fakeServer((_, n) =>
        n === 1 ? inputRequired({ inputRequests: { e: elicit(), s: sample, r: roots }, requestState: "s" }) : complete()
      )
      yield* callTool().pipe(Effect.provide(clientLayer(server, {}, user)), Effect.timeout("5 seconds"))
      assert.deepStrictEqual(server.received[1]!.params.inputResponses, {
        e: { action: "accept", content: { name: "A" } },
        s: { role: "assistant", content: { type: "text", text: "Paris" }, model: "m" },
        r: { roots: [{ uri: "file:///w", name: "w" }] }
      })
      assertValid(server)
    }))

  it.live("onRound reports each round after its answers are gathered and before the retry", () =>
    Effect.gen(function*() {
      const seen: Array<{ readonly round: McpClient.Round; readonly sentBefore: number }> = []
      const server = fakeServer((_, n) =>
        n === 1
          ? inputRequired({ inputRequests: { who: elicit(), r: roots }, requestState: "s1" })
          : n === 2
          ? inputRequired({ requestState: "s2" })
          : complete()
      )
      const user = Layer.merge(acceptAlice, RootsHandler.layerStatic([{ uri: "file:///w" }]))
      const result = yield* callTool({ name: "plan" }, {
        onRound: (round) => Effect.sync(() => seen.push({ round, sentBefore: server.received.length }))
      }).pipe(Effect.provide(clientLayer(server, fast, user)))
      assert.deepStrictEqual(result.content, [{ type: "text", text: "done" }])
      assert.deepStrictEqual(seen, [
        {
          round: {
            round: 1,
            method: "tools/call",
            target: "plan",
            inputRequests: { who: elicit(), r: roots } as McpClient.Round["inputRequests"],
            requestState: "s1",
            inputResponses: {
              who: { action: "accept", content: { name: "Alice" } },
              r: { roots: [{ uri: "file:///w" }] }
            }
          },
          sentBefore: 1
        },
        // a state-only round: nothing asked, nothing answered
        {
          round: { round: 2, method: "tools/call", target: "plan", inputRequests: {}, requestState: "s2" },
          sentBefore: 2
        }
      ])
      // the retries carry exactly what onRound reported
      assert.deepStrictEqual(server.received[1]!.params.inputResponses, seen[0]!.round.inputResponses)
      assert.strictEqual(server.received[2]!.params.requestState, "s2")
    }))

  it.effect("onRound is not called for a complete first result nor when the round cap ends the call", () =>
    Effect.gen(function*() {
      let calls = 0
      const onRound = () => Effect.sync(() => void calls++)
      yield* McpClient.McpClient.use((c) => c.readResource({ uri: "x://y" }, { onRound })).pipe(
        Effect.provide(clientLayer(fakeServer(() => ({ resultType: "complete", contents: [] })), {}))
      )
      assert.strictEqual(calls, 0)
      const server = fakeServer((_, n) =>
        inputRequired({ inputRequests: { [`q${n}`]: elicit() }, requestState: `s${n}` })
      )
      const error = yield* callTool({ name: "t" }, { onRound, maxRounds: 2 }).pipe(
        Effect.provide(clientLayer(server, {}, acceptAlice)),
        Effect.flip
      )
      assert.strictEqual(error._tag, "MaxRoundsExceeded")
      assert.strictEqual(calls, 1)
    }))

  it.effect("a failing handler fails the call with InputHandlerError", () =>
    Effect.gen(function*() {
      const failing = SamplingHandler.layer({
        createMessage: (_, ctx) =>
          Effect.fail(new Errors.InputHandlerError({ kind: "sampling", key: ctx.key, reason: "model offline" }))
      })
      const server = fakeServer(() => inputRequired({ inputRequests: { s: sample } }))
      const error = yield* callTool().pipe(Effect.provide(clientLayer(server, {}, failing)), Effect.flip)
      assert.strictEqual(error._tag, "InputHandlerError")
      assert.strictEqual(server.received.length, 1)
    }))

  it.effect("requestTimeout and callTimeout follow the Clock in use (TestClock): no answer, no answer from the user", () =>
    Effect.gen(function*() {
      const silent: MemoryTransport.Handler = { handle: () => Effect.never }
      const waiting = yield* callTool().pipe(
        Effect.provide(
          McpClient.layer({ protocol: "2026-07-28", requestTimeout: "2 seconds" }).pipe(
            Layer.provide(MemoryTransport.layer(silent))
          )
        ),
        Effect.flip,
        Effect.forkChild
      )
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow
      yield* TestClock.adjust("1999 millis")
      assert.isUndefined(waiting.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const noAnswer = yield* Fiber.join(waiting)
      assert.instanceOf(noAnswer, Errors.RequestTimeout)
      if (noAnswer instanceof Errors.RequestTimeout) assert.strictEqual(noAnswer.bound, "request")

      const server = fakeServer(() => inputRequired({ inputRequests: { q: elicit() }, requestState: "s" }))
      const nobody = ElicitationHandler.layer({ form: () => Effect.never })
      const asking = yield* callTool({ name: "t" }, { callTimeout: "5 seconds" }).pipe(
        Effect.provide(clientLayer(server, {}, nobody)),
        Effect.flip,
        Effect.forkChild
      )
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow
      yield* TestClock.adjust("4999 millis")
      assert.isUndefined(asking.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const noUser = yield* Fiber.join(asking)
      assert.instanceOf(noUser, Errors.RequestTimeout)
      if (noUser instanceof Errors.RequestTimeout) assert.strictEqual(noUser.bound, "call")
      assert.strictEqual(server.received.length, 1)
    }))
})

describe("input-request keys named like Object.prototype members", () => {
  const oddRequests = () =>
    JSON.parse(
      `{"__proto__":${JSON.stringify(elicit("p?"))},"constructor":${JSON.stringify(elicit("c?"))},` +
        `"toString":${JSON.stringify(elicit("t?"))}}`
    )

  it.effect("InputRequiredError keeps every key", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => inputRequired({ inputRequests: oddRequests(), requestState: "s" }))
      const error = yield* Effect.flip(callTool().pipe(Effect.provide(clientLayer(server))))
      assert.instanceOf(error, Errors.InputRequiredError)
      if (!(error instanceof Errors.InputRequiredError)) return
      assert.sameMembers(Object.keys(error.inputRequests), ["__proto__", "constructor", "toString"])
      assert.isTrue(Object.hasOwn(error.inputRequests, "__proto__"))
      assert.strictEqual((error.inputRequests as any).toString.params.message, "t?")
      assertValid(server)
    }))

  it.effect("the automatic loop answers every key, and the retry carries them as own keys", () =>
    Effect.gen(function*() {
      const server = fakeServer((_, n) =>
        n === 1 ? inputRequired({ inputRequests: oddRequests(), requestState: "s" }) : complete("ok")
      )
      const answered = ElicitationHandler.layer({
        form: (params) => Effect.succeed(ElicitationHandler.accept({ name: params.message }))
      })
      yield* callTool().pipe(Effect.provide(clientLayer(server, {}, answered)))
      const retry = server.received[1]!
      assert.sameMembers(Object.keys(retry.params.inputResponses), ["__proto__", "constructor", "toString"])
      assert.deepStrictEqual(retry.params.inputResponses.constructor, { action: "accept", content: { name: "c?" } })
      assertValid(server)
    }))
})
