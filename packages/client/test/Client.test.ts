/**
 * McpClient beyond the loop itself: manual mode, capability derivation from
 * the provided handlers, request `_meta`, JSON-RPC errors, the -32022 retry,
 * isolation of MRTR fields between requests, and the plain methods.
 * Sources: MCP 2026-07-28, basic (request `_meta`, error codes),
 * basic/patterns/mrtr, client/elicitation, client/sampling, client/roots.
 */
import { assert, describe, it } from "@effect/vitest"
import { MetaKey } from "@mrtr/protocol/Meta"
import { Deferred, Effect, Fiber, Layer } from "effect"
import * as ElicitationHandler from "../src/ElicitationHandler.ts"
import * as McpClient from "../src/McpClient.ts"
import * as RootsHandler from "../src/RootsHandler.ts"
import * as SamplingHandler from "../src/SamplingHandler.ts"
import { clientLayer, complete, elicit, fakeServer, inputRequired, roots, sample } from "./fixtures.ts"

const client = McpClient.McpClient
const accept = (content: Record<string, string>) => () => Effect.succeed(ElicitationHandler.accept(content))
const sampler = SamplingHandler.layer({
  createMessage: () =>
    Effect.succeed({ role: "assistant" as const, content: { type: "text" as const, text: "x" }, model: "m" })
})

const capabilitiesSent = (request: Record<string, any>) => request.params._meta[MetaKey.clientCapabilities]

describe("manual mode", () => {
  it.effect("without a handler the call fails with InputRequiredError; the caller retries with the answers", () =>
    Effect.gen(function*() {
      const server = fakeServer((request) =>
        request.params.inputResponses?.user_name === undefined
          ? inputRequired({ inputRequests: { user_name: elicit() }, requestState: "opaque-1" })
          : complete(`Hello, ${request.params.inputResponses.user_name.content.name}!`)
      )
      const { error, result } = yield* Effect.gen(function*() {
        const c = yield* client
        const error = yield* c.callTool({ name: "greet", arguments: { a: 1 } }).pipe(Effect.flip)
        if (error._tag !== "InputRequiredError") return yield* Effect.die(error)
        // The caller answers and retries the same method with the answers and the state.
        const result = yield* c.callTool({
          name: "greet",
          arguments: { a: 1 },
          inputResponses: { user_name: ElicitationHandler.accept({ name: "Bob" }) },
          ...(error.requestState === undefined ? {} : { requestState: error.requestState })
        })
        return { error, result }
      }).pipe(Effect.provide(clientLayer(server)))
      assert.strictEqual(error.method, "tools/call")
      assert.strictEqual(error.round, 1)
      assert.strictEqual(error.requestState, "opaque-1")
      assert.deepStrictEqual(Object.keys(error.inputRequests), ["user_name"])
      assert.strictEqual(error.inputRequests.user_name!.method, "elicitation/create")
      assert.deepStrictEqual((error.result as any).resultType, "input_required")
      // No capabilities declared without handlers.
      assert.deepStrictEqual(capabilitiesSent(server.received[0]!), {})
      assert.deepStrictEqual(result.content, [{ type: "text", text: "Hello, Bob!" }])
      const retry = server.received[1]!
      assert.strictEqual(retry.params.requestState, "opaque-1")
      assert.deepStrictEqual(retry.params.arguments, { a: 1 })
      assert.deepStrictEqual(retry.params.inputResponses, { user_name: { action: "accept", content: { name: "Bob" } } })
      assert.notStrictEqual(retry.id, server.received[0]!.id)
      assert.deepStrictEqual(server.invalid, [])
    }))

  it.effect("a handler for one kind does not cover another: the whole round is handed back", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => inputRequired({ inputRequests: { e: elicit(), s: sample }, requestState: "st" }))
      const error = yield* client.use((c) => c.callTool({ name: "t" })).pipe(
        Effect.provide(clientLayer(server, {}, ElicitationHandler.layer({ form: accept({ name: "A" }) }))),
        Effect.flip
      )
      assert.strictEqual(error._tag, "InputRequiredError")
      if (error._tag === "InputRequiredError") {
        assert.deepStrictEqual(Object.keys(error.inputRequests).sort(), ["e", "s"])
      }
      assert.strictEqual(server.received.length, 1)
    }))

  it.effect("URL-mode elicitation needs a url handler; accepted URL answers carry no content", () =>
    Effect.gen(function*() {
      const urlRequest = {
        method: "elicitation/create",
        params: { mode: "url", message: "Sign in", url: "https://example.com/auth" }
      }
      const server = fakeServer((request) =>
        request.params.inputResponses === undefined
          ? inputRequired({ inputRequests: { auth: urlRequest } })
          : complete()
      )
      const formOnly = yield* client.use((c) => c.callTool({ name: "t" })).pipe(
        Effect.provide(clientLayer(server, {}, ElicitationHandler.layer({ form: accept({ name: "A" }) }))),
        Effect.flip
      )
      assert.strictEqual(formOnly._tag, "InputRequiredError")
      yield* client.use((c) => c.callTool({ name: "t" })).pipe(
        Effect.provide(clientLayer(
          server,
          {},
          ElicitationHandler.layer({ url: () => Effect.succeed({ action: "accept", content: { leaked: "x" } }) })
        ))
      )
      const retry = server.received.at(-1)!
      assert.deepStrictEqual(retry.params.inputResponses, { auth: { action: "accept" } })
      assert.deepStrictEqual(capabilitiesSent(retry), { elicitation: { url: {} } })
    }))

  it.effect("sampling with tools needs a handler that declares sampling.tools", () =>
    Effect.gen(function*() {
      const withTools = {
        method: "sampling/createMessage",
        params: { ...sample.params, tools: [{ name: "calc", inputSchema: { type: "object" } }] }
      }
      const server = fakeServer(() => inputRequired({ inputRequests: { s: withTools } }))
      const error = yield* client.use((c) => c.callTool({ name: "t" })).pipe(
        Effect.provide(clientLayer(server, {}, sampler)),
        Effect.flip
      )
      assert.strictEqual(error._tag, "InputRequiredError")
    }))
})

describe("capabilities are derived from the provided handlers", () => {
  const declaredWith = <R>(user: Layer.Layer<R>) =>
    Effect.gen(function*() {
      const server = fakeServer(() => ({ resultType: "complete", tools: [] }))
      yield* client.use((c) => c.listTools()).pipe(Effect.provide(clientLayer(server, {}, user)))
      return capabilitiesSent(server.received[0]!)
    })

  it.effect("none", () => Effect.map(declaredWith(Layer.empty), (caps) => assert.deepStrictEqual(caps, {})))

  it.effect("form-only, url-only and both elicitation modes", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* declaredWith(ElicitationHandler.layer({ form: accept({}) })),
        { elicitation: { form: {} } }
      )
      assert.deepStrictEqual(
        yield* declaredWith(ElicitationHandler.layer({ url: accept({}) })),
        { elicitation: { url: {} } }
      )
      assert.deepStrictEqual(
        yield* declaredWith(ElicitationHandler.layer({ form: accept({}), url: accept({}) })),
        { elicitation: { form: {}, url: {} } }
      )
    }))

  it.effect("sampling (with tools / context) and roots", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* declaredWith(sampler), { sampling: {} })
      assert.deepStrictEqual(
        yield* declaredWith(SamplingHandler.layer({
          createMessage: () => Effect.die("unused"),
          tools: true,
          context: true
        })),
        { sampling: { context: {}, tools: {} } }
      )
      assert.deepStrictEqual(yield* declaredWith(RootsHandler.layerStatic([])), { roots: {} })
      assert.deepStrictEqual(
        yield* declaredWith(
          Layer.mergeAll(sampler, RootsHandler.layerStatic([]), ElicitationHandler.layer({ form: accept({}) }))
        ),
        { roots: {}, sampling: {}, elicitation: { form: {} } }
      )
    }))

  it.effect("handlers provided at the call site count too, and win", () =>
    Effect.gen(function*() {
      const server = fakeServer((request, n) =>
        n === 1
          ? inputRequired({ inputRequests: { r: roots } })
          : complete(JSON.stringify(request.params.inputResponses))
      )
      const result = yield* client.use((c) => c.callTool({ name: "t" })).pipe(
        Effect.provide(RootsHandler.layerStatic([{ uri: "file:///call-site" }])),
        Effect.provide(clientLayer(server, {}, RootsHandler.layerStatic([{ uri: "file:///layer" }])))
      )
      assert.deepStrictEqual(JSON.parse((result.content[0] as any).text), {
        r: { roots: [{ uri: "file:///call-site" }] }
      })
      const caps = yield* client.use((c) => c.clientCapabilities).pipe(
        Effect.provide(clientLayer(server, {}, Layer.empty))
      )
      assert.deepStrictEqual(caps, {})
    }))

  it.effect("every request carries protocolVersion, clientCapabilities and clientInfo", () =>
    Effect.gen(function*() {
      const server = fakeServer((request) =>
        request.method === "tools/list"
          ? { resultType: "complete", tools: [] }
          : request.method === "server/discover"
          ? {
            resultType: "complete",
            supportedVersions: ["2026-07-28"],
            capabilities: {},
            ttlMs: 0,
            cacheScope: "private"
          }
          : { resultType: "complete" }
      )
      yield* Effect.gen(function*() {
        const c = yield* client
        yield* c.discover()
        yield* c.listTools({ cursor: "abc" })
      }).pipe(
        Effect.provide(clientLayer(server, { clientInfo: { name: "me", version: "9" }, logLevel: "info" }, sampler))
      )
      for (const request of server.received) {
        assert.deepStrictEqual(request.params._meta, {
          [MetaKey.protocolVersion]: "2026-07-28",
          [MetaKey.clientCapabilities]: { sampling: {} },
          [MetaKey.clientInfo]: { name: "me", version: "9" },
          [MetaKey.logLevel]: "info"
        })
      }
      assert.strictEqual(server.received[1]!.params.cursor, "abc")
      assert.deepStrictEqual(server.invalid, [])
    }))
})

describe("errors", () => {
  it.effect("a JSON-RPC error becomes McpError with code, message and data", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => ({
        error: { code: -32021, message: "Missing capability", data: { requiredCapabilities: { sampling: {} } } }
      }))
      const error = yield* client.use((c) => c.callTool({ name: "t" })).pipe(
        Effect.provide(clientLayer(server)),
        Effect.flip
      )
      assert.strictEqual(error._tag, "McpError")
      if (error._tag !== "McpError") return
      assert.strictEqual(error.code, -32021)
      assert.strictEqual(error.message, "Missing capability")
      assert.deepStrictEqual(error.data, { requiredCapabilities: { sampling: {} } })
    }))

  it.effect("-32022 listing our version is retried once with a new id; a second one is returned", () =>
    Effect.gen(function*() {
      const reject = {
        error: {
          code: -32022,
          message: "Unsupported protocol version",
          data: { supported: ["2026-07-28"], requested: "x" }
        }
      }
      const once = fakeServer((_, n) => n === 1 ? reject : { resultType: "complete", tools: [] })
      yield* client.use((c) => c.listTools()).pipe(Effect.provide(clientLayer(once)))
      assert.strictEqual(once.received.length, 2)
      assert.notStrictEqual(once.received[0]!.id, once.received[1]!.id)

      const always = fakeServer(() => reject)
      const error = yield* client.use((c) => c.listTools()).pipe(Effect.provide(clientLayer(always)), Effect.flip)
      assert.strictEqual(error._tag, "McpError")
      assert.strictEqual(always.received.length, 2)

      const other = fakeServer(() => ({ error: { code: -32022, message: "no", data: { supported: ["2099-01-01"] } } }))
      yield* client.use((c) => c.listTools()).pipe(Effect.provide(clientLayer(other)), Effect.flip)
      assert.strictEqual(other.received.length, 1)
    }))

  it.effect("a complete result that does not decode is a protocol error", () =>
    Effect.gen(function*() {
      const server = fakeServer(() => ({ resultType: "complete", content: "not an array" }))
      const error = yield* client.use((c) => c.callTool({ name: "t" })).pipe(
        Effect.provide(clientLayer(server)),
        Effect.flip
      )
      assert.strictEqual(error._tag, "ProtocolViolation")
    }))
})

describe("isolation", () => {
  it.effect("a request sent while another waits for input carries none of its MRTR fields", () =>
    Effect.gen(function*() {
      const asked = yield* Deferred.make<void>()
      const proceed = yield* Deferred.make<void>()
      const waiting = ElicitationHandler.layer({
        form: () =>
          Deferred.succeed(asked, undefined).pipe(
            Effect.andThen(Deferred.await(proceed)),
            Effect.as(ElicitationHandler.accept({ name: "A" }))
          )
      })
      const server = fakeServer((request) =>
        request.params.name === "mrtr" && request.params.inputResponses === undefined
          ? inputRequired({ inputRequests: { q: elicit() }, requestState: "secret" })
          : complete(request.params.name)
      )
      yield* Effect.gen(function*() {
        const c = yield* client
        const fiber = yield* c.callTool({ name: "mrtr" }).pipe(Effect.forkChild)
        yield* Deferred.await(asked)
        yield* c.callTool({ name: "unrelated" })
        yield* Deferred.succeed(proceed, undefined)
        yield* Fiber.join(fiber)
        // and after the conversation ended
        yield* c.callTool({ name: "after" })
      }).pipe(Effect.provide(clientLayer(server, {}, waiting)))
      const byName = (name: string) => server.received.filter((r) => r.params.name === name)
      for (const name of ["unrelated", "after"]) {
        const [request] = byName(name)
        assert.isFalse("inputResponses" in request!.params)
        assert.isFalse("requestState" in request!.params)
      }
      assert.strictEqual(byName("mrtr")[1]!.params.requestState, "secret")
      assert.strictEqual(new Set(server.received.map((r) => r.id)).size, server.received.length)
    }))

  it.effect("manual-mode answers apply to the first request of that call only", () =>
    Effect.gen(function*() {
      const server = fakeServer((_, n) =>
        n === 1 ? inputRequired({ inputRequests: { next: elicit() }, requestState: "s2" }) : complete()
      )
      yield* client.use((c) =>
        c.callTool({
          name: "t",
          inputResponses: { first: ElicitationHandler.accept({ name: "A" }) },
          requestState: "s1"
        })
      ).pipe(Effect.provide(clientLayer(server, {}, ElicitationHandler.layer({ form: accept({ name: "B" }) }))))
      assert.deepStrictEqual(Object.keys(server.received[0]!.params.inputResponses), ["first"])
      assert.strictEqual(server.received[0]!.params.requestState, "s1")
      assert.deepStrictEqual(Object.keys(server.received[1]!.params.inputResponses), ["next"])
      assert.strictEqual(server.received[1]!.params.requestState, "s2")
    }))
})

describe("MRTR on prompts/get and resources/read", () => {
  it.effect("getPrompt and readResource run the loop too", () =>
    Effect.gen(function*() {
      const server = fakeServer((request) => {
        if (request.params.inputResponses === undefined) return inputRequired({ inputRequests: { r: roots } })
        return request.method === "prompts/get"
          ? { resultType: "complete", messages: [{ role: "user", content: { type: "text", text: "hi" } }] }
          : {
            resultType: "complete",
            contents: [{ uri: request.params.uri, text: "body" }],
            ttlMs: 0,
            cacheScope: "private"
          }
      })
      const [prompt, resource] = yield* Effect.all([
        client.use((c) => c.getPrompt({ name: "p", arguments: { x: "1" } })),
        client.use((c) => c.readResource({ uri: "test://a" }))
      ]).pipe(Effect.provide(clientLayer(server, {}, RootsHandler.layerStatic([{ uri: "file:///r" }]))))
      assert.strictEqual(prompt.messages.length, 1)
      assert.deepStrictEqual(resource.contents, [{ uri: "test://a", text: "body" }])
      assert.strictEqual(server.received.length, 4)
      assert.deepStrictEqual(server.invalid, [])
    }))

  it.effect("complete, listPrompts, listResources and listResourceTemplates", () =>
    Effect.gen(function*() {
      const server = fakeServer((request) => {
        switch (request.method) {
          case "completion/complete":
            return { resultType: "complete", completion: { values: ["cats"], total: 1, hasMore: false } }
          case "prompts/list":
            return { resultType: "complete", prompts: [{ name: "p" }], ttlMs: 0, cacheScope: "private" }
          case "resources/list":
            return {
              resultType: "complete",
              resources: [{ uri: "test://a", name: "a" }],
              ttlMs: 0,
              cacheScope: "private"
            }
          default:
            return { resultType: "complete", resourceTemplates: [{ uriTemplate: "test://{x}", name: "t" }] }
        }
      })
      yield* Effect.gen(function*() {
        const c = yield* client
        const completion = yield* c.complete({
          ref: { type: "ref/prompt", name: "p" },
          argument: { name: "a", value: "c" }
        })
        assert.deepStrictEqual(completion.completion.values, ["cats"])
        assert.strictEqual((yield* c.listPrompts()).prompts[0]!.name, "p")
        assert.strictEqual((yield* c.listResources()).resources[0]!.uri, "test://a")
        assert.strictEqual((yield* c.listResourceTemplates()).resourceTemplates[0]!.uriTemplate, "test://{x}")
      }).pipe(Effect.provide(clientLayer(server)))
      assert.deepStrictEqual(server.invalid, [])
    }))
})
