/**
 * Hostile and unlucky input at the MRTR methods (unrepresentable numbers, lone
 * surrogates, expired and reused states, odd keys, a refused answer): every reply is the spec's
 * answer, validated against the official JSON Schema, never -32603 for
 * something the client sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Elicitation, InvalidElicitationSchema, InvalidOption, RequestState } from "@mrtr/core"
import { mcpHeaders, mcpPost } from "@mrtr/test-support/http"
import { validateWire } from "@mrtr/test-support/wire"
import { Cause, ConfigProvider, Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import {
  HttpStatus,
  HttpTransport,
  InteractionPage,
  McpServer,
  NotificationBus,
  Prompt,
  Resource,
  SessionDirectory,
  TaskStore,
  Tool,
  type Transport
} from "../src/index.ts"
import { request } from "./fixtures.ts"

const handle = (message: unknown) => McpServer.McpServer.use((server) => server.handle({ message }))

const reply = (r: Transport.Reply) => {
  assert.strictEqual(r._tag, "Response")
  if (r._tag !== "Response") throw new Error("unreachable")
  return r
}
const ok = (r: Transport.Reply) => {
  const res = reply(r)
  assert.isUndefined(res.message.error)
  assert.strictEqual(res.httpStatus, 200)
  return res.message.result as Record<string, any>
}
/**
 * A JSON-RPC error reply with `code`, found while running the method (these tests send valid envelopes), sent with
 * the status the transport's table (`HttpStatus`) gives it.
 */
const failed = (r: Transport.Reply, code: number) => {
  const res = reply(r)
  validateWire("JSONRPCErrorResponse", res.message)
  assert.containSubset(res.message.error, { code })
  assert.strictEqual(res.httpStatus, HttpStatus.ofError(code, "method"))
  return res.message.error as { code: number; message: string }
}

/** The client's fault: -32602, never a server error status. */
const invalidParams = (r: Transport.Reply) => {
  const error = failed(r, -32602)
  assert.isBelow(HttpStatus.ofError(-32602, "method"), 500)
  return error
}

const echo = Tool.make("echo", {
  parameters: Schema.Struct({ x: Schema.optionalKey(Schema.Unknown) }),
  handler: () =>
    Effect.map(
      Elicitation.form({ key: "ok", message: "Go on?", schema: Schema.Struct({ ok: Schema.Boolean }) }),
      ({ ok }) => `ok=${ok}`
    )
})

const quote = Tool.make("quote", {
  handler: () =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({
        key: "name",
        message: "Your name?",
        schema: Schema.Struct({ name: Schema.String })
      })
      const { sure } = yield* Elicitation.form({
        key: "sure",
        message: `Really "${name}"?`,
        schema: Schema.Struct({ sure: Schema.Boolean })
      })
      return `${name} ${sure}`
    })
})

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

const signUp = Tool.make("sign_up", {
  handler: () =>
    Effect.map(
      Elicitation.form({
        key: "who",
        message: "Who are you?",
        schema: Schema.Struct({
          email: Schema.String.annotate({ format: "email" }),
          age: Schema.Number.check(Schema.isBetween({ minimum: 18, maximum: 120 }))
        })
      }),
      ({ age, email }) => `${email} (${age})`
    )
})

const keyRing = RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(5) }])
const server = (requestState: RequestState.RequestStateCodecOptions<any> = { keyRing }) =>
  Layer.fresh(
    McpServer.tools(echo, quote, oddKeys, signUp).pipe(
      Layer.provideMerge(McpServer.layer({ name: "hardening", version: "1", requestState })),
      Layer.orDie
    )
  )

const call = (name: string, params: Record<string, unknown> = {}) => request("tools/call", { name, ...params })

describe("arguments canonical JSON cannot represent", () => {
  it.effect("a state issued for {x: null} is not accepted for {x: 1e400}, whatever the digest cache holds", () =>
    Effect.gen(function*() {
      const first = ok(yield* handle(call("echo", { arguments: { x: null } })))
      validateWire("InputRequiredResult", first)
      const inputResponses = { ok: { action: "accept", content: { ok: true } } }
      // the retry as a client sends it: JSON text, 1e400 parses to Infinity
      const forged = JSON.parse(
        JSON.stringify(call("echo", { arguments: { x: null }, inputResponses, requestState: first.requestState }))
          .replace("\"arguments\":{\"x\":null}", "\"arguments\":{\"x\":1e400}")
      )
      assert.strictEqual(forged.params.arguments.x, Infinity)
      const error = invalidParams(yield* handle(forged))
      assert.include(error.message, "arguments/x")
      assert.include(error.message, "Infinity")
      // the honest retry still completes
      assert.strictEqual(
        ok(yield* handle(call("echo", { arguments: { x: null }, inputResponses, requestState: first.requestState })))
          .content[0].text,
        "ok=true"
      )
    }).pipe(Effect.provide(server())))

  it.effect("-1e400 and lone surrogates as values or keys are -32602 with a clear message, never -32603", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["{\"x\":-1e400}", "-Infinity"],
        ["{\"x\":\"\\ud800\"}", "lone surrogate"],
        ["{\"\\ud800\":1}", "lone surrogate"],
        ["{\"x\":[1,{\"y\":\"a\\udc00b\"}]}", "arguments/x/1/y"]
      ]
      for (const [text, words] of cases) {
        const message = JSON.parse(JSON.stringify(call("echo", { arguments: "ARGS" })).replace("\"ARGS\"", text))
        for (let i = 0; i < 2; i++) {
          // twice: the same answer whether or not anything was cached
          const error = invalidParams(yield* handle({ ...message, id: `${text}-${i}` }))
          assert.include(error.message, words, text)
        }
      }
    }).pipe(Effect.provide(server())))
})

describe("an answer holding a lone surrogate", () => {
  it.effect("is refused and asked again with the reason; the next round never answers 500", () =>
    Effect.gen(function*() {
      const first = ok(yield* handle(call("quote")))
      const bad = JSON.parse(
        JSON.stringify(call("quote", { inputResponses: { name: "ANSWER" }, requestState: first.requestState }))
          .replace("\"ANSWER\"", "{\"action\":\"accept\",\"content\":{\"name\":\"A\\ud800B\"}}")
      )
      const again = ok(yield* handle(bad))
      validateWire("InputRequiredResult", again)
      assert.deepStrictEqual(Object.keys(again.inputRequests), ["name"])
      assert.include(again.inputRequests.name.params.message, "\"name\" holds text that is not valid Unicode")
      const good = ok(
        yield* handle(call("quote", {
          inputResponses: { name: { action: "accept", content: { name: "A\ud83d\ude00B" } } },
          requestState: again.requestState
        }))
      )
      assert.strictEqual(good.inputRequests.sure.params.message, "Really \"A\ud83d\ude00B\"?")
    }).pipe(Effect.provide(server())))
})

describe("__proto__, constructor and toString as input-request keys", () => {
  it.effect("are asked, answered and completed like any other key", () =>
    Effect.gen(function*() {
      const first = ok(yield* handle(call("odd_keys")))
      validateWire("InputRequiredResult", first)
      assert.deepStrictEqual(Object.keys(first.inputRequests).sort(), ["__proto__", "constructor", "toString"])
      assert.isTrue(Object.hasOwn(first.inputRequests, "__proto__"))
      const wire = `{"__proto__":{"action":"accept","content":{"v":"p"}},` +
        `"constructor":{"action":"accept","content":{"v":"c"}},"toString":{"action":"accept","content":{"v":"t"}}}`
      const retry = JSON.parse(
        JSON.stringify(call("odd_keys", { inputResponses: "ANSWERS", requestState: first.requestState }))
          .replace("\"ANSWERS\"", wire)
      )
      const done = ok(yield* handle(retry))
      assert.strictEqual(done.resultType, "complete")
      assert.strictEqual(done.content[0].text, "p,c,t")
    }).pipe(Effect.provide(server())))
})

describe("a refused form answer is asked again with the reason", () => {
  it.effect("the reason names the field and the rule; it is not part of the digest, so the next answer is taken", () =>
    Effect.gen(function*() {
      const first = ok(yield* handle(call("sign_up")))
      const asked = first.inputRequests.who.params
      assert.strictEqual(asked.message, "Who are you?")
      assert.deepStrictEqual(asked.requestedSchema.properties.age, { type: "number", minimum: 18, maximum: 120 })
      const second = ok(
        yield* handle(call("sign_up", {
          inputResponses: { who: { action: "accept", content: { email: "not-an-email", age: 2 } } },
          requestState: first.requestState
        }))
      )
      validateWire("InputRequiredResult", second)
      const reasked = second.inputRequests.who.params
      assert.strictEqual(
        reasked.message,
        "Your answer was not accepted: \"email\" must be an email address (such as name@example.com); " +
          "\"age\" must be at least 18. Please answer again.\n\nWho are you?"
      )
      assert.deepStrictEqual(reasked.requestedSchema, asked.requestedSchema)
      // the next answer is accepted on replay: no ask-forever loop
      const third = ok(
        yield* handle(call("sign_up", {
          inputResponses: { who: { action: "accept", content: { email: "ada@example.org", age: 36 } } },
          requestState: second.requestState
        }))
      )
      assert.strictEqual(third.resultType, "complete")
      assert.strictEqual(third.content[0].text, "ada@example.org (36)")
    }).pipe(Effect.provide(server())))
})

describe("requestState expiry and single use through McpServer.layer", () => {
  const answer = { who: { action: "accept", content: { email: "ada@example.org", age: 36 } } }
  const configured = (env: Record<string, string>) =>
    Layer.fresh(
      McpServer.tools(signUp).pipe(
        Layer.provideMerge(McpServer.layerConfig({ name: "hardening", version: "1" })),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))),
        Layer.orDie
      )
    )

  it.effect("McpServer.layerConfig honours MRTR_REQUEST_STATE_TTL and MRTR_SINGLE_USE", () =>
    Effect.gen(function*() {
      const a = ok(yield* handle(call("sign_up")))
      const b = ok(yield* handle(call("sign_up")))
      yield* TestClock.adjust("1900 millis")
      assert.strictEqual(
        ok(yield* handle(call("sign_up", { inputResponses: answer, requestState: a.requestState }))).resultType,
        "complete"
      )
      assert.strictEqual(
        invalidParams(yield* handle(call("sign_up", { inputResponses: answer, requestState: a.requestState })))
          .message,
        "Invalid requestState"
      )
      yield* TestClock.adjust("400 millis")
      assert.strictEqual(
        invalidParams(yield* handle(call("sign_up", { inputResponses: answer, requestState: b.requestState })))
          .message,
        "Invalid requestState"
      )
    }).pipe(Effect.provide(configured({ MRTR_REQUEST_STATE_TTL: "2 seconds", MRTR_SINGLE_USE: "true" }))))

  it.effect("McpServer.layer reads nothing from the environment: ten minutes, not single use", () =>
    Effect.gen(function*() {
      const a = ok(yield* handle(call("sign_up")))
      yield* TestClock.adjust("9 minutes")
      for (let i = 0; i < 2; i++) {
        assert.strictEqual(
          ok(yield* handle(call("sign_up", { inputResponses: answer, requestState: a.requestState }))).resultType,
          "complete"
        )
      }
    }).pipe(
      Effect.provide(
        server().pipe(
          Layer.provide(
            ConfigProvider.layer(
              ConfigProvider.fromUnknown({ MRTR_REQUEST_STATE_TTL: "2 seconds", MRTR_SINGLE_USE: "true" })
            )
          )
        )
      )
    ))

  it.effect("a full replay guard is its own error, not the tampering answer", () =>
    Effect.gen(function*() {
      const a = ok(yield* handle(call("sign_up")))
      const b = ok(yield* handle(call("sign_up")))
      assert.strictEqual(
        ok(yield* handle(call("sign_up", { inputResponses: answer, requestState: a.requestState }))).resultType,
        "complete"
      )
      const error = failed(
        yield* handle(call("sign_up", { inputResponses: answer, requestState: b.requestState })),
        -32603
      )
      assert.notStrictEqual(error.message, "Invalid requestState")
      assert.include(error.message, "replay guard")
    }).pipe(
      Effect.provide(
        Layer.fresh(
          McpServer.tools(signUp).pipe(
            Layer.provideMerge(McpServer.layer({
              name: "hardening",
              version: "1",
              requestState: { keyRing, singleUse: true },
              shared: Layer.mergeAll(
                Layer.effect(RequestState.ReplayGuard, RequestState.ReplayGuard.makeMemory({ maxEntries: 1 })),
                TaskStore.layerMemory(),
                NotificationBus.NotificationBus.local,
                SessionDirectory.SessionDirectory.local
              )
            })),
            Layer.orDie
          )
        )
      )
    ))
})

describe("bad options fail the layer with InvalidOption naming the option and the value", () => {
  const cases: ReadonlyArray<readonly [Partial<McpServer.LayerOptions<any>>, string]> = [
    [{ name: "" }, `McpServer.layer: option name must be a non-empty string, got ""`],
    [{ maxRounds: 0 }, "McpServer.layer: option maxRounds must be a positive integer, got 0"],
    [{ maxJournalBytes: 1.5 }, "McpServer.layer: option maxJournalBytes must be a positive integer, got 1.5"],
    [
      { cache: { ttlMs: -1, cacheScope: "public" } },
      "McpServer.layer: option cache.ttlMs must be a finite number ≥ 0, got -1"
    ],
    [
      { cache: { ttlMs: 0, cacheScope: "shared" as any } },
      `McpServer.layer: option cache.cacheScope must be "public" or "private", got "shared"`
    ],
    [{ tasks: { leaseMs: Number.NaN } }, "McpServer.layer: option tasks.leaseMs must be a finite number > 0, got NaN"],
    [{ legacy: { maxSessions: -3 } }, "McpServer.layer: option legacy.maxSessions must be a positive integer, got -3"],
    [
      { legacy: { maxSessionsPerPrincipal: 0 } },
      "McpServer.layer: option legacy.maxSessionsPerPrincipal must be a positive integer, got 0"
    ],
    [
      { legacy: { sessionIdleTimeout: "forever" as any } },
      `McpServer.layer: option legacy.sessionIdleTimeout must be a finite, positive duration, got "forever"`
    ],
    [
      { legacy: { inputTimeout: "0 seconds" } },
      `McpServer.layer: option legacy.inputTimeout must be a finite, positive duration, got "0 seconds"`
    ],
    [
      { requestState: { keyRing, ttl: "-1 seconds" } },
      `RequestStateCodec: option ttl must be a finite, positive duration, got "-1 seconds"`
    ]
  ]
  for (const [options, message] of cases) {
    it.effect(message, () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(Layer.build(McpServer.layer({ name: "bad", version: "1", ...options })))
        assert.strictEqual(exit._tag, "Failure")
        if (exit._tag !== "Failure") return
        const error = Cause.findErrorOption(exit.cause)
        assert.strictEqual(error._tag, "Some")
        if (error._tag !== "Some") return
        assert.instanceOf(error.value, InvalidOption)
        assert.strictEqual((error.value as InvalidOption).message, message)
      }).pipe(Effect.scoped))
  }

  it.effect("InteractionPage.layer: a path or publicBaseUrl it cannot use", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [InteractionPage.Options, string]> = [
        [{ path: "pages" as any }, `InteractionPage.layer: option path must be a path starting with "/", got "pages"`],
        [
          { publicBaseUrl: "mcp.example.com" },
          `InteractionPage.layer: option publicBaseUrl must be an absolute http: or https: URL, got "mcp.example.com"`
        ],
        [
          { publicBaseUrl: "https://mcp.example.com/?x=1" },
          `InteractionPage.layer: option publicBaseUrl must be a URL without query or fragment, got "https://mcp.example.com/?x=1"`
        ]
      ]
      for (const [options, message] of cases) {
        const error = yield* Effect.flip(Layer.build(InteractionPage.layer(options)))
        assert.instanceOf(error, InvalidOption)
        assert.strictEqual(error.message, message)
      }
    }).pipe(Effect.scoped))
})

describe("a form schema the spec does not allow is refused when defined", () => {
  const Nested = Schema.Struct({ street: Schema.Struct({ line: Schema.String }), city: Schema.String })
  const thrown = (define: () => unknown): Error => {
    try {
      define()
    } catch (error) {
      return error as Error
    }
    throw new Error("the definition was accepted")
  }

  it("Tool.make, Prompt.make, Resource.make and Resource.template name the owner, the form and the field", () => {
    const cases: ReadonlyArray<readonly [() => unknown, string]> = [
      [() => Tool.make("book", { forms: { address: Nested }, handler: () => Effect.succeed("x") }), "tool \"book\""],
      [
        () => Prompt.make("plan", { forms: { address: Nested }, handler: () => Effect.succeed("x") }),
        "prompt \"plan\""
      ],
      [
        () => Resource.make({ name: "r", uri: "test://r", forms: { address: Nested }, handler: Effect.succeed("x") }),
        "resource \"test://r\""
      ],
      [
        () =>
          Resource.template({
            name: "t",
            uriTemplate: "test://t/{id}",
            forms: { address: Nested },
            handler: () => Effect.succeed("x")
          }),
        "resource template \"test://t/{id}\""
      ]
    ]
    for (const [define, owner] of cases) {
      const error = thrown(define)
      assert.instanceOf(error, InvalidElicitationSchema)
      assert.include(error.message, "at \"street\"")
      assert.include(error.message, `${owner}, form "address"`)
    }
    // a valid form is accepted
    assert.strictEqual(
      Tool.make("fine", { forms: { who: Schema.Struct({ name: Schema.String }) }, handler: () => Effect.succeed("x") })
        .name,
      "fine"
    )
  })

  it("Elicitation.formSchema names the form and the field", () => {
    const error = thrown(() => Elicitation.formSchema(Nested, "address"))
    assert.include(error.message, "at \"street\"")
    assert.include(error.message, "form \"address\"")
  })
})

describe("unrepresentable arguments and lone surrogates over Streamable HTTP on 127.0.0.1", () => {
  /** Posts `text` as it is (arguments no JSON encoder writes), with the headers of a call of the tool `name`. */
  const post = (url: string, text: string, name: string) => mcpPost(url, text, mcpHeaders(call(name)))

  it.live("no argument or answer text makes a round answer a 5xx", () =>
    Effect.gen(function*() {
      const url = yield* HttpTransport.url
      const raw = (name: string, params?: string) =>
        params === undefined
          ? JSON.stringify(call(name))
          : JSON.stringify(call(name)).replace(`"name":"${name}"`, `"name":"${name}",${params}`)
      for (const args of ["{\"x\":1e400}", "{\"x\":-1e400}", "{\"x\":\"\\ud800\"}", "{\"\\udfff\":true}"]) {
        const reply = yield* post(url, raw("echo", `"arguments":${args}`), "echo")
        assert.isBelow(reply.status, 500, args)
        validateWire("JSONRPCErrorResponse", reply.json)
        assert.strictEqual(reply.json.error.code, -32602, args)
      }
      const first = yield* post(url, raw("quote"), "quote")
      const again = yield* post(
        url,
        raw(
          "quote",
          `"inputResponses":{"name":{"action":"accept","content":{"name":"A\\ud800B"}}},` +
            `"requestState":${JSON.stringify(first.json.result.requestState)}`
        ),
        "quote"
      )
      assert.strictEqual(again.status, 200)
      validateWire("InputRequiredResult", again.json.result)
      assert.include(again.json.result.inputRequests.name.params.message, "not valid Unicode")
    }).pipe(Effect.provide(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(server()), Layer.orDie))))
})
