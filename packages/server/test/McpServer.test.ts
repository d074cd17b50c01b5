import { assert, describe, it } from "@effect/vitest"
import { Elicitation, Mrtr, RequestState } from "@mrtr/core"
import { PROTOCOL_VERSION_HEADER } from "@mrtr/protocol/Headers"
import { PROTOCOL_VERSION } from "@mrtr/protocol/Meta"
import { mcpHeaders } from "@mrtr/test-support/http"
import { validateWire } from "@mrtr/test-support/wire"
import { Context, Deferred, type Duration, Effect, Exit, Fiber, Layer, Scheduler, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import { McpServer, Prompt, StdioTransport, Tool, type Transport } from "../src/index.ts"
import { greet, Name, request, serverLayer } from "./fixtures.ts"

const handle = (message: unknown, headers?: Record<string, string>) =>
  McpServer.McpServer.use((server) =>
    server.handle({
      message,
      ...(headers === undefined ? {} : { headers: (name: string) => headers[name.toLowerCase()] })
    })
  )

const response = (reply: Transport.Reply) => {
  assert.strictEqual(reply._tag, "Response")
  if (reply._tag !== "Response") throw new Error("unreachable")
  return reply
}

const result = (reply: Transport.Reply) => {
  const r = response(reply)
  assert.strictEqual(r.httpStatus, 200)
  assert.isUndefined(r.message.error)
  return r.message.result as Record<string, any>
}

const error = (reply: Transport.Reply, code: number, status: number) => {
  const r = response(reply)
  assert.strictEqual(r.httpStatus, status)
  validateWire("JSONRPCErrorResponse", r.message)
  const e = r.message.error as { code: number; message: string; data?: unknown }
  assert.strictEqual(e.code, code)
  return e
}

const layer = serverLayer()

describe("McpServer dispatch", () => {
  it.effect("server/discover answers the DiscoverResult with serverInfo and cache fields", () =>
    Effect.gen(function*() {
      const r = result(yield* handle(request("server/discover")))
      validateWire("DiscoverResult", r)
      assert.deepStrictEqual(r.supportedVersions, ["2026-07-28"])
      assert.deepStrictEqual(r._meta["io.modelcontextprotocol/serverInfo"], { name: "test-server", version: "1.0.0" })
      assert.containSubset(r, { resultType: "complete", ttlMs: 0, cacheScope: "private" })
    }).pipe(Effect.provide(layer)))

  it.effect("lists carry resultType, ttlMs and cacheScope and validate against the schema", () =>
    Effect.gen(function*() {
      const tools = result(yield* handle(request("tools/list")))
      validateWire("ListToolsResult", tools)
      assert.deepStrictEqual(tools.tools.map((t: any) => t.name), [
        "greet",
        "plan",
        "fails",
        "needs_sampling",
        "progress"
      ])
      assert.containSubset(tools.tools[0].inputSchema, {
        type: "object",
        properties: { greeting: { type: "string" } },
        required: ["greeting"]
      })
      validateWire("ListPromptsResult", result(yield* handle(request("prompts/list"))))
      const resources = result(yield* handle(request("resources/list")))
      validateWire("ListResourcesResult", resources)
      assert.deepStrictEqual(resources.resources.map((r: any) => r.uri), ["test://readme"])
      const templates = result(yield* handle(request("resources/templates/list")))
      validateWire("ListResourceTemplatesResult", templates)
      assert.deepStrictEqual(templates.resourceTemplates.map((r: any) => r.uriTemplate), ["test://files/{+path}"])
    }).pipe(Effect.provide(layer)))

  it.effect("inputSchema advertises what the parameters decode: closed structs, and arguments beyond them refused", () =>
    Effect.gen(function*() {
      const book = Tool.make("book", {
        parameters: Schema.Struct({
          city: Schema.String,
          passengers: Schema.optionalKey(Schema.Int),
          seat: Schema.Struct({ row: Schema.Int })
        }),
        handler: ({ city, passengers, seat }) => Effect.succeed(`${city} ${passengers ?? 1} ${seat.row}`)
      })
      const bare = Tool.make("bare", { handler: () => Effect.succeed("ok") })
      const tags = Tool.make("tags", {
        parameters: Schema.Record(Schema.String, Schema.String),
        handler: (tags) => Effect.succeed(Object.keys(tags).join(","))
      })
      const tools = McpServer.tools(book, bare, tags).pipe(
        Layer.provideMerge(McpServer.layer({ name: "s", version: "1" })),
        Layer.orDie
      )
      yield* Effect.gen(function*() {
        const listed = result(yield* handle(request("tools/list")))
        validateWire("ListToolsResult", listed)
        const [bookSchema, bareSchema, tagsSchema] = listed.tools.map((t: any) => t.inputSchema)
        assert.isFalse(bookSchema.additionalProperties)
        assert.isFalse(bookSchema.properties.seat.additionalProperties)
        assert.deepStrictEqual(bareSchema, { type: "object", properties: {}, additionalProperties: false })
        assert.deepStrictEqual(tagsSchema.additionalProperties, { type: "string" })

        const call = (name: string, args: Record<string, unknown>) =>
          handle(request("tools/call", { name, arguments: args }))
        assert.deepStrictEqual(result(yield* call("book", { city: "Rome", passengers: 2, seat: { row: 3 } })).content, [
          { type: "text", text: "Rome 2 3" }
        ])
        // a misspelt optional argument is an error the caller sees, not an argument silently ignored
        const misspelt = error(yield* call("book", { city: "Rome", pasengers: 2, seat: { row: 3 } }), -32602, 200)
        assert.include(misspelt.message, "pasengers")
        const nested = error(yield* call("book", { city: "Rome", seat: { row: 3, window: true } }), -32602, 200)
        assert.include(nested.message, "window")
        error(yield* call("bare", { extra: 1 }), -32602, 200)
        assert.deepStrictEqual(result(yield* call("bare", {})).content, [{ type: "text", text: "ok" }])
        // an index signature admits the keys it models
        assert.deepStrictEqual(result(yield* call("tags", { a: "x", b: "y" })).content, [{ type: "text", text: "a,b" }])
      }).pipe(Effect.provide(tools))
    }))

  it.effect("tools/call runs an MRTR conversation to completion", () =>
    Effect.gen(function*() {
      const r1 = result(yield* handle(request("tools/call", { name: "greet", arguments: { greeting: "Hi" } })))
      validateWire("InputRequiredResult", r1)
      assert.strictEqual(r1.resultType, "input_required")
      assert.isUndefined(r1.ttlMs)
      assert.strictEqual(r1.inputRequests.name.method, "elicitation/create")
      const r2 = result(
        yield* handle(request("tools/call", {
          name: "greet",
          arguments: { greeting: "Hi" },
          inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
          requestState: r1.requestState
        }))
      )
      validateWire("CallToolResult", r2)
      assert.deepStrictEqual(r2.content, [{ type: "text", text: "Hi, Ada!" }])
      assert.strictEqual(r2.resultType, "complete")
    }).pipe(Effect.provide(layer)))

  it.effect("a state for one tool, arguments or method is refused by another with the one frozen -32602", () =>
    Effect.gen(function*() {
      const r1 = result(yield* handle(request("tools/call", { name: "greet", arguments: { greeting: "Hi" } })))
      const attempts = [
        request("tools/call", { name: "greet", arguments: { greeting: "Yo" }, requestState: r1.requestState }),
        request("tools/call", { name: "plan", arguments: { city: "Rome" }, requestState: r1.requestState }),
        request("prompts/get", { name: "topic", arguments: { subject: "x" }, requestState: r1.requestState }),
        request("tools/call", {
          name: "greet",
          arguments: { greeting: "Hi" },
          requestState: r1.requestState + "-TAMPERED"
        })
      ]
      for (const attempt of attempts) {
        const e = error(yield* handle(attempt), -32602, 200)
        assert.deepStrictEqual(e, { code: -32602, message: "Invalid requestState" })
      }
    }).pipe(Effect.provide(layer)))

  it.effect("a missing capability is -32021 with data.requiredCapabilities", () =>
    Effect.gen(function*() {
      const e = error(
        yield* handle(request("tools/call", { name: "needs_sampling" }, { elicitation: {} })),
        -32021,
        400
      )
      assert.deepStrictEqual(e.data, { requiredCapabilities: { sampling: {} } })
    }).pipe(Effect.provide(layer)))

  it.effect("a tool's own failure is a tool execution error, not a protocol error", () =>
    Effect.gen(function*() {
      const r = result(yield* handle(request("tools/call", { name: "fails" })))
      assert.containSubset(r, { isError: true, content: [{ type: "text", text: "the tool broke" }] })
    }).pipe(Effect.provide(layer)))

  it.effect("unknown tools, bad arguments and bad params are -32602", () =>
    Effect.gen(function*() {
      error(yield* handle(request("tools/call", { name: "nope" })), -32602, 200)
      const bad = error(
        yield* handle(request("tools/call", { name: "greet", arguments: { greeting: 1 } })),
        -32602,
        200
      )
      assert.match(bad.message, /Invalid arguments for tool greet/)
      error(yield* handle(request("tools/call", { name: "greet", arguments: "x" })), -32602, 200)
      error(
        yield* handle(request("tools/call", { name: "greet", arguments: { greeting: "x" }, inputResponses: null })),
        -32602,
        200
      )
      error(
        yield* handle(request("tools/call", { name: "greet", arguments: { greeting: "x" }, requestState: 5 })),
        -32602,
        200
      )
      error(yield* handle(request("resources/read", { uri: "test://nowhere" })), -32602, 200)
    }).pipe(Effect.provide(layer)))

  it.effect("envelope, _meta and version errors", () =>
    Effect.gen(function*() {
      error(yield* handle([request("tools/list")]), -32600, 400)
      error(yield* handle("hello"), -32600, 400)
      error(yield* handle({ jsonrpc: "1.0", id: 1, method: "tools/list" }), -32600, 400)
      error(yield* handle({ jsonrpc: "2.0", id: { x: 1 }, method: "tools/list" }), -32600, 400)
      // Without any claim of the 2026-07-28 wire a request is 2025-11-25 (the dual-era rule);
      // with a 2026-07-28 MCP-Protocol-Version header and no _meta it is refused, naming what is missing.
      const modern = { [PROTOCOL_VERSION_HEADER.toLowerCase()]: PROTOCOL_VERSION }
      const missingMeta = response(yield* handle({ jsonrpc: "2.0", id: 7, method: "tools/list", params: {} }, modern))
      assert.strictEqual(missingMeta.message.id, 7)
      assert.strictEqual(missingMeta.httpStatus, 400)
      const noCaps = request("tools/list")
      delete (noCaps.params._meta as any)["io.modelcontextprotocol/clientCapabilities"]
      error(yield* handle(noCaps), -32602, 400)
      const noVersion = request("tools/list")
      delete (noVersion.params._meta as any)["io.modelcontextprotocol/protocolVersion"]
      error(yield* handle(noVersion, modern), -32602, 400)
      const future = request("tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" } })
      const e = error(yield* handle(future), -32022, 400)
      assert.deepStrictEqual(e.data, { supported: ["2026-07-28"], requested: "2099-01-01" })
      for (const method of ["initialize", "ping", "logging/setLevel", "resources/subscribe", "unknown/method"]) {
        const m = response(yield* handle(request(method)))
        assert.strictEqual(m.httpStatus, 404)
        assert.strictEqual((m.message.error as any).code, -32601)
      }
      const noted = yield* handle({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } })
      assert.strictEqual(noted._tag, "Accepted")
    }).pipe(Effect.provide(layer)))

  it.effect("header mismatches are -32020", () =>
    Effect.gen(function*() {
      const message = request("tools/call", { name: "greet", arguments: { greeting: "Hi" } })
      const good = mcpHeaders(message)
      result(yield* handle(message, good))
      error(yield* handle(message, { ...good, "mcp-protocol-version": "2025-11-25" }), -32020, 400)
      error(yield* handle(message, { ...good, "mcp-method": "tools/list" }), -32020, 400)
      error(yield* handle(message, { ...good, "mcp-name": "other" }), -32020, 400)
    }).pipe(Effect.provide(layer)))

  it.effect("prompts/get and a resource template run MRTR too; completion/complete completes", () =>
    Effect.gen(function*() {
      const p1 = result(yield* handle(request("prompts/get", { name: "topic", arguments: { subject: "cats" } })))
      assert.strictEqual(p1.resultType, "input_required")
      const p2 = result(
        yield* handle(request("prompts/get", {
          name: "topic",
          arguments: { subject: "cats" },
          inputResponses: { name: { action: "accept", content: { name: "Bo" } } },
          requestState: p1.requestState
        }))
      )
      validateWire("GetPromptResult", p2)
      assert.strictEqual(p2.messages[0].content.text, "Write about cats for Bo")

      const f1 = result(yield* handle(request("resources/read", { uri: "test://files/a/b.txt" })))
      assert.deepStrictEqual(Object.keys(f1.inputRequests), ["roots"])
      const f2 = result(
        yield* handle(request("resources/read", {
          uri: "test://files/a/b.txt",
          inputResponses: { roots: { roots: [{ uri: "file:///home" }] } },
          requestState: f1.requestState
        }))
      )
      validateWire("ReadResourceResult", f2)
      assert.deepStrictEqual(f2.contents, [{
        uri: "test://files/a/b.txt",
        mimeType: "text/plain",
        text: "a/b.txt under file:///home"
      }])
      assert.containSubset(f2, { ttlMs: 0, cacheScope: "private" })

      const c = result(
        yield* handle(request("completion/complete", {
          ref: { type: "ref/prompt", name: "topic" },
          argument: { name: "subject", value: "ca" }
        }))
      )
      validateWire("CompleteResult", c)
      assert.deepStrictEqual(c.completion.values, ["cats", "cars"])
    }).pipe(Effect.provide(layer)))

  it.effect("a request that emits progress and logs turns into a stream ending with the response", () =>
    Effect.gen(function*() {
      const message = request("tools/call", {
        name: "progress",
        _meta: { progressToken: "p1", "io.modelcontextprotocol/logLevel": "info" }
      })
      const reply = yield* handle(message)
      assert.strictEqual(reply._tag, "Stream")
      if (reply._tag !== "Stream") return
      const messages = Array.from(yield* Stream.runCollect(reply.messages))
      assert.deepStrictEqual(messages.map((m) => m.method ?? "response"), [
        "notifications/progress",
        "notifications/message",
        "notifications/progress",
        "response"
      ])
      validateWire("ProgressNotification", messages[0])
      validateWire("LoggingMessageNotification", messages[1])
      // without a token or a log level, nothing is emitted
      const quiet = yield* handle(request("tools/call", { name: "progress" }))
      assert.deepStrictEqual(result(quiet).content, [{ type: "text", text: "done" }])
    }).pipe(Effect.provide(layer)))

  it.live("a request that may stream, given up before its first message, interrupts its handler", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const waits = Tool.make("waits", {
        handler: () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.andThen(Effect.never),
            Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
          )
      })
      yield* Effect.gen(function*() {
        const reply = yield* Effect.forkChild(handle(request("tools/call", {
          name: "waits",
          _meta: { progressToken: "p1", "io.modelcontextprotocol/logLevel": "info" }
        })))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(reply)
        yield* Deferred.await(interrupted).pipe(Effect.timeout("5 seconds"))
      }).pipe(Effect.provide(McpServer.tools(waits).pipe(Layer.provideMerge(layer))))
    }))

  it.live("subscriptions/listen acknowledges, then forwards only the list changes asked for", () =>
    Effect.gen(function*() {
      const server = yield* McpServer.McpServer
      const reply = yield* handle(request("subscriptions/listen", { notifications: { toolsListChanged: true } }))
      assert.strictEqual(reply._tag, "Stream")
      if (reply._tag !== "Stream") return
      const collected = yield* reply.messages.pipe(Stream.take(2), Stream.runCollect, Effect.forkChild)
      yield* Effect.sleep("10 millis")
      yield* server.removePrompt("topic")
      yield* server.removeTool("fails")
      const messages: Array<any> = Array.from(yield* Fiber.join(collected))
      assert.strictEqual(messages[0].method, "notifications/subscriptions/acknowledged")
      assert.deepStrictEqual(messages[0].params.notifications, { toolsListChanged: true })
      assert.strictEqual(messages[1].method, "notifications/tools/list_changed")
      assert.isDefined(messages[1].params._meta["io.modelcontextprotocol/subscriptionId"])
    }).pipe(Effect.provide(Layer.fresh(serverLayer()))))

  it.effect("subscriptions/listen refuses a missing or malformed notifications filter with -32602, ignores unknown opt-ins, needs a stream", () =>
    Effect.gen(function*() {
      const missing = error(yield* handle(request("subscriptions/listen", {})), -32602, 400)
      assert.include(missing.message, "needs params.notifications")
      for (
        const notifications of [
          "all",
          null,
          [],
          { toolsListChanged: "yes" },
          { resourceSubscriptions: "file:///a" },
          { resourceSubscriptions: [1] },
          { taskIds: [42] }
        ]
      ) {
        const refused = error(yield* handle(request("subscriptions/listen", { notifications })), -32602, 400)
        assert.include(refused.message, "Invalid params.notifications")
      }
      // a reply that cannot stream (no text/event-stream in Accept) could never answer: refused at once
      const unstreamable = yield* McpServer.McpServer.use((server) =>
        server.handle({ message: request("subscriptions/listen", { notifications: {} }), canStream: false })
      )
      const refused = error(unstreamable, -32600, 406)
      assert.include(refused.message, "Accept: text/event-stream")
      const reply = yield* handle(
        request("subscriptions/listen", { notifications: { promptsListChanged: true, laterRevisionOptIn: true } })
      )
      assert.strictEqual(reply._tag, "Stream")
      if (reply._tag !== "Stream") return
      const [ack] = Array.from(yield* reply.messages.pipe(Stream.take(1), Stream.runCollect)) as Array<any>
      validateWire("SubscriptionsAcknowledgedNotification", ack)
      assert.deepStrictEqual(ack.params.notifications, { promptsListChanged: true })
    }).pipe(Effect.provide(Layer.fresh(serverLayer()))))

  // Regression: Prompt.make without `arguments` (the default) threw at definition time, because Effect
  // renders the empty struct's JSON Schema as "any non-nullish value" rather than as an object.
  it.effect("a prompt without arguments is listed with no arguments and can be got", () =>
    Effect.gen(function*() {
      const listed = result(yield* handle(request("prompts/list")))
      validateWire("ListPromptsResult", listed)
      assert.deepStrictEqual(listed.prompts.find((p: any) => p.name === "no_args"), {
        name: "no_args",
        description: "Takes no arguments",
        arguments: []
      })
      const got = result(yield* handle(request("prompts/get", { name: "no_args" })))
      validateWire("GetPromptResult", got)
      assert.deepStrictEqual(got.messages, [{ role: "user", content: { type: "text", text: "no arguments needed" } }])
    }).pipe(Effect.provide(withExtras())))

  // Regression: the dispatcher did not pass the tool to the header check, so Mcp-Param-* headers of
  // x-mcp-header parameters were never validated (missing, malformed or mismatching ones were accepted).
  it.effect("tools/call checks the Mcp-Param-* headers of the tool's x-mcp-header parameters", () =>
    Effect.gen(function*() {
      const message = request("tools/call", { name: "regional", arguments: { region: "Hello" } })
      const headers = mcpHeaders(message)
      assert.deepStrictEqual(result(yield* handle(message, { ...headers, "mcp-param-region": "Hello" })).content, [{
        type: "text",
        text: "region=Hello"
      }])
      // the base64 form of the same value
      result(yield* handle(message, { ...headers, "mcp-param-region": "=?base64?SGVsbG8=?=" }))
      // missing, mismatching, non-canonical base64 (bad padding) and non-alphabet characters
      error(yield* handle(message, headers), -32020, 400)
      error(yield* handle(message, { ...headers, "mcp-param-region": "Bye" }), -32020, 400)
      error(yield* handle(message, { ...headers, "mcp-param-region": "=?base64?SGVsbG8?=" }), -32020, 400)
      error(yield* handle(message, { ...headers, "mcp-param-region": "=?base64?SGVs!!!bG8=?=" }), -32020, 400)
      // a header sent for an argument the body does not carry
      const absent = request("tools/call", { name: "regional", arguments: {} })
      error(yield* handle(absent, { ...headers, "mcp-param-region": "Hello" }), -32020, 400)
      // without HTTP headers (stdio, in-memory) there is nothing to check
      assert.deepStrictEqual(result(yield* handle(message)).content, [{ type: "text", text: "region=Hello" }])
    }).pipe(Effect.provide(withExtras())))
})

const regional = Tool.make("regional", {
  description: "Echoes its region, mirrored in Mcp-Param-Region",
  parameters: Schema.Struct({
    region: Schema.optionalKey(Schema.String.annotate({ "x-mcp-header": "Region" }))
  }),
  handler: ({ region }) => Effect.succeed(`region=${region ?? "none"}`)
})

/** Built when a test runs, so that a definition that throws fails that test only. */
const withExtras = () => {
  const noArgs = Prompt.make("no_args", {
    description: "Takes no arguments",
    handler: () => Effect.succeed("no arguments needed")
  })
  return Layer.mergeAll(McpServer.tools(regional), McpServer.prompts(noArgs)).pipe(
    Layer.provideMerge(serverLayer())
  )
}

describe("McpServer.layer options", () => {
  const configured = (requestState: { readonly ttl?: Duration.Input; readonly singleUse?: boolean }) =>
    Layer.fresh(
      McpServer.tools(greet).pipe(
        Layer.provideMerge(McpServer.layer({
          name: "configured",
          version: "1",
          requestState: {
            keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(3) }]),
            ...requestState
          }
        })),
        Layer.orDie
      )
    )

  const start = request("tools/call", { name: "greet", arguments: { greeting: "Hi" } })
  const retry = (requestState: string) =>
    request("tools/call", {
      name: "greet",
      arguments: { greeting: "Hi" },
      inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
      requestState
    })

  it.effect("a configured expiry rejects state past its ttl with the frozen -32602", () =>
    Effect.gen(function*() {
      const r1 = result(yield* handle(start))
      yield* TestClock.adjust("59 seconds")
      assert.strictEqual(result(yield* handle(retry(r1.requestState))).content[0].text, "Hi, Ada!")
      const r2 = result(yield* handle(start))
      yield* TestClock.adjust("61 seconds")
      assert.strictEqual(error(yield* handle(retry(r2.requestState)), -32602, 200).message, "Invalid requestState")
    }).pipe(Effect.provide(configured({ ttl: "1 minute" }))))

  it.effect("single use: a state is redeemed once", () =>
    Effect.gen(function*() {
      const r1 = result(yield* handle(start))
      assert.strictEqual(result(yield* handle(retry(r1.requestState))).content[0].text, "Hi, Ada!")
      assert.strictEqual(error(yield* handle(retry(r1.requestState)), -32602, 200).message, "Invalid requestState")
    }).pipe(Effect.provide(configured({ singleUse: true }))))
})

describe("McpServer hostile input", () => {
  it.effect("params nested too deeply are -32602 before any handler or digest recurses", () =>
    Effect.gen(function*() {
      let deep: unknown = "x"
      for (let i = 0; i < 5000; i++) deep = [deep]
      const e = error(
        yield* handle(request("tools/call", { name: "greet", arguments: { greeting: "Hi", deep } })),
        -32602,
        400
      )
      assert.match(e.message, /nested more than 64 levels/)
      let ok: unknown = "x"
      for (let i = 0; i < 40; i++) ok = { a: ok }
      // 40 levels pass the envelope: the tool's parameters (which declare no "ok") are what refuse it
      const decoded = error(
        yield* handle(request("tools/call", { name: "greet", arguments: { greeting: "Hi", ok } })),
        -32602,
        200
      )
      assert.match(decoded.message, /excess property[\s\S]*"ok"/)
    }).pipe(Effect.provide(layer)))

  it.effect("a _meta logLevel that is not a logging level is -32602, not \"log everything\"", () =>
    Effect.gen(function*() {
      for (const level of ["nonsense", 3, null]) {
        const message = request("tools/call", { name: "greet", arguments: { greeting: "Hi" } })
        ;(message.params._meta as Record<string, unknown>)["io.modelcontextprotocol/logLevel"] = level
        const e = error(yield* handle(message), -32602, 400)
        assert.match(e.message, /logLevel/)
      }
      // a valid level is accepted
      const ok = request("tools/list")
      ;(ok.params._meta as Record<string, unknown>)["io.modelcontextprotocol/logLevel"] = "warning"
      result(yield* handle(ok))
    }).pipe(Effect.provide(layer)))

  it.effect("a _meta protocolVersion or clientCapabilities of the wrong type is called invalid, an absent one missing", () =>
    Effect.gen(function*() {
      const meta = (message: ReturnType<typeof request>) => message.params._meta as Record<string, unknown>
      for (
        const [key, value, expected] of [
          ["io.modelcontextprotocol/protocolVersion", 5, /Invalid _meta\["io.modelcontextprotocol\/protocolVersion"\]/],
          [
            "io.modelcontextprotocol/protocolVersion",
            undefined,
            /Missing _meta\["io.modelcontextprotocol\/protocolVersion"\]/
          ],
          [
            "io.modelcontextprotocol/clientCapabilities",
            "all",
            /Invalid _meta\["io.modelcontextprotocol\/clientCapabilities"\]/
          ],
          [
            "io.modelcontextprotocol/clientCapabilities",
            undefined,
            /Missing _meta\["io.modelcontextprotocol\/clientCapabilities"\]/
          ]
        ] as const
      ) {
        const message = request("tools/list")
        if (value === undefined) delete meta(message)[key]
        else meta(message)[key] = value
        assert.match(
          error(yield* handle(message, { [PROTOCOL_VERSION_HEADER.toLowerCase()]: PROTOCOL_VERSION }), -32602, 400)
            .message,
          expected
        )
      }
    }).pipe(Effect.provide(layer)))

  it.effect("malformed clientCapabilities are -32602, not a crash", () =>
    Effect.gen(function*() {
      for (const capabilities of [{ elicitation: null }, { elicitation: "yes" }, { sampling: [] }, { roots: 1 }]) {
        const e = error(
          yield* handle(request("tools/call", { name: "greet", arguments: { greeting: "Hi" } }, capabilities)),
          -32602,
          400
        )
        assert.match(e.message, /Invalid _meta\["io.modelcontextprotocol\/clientCapabilities"\]/)
      }
    }).pipe(Effect.provide(layer)))

  it.effect("completion of an argument named like an Object.prototype member completes nothing", () =>
    Effect.gen(function*() {
      for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
        const r = result(
          yield* handle(request("completion/complete", {
            ref: { type: "ref/prompt", name: "topic" },
            argument: { name, value: "x" }
          }))
        )
        assert.deepStrictEqual(r.completion.values, [])
      }
    }).pipe(Effect.provide(layer)))

  it.effect("ids beyond 2^53 are refused rather than echoed wrong", () =>
    Effect.gen(function*() {
      const message = { ...request("tools/list"), id: 2 ** 64 }
      error(yield* handle(message), -32600, 400)
    }).pipe(Effect.provide(layer)))

  it.effect("answers that outgrow the journal cap are the client's error (-32602), without internals", () =>
    Effect.gen(function*() {
      const r1 = result(yield* handle(request("tools/call", { name: "plan", arguments: { city: "Rome" } })))
      const e = error(
        yield* handle(request("tools/call", {
          name: "plan",
          arguments: { city: "Rome" },
          requestState: r1.requestState,
          inputResponses: { who: { action: "accept", content: { name: "x".repeat(40_000) } } }
        })),
        -32602,
        200
      )
      assert.notMatch(e.message, /\d+ bytes/)
    }).pipe(Effect.provide(layer)))

  it.effect("a prompt's own failure is -32603 Internal error, its message stays in the log", () =>
    Effect.gen(function*() {
      class Secret extends Schema.TaggedError<Secret>()("Secret", { message: Schema.String }) {}
      const leaky = Prompt.make("leaky", {
        handler: () => Effect.fail(new Secret({ message: "db password is hunter2" }))
      })
      const server = yield* McpServer.McpServer
      yield* server.addPrompt(leaky as any)
      const e = error(yield* handle(request("prompts/get", { name: "leaky" })), -32603, 200)
      assert.deepStrictEqual(e, { code: -32603, message: "Internal error" })
    }).pipe(Effect.provide(Layer.fresh(serverLayer()))))
})

describe("McpServer and the user's no", () => {
  it.effect("a prompt whose elicitation is declined or cancelled answers -32603 with what happened", () =>
    Effect.gen(function*() {
      for (
        const [answer, text] of [[{ action: "decline" }, "declined"], [{ action: "cancel" }, "cancelled"]] as const
      ) {
        const e = error(
          yield* handle(request("prompts/get", {
            name: "topic",
            arguments: { subject: "cats" },
            inputResponses: { name: answer }
          })),
          -32603,
          200
        )
        assert.strictEqual(e.message, `The user ${text} the elicitation "name"`)
      }
    }).pipe(Effect.provide(layer)))
})

describe("McpServer and the user's no, in a tool", () => {
  it.effect("a tool whose elicitation is declined reports a tool execution error (isError), not a protocol error", () =>
    Effect.gen(function*() {
      const r = result(
        yield* handle(request("tools/call", {
          name: "greet",
          arguments: { greeting: "Hi" },
          inputResponses: { name: { action: "decline" } }
        }))
      )
      assert.containSubset(r, {
        isError: true,
        content: [{ type: "text", text: `The user declined the elicitation "name"` }]
      })
    }).pipe(Effect.provide(layer)))
})

describe("McpServer and the services of handlers", () => {
  class Greeting extends Context.Service<Greeting, { readonly word: string }>()("test/Greeting") {}
  const greeter = (name: string) =>
    Tool.make(name, {
      handler: () =>
        Effect.gen(function*() {
          const { word } = yield* Greeting
          const { name } = yield* Elicitation.form({ key: "name", message: "Your name?", schema: Name })
          return `${word}, ${name}!`
        })
    })
  const codec = RequestState.RequestStateCodec.layer({
    keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(3) }])
  }).pipe(Layer.orDie)
  // Two registrations, each with its own Greeting; the server itself has none.
  const twoGreetings = Layer.mergeAll(
    McpServer.tools(greeter("hello")).pipe(Layer.provide(Layer.succeed(Greeting, { word: "Hello" }))),
    McpServer.tools(greeter("bonjour")).pipe(Layer.provide(Layer.succeed(Greeting, { word: "Bonjour" })))
  ).pipe(Layer.provideMerge(McpServer.layer({ name: "greetings", version: "1.0.0", requestState: codec })))

  const converse = (tool: string) =>
    Effect.gen(function*() {
      const r1 = result(yield* handle(request("tools/call", { name: tool, arguments: {} })))
      assert.strictEqual(r1.resultType, "input_required")
      const r2 = result(
        yield* handle(request("tools/call", {
          name: tool,
          arguments: {},
          inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
          requestState: r1.requestState
        }))
      )
      return r2.content[0].text
    })

  it.effect("each tool gets the services of the layer that registered it, in every round", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* converse("hello"), "Hello, Ada!")
      assert.strictEqual(yield* converse("bonjour"), "Bonjour, Ada!")
    }).pipe(Effect.provide(twoGreetings)))

  it.live("a Scheduler in the registering layer's context does not replace the engine's", () =>
    Effect.gen(function*() {
      const yields = (n: number) => Effect.forEach(Array.from({ length: n }), () => Effect.yieldNow, { discard: true })
      const two = Tool.make("two", {
        handler: () =>
          Mrtr.all([
            Elicitation.form({ key: "a", message: "A?", schema: Name }),
            yields(5).pipe(Effect.andThen(Elicitation.form({ key: "b", message: "B?", schema: Name })))
          ]).pipe(Effect.as("done"))
      })
      const server = McpServer.tools(two).pipe(
        Layer.provide(Layer.succeed(Scheduler.Scheduler, new Scheduler.MixedScheduler())),
        Layer.provideMerge(McpServer.layer({ name: "scheduled", version: "1.0.0", requestState: codec }))
      )
      const r1 = yield* handle(request("tools/call", { name: "two", arguments: {} })).pipe(Effect.provide(server))
      // both concurrent asks in one round
      assert.deepStrictEqual(Object.keys(result(r1).inputRequests).sort(), ["a", "b"])
    }))

  it.effect("the registering layer's services win over the request's own", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* converse("hello"), "Hello, Ada!")
      assert.strictEqual(yield* converse("bonjour"), "Bonjour, Ada!")
    }).pipe(Effect.provide(twoGreetings), Effect.provideService(Greeting, { word: "Hi" })))

  it.effect("a handler's scoped resources are released with the request, not with the server", () =>
    Effect.gen(function*() {
      const released: Array<string> = []
      const scoped = Tool.make("scoped", {
        handler: () =>
          Effect.gen(function*() {
            yield* Effect.addFinalizer(() => Effect.sync(() => released.push("round")))
            return "done"
          })
      })
      const server = McpServer.tools(scoped).pipe(
        Layer.provideMerge(McpServer.layer({ name: "scoped", version: "1.0.0", requestState: codec }))
      )
      yield* Effect.gen(function*() {
        // as effect/http runs a request: in a Scope of its own
        yield* Effect.scoped(handle(request("tools/call", { name: "scoped", arguments: {} })))
        assert.deepStrictEqual(released, ["round"])
        yield* Effect.scoped(handle(request("tools/call", { name: "scoped", arguments: {} })))
        assert.deepStrictEqual(released, ["round", "round"])
      }).pipe(Effect.provide(server))

      // on stdio, each request has its Scope too
      released.length = 0
      const lines: Array<string> = []
      const input = Stream.make(
        new TextEncoder().encode(JSON.stringify(request("tools/call", { name: "scoped", arguments: {} })) + "\n")
      )
      yield* StdioTransport.run(input, (line) => Effect.sync(() => lines.push(line))).pipe(Effect.provide(server))
      assert.strictEqual(JSON.parse(lines[0]!).result.content[0].text, "done")
      assert.deepStrictEqual(released, ["round"])
    }))

  it.live("a handler that needs a Scope still runs when the dispatcher is called outside any Scope", () =>
    Effect.gen(function*() {
      const scoped = Tool.make("scoped", {
        handler: () => Effect.as(Effect.addFinalizer(() => Effect.void), "done")
      })
      const server = McpServer.tools(scoped).pipe(
        Layer.provideMerge(McpServer.layer({ name: "scoped", version: "1.0.0", requestState: codec }))
      )
      // a custom transport: the dispatcher run with nothing around it (the
      // types ask for a Scope, which `handle`'s own type does not show)
      const bare = handle(request("tools/call", { name: "scoped", arguments: {} })).pipe(Effect.provide(server))
      const exit = yield* Effect.promise(() => Effect.runPromiseExit(bare as Effect.Effect<Transport.Reply>))
      assert.isTrue(Exit.isSuccess(exit))
      if (Exit.isSuccess(exit)) assert.strictEqual(result(exit.value).content[0].text, "done")
    }))
})
