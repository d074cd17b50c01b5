/**
 * The 2025-11-25 wire on Streamable HTTP, beside 2026-07-28 on the same
 * endpoint: initialize and sessions, the utilities, the shim (every round's
 * input requests as server-to-client requests on the request's SSE stream),
 * and bad input. Every message is validated against the official 2025-11-25
 * JSON Schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { RequestState } from "@mrtr/core"
import { PROTOCOL_VERSION_HEADER } from "@mrtr/protocol/Headers"
import { PROTOCOL_VERSION } from "@mrtr/protocol/Meta"
import { LEGACY_SCHEMA_ID, validateWire } from "@mrtr/test-support/wire"
import { Effect, Layer } from "effect"
import { McpServer } from "../src/index.ts"
import { greet, keys, request as modernRequest } from "./fixtures.ts"
import { CAPS, initialize, post, postModern, rpc, sseReader, withLayer, withServer } from "./legacy-helpers.ts"

const legacy = (def: string, value: unknown) => validateWire(def, value, LEGACY_SCHEMA_ID)

/** Posts `message` and returns its SSE reader (the response must be a stream). */
const stream = async (url: string, message: unknown, headers: Record<string, string>) => {
  const response = await post(url, message, headers)
  assert.strictEqual(response.status, 200)
  assert.match(String(response.headers.get("content-type")), /text\/event-stream/)
  return sseReader(response)
}

const answer = (url: string, headers: Record<string, string>, id: unknown, result: unknown) =>
  post(url, { jsonrpc: "2.0", id, result }, headers)

describe("2025-11-25 lifecycle on Streamable HTTP", () => {
  it("initialize negotiates a handshake-era version and opens a session; ping, setLevel and lists answer exactly the legacy shapes", async () => {
    await withServer({}, async (url) => {
      const { headers, result } = await initialize(url)
      legacy("InitializeResult", result)
      assert.strictEqual(result.protocolVersion, "2025-11-25")
      assert.deepStrictEqual(result.serverInfo, { name: "test-server", version: "1.0.0" })
      assert.deepStrictEqual(result.capabilities.resources, { subscribe: true, listChanged: true })
      assert.isUndefined(result.resultType)
      // a 2026-07-28 client offering its version through initialize is counter-offered 2025-11-25
      assert.strictEqual((await initialize(url, {}, "2026-07-28")).result.protocolVersion, "2025-11-25")
      assert.strictEqual((await initialize(url, {}, "2025-06-18")).result.protocolVersion, "2025-06-18")
      for (const [method, params] of [["ping", undefined], ["logging/setLevel", { level: "info" }]] as const) {
        const response = await post(url, rpc(method, params), headers)
        assert.strictEqual(response.status, 200)
        const body = await response.json() as any
        legacy("JSONRPCResultResponse", body)
        assert.deepStrictEqual(body.result, {})
      }
      const bad = await (await post(url, rpc("logging/setLevel", { level: "loud" }), headers)).json() as any
      assert.strictEqual(bad.error.code, -32602)
      const tools = await (await post(url, rpc("tools/list"), headers)).json() as any
      legacy("ListToolsResult", tools.result)
      assert.isUndefined(tools.result.resultType)
      assert.isUndefined(tools.result.ttlMs)
      assert.isUndefined(tools.result._meta)
      const missing = await (await post(url, rpc("resources/read", { uri: "test://nowhere" }), headers)).json() as any
      assert.containSubset(missing.error, { code: -32002, data: { uri: "test://nowhere" } })
      const completion = await (await post(
        url,
        rpc("completion/complete", {
          ref: { type: "ref/prompt", name: "topic" },
          argument: { name: "subject", value: "ca" }
        }),
        headers
      )).json() as any
      legacy("CompleteResult", completion.result)
      assert.deepStrictEqual(completion.result.completion.values, ["cats", "cars"])
    })
  })

  it("the 2026-07-28 wire is unchanged on the same endpoint, before, beside and after a legacy session", async () => {
    await withServer({}, async (url) => {
      const first = await (await postModern(url, modernRequest("tools/list"))).json() as any
      validateWire("ListToolsResult", first.result)
      const { headers } = await initialize(url)
      // a modern request carrying a legacy session id is still served statelessly
      const beside = await (await postModern(url, modernRequest("tools/list"), headers)).json() as any
      assert.deepStrictEqual(beside, { ...first, id: beside.id })
      const init = await postModern(url, modernRequest("initialize"))
      assert.strictEqual(init.status, 404)
      assert.strictEqual(((await init.json()) as any).error.code, -32601)
      // initialize without a claim but with a 2026-07-28 header: the header contradicts the lifecycle
      const mixed = await post(
        url,
        rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } }),
        { [PROTOCOL_VERSION_HEADER]: PROTOCOL_VERSION }
      )
      assert.strictEqual(mixed.status, 400)
      assert.strictEqual(((await mixed.json()) as any).error.code, -32020)
    })
  })

  it("sessions: unknown and ended ids get 404 -32001, DELETE ends a session, a second initialize on a session is refused", async () => {
    await withServer({}, async (url, server) => {
      const unknown = await post(url, rpc("tools/list"), { "mcp-session-id": "no-such-session" })
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual(((await unknown.json()) as any).error.code, -32001)
      const { headers } = await initialize(url)
      const again = await post(
        url,
        rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } }),
        headers
      )
      assert.strictEqual(again.status, 400)
      assert.strictEqual(((await again.json()) as any).error.code, -32600)
      assert.strictEqual((await post(url, rpc("ping"), headers)).status, 200)
      const deleted = await fetch(url, { method: "DELETE", headers })
      assert.strictEqual(deleted.status, 200)
      assert.strictEqual(await Effect.runPromise(server.legacySessions), 0)
      const ended = await post(url, rpc("ping"), headers)
      assert.strictEqual(ended.status, 404)
      assert.strictEqual((await fetch(url, { method: "DELETE", headers })).status, 404)
      const badVersion = await post(url, rpc("ping"), {
        ...(await initialize(url)).headers,
        "mcp-protocol-version": "1999-01-01"
      })
      assert.strictEqual(badVersion.status, 400)
      // a header that is no version at all (not a date) is refused the same way, naming it
      for (const garbage of ["garbage", "latest", "2026-07-28x"]) {
        const refused = await post(url, rpc("ping"), {
          ...(await initialize(url)).headers,
          "mcp-protocol-version": garbage
        })
        assert.strictEqual(refused.status, 400)
        const body = await refused.json() as any
        legacy("JSONRPCErrorResponse", body)
        assert.strictEqual(body.error.message, `Bad Request: Unsupported protocol version: ${garbage}`)
      }
      // GET and DELETE are refused too (the session lives on), and a GET stream that cannot be SSE is refused at once
      const open = (await initialize(url)).headers
      for (const method of ["GET", "DELETE"]) {
        const refused = await fetch(url, {
          method,
          headers: { ...open, accept: "text/event-stream", "mcp-protocol-version": "garbage" },
          signal: AbortSignal.timeout(5_000)
        })
        assert.strictEqual(refused.status, 400)
        assert.strictEqual(
          (await refused.json() as any).error.message,
          "Bad Request: Unsupported protocol version: garbage"
        )
      }
      for (const accept of [undefined, "application/json"]) {
        const refused = await fetch(url, {
          headers: { ...open, ...(accept === undefined ? {} : { accept }) },
          signal: AbortSignal.timeout(5_000)
        })
        assert.strictEqual(refused.status, 406)
        assert.strictEqual((await refused.json() as any).error.code, -32600)
      }
      assert.strictEqual((await post(url, rpc("ping"), open)).status, 200)
    })
  })

  it("a session id is bound to the principal that opened it: another user presenting it finds no session", async () => {
    await withServer({}, async (url) => {
      const alice = { "x-user": "alice" }
      const response = await post(
        url,
        rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "a", version: "1" } }),
        alice
      )
      const session = response.headers.get("mcp-session-id")!
      assert.strictEqual((await post(url, rpc("ping"), { ...alice, "mcp-session-id": session })).status, 200)
      const mallory = await post(url, rpc("ping"), { "x-user": "mallory", "mcp-session-id": session })
      assert.strictEqual(mallory.status, 404)
      assert.strictEqual(((await mallory.json()) as any).error.code, -32001)
      assert.strictEqual(
        (await fetch(url, { method: "DELETE", headers: { "x-user": "mallory", "mcp-session-id": session } })).status,
        404
      )
      assert.strictEqual(
        (await fetch(url, { method: "DELETE", headers: { ...alice, "mcp-session-id": session } })).status,
        200
      )
    }, { principal: (request) => Effect.succeed(request.headers["x-user"]) })
  })

  it(
    "params nested too deeply are -32602 before any handler or digest recurses; subscriptions per session are bounded",
    async () => {
      await withServer({}, async (url) => {
        const { headers } = await initialize(url)
        let deep: unknown = "x"
        for (let i = 0; i < 100; i++) deep = [deep]
        const refused =
          await (await post(url, rpc("tools/call", { name: "fallback", arguments: { extra: deep } }), headers))
            .json() as any
        legacy("JSONRPCErrorResponse", refused)
        assert.strictEqual(refused.error.code, -32602)
        assert.match(refused.error.message, /nested more than 64 levels/)
        const subscribe = async (i: number) => {
          const body = await (await post(url, rpc("resources/subscribe", { uri: `test://r/${i}` }), headers))
            .json() as any
          return body.error?.code ?? 0
        }
        for (let batch = 0; batch < 1000; batch += 100) {
          const codes = await Promise.all(Array.from({ length: 100 }, (_, i) => subscribe(batch + i)))
          assert.isTrue(codes.every((code) => code === 0))
        }
        assert.strictEqual(await subscribe(1000), -32602)
        assert.strictEqual((await post(url, rpc("ping"), headers)).status, 200)
      })
    },
    60_000
  )

  it(
    "what a session keeps is bounded: declarations over 16 KiB, URIs over 2,048 characters, subscriptions over 64 Ki characters are -32602",
    async () => {
      await withServer({}, async (url) => {
        const huge = await (await post(
          url,
          rpc("initialize", {
            protocolVersion: "2025-11-25",
            capabilities: { experimental: { pad: { x: "x".repeat(20_000) } } },
            clientInfo: { name: "raw", version: "1" }
          })
        )).json() as any
        legacy("JSONRPCErrorResponse", huge)
        assert.strictEqual(huge.error.code, -32602)
        assert.match(huge.error.message, /more than 16384 characters/)
        const { headers } = await initialize(url)
        const subscribe = async (uri: string) =>
          (await (await post(url, rpc("resources/subscribe", { uri }), headers)).json() as any).error?.code ?? 0
        assert.strictEqual(await subscribe(`test://r/${"u".repeat(2_100)}`), -32602)
        const codes: Array<number> = []
        for (let i = 0; i < 40; i++) codes.push(await subscribe(`test://r/${i}/${"u".repeat(1_990)}`))
        // 2,000 characters each: 32 fit in 65,536, the 33rd does not.
        assert.isTrue(codes.slice(0, 32).every((code) => code === 0))
        assert.isTrue(codes.slice(32).every((code) => code === -32602))
        assert.strictEqual((await post(url, rpc("ping"), headers)).status, 200)
      })
    },
    60_000
  )

  it("a flood of initialize calls is bounded: the least recently active idle sessions end, the server keeps serving", async () => {
    await withServer({ legacy: { maxSessions: 3 } }, async (url, server) => {
      const sessions = []
      for (let i = 0; i < 12; i++) sessions.push(await initialize(url))
      const alive = []
      for (const { headers } of sessions) alive.push((await post(url, rpc("ping"), headers)).status)
      assert.isTrue(alive.slice(0, 9).every((status) => status === 404))
      assert.deepStrictEqual(alive.slice(9), [200, 200, 200])
      assert.strictEqual(await Effect.runPromise(server.legacySessions), 3)
    })
  })

  it("when every session is busy, initialize is refused with 503 and the busy session keeps working", async () => {
    await withServer({ legacy: { maxSessions: 1 } }, async (url) => {
      const { headers } = await initialize(url)
      const events = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), headers)
      const ask = await events.message()
      const refused = await post(
        url,
        rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } })
      )
      assert.strictEqual(refused.status, 503)
      legacy("JSONRPCErrorResponse", await refused.json())
      await answer(url, headers, ask.id, { action: "accept", content: { name: "Ada" } })
      assert.strictEqual((await events.message()).result.content[0].text, "Hi, Ada!")
      // once it is idle again (its call's fiber has ended), a new client may take its place
      let status = 0
      for (let i = 0; i < 50 && status !== 200; i++) {
        const response = await post(
          url,
          rpc("initialize", {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "y", version: "1" }
          })
        )
        status = response.status
        await response.text()
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 20))
      }
      assert.strictEqual(status, 200)
    })
  })

  it("idle sessions end after the idle timeout", async () => {
    await withServer({ legacy: { sessionIdleTimeout: "200 millis" } }, async (url, server) => {
      const { headers } = await initialize(url)
      await new Promise((resolve) => setTimeout(resolve, 1300))
      await post(url, rpc("tools/list")) // any legacy traffic sweeps
      assert.strictEqual((await post(url, rpc("ping"), headers)).status, 404)
      // memory back to the baseline: no session left
      assert.strictEqual(await Effect.runPromise(server.legacySessions), 0)
    })
  })
})

describe("the legacy shim on Streamable HTTP", () => {
  it("runs an asking tool to completion through server-to-client requests on the request's SSE stream", async () => {
    await withServer({}, async (url) => {
      const { headers } = await initialize(url)
      const events = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), headers)
      const priming = await events.next()
      assert.isDefined(priming?.id)
      assert.strictEqual(priming?.data.trim(), "")
      const ask = await events.message()
      legacy("ElicitRequest", ask)
      assert.containSubset(ask.params, { mode: "form", message: "Your name?" })
      const accepted = await answer(url, headers, ask.id, { action: "accept", content: { name: "Ada" } })
      assert.strictEqual(accepted.status, 202)
      const done = await events.message()
      legacy("JSONRPCResultResponse", done)
      legacy("CallToolResult", done.result)
      assert.deepStrictEqual(done.result, { content: [{ type: "text", text: "Hi, Ada!" }] })
      assert.isUndefined(await events.message())
    })
  })

  it("a 2025-03-26 session gets no empty priming event (older clients cannot parse one); its legs still carry event ids", async () => {
    await withServer({}, async (url) => {
      const { headers, result } = await initialize(url, CAPS, "2025-03-26")
      assert.strictEqual(result.protocolVersion, "2025-03-26")
      const events = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), {
        ...headers,
        "mcp-protocol-version": "2025-03-26"
      })
      const first = await events.next()
      assert.notStrictEqual(first?.data.trim(), "")
      assert.isDefined(first?.id)
      const ask = JSON.parse(first!.data)
      assert.strictEqual(ask.method, "elicitation/create")
      await answer(url, { ...headers, "mcp-protocol-version": "2025-03-26" }, ask.id, {
        action: "accept",
        content: { name: "Ada" }
      })
      assert.strictEqual((await events.message()).result.content[0].text, "Hi, Ada!")
    })
  })

  it("sends every input request of a round at once, before any answer, for as many rounds as the handler asks", async () => {
    await withServer({}, async (url) => {
      const { headers } = await initialize(url)
      const events = await stream(url, rpc("tools/call", { name: "plan", arguments: { city: "Rome" } }), headers)
      const who = await events.message()
      legacy("ElicitRequest", who)
      await answer(url, headers, who.id, { action: "accept", content: { name: "Ada" } })
      // round 2: the sampling and the roots request both arrive before either is answered
      const round2 = [await events.message(), await events.message()]
      const byMethod = Object.fromEntries(round2.map((m) => [m.method, m]))
      legacy("CreateMessageRequest", byMethod["sampling/createMessage"])
      legacy("ListRootsRequest", byMethod["roots/list"])
      await answer(url, headers, byMethod["roots/list"].id, { roots: [{ uri: "file:///a" }, { uri: "file:///b" }] })
      await answer(url, headers, byMethod["sampling/createMessage"].id, {
        role: "assistant",
        content: { type: "text", text: "See the Colosseum" },
        model: "m"
      })
      const confirm = await events.message()
      assert.strictEqual(confirm.params.message, "Book for Ada?")
      await answer(url, headers, confirm.id, { action: "accept", content: { ok: true } })
      const done = await events.message()
      legacy("CallToolResult", done.result)
      assert.containSubset(done.result.structuredContent, {
        who: "Ada",
        city: "Rome",
        idea: "See the Colosseum",
        roots: 2
      })
    })
  })

  it("responses to unknown ids, duplicates, wrong-kind and malformed answers: ignored or asked again, and the call still completes", async () => {
    await withServer({}, async (url) => {
      const { headers } = await initialize(url)
      assert.strictEqual((await answer(url, headers, "never-sent", { action: "accept" })).status, 202)
      const events = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Yo" } }), headers)
      const first = await events.message()
      // an answer of the wrong kind (a sampling result to an elicitation): the question is asked again
      await answer(url, headers, first.id, { role: "assistant", content: { type: "text", text: "?" }, model: "m" })
      const second = await events.message()
      assert.strictEqual(second.method, "elicitation/create")
      assert.notStrictEqual(second.id, first.id)
      // a duplicate of the first answer, now to an id that is no longer pending: ignored
      assert.strictEqual(
        (await answer(url, headers, first.id, { action: "accept", content: { name: "Eve" } })).status,
        202
      )
      // malformed content: asked again
      await answer(url, headers, second.id, { action: "accept", content: { name: 42 } })
      const third = await events.message()
      assert.strictEqual(third.method, "elicitation/create")
      await answer(url, headers, third.id, { action: "accept", content: { name: "Ada" } })
      await answer(url, headers, third.id, { action: "accept", content: { name: "Duplicate" } })
      const done = await events.message()
      assert.strictEqual(done.result.content[0].text, "Yo, Ada!")
      assert.strictEqual((await post(url, rpc("ping"), headers)).status, 200)
    })
  })

  it("a posted response of the wrong shape is refused with 400 -32600, and the leg it names still takes a good answer", async () => {
    await withServer({}, async (url) => {
      const { headers } = await initialize(url)
      const events = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Yo" } }), headers)
      const ask = await events.message()
      const malformed: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ error: "boom" }, "error must be"],
        [
          { result: { action: "accept", content: { name: "Eve" } }, error: { code: -1, message: "no" } },
          "exactly one of result and error"
        ],
        [{ error: { code: 1.5, message: "x" } }, "error must be"],
        [{ result: "accept" }, "result must be an object"],
        [
          { id: [ask.id], result: { action: "accept", content: { name: "Mallory" } } },
          "id must be a string or an integer"
        ],
        // a method of another type makes it no response, whatever else it carries
        [
          { method: null, params: {}, result: { action: "accept", content: { name: "Mallory" } } },
          "method must be a string"
        ],
        [{ method: 42, result: { action: "accept", content: { name: "Mallory" } } }, "method must be a string"]
      ]
      for (const [members, problem] of malformed) {
        const response = await post(url, { jsonrpc: "2.0", id: ask.id, ...members }, headers)
        assert.strictEqual(response.status, 400)
        const body = await response.json()
        legacy("JSONRPCErrorResponse", body)
        assert.isUndefined(body.id)
        assert.strictEqual(body.error.code, -32600)
        assert.include(body.error.message, problem)
      }
      await answer(url, headers, ask.id, { action: "accept", content: { name: "Ada" } })
      const done = await events.message()
      assert.strictEqual(done.result.content[0].text, "Yo, Ada!")
    })
  })

  it("a JSON-RPC error as a leg's answer ends the request with input_failed, carrying the client's error", async () => {
    await withServer({}, async (url) => {
      const { headers } = await initialize(url)
      const events = await stream(url, rpc("tools/call", { name: "needs_sampling" }), headers)
      const ask = await events.message()
      legacy("CreateMessageRequest", ask)
      const rejected = await post(url, {
        jsonrpc: "2.0",
        id: ask.id,
        error: { code: -1, message: "User rejected sampling" }
      }, headers)
      assert.strictEqual(rejected.status, 202)
      const done = await events.message()
      legacy("JSONRPCErrorResponse", done)
      assert.containSubset(done.error, {
        code: -32603,
        data: {
          reason: "input_failed",
          method: "sampling/createMessage",
          error: { code: -1, message: "User rejected sampling" }
        }
      })
    })
  })

  it("answers that never fit are asked again only up to maxRounds, then the request fails with -32602", async () => {
    await withServer({ maxRounds: 2 }, async (url) => {
      const { headers } = await initialize(url)
      const events = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), headers)
      for (;;) {
        const message = await events.message()
        if (message.method !== "elicitation/create") {
          legacy("JSONRPCErrorResponse", message)
          assert.strictEqual(message.error.code, -32602)
          break
        }
        await answer(url, headers, message.id, { action: "accept", content: { wrong: true } })
      }
      assert.strictEqual((await post(url, rpc("ping"), headers)).status, 200)
    })
  })

  it("a decline reaches the handler as on 2026-07-28 (a tool execution error)", async () => {
    await withServer({}, async (url) => {
      const { headers } = await initialize(url)
      const events = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), headers)
      const ask = await events.message()
      await answer(url, headers, ask.id, { action: "decline" })
      const done = await events.message()
      legacy("CallToolResult", done.result)
      assert.isTrue(done.result.isError)
    })
  })

  it("a URL-mode elicitation carries an elicitationId, and elicitation/complete follows once the handler moves past it", async () => {
    await withServer({}, async (url) => {
      const { headers } = await initialize(url)
      const events = await stream(url, rpc("tools/call", { name: "sign_in" }), headers)
      const login = await events.message()
      legacy("ElicitRequest", login)
      assert.containSubset(login.params, { mode: "url", url: "https://example.com/login" })
      assert.strictEqual(typeof login.params.elicitationId, "string")
      await answer(url, headers, login.id, { action: "accept" })
      const complete = await events.message()
      legacy("ElicitationCompleteNotification", complete)
      assert.strictEqual(complete.params.elicitationId, login.params.elicitationId)
      const name = await events.message()
      assert.strictEqual(name.params.mode, "form")
      await answer(url, headers, name.id, { action: "accept", content: { name: "Ada" } })
      assert.strictEqual((await events.message()).result.content[0].text, "signed in as Ada")
    })
  })

  it("capabilities come from initialize: an undeclared ask is the tool's error result (a prompt's structured error), and a handler may catch it and fall back", async () => {
    await withServer({}, async (url) => {
      const { headers } = await initialize(url, { sampling: {} })
      // a tool: an isError result the model reads, naming what the client lacks
      const tool = await (await post(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), headers))
        .json() as any
      legacy("JSONRPCResultResponse", tool)
      legacy("CallToolResult", tool.result)
      assert.isTrue(tool.result.isError)
      assert.include(tool.result.content[0].text, "did not declare (elicitation.form)")
      // a prompt has no error result: a JSON-RPC error with the capabilities
      const refused =
        await (await post(url, rpc("prompts/get", { name: "topic", arguments: { subject: "cats" } }), headers))
          .json() as any
      legacy("JSONRPCErrorResponse", refused)
      assert.containSubset(refused.error, {
        code: -32600,
        data: { reason: "client_capability_missing", requiredCapabilities: { elicitation: {} } }
      })
      assert.include(refused.error.message, "did not declare in initialize (elicitation.form)")
      const fallback = await (await post(url, rpc("tools/call", { name: "fallback" }), headers)).json() as any
      assert.strictEqual(fallback.result.content[0].text, "hello stranger")
    })
  })

  it("a round that cannot be delivered fails at once: no SSE accepted, or a request outside any session", async () => {
    await withServer({ legacy: { inputTimeout: "10 minutes" } }, async (url) => {
      const { headers } = await initialize(url)
      const json = await post(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), {
        ...headers,
        accept: "application/json"
      })
      const body = await json.json() as any
      legacy("JSONRPCErrorResponse", body)
      assert.containSubset(body.error, { code: -32600, data: { reason: "input_undeliverable" } })
      const outside = await (await post(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } })))
        .json() as any
      assert.containSubset(outside.error, { code: -32600, data: { reason: "input_undeliverable" } })
      // a legacy request outside any session is otherwise served
      const tools = await (await post(url, rpc("tools/list"))).json() as any
      legacy("ListToolsResult", tools.result)
    })
  })

  it("in JSON response mode (HttpTransport jsonResponse) a round fails at once, since no request can travel in a JSON body", async () => {
    await withServer({ legacy: { inputTimeout: "10 minutes" } }, async (url) => {
      const { headers } = await initialize(url)
      const response = await post(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), headers)
      assert.match(String(response.headers.get("content-type")), /application\/json/)
      const body = await response.json() as any
      legacy("JSONRPCErrorResponse", body)
      assert.containSubset(body.error, { code: -32600, data: { reason: "input_undeliverable" } })
      // what needs no input is served as usual
      const plain =
        await (await post(url, rpc("tools/call", { name: "progress", _meta: { progressToken: 1 } }), headers))
          .json() as any
      assert.strictEqual(plain.result.content[0].text, "done")
    }, { jsonResponse: true })
  })

  it("the request's stream closing interrupts the handler and withdraws its pending leg", async () => {
    await withServer({ legacy: { maxPendingInputs: 1 } }, async (url) => {
      const { headers } = await initialize(url)
      const first = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), headers)
      const ask = await first.message()
      assert.strictEqual(ask.method, "elicitation/create")
      await first.cancel()
      // the one pending slot is free again: the next call gets its leg instead of too_many_pending_inputs
      let next: any
      for (let i = 0; i < 50; i++) {
        const response = await post(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Yo" } }), headers)
        if (response.headers.get("content-type")?.includes("text/event-stream")) {
          next = sseReader(response)
          break
        }
        await response.text()
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      assert.isDefined(next)
      const again = await next.message()
      await answer(url, headers, again.id, { action: "accept", content: { name: "Bo" } })
      assert.strictEqual((await next.message()).result.content[0].text, "Yo, Bo!")
    })
  })

  it("a client that never answers: the leg times out, is cancelled, the request ends with a structured error, the server keeps serving", async () => {
    await withServer({ legacy: { inputTimeout: "300 millis" } }, async (url) => {
      const { headers } = await initialize(url)
      const events = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), headers)
      const ask = await events.message()
      const cancelled = await events.message()
      legacy("CancelledNotification", cancelled)
      assert.strictEqual(cancelled.params.requestId, ask.id)
      const done = await events.message()
      legacy("JSONRPCErrorResponse", done)
      assert.containSubset(done.error, { code: -32603, data: { reason: "input_timeout", key: "name" } })
      assert.strictEqual(
        (await answer(url, headers, ask.id, { action: "accept", content: { name: "late" } })).status,
        202
      )
      assert.strictEqual((await post(url, rpc("ping"), headers)).status, 200)
    })
  })

  it("the rounds run from the journal in process: neither the codec's ttl nor a single-use guard that cannot answer stops a call", async () => {
    // A ttl far shorter than the time the user takes, and single use on through a guard that is always unavailable
    // (a Redis down): the state of a 2025-11-25 call never leaves the server, so nothing is sealed or redeemed.
    let redemptions = 0
    const unavailable = Layer.succeed(
      RequestState.ReplayGuard,
      RequestState.ReplayGuard.of({
        redeem: () => {
          redemptions++
          return Effect.fail(new RequestState.ReplayGuardUnavailable({ store: "test", reason: "down" }))
        }
      })
    )
    const layer = McpServer.tools(greet).pipe(
      Layer.provideMerge(McpServer.layer({
        name: "short-ttl",
        version: "1",
        requestState: {
          keyRing: RequestState.KeyRing.fromBytes(keys.map((bytes) => ({ bytes }))),
          ttl: "200 millis",
          singleUse: true
        },
        // the guard single use redeems through is one of the shared services (the later Layer wins)
        shared: Layer.merge(McpServer.layerLocal(), unavailable)
      })),
      Layer.orDie
    )
    await withLayer(layer, async (url) => {
      const { headers } = await initialize(url)
      const events = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), headers)
      const ask = await events.message()
      await new Promise((resolve) => setTimeout(resolve, 500))
      await answer(url, headers, ask.id, { action: "accept", content: { name: "Ada" } })
      const done = await events.message()
      legacy("JSONRPCResultResponse", done)
      assert.strictEqual(done.result.content[0].text, "Hi, Ada!")
      assert.strictEqual(redemptions, 0)
      // the same server's 2026-07-28 retries still go through the guard (and are refused while it is down)
      const first =
        await (await postModern(url, modernRequest("tools/call", { name: "greet", arguments: { greeting: "Hi" } })))
          .json() as any
      const retry = await (await postModern(
        url,
        modernRequest("tools/call", {
          name: "greet",
          arguments: { greeting: "Hi" },
          inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
          requestState: first.result.requestState
        })
      )).json() as any
      assert.strictEqual(retry.error.code, -32603)
      assert.strictEqual(redemptions, 1)
    })
  })

  it("pending legs per session are bounded", async () => {
    await withServer({ legacy: { maxPendingInputs: 1 } }, async (url) => {
      const { headers } = await initialize(url)
      const first = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), headers)
      const ask = await first.message()
      const second =
        await (await post(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), headers))
          .json() as any
      assert.containSubset(second.error, { code: -32600, data: { reason: "too_many_pending_inputs" } })
      await answer(url, headers, ask.id, { action: "accept", content: { name: "Ada" } })
      assert.strictEqual((await first.message()).result.content[0].text, "Hi, Ada!")
    })
  })

  it("notifications/cancelled interrupts the handler and its pending legs", async () => {
    await withServer({}, async (url) => {
      const { headers } = await initialize(url)
      const call = rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } })
      const events = await stream(url, call, headers)
      const ask = await events.message()
      const cancel = await post(url, {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: call.id }
      }, headers)
      assert.strictEqual(cancel.status, 202)
      // the stream ends without a response; the leg is withdrawn (its late answer is ignored)
      const rest = []
      for (let m = await events.message(); m !== undefined; m = await events.message()) rest.push(m)
      assert.isTrue(rest.every((m) => m.method === "notifications/cancelled" && m.params.requestId === ask.id))
      assert.strictEqual(
        (await answer(url, headers, ask.id, { action: "accept", content: { name: "late" } })).status,
        202
      )
      // the session serves the next call
      const next = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Yo" } }), headers)
      const again = await next.message()
      await answer(url, headers, again.id, { action: "accept", content: { name: "Bo" } })
      assert.strictEqual((await next.message()).result.content[0].text, "Yo, Bo!")
    })
  })

  it("a stream the server closes mid-call (SEP-1699) resumes on a GET with its Last-Event-ID: the pending leg, then the result", async () => {
    await withServer({}, async (url) => {
      const { headers } = await initialize(url)
      const post1 = await stream(url, rpc("tools/call", { name: "reconnect" }), headers)
      const priming = await post1.next()
      assert.strictEqual(priming?.data.trim(), "")
      assert.match(String(priming?.id), /\.0$/)
      assert.isUndefined(await post1.next()) // the server closed the connection, not the call
      const get = await fetch(url, {
        headers: {
          ...headers,
          accept: "text/event-stream",
          "mcp-protocol-version": "2025-11-25",
          "last-event-id": priming!.id!
        }
      })
      assert.strictEqual(get.status, 200)
      const resumed = sseReader(get)
      const askEvent = await resumed.next()
      const ask = JSON.parse(askEvent!.data)
      legacy("ElicitRequest", ask)
      assert.notStrictEqual(askEvent!.id, priming!.id)
      await answer(url, headers, ask.id, { action: "accept", content: { name: "Ada" } })
      const done = await resumed.message()
      legacy("JSONRPCResultResponse", done)
      assert.strictEqual(done.result.content[0].text, "reconnected as Ada")
      assert.isUndefined(await resumed.message())
    })
  })

  it("a GET resuming a POST stream that is still open takes it over: the call goes on and its result comes on the GET", async () => {
    await withServer({}, async (url) => {
      const { headers } = await initialize(url)
      const post1 = await stream(url, rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } }), headers)
      await post1.next() // priming
      const asked = await post1.next()
      const ask = JSON.parse(asked!.data)
      assert.strictEqual(ask.method, "elicitation/create")
      // the client believes its POST stream broke (it is still open) and resumes it
      const getting = fetch(url, {
        headers: {
          ...headers,
          accept: "text/event-stream",
          "mcp-protocol-version": "2025-11-25",
          "last-event-id": asked!.id!
        }
      })
      // the POST connection gets no more messages
      assert.isUndefined(await post1.next())
      await answer(url, headers, ask.id, { action: "accept", content: { name: "Ada" } })
      const get = await getting
      assert.strictEqual(get.status, 200)
      const resumed = sseReader(get)
      const done = await resumed.message()
      legacy("JSONRPCResultResponse", done)
      assert.strictEqual(done.result.content[0].text, "Hi, Ada!")
      assert.isUndefined(await resumed.message())
    })
  })

  it("a Last-Event-ID of a POST stream the server no longer holds (its connection closed, cancelling the call) fails that request at once; after its marker: 405", async () => {
    await withServer({}, async (url) => {
      const { headers } = await initialize(url)
      const call = rpc("tools/call", { name: "greet", arguments: { greeting: "Hi" } })
      const first = await stream(url, call, headers)
      await first.next() // priming
      const asked = await first.next()
      assert.strictEqual(JSON.parse(asked!.data).method, "elicitation/create")
      await first.cancel()
      await new Promise((resolve) => setTimeout(resolve, 100))
      const resume = (lastEventId: string) =>
        fetch(url, {
          headers: {
            ...headers,
            accept: "text/event-stream",
            "mcp-protocol-version": "2025-11-25",
            "last-event-id": lastEventId
          }
        })
      const get = await resume(asked!.id!)
      assert.strictEqual(get.status, 200)
      const lost = sseReader(get)
      const event = await lost.next()
      assert.strictEqual(event!.id, `${asked!.id!.slice(0, asked!.id!.lastIndexOf("."))}.lost`)
      const error = JSON.parse(event!.data)
      legacy("JSONRPCErrorResponse", error)
      assert.strictEqual(error.id, call.id)
      assert.strictEqual(error.error.code, -32603)
      assert.strictEqual(error.error.data.reason, "stream_ended")
      assert.isUndefined(await lost.next())
      assert.strictEqual((await resume(event!.id!)).status, 405)
    })
  })

  it("the GET stream carries list changes and resource updates with event ids, and resumes after Last-Event-ID", async () => {
    await withServer({}, async (url, server) => {
      const { headers } = await initialize(url)
      await post(url, rpc("resources/subscribe", { uri: "test://readme" }), headers)
      const get = await fetch(url, {
        headers: { ...headers, accept: "text/event-stream", "mcp-protocol-version": "2025-11-25" }
      })
      assert.strictEqual(get.status, 200)
      const events = sseReader(get)
      const priming = await events.next()
      assert.isDefined(priming?.id)
      await Effect.runPromise(server.removeTool("fails"))
      const changed = await events.next()
      legacy("ToolListChangedNotification", JSON.parse(changed!.data))
      await Effect.runPromise(server.resourceUpdated("test://readme"))
      const updated = await events.next()
      legacy("ResourceUpdatedNotification", JSON.parse(updated!.data))
      assert.strictEqual(JSON.parse(updated!.data).params.uri, "test://readme")
      assert.strictEqual(new Set([priming!.id, changed!.id, updated!.id]).size, 3)
      // a second GET stream on the same session is refused while the first is open
      assert.strictEqual((await fetch(url, { headers: { ...headers, accept: "text/event-stream" } })).status, 409)
      await events.cancel()
      await new Promise((resolve) => setTimeout(resolve, 100))
      const resumed = await fetch(url, {
        headers: { ...headers, accept: "text/event-stream", "last-event-id": changed!.id! }
      })
      assert.strictEqual(resumed.status, 200)
      const replay = sseReader(resumed)
      const first = await replay.next()
      assert.strictEqual(first?.id, updated!.id)
      assert.strictEqual(JSON.parse(first!.data).method, "notifications/resources/updated")
      await replay.cancel()
      assert.isTrue(CAPS.roots.listChanged)
    })
  })
})
