/**
 * The in-memory harness and the scripted user against a real `@mrtr/server`
 * server: multi-round tools, prompts and resources, answers by key and by
 * predicate, decline / cancel, recorders, capability derivation, manual
 * mode, simulated HTTP headers, and what goes over the wire (every request
 * validated against the official JSON Schema, no stale MRTR fields).
 * Source: MCP 2026-07-28, basic/patterns/mrtr.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { Elicitation, RequestState } from "@mrtr/core"
import { METHOD_HEADER, NAME_HEADER, PROTOCOL_VERSION_HEADER } from "@mrtr/protocol/Headers"
import { MetaKey, PROTOCOL_VERSION } from "@mrtr/protocol/Meta"
import { McpServer, Tool } from "@mrtr/server"
import { server } from "@mrtr/test-support/fixtures"
import { validateWire } from "@mrtr/test-support/wire"
import { Effect, Layer, Ref, Schema } from "effect"
import { Harness, Recorder, ScriptedUser } from "../src/index.ts"

const client = McpClient.McpClient
const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

const requestDefs: Record<string, string> = {
  "tools/call": "CallToolRequest",
  "prompts/get": "GetPromptRequest",
  "resources/read": "ReadResourceRequest",
  "tools/list": "ListToolsRequest"
}

/** Every request on the wire is a valid 2026-07-28 request of its method. */
const assertWireValid = Effect.gen(function*() {
  for (const request of yield* Harness.requests) validateWire(requestDefs[request.method]!, request)
})

const fullUser = ScriptedUser.layer({
  elicitation: {
    byKey: { who: ScriptedUser.accept({ name: "Alice" }) },
    when: [[(params) => params.message.startsWith("Book"), ScriptedUser.accept({ ok: true })]]
  },
  sampling: { otherwise: (params) => ScriptedUser.text(`visit the old town (${params.maxTokens} tokens)`) },
  roots: [{ uri: "file:///home/alice", name: "home" }, { uri: "file:///tmp" }]
})

describe("Harness + ScriptedUser", () => {
  it.layer(Harness.layer({ server, user: fullUser }))("a fully scripted user", (it) => {
    it.effect("drives a three-round tool to completion and records every question", () =>
      Effect.gen(function*() {
        yield* Recorder.clear
        const result = yield* client.use((c) => c.callTool({ name: "plan", arguments: { city: "Porto" } }))
        assert.strictEqual(textOf(result), "Alice: visit the old town (50 tokens) (2 roots) booked")
        const questions = yield* Recorder.questions
        assert.deepStrictEqual(
          questions.map((q) => [q.round, q.kind, q.key]).sort(),
          [[1, "elicitation", "who"], [2, "roots", "roots"], [2, "sampling", "idea"], [3, "elicitation", "confirm"]]
        )
        const confirm = questions.find((q) => q.key === "confirm")!
        assert.strictEqual(confirm.method, "tools/call")
        assert.strictEqual(confirm.target, "plan")
        assert.deepStrictEqual(confirm.answer, { action: "accept", content: { ok: true } })
        assert.strictEqual(confirm.request.method, "elicitation/create")
        yield* assertWireValid
      }))

    it.effect("sends fresh MRTR fields every round: nothing stale, new ids, state echoed", () =>
      Effect.gen(function*() {
        const wire = yield* Harness.Wire
        yield* wire.clear
        yield* client.use((c) => c.callTool({ name: "plan", arguments: { city: "Faro" } }))
        const requests = yield* Harness.requests
        const replies = (yield* wire.entries).filter((e) => e.direction === "reply").map((e) => e.message as any)
        assert.strictEqual(requests.length, 4)
        assert.strictEqual(new Set(requests.map((r) => r.id)).size, 4)
        assert.isFalse("inputResponses" in requests[0]!.params)
        assert.isFalse("requestState" in requests[0]!.params)
        const keysOf = (i: number) => Object.keys(requests[i]!.params.inputResponses).sort()
        assert.deepStrictEqual(keysOf(1), ["who"])
        assert.deepStrictEqual(keysOf(2), ["idea", "roots"])
        assert.deepStrictEqual(keysOf(3), ["confirm"])
        for (let i = 1; i < 4; i++) {
          assert.strictEqual(requests[i]!.params.requestState, replies[i - 1].result.requestState)
          assert.deepStrictEqual(requests[i]!.params.arguments, { city: "Faro" })
        }
        assert.strictEqual(replies[3].result.resultType, "complete")
      }))

    it.effect("declares exactly the scripted capabilities", () =>
      Effect.gen(function*() {
        const caps = yield* client.use((c) => c.clientCapabilities)
        assert.deepStrictEqual(caps, { roots: {}, sampling: {}, elicitation: { form: {} } })
        const wire = yield* Harness.Wire
        yield* wire.clear
        yield* client.use((c) => c.listTools())
        const [request] = yield* Harness.requests
        assert.deepStrictEqual(request!.params._meta[MetaKey.clientCapabilities], caps)
      }))

    it.effect("prompts and resources run the loop as well", () =>
      Effect.gen(function*() {
        const prompt = yield* client.use((c) => c.getPrompt({ name: "topic", arguments: { subject: "cats" } })).pipe(
          Effect.provide(ScriptedUser.layer({ elicitation: { byKey: { name: ScriptedUser.accept({ name: "Bo" }) } } }))
        )
        assert.deepStrictEqual((prompt.messages[0]!.content as any).text, "Write about cats for Bo")
        const resource = yield* client.use((c) => c.readResource({ uri: "test://files/a/b.txt" }))
        assert.deepStrictEqual((resource.contents[0] as any).text, "a/b.txt under file:///home/alice,file:///tmp")
        yield* assertWireValid
      }))
  })

  it.effect("decline and cancel reach the tool as typed failures it can handle", () =>
    Effect.gen(function*() {
      const run = (answer: ScriptedUser.Answer<any, any>) =>
        client.use((c) => c.callTool({ name: "plan", arguments: { city: "Lyon" } })).pipe(
          Effect.map(textOf),
          Effect.provide(Harness.layer({
            server,
            user: ScriptedUser.layer({
              elicitation: { byKey: { who: ScriptedUser.accept({ name: "Al" }), confirm: answer } },
              sampling: { otherwise: ScriptedUser.text("x") },
              roots: []
            })
          }))
        )
      assert.strictEqual(yield* run(ScriptedUser.decline), "Al: x (0 roots) declined")
      assert.strictEqual(yield* run(ScriptedUser.cancel), "Al: x (0 roots) cancelled")
    }))

  it.effect("a question without a scripted answer fails the call with InputHandlerError and is recorded", () =>
    Effect.gen(function*() {
      const [error, questions] = yield* Effect.gen(function*() {
        const error = yield* Effect.flip(
          client.use((c) => c.callTool({ name: "greet", arguments: { greeting: "Hi" } }))
        )
        return [error, yield* Recorder.questions] as const
      }).pipe(Effect.provide(Harness.layer({ server, user: ScriptedUser.layer({ elicitation: {} }) })))
      assert.strictEqual(error._tag, "InputHandlerError")
      assert.strictEqual(questions.length, 1)
      assert.strictEqual(questions[0]!.answer, undefined)
    }))

  it.effect("function answers see the question and its context", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const result = yield* client.use((c) => c.callTool({ name: "greet", arguments: { greeting: "Yo" } })).pipe(
        Effect.provide(Harness.layer({
          server,
          user: ScriptedUser.layer({
            elicitation: {
              otherwise: (params, context) =>
                Ref.update(seen, (all) => [...all, `${context.target}/${context.key}: ${params.message}`]).pipe(
                  Effect.as(ScriptedUser.accept({ name: "Eve" }))
                )
            }
          })
        }))
      )
      assert.strictEqual(textOf(result), "Yo, Eve!")
      assert.deepStrictEqual(yield* Ref.get(seen), ["greet/name: Your name?"])
    }))

  it.effect("URL mode is answered only when the script declares it", () =>
    Effect.gen(function*() {
      const call = client.use((c) => c.callTool({ name: "sign_in" }))
      const formOnly = yield* call.pipe(
        Effect.provide(
          Harness.layer({ server, user: ScriptedUser.layer({ elicitation: { otherwise: ScriptedUser.accept() } }) })
        ),
        Effect.flip
      )
      // The server does not even ask: the client did not declare elicitation.url.
      assert.strictEqual(formOnly._tag, "McpError")
      if (formOnly._tag === "McpError") assert.strictEqual(formOnly.code, -32021)
      const withUrl = yield* call.pipe(
        Effect.provide(Harness.layer({
          server,
          user: ScriptedUser.layer({ elicitation: { modes: ["form", "url"], byKey: { auth: ScriptedUser.accept() } } })
        }))
      )
      assert.strictEqual(textOf(withUrl), "signed in")
    }))

  it.effect("without input handlers nothing is declared and the server refuses to ask (-32021)", () =>
    Effect.gen(function*() {
      const error = yield* client.use((c) => c.callTool({ name: "greet", arguments: { greeting: "Hi" } })).pipe(
        Effect.provide(Harness.layer({ server })),
        Effect.flip
      )
      assert.strictEqual(error._tag, "McpError")
      if (error._tag === "McpError") {
        assert.strictEqual(error.code, -32021)
        assert.deepStrictEqual(error.data, { requiredCapabilities: { elicitation: {} } })
      }
    }))

  it.layer(Harness.layer({ server, client: { capabilities: { elicitation: {} } } }))("manual mode", (it) => {
    it.effect("a declared capability without a handler hands the question to the caller, who retries", () =>
      Effect.gen(function*() {
        const c = yield* client
        assert.deepStrictEqual(yield* c.clientCapabilities, { elicitation: {} })
        const pending = yield* Effect.flip(c.callTool({ name: "greet", arguments: { greeting: "Hi" } }))
        assert.strictEqual(pending._tag, "InputRequiredError")
        if (pending._tag !== "InputRequiredError") return
        assert.deepStrictEqual(Object.keys(pending.inputRequests), ["name"])
        assert.isString(pending.requestState)
        const result = yield* c.callTool({
          name: "greet",
          arguments: { greeting: "Hi" },
          inputResponses: { name: ScriptedUser.accept({ name: "Zed" }) },
          ...(pending.requestState === undefined ? {} : { requestState: pending.requestState })
        })
        assert.strictEqual(textOf(result), "Hi, Zed!")
        yield* assertWireValid
      }))
  })

  it.layer(Harness.layer({ server, simulateHttp: true, user: fullUser }))(
    "with HTTP headers checked by the server",
    (it) => {
      it.effect("mirrors x-mcp-header arguments into Mcp-Param headers the server validates", () =>
        Effect.gen(function*() {
          const wire = yield* Harness.Wire
          yield* wire.clear
          const result = yield* client.use((c) =>
            c.callTool({ name: "regional", arguments: { region: "eu wést", query: "q" } })
          )
          assert.strictEqual(textOf(result), "q in eu wést")
          // tools/list first (to learn the annotations), then the call with its headers
          const sent = (yield* Harness.entries).filter((e) => e.direction === "request")
          assert.deepStrictEqual(sent.map((e) => (e.message as any).method), ["tools/list", "tools/call"])
          assert.deepStrictEqual(sent[1]!.headers, {
            [PROTOCOL_VERSION_HEADER]: PROTOCOL_VERSION,
            [METHOD_HEADER]: "tools/call",
            [NAME_HEADER]: "regional",
            "Mcp-Param-Region": `=?base64?${Buffer.from("eu wést").toString("base64")}?=`
          })
          const tool = yield* client.use((c) => c.tool("regional"))
          assert.strictEqual(tool._tag, "Some")
          const multi = yield* client.use((c) => c.callTool({ name: "plan", arguments: { city: "Köln" } }))
          assert.include(textOf(multi), "Alice")
        }))
    }
  )
})

describe("keys named like Object.prototype members, end to end", () => {
  const oddKeys = Tool.make("odd_keys", {
    handler: () =>
      Effect.map(
        Effect.all(
          ["__proto__", "constructor", "toString"].map((key) =>
            Elicitation.form({ key, message: `Value of ${key}?`, schema: Schema.Struct({ v: Schema.String }) })
          ),
          { concurrency: "unbounded" }
        ),
        (answers) => answers.map((a) => a.v).join(",")
      )
  })
  const oddServer = McpServer.tools(oddKeys).pipe(
    Layer.provideMerge(McpServer.layer({
      name: "odd",
      version: "1",
      requestState: { keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(1) }]) }
    })),
    Layer.orDie
  )
  const oddUser = ScriptedUser.layer({
    elicitation: {
      byKey: Object.fromEntries([
        ["__proto__", ScriptedUser.accept({ v: "p" })],
        ["constructor", ScriptedUser.accept({ v: "c" })],
        ["toString", ScriptedUser.accept({ v: "t" })]
      ])
    }
  })

  it.effect("the server asks, the client answers by key, the call completes in two rounds", () =>
    Effect.gen(function*() {
      const result = yield* client.use((c) => c.callTool({ name: "odd_keys" }))
      assert.strictEqual(textOf(result), "p,c,t")
      const requests = yield* Harness.requests
      assert.strictEqual(requests.length, 2)
      assert.sameMembers(Object.keys(requests[1]!.params.inputResponses), ["__proto__", "constructor", "toString"])
      yield* assertWireValid
    }).pipe(Effect.provide(Harness.layer({ server: oddServer, user: oddUser }))))
})

describe("a scripted answer the server refuses", () => {
  const book = Tool.make("book", {
    handler: () =>
      Elicitation.form({
        key: "seats",
        message: "How many seats?",
        schema: Schema.Struct({
          seats: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 4 })).annotate({ title: "Seats" })
        })
      }).pipe(Effect.map(({ seats }) => `booked ${seats}`))
  })
  const bookingServer = McpServer.tools(book).pipe(
    Layer.provideMerge(McpServer.layer({
      name: "booking",
      version: "1.0.0",
      requestState: RequestState.RequestStateCodec.layer({
        keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(6) }])
      }).pipe(Layer.orDie)
    })),
    Layer.orDie
  )

  it.layer(Harness.layer({
    server: bookingServer,
    user: ScriptedUser.layer({ elicitation: { byKey: { seats: ScriptedUser.accept({ seats: 9 }) } } }),
    client: { maxRounds: 10 }
  }))("the same answer again", (it) => {
    it.effect("fails at once with AnswerRefused naming the key, the answer and the server's reason", () =>
      Effect.gen(function*() {
        const error = yield* client.use((c) => c.callTool({ name: "book" })).pipe(Effect.flip)
        assert.strictEqual(error._tag, "InputHandlerError")
        const cause = (error as { readonly cause?: unknown }).cause
        assert.instanceOf(cause, ScriptedUser.AnswerRefused)
        const refused = cause as ScriptedUser.AnswerRefused
        assert.strictEqual(refused.key, "seats")
        assert.deepStrictEqual(refused.answer, { action: "accept", content: { seats: 9 } })
        assert.strictEqual(refused.reason, "\"Seats\" must be at most 4.")
        assert.include(error.message, "\"Seats\" must be at most 4.")
        assert.include(error.message, "'seats'")
        // the refused answer went over the wire once: two requests, not the round cap
        assert.strictEqual((yield* Harness.requests).filter((r) => r.method === "tools/call").length, 2)
        yield* assertWireValid
      }))
  })

  it.layer(Harness.layer({
    server: bookingServer,
    user: ScriptedUser.layer({
      elicitation: {
        byKey: { seats: (params) => ScriptedUser.accept({ seats: params.message.startsWith("Your answer") ? 3 : 9 }) }
      }
    })
  }))("a different answer after the refusal", (it) => {
    it.effect("goes on", () =>
      Effect.gen(function*() {
        const result = yield* client.use((c) => c.callTool({ name: "book" }))
        assert.strictEqual(textOf(result), "booked 3")
      }))
  })
})
