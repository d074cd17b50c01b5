/**
 * `McpClient` against a 2025-11-25 server it did not write: the official
 * TypeScript SDK v1 (`@modelcontextprotocol/sdk` 1.x) over sessionful
 * Streamable HTTP and over stdio, whose tools elicit, sample and list roots
 * in flight. The client detects the era (`protocol: "auto"`), initializes,
 * and answers every server request with the same handler Layers that answer
 * `inputRequests` on 2026-07-28, under keys derived as the server's engine
 * derives them. Every message the client POSTs is validated against the
 * official 2025-11-25 JSON Schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { LEGACY_SCHEMA_ID, validateWire } from "@mrtr/test-support/wire"
import { Effect, Fiber, Layer, Ref, SubscriptionRef } from "effect"
import { fileURLToPath } from "node:url"
import * as ElicitationHandler from "../src/ElicitationHandler.ts"
import * as Errors from "../src/Errors.ts"
import * as HttpTransport from "../src/HttpTransport.ts"
import type { InputContext } from "../src/InputContext.ts"
import * as McpClient from "../src/McpClient.ts"
import * as RootsHandler from "../src/RootsHandler.ts"
import * as SamplingHandler from "../src/SamplingHandler.ts"
import * as StdioTransport from "../src/StdioTransport.ts"
import { listen, type Received } from "./v1-server.ts"

const fixture = fileURLToPath(new URL("./v1-server.ts", import.meta.url))

/** What the handlers were asked: kind, derived key, the call's method and target. */
type Asked = { readonly kind: string; readonly key: string; readonly method: string; readonly target: string }

const userLayer = (asked: Ref.Ref<ReadonlyArray<Asked>>, options: { readonly sampling?: boolean } = {}) => {
  const record = (kind: string, context: InputContext) =>
    Ref.update(asked, (all) => [...all, { kind, key: context.key, method: context.method, target: context.target }])
  const names = ["Alice", "Bob"]
  let n = 0
  const elicitation = ElicitationHandler.layer({
    form: (_params, context) =>
      record("form", context).pipe(Effect.as(ElicitationHandler.accept({ name: names[n++ % names.length]! }))),
    url: (_params, context) => record("url", context).pipe(Effect.as(ElicitationHandler.accept()))
  })
  const sampling = SamplingHandler.layer({
    createMessage: (_params, context) =>
      record("sampling", context).pipe(Effect.as({
        role: "assistant" as const,
        content: { type: "text" as const, text: "Paris" },
        model: "test-model"
      }))
  })
  const roots = RootsHandler.layer((context) =>
    record("roots", context).pipe(Effect.as([{ uri: "file:///work", name: "work" }, { uri: "file:///tmp" }]))
  )
  return options.sampling === false ? Layer.mergeAll(elicitation, roots) : Layer.mergeAll(elicitation, sampling, roots)
}

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

/** The `$defs` entry of each request the client sends on the 2025-11-25 wire. */
const requestDefs: Record<string, string> = {
  initialize: "InitializeRequest",
  "notifications/initialized": "InitializedNotification",
  "tools/call": "CallToolRequest",
  "tools/list": "ListToolsRequest",
  "notifications/cancelled": "CancelledNotification",
  "notifications/roots/list_changed": "RootsListChangedNotification"
}

/** The result `$defs` entry of the answer to each server request. */
const resultDefs: Record<string, string> = {
  "elicitation/create": "ElicitResult",
  "sampling/createMessage": "CreateMessageResult",
  "roots/list": "ListRootsResult",
  ping: "EmptyResult"
}

/**
 * Validates every POST after the probe against the 2025-11-25 schema: the
 * envelope (`JSONRPCMessage`), requests by method, and each response's
 * result by the method of the server request it answers (`serverMethods`).
 */
const validateLegacyWire = (received: ReadonlyArray<Received>, serverMethods: ReadonlyMap<unknown, string>) => {
  const posts = received.filter((r) => r.httpMethod === "POST").map((r) => r.body as Record<string, any>)
  assert.strictEqual(posts[0]!.method, "server/discover")
  let checked = 0
  for (const message of posts.slice(1)) {
    validateWire("JSONRPCMessage", message, LEGACY_SCHEMA_ID)
    if (typeof message.method === "string") {
      const def = requestDefs[message.method]
      assert.isDefined(def, `unexpected method ${message.method}`)
      validateWire(def!, message, LEGACY_SCHEMA_ID)
      // no 2026-07-28 metadata on the legacy wire
      assert.notProperty(message.params?._meta ?? {}, "io.modelcontextprotocol/protocolVersion")
    } else if ("result" in message) {
      const method = serverMethods.get(message.id)
      if (method !== undefined) validateWire(resultDefs[method]!, message.result, LEGACY_SCHEMA_ID)
    }
    checked++
  }
  return checked
}

describe("McpClient against the official v1 SDK server (2025-11-25)", () => {
  it.live(
    "HTTP: detects the legacy era, initializes, answers every in-flight request with the same handlers",
    () =>
      Effect.gen(function*() {
        const server = yield* Effect.acquireRelease(Effect.promise(() => listen()), (s) => Effect.promise(s.close))
        const asked = yield* Ref.make<ReadonlyArray<Asked>>([])
        const results = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const connection = yield* client.connection
          const greet = yield* client.callTool({ name: "greet" })
          const twoNames = yield* client.callTool({ name: "two_names" })
          const capital = yield* client.callTool({ name: "capital" })
          const roots = yield* client.callTool({ name: "roots" })
          const elsewhere = yield* client.callTool({ name: "roots_elsewhere" })
          const reported = yield* Ref.make<ReadonlyArray<McpClient.ServerRequest>>([])
          const everything = yield* client.callTool({ name: "everything" }, {
            onServerRequest: (request) => Ref.update(reported, (all) => [...all, request])
          })
          const seen = yield* Ref.get(reported)
          assert.sameMembers(seen.map((r) => `${r.key}:${r.request.method}`), [
            "elicitation-1:elicitation/create",
            "sampling-1:sampling/createMessage",
            "roots-1:roots/list"
          ])
          assert.isTrue(seen.every((r) => r.method === "tools/call" && r.target === "everything"))
          assert.deepStrictEqual(seen.find((r) => r.key === "roots-1")!.response, {
            roots: [{ uri: "file:///work", name: "work" }, { uri: "file:///tmp" }]
          })
          const consent = yield* client.callTool({ name: "consent" })
          const ping = yield* client.callTool({ name: "ping_client" })
          const discovered = yield* client.discover()
          const { tools } = yield* client.listTools()
          return {
            connection,
            greet,
            twoNames,
            capital,
            roots,
            elsewhere,
            everything,
            consent,
            ping,
            discovered,
            tools
          }
        }).pipe(
          Effect.provide(
            McpClient.layer().pipe(
              Layer.provide(HttpTransport.layerNode({ url: server.url })),
              Layer.provide(userLayer(asked))
            )
          )
        )
        assert.deepStrictEqual(results.connection.era, "2025-11-25")
        assert.strictEqual(results.connection.protocolVersion, "2025-11-25")
        assert.strictEqual(results.connection.serverInfo?.name, "v1-fixture")
        assert.strictEqual(textOf(results.greet), "Hello, Alice!")
        assert.strictEqual(textOf(results.twoNames), "Bob and Alice")
        assert.strictEqual(textOf(results.capital), "test-model said: Paris")
        assert.strictEqual(textOf(results.roots), "file:///work,file:///tmp")
        assert.strictEqual(textOf(results.elsewhere), "file:///work,file:///tmp")
        assert.strictEqual(textOf(results.everything), "Bob|Paris|2")
        assert.strictEqual(textOf(results.consent), "consent: accept")
        assert.strictEqual(textOf(results.ping), "pong")
        assert.deepStrictEqual(results.discovered.supportedVersions, ["2025-11-25"])
        assert.isTrue(results.tools.some((tool) => tool.name === "everything"))

        // keys as the server's engine derives them: per kind, in arrival order, within the call
        const all = yield* Ref.get(asked)
        const of = (target: string) => all.filter((a) => a.target === target).map((a) => `${a.kind}:${a.key}`)
        assert.deepStrictEqual(of("greet"), ["form:elicitation-1"])
        assert.deepStrictEqual(of("two_names"), ["form:elicitation-1", "form:elicitation-2"])
        assert.deepStrictEqual(of("capital"), ["sampling:sampling-1"])
        assert.deepStrictEqual(of("roots"), ["roots:roots-1"])
        // on the GET stream, attributed to the one call in flight
        assert.deepStrictEqual(of("roots_elsewhere"), ["roots:roots-1"])
        assert.sameMembers(of("everything"), ["form:elicitation-1", "sampling:sampling-1", "roots:roots-1"])
        assert.deepStrictEqual(of("consent"), ["url:elicitation-1"])
        assert.isTrue(all.every((a) => a.method === "tools/call"))

        // the wire: probe, initialize without a session, then the session id and version on everything
        const posts = server.received.filter((r) => r.httpMethod === "POST")
        assert.strictEqual((posts[1]!.body as any).method, "initialize")
        assert.isUndefined(posts[1]!.headers["mcp-session-id"])
        assert.strictEqual((posts[2]!.body as any).method, "notifications/initialized")
        for (const post of posts.slice(2)) {
          assert.isString(post.headers["mcp-session-id"])
          assert.strictEqual(post.headers["mcp-protocol-version"], "2025-11-25")
        }
        assert.isTrue(server.received.some((r) => r.httpMethod === "GET"), "the GET stream was opened")
        // the session is ended when the client closes
        const deleted = server.received.filter((r) => r.httpMethod === "DELETE")
        assert.strictEqual(deleted.length, 1)
        assert.strictEqual(deleted[0]!.headers["mcp-session-id"], posts[2]!.headers["mcp-session-id"])
        assert.strictEqual(server.sessions.size, 0)
        // every answer the server got is a valid 2025-11-25 result of its kind (ids the server used)
        const serverMethods = new Map<unknown, string>()
        const answers = posts.map((p) => p.body as Record<string, any>).filter((m) => "result" in m || "error" in m)
        assert.isAtLeast(answers.length, 11)
        // the SDK numbers its requests from 0 per session: pair answers with the kinds asked, in order
        for (const message of answers) {
          const result = message.result ?? {}
          const method = "action" in result
            ? "elicitation/create"
            : "model" in result
            ? "sampling/createMessage"
            : "roots" in result
            ? "roots/list"
            : "ping"
          serverMethods.set(message.id, method)
        }
        assert.isAtLeast(validateLegacyWire(server.received, serverMethods), 20)
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "HTTP: a request with no handler is refused at once with -32601; roots changes send roots/list_changed",
    () =>
      Effect.gen(function*() {
        const server = yield* Effect.acquireRelease(Effect.promise(() => listen()), (s) => Effect.promise(s.close))
        const asked = yield* Ref.make<ReadonlyArray<Asked>>([])
        const roots = yield* SubscriptionRef.make<ReadonlyArray<{ readonly uri: string }>>([{ uri: "file:///a" }])
        const { after, before, refused } = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const started = Date.now()
          const refused = yield* client.callTool({ name: "sample_anyway" })
          const elapsed = Date.now() - started
          const before = yield* client.callTool({ name: "roots_changes" })
          yield* SubscriptionRef.set(roots, [{ uri: "file:///b" }])
          yield* SubscriptionRef.set(roots, [{ uri: "file:///c" }])
          let after = before
          for (let i = 0; i < 50 && textOf(after) !== "2"; i++) {
            yield* Effect.sleep("20 millis")
            after = yield* client.callTool({ name: "roots_changes" })
          }
          return { refused: { text: textOf(refused), elapsed }, before, after }
        }).pipe(
          Effect.provide(
            McpClient.layer({ protocol: "2025-11-25" }).pipe(
              Layer.provide(HttpTransport.layerNode({ url: server.url })),
              Layer.provide(
                Layer.merge(userLayer(asked, { sampling: false }), RootsHandler.layerSubscriptionRef(roots))
              )
            )
          )
        )
        assert.strictEqual(refused.text, "refused: -32601")
        assert.isBelow(refused.elapsed, 5_000)
        assert.strictEqual(textOf(before), "0")
        assert.strictEqual(textOf(after), "2")
        // pinned to 2025-11-25: no probe; initialize declared what the handlers can do
        const posts = server.received.filter((r) => r.httpMethod === "POST").map((r) => r.body as Record<string, any>)
        assert.strictEqual(posts[0]!.method, "initialize")
        validateWire("InitializeRequest", posts[0], LEGACY_SCHEMA_ID)
        assert.deepStrictEqual(posts[0]!.params.capabilities, {
          roots: { listChanged: true },
          elicitation: { form: {}, url: {} }
        })
        const changed = posts.filter((m) => m.method === "notifications/roots/list_changed")
        assert.strictEqual(changed.length, 2)
        for (const message of changed) validateWire("RootsListChangedNotification", message, LEGACY_SCHEMA_ID)
      }).pipe(Effect.scoped),
    30_000
  )

  it.live("stdio: the same handlers answer the v1 server's requests on stdout", () =>
    Effect.gen(function*() {
      const asked = yield* Ref.make<ReadonlyArray<Asked>>([])
      const results = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const connection = yield* client.connection
        const greet = yield* client.callTool({ name: "greet" })
        const everything = yield* client.callTool({ name: "everything" })
        const elsewhere = yield* client.callTool({ name: "roots_elsewhere" })
        const ping = yield* client.callTool({ name: "ping_client" })
        const refused = yield* client.callTool({ name: "sample_anyway" }).pipe(
          Effect.provide(SamplingHandler.layer({
            createMessage: () =>
              Effect.succeed({ role: "assistant" as const, content: { type: "text" as const, text: "x" }, model: "m" })
          }))
        )
        return { connection, greet, everything, elsewhere, ping, refused }
      }).pipe(
        Effect.provide(
          McpClient.layer().pipe(
            Layer.provide(StdioTransport.layerNode({
              command: process.execPath,
              args: [...sourceNodeArgs, fixture, "--stdio"],
              shutdownTimeout: "500 millis"
            })),
            Layer.provide(userLayer(asked))
          )
        )
      )
      assert.strictEqual(results.connection.era, "2025-11-25")
      assert.strictEqual(textOf(results.greet), "Hello, Alice!")
      assert.strictEqual(textOf(results.everything), "Bob|Paris|2")
      assert.strictEqual(textOf(results.elsewhere), "file:///work,file:///tmp")
      assert.strictEqual(textOf(results.ping), "pong")
      assert.strictEqual(textOf(results.refused), "answered")
      const all = yield* Ref.get(asked)
      const of = (target: string) => all.filter((a) => a.target === target).map((a) => a.key)
      assert.deepStrictEqual(of("greet"), ["elicitation-1"])
      assert.sameMembers(of("everything"), ["elicitation-1", "sampling-1", "roots-1"])
      assert.deepStrictEqual(of("roots_elsewhere"), ["roots-1"])
    }), 30_000)

  it.live(
    "stdio: a question that arrives after its call was abandoned goes to no other call in flight; the server gets -32600",
    () =>
      Effect.gen(function*() {
        const asked = yield* Ref.make<ReadonlyArray<string>>([])
        const answering = (who: string) =>
          ElicitationHandler.layer({
            form: (params) =>
              Ref.update(asked, (all) => [...all, `${who}: ${params.message}`]).pipe(
                Effect.as(ElicitationHandler.accept({ name: who }))
              )
          })
        const { late, waited } = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          yield* client.connection
          // A: abandoned before its server asks (300 ms in)
          const abandoned = yield* client.callTool({ name: "ask_late" }).pipe(
            Effect.provide(answering("a")),
            Effect.timeoutOption("100 millis")
          )
          assert.isTrue(abandoned._tag === "None")
          // B: the only call whose caller still waits when A's question arrives
          const b = yield* client.callTool({ name: "wait" }).pipe(Effect.provide(answering("b")), Effect.forkChild)
          let late = "none"
          for (let i = 0; i < 100 && late === "none"; i++) {
            yield* Effect.sleep("50 millis")
            if (i < 10) continue // B alone in flight for the first half second
            late = textOf(yield* client.callTool({ name: "late_outcome" }))
          }
          yield* Fiber.interrupt(b)
          return { late, waited: b }
        }).pipe(
          Effect.provide(
            McpClient.layer({ capabilities: { elicitation: { form: {} } } }).pipe(
              Layer.provide(StdioTransport.layerNode({
                command: process.execPath,
                args: [...sourceNodeArgs, fixture, "--stdio"],
                shutdownTimeout: "500 millis"
              }))
            )
          )
        )
        assert.isDefined(waited)
        assert.deepStrictEqual(yield* Ref.get(asked), [])
        assert.strictEqual(late, "error -32600")
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "HTTP: a failing handler fails the call with InputHandlerError; the server gets -32603 and the call is cancelled",
    () =>
      Effect.gen(function*() {
        const server = yield* Effect.acquireRelease(Effect.promise(() => listen()), (s) => Effect.promise(s.close))
        const failing = ElicitationHandler.layer({
          form: (_params, context) =>
            Effect.fail(
              new Errors.InputHandlerError({ kind: "elicitation", key: context.key, reason: "the user left" })
            )
        })
        const { error, lastError } = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const error = yield* client.callTool({ name: "greet_or_error" }).pipe(Effect.flip)
          let lastError = "none"
          for (let i = 0; i < 50 && lastError === "none"; i++) {
            lastError = textOf(yield* client.callTool({ name: "last_error" }))
            if (lastError === "none") yield* Effect.sleep("20 millis")
          }
          return { error, lastError }
        }).pipe(
          Effect.provide(
            McpClient.layer().pipe(Layer.provide(HttpTransport.layerNode({ url: server.url })), Layer.provide(failing))
          )
        )
        assert.strictEqual(error._tag, "InputHandlerError")
        assert.include(error.message, "the user left")
        assert.include(error.message, "elicitation-1")
        assert.strictEqual(lastError, "-32603")
        const posts = server.received.filter((r) => r.httpMethod === "POST").map((r) => r.body as Record<string, any>)
        const call = posts.find((m) => m.method === "tools/call" && m.params.name === "greet_or_error")!
        const cancelled = posts.find((m) => m.method === "notifications/cancelled")
        assert.isDefined(cancelled)
        assert.strictEqual(cancelled!.params.requestId, call.id)
        validateWire("CancelledNotification", cancelled, LEGACY_SCHEMA_ID)
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "HTTP: interrupting a call sends notifications/cancelled, which the server honours",
    () =>
      Effect.gen(function*() {
        const server = yield* Effect.acquireRelease(Effect.promise(() => listen()), (s) => Effect.promise(s.close))
        const asked = yield* Ref.make<ReadonlyArray<Asked>>([])
        const count = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const waited = yield* client.callTool({ name: "wait" }).pipe(Effect.timeoutOption("300 millis"))
          assert.isTrue(waited._tag === "None")
          let count = "0"
          for (let i = 0; i < 50 && count === "0"; i++) {
            count = textOf(yield* client.callTool({ name: "cancellations" }))
            if (count === "0") yield* Effect.sleep("20 millis")
          }
          return count
        }).pipe(
          Effect.provide(
            McpClient.layer().pipe(
              Layer.provide(HttpTransport.layerNode({ url: server.url })),
              Layer.provide(userLayer(asked))
            )
          )
        )
        assert.strictEqual(count, "1")
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "HTTP: a session the server no longer knows (404) is initialized again and the request re-sent",
    () =>
      Effect.gen(function*() {
        const server = yield* Effect.acquireRelease(Effect.promise(() => listen()), (s) => Effect.promise(s.close))
        const asked = yield* Ref.make<ReadonlyArray<Asked>>([])
        const [first, second] = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const first = yield* client.callTool({ name: "greet" })
          // the server forgets every session (a restart)
          yield* Effect.promise(async () => {
            for (const transport of [...server.sessions.values()]) await transport.close()
          })
          // two calls at once find the session gone: one new session serves both
          const second = yield* Effect.all([client.callTool({ name: "greet" }), client.callTool({ name: "greet" })], {
            concurrency: "unbounded"
          })
          return [first, second] as const
        }).pipe(
          Effect.provide(
            McpClient.layer().pipe(
              Layer.provide(HttpTransport.layerNode({ url: server.url })),
              Layer.provide(userLayer(asked))
            )
          )
        )
        assert.strictEqual(textOf(first), "Hello, Alice!")
        assert.sameMembers(second.map(textOf), ["Hello, Bob!", "Hello, Alice!"])
        const initializes = server.received.filter((r) => (r.body as any)?.method === "initialize")
        assert.strictEqual(initializes.length, 2)
        assert.isUndefined(initializes[1]!.headers["mcp-session-id"])
        // two 404s for requests carrying the old id; the retries carry the new one
        const calls = server.received.filter((r) => (r.body as any)?.method === "tools/call")
        assert.strictEqual(calls.length, 5)
        const oldId = calls[0]!.headers["mcp-session-id"]
        assert.deepStrictEqual(calls.slice(1, 3).map((c) => c.headers["mcp-session-id"]), [oldId, oldId])
        const newIds = new Set(calls.slice(3).map((c) => c.headers["mcp-session-id"]))
        assert.strictEqual(newIds.size, 1)
        assert.isFalse(newIds.has(oldId))
      }).pipe(Effect.scoped),
    30_000
  )

  it.live(
    "HTTP, JSON responses: plain answers read as JSON; requests outside a call arrive on the GET stream",
    () =>
      Effect.gen(function*() {
        const server = yield* Effect.acquireRelease(
          Effect.promise(() => listen({ json: true })),
          (s) => Effect.promise(s.close)
        )
        const asked = yield* Ref.make<ReadonlyArray<Asked>>([])
        const { elsewhere, ping, tools } = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const { tools } = yield* client.listTools()
          const elsewhere = yield* client.callTool({ name: "roots_elsewhere" })
          const ping = yield* client.callTool({ name: "ping_client" })
          return { tools, elsewhere, ping }
        }).pipe(
          Effect.provide(
            McpClient.layer().pipe(
              Layer.provide(HttpTransport.layerNode({ url: server.url })),
              Layer.provide(userLayer(asked))
            )
          )
        )
        assert.isTrue(tools.some((tool) => tool.name === "greet"))
        assert.strictEqual(textOf(elsewhere), "file:///work,file:///tmp")
        assert.strictEqual(textOf(ping), "pong")
        assert.deepStrictEqual((yield* Ref.get(asked)).map((a) => `${a.target}:${a.key}`), ["roots_elsewhere:roots-1"])
      }).pipe(Effect.scoped),
    30_000
  )
})
