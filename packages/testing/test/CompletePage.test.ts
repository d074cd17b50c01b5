/**
 * `ScriptedUser.completePage`: the scripted user completes a server's
 * interaction page (the page of `Elicitation.secure`) programmatically over
 * real HTTP (the server's `HttpTransport` on 127.0.0.1 with
 * `InteractionPage.routes` mounted, the client's HTTP transport), so the
 * retry resumes the handler with the value; a consent without completing the
 * page is asked again and reaches `urlWait`; a value the page refuses fails
 * the call with the page's reason. Source: MCP 2026-07-28, client/elicitation (URL mode).
 */
import { assert, describe, it } from "@effect/vitest"
import { HttpTransport as ClientHttp, McpClient } from "@mrtr/client"
import { Elicitation } from "@mrtr/core"
import { HttpTransport, InteractionPage, McpServer, Tool } from "@mrtr/server"
import { Effect, Layer, Schema } from "effect"
import { Recorder, ScriptedUser } from "../src/index.ts"

const connect = Tool.make("connect", {
  parameters: Schema.Struct({}),
  handler: () =>
    Elicitation.secure({
      key: "api_key",
      message: "Paste your Acme API key",
      schema: Schema.Struct({
        api_key: Schema.String.check(Schema.isMinLength(8)),
        plan: Schema.Literals(["free", "pro"]),
        seats: Schema.Int
      })
    }).pipe(Effect.map((v) => `${v.plan} x${v.seats} with ${v.api_key.slice(0, 3)}…`))
})

const interactions = InteractionPage.layer({ singleUser: true })
const server = HttpTransport.layer({ port: 0, mount: InteractionPage.routes }).pipe(
  Layer.provide(
    McpServer.tools(connect).pipe(
      Layer.provide(interactions),
      Layer.provideMerge(McpServer.layer({ name: "acme", version: "1.0.0" }))
    )
  ),
  Layer.provide(interactions)
)

const call = (user: Layer.Layer<any>) =>
  Effect.gen(function*() {
    const url = yield* HttpTransport.url
    return yield* Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* Effect.result(client.callTool({ name: "connect", arguments: {} }))
      return { result, questions: yield* Recorder.questions }
    }).pipe(
      Effect.provide(McpClient.layer().pipe(Layer.provide(ClientHttp.layerNode({ url })), Layer.provideMerge(user)))
    )
  }).pipe(Effect.provide(server))

describe("ScriptedUser.completePage", () => {
  it.live("completes the interaction page; the retry resumes the handler with the value", () =>
    Effect.gen(function*() {
      const { questions, result } = yield* call(ScriptedUser.layer({
        elicitation: {
          modes: ["url"],
          byKey: { api_key: ScriptedUser.completePage({ api_key: "sk-test-12345", plan: "pro", seats: 3 }) }
        }
      }))
      assert.strictEqual(result._tag, "Success")
      if (result._tag === "Success") {
        assert.deepStrictEqual(result.success.content, [{ type: "text", text: "pro x3 with sk-…" }])
      }
      assert.deepStrictEqual(questions.map((q) => q.key), ["api_key"])
      assert.notInclude(JSON.stringify(questions), "sk-test-12345", "the secret never passed through the client")
    }))

  it.live("a consent before the page is completed is asked again; urlWait completes it, then the call resumes", () =>
    Effect.gen(function*() {
      const { questions, result } = yield* call(ScriptedUser.layer({
        elicitation: {
          modes: ["url"],
          byKey: { api_key: ScriptedUser.accept() },
          urlWait: (params, context) =>
            ScriptedUser.completePage({ api_key: "sk-later-12345", plan: "free", seats: 1 })(params, context)
        }
      }))
      assert.strictEqual(result._tag, "Success")
      if (result._tag === "Success") {
        assert.deepStrictEqual(result.success.content, [{ type: "text", text: "free x1 with sk-…" }])
      }
      assert.deepStrictEqual(questions.map((q) => [q.key, q.round]), [["api_key", 1], ["api_key", 2]])
    }))

  it.live("a value the page refuses fails the call with the page's reason", () =>
    Effect.gen(function*() {
      const { result } = yield* call(ScriptedUser.layer({
        elicitation: {
          modes: ["url"],
          otherwise: ScriptedUser.completePage({ api_key: "short", plan: "pro", seats: 1 })
        }
      }))
      assert.strictEqual(result._tag, "Failure")
      if (result._tag === "Failure") {
        assert.include(String(result.failure), "400")
        assert.include(String(result.failure), "must be at least 8 characters")
      }
    }))
})
