/**
 * The HTTP status table (`HttpStatus`) as the official TypeScript client
 * (`@modelcontextprotocol/client` v2, pinned to 2026-07-28) sees it, over
 * real Streamable HTTP on loopback: every JSON-RPC error a handler produces
 * reaches that client as a `ProtocolError` with its code, never as a
 * transport failure (`SdkHttpError`), and the raw statuses follow the table.
 * Source: MCP 2026-07-28, basic/transports/streamable-http.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { mcpPost } from "@mrtr/test-support/http"
import { validateWire } from "@mrtr/test-support/wire"
import { Effect, Layer } from "effect"
import { HttpStatus, HttpTransport } from "../src/index.ts"
import { request, serverLayer } from "./fixtures.ts"

const serve = Layer.build(HttpTransport.layer({ port: 0 }).pipe(Layer.provide(serverLayer()), Layer.orDie)).pipe(
  Effect.flatMap((context) => Effect.provide(HttpTransport.url, context))
)

/** Runs `body` with a connected official client (elicitation: always declines); outcome or error summary. */
const withOfficialClient = <A>(url: string, body: (client: Client) => Promise<A>) =>
  Effect.promise(async () => {
    const client = new Client(
      { name: "official", version: "1" },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } }
    )
    client.setRequestHandler("elicitation/create", async () => ({ action: "decline" as const }))
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    try {
      return { ok: true as const, value: await body(client) }
    } catch (error) {
      return { ok: false as const, error: error as Error & { code?: unknown } }
    } finally {
      await client.close()
    }
  })

describe("HTTP statuses as the official client reads them", () => {
  it.live("a declined elicitation in a prompt, an unknown tool, a missing capability: JSON-RPC errors, not transport failures", () =>
    Effect.gen(function*() {
      const url = yield* serve
      const declined = yield* withOfficialClient(
        url,
        (c) => c.getPrompt({ name: "topic", arguments: { subject: "cats" } })
      )
      const unknown = yield* withOfficialClient(url, (c) => c.callTool({ name: "no_such_tool" }))
      const capability = yield* withOfficialClient(url, (c) => c.callTool({ name: "needs_sampling" }))
      for (const [outcome, code] of [[declined, -32603], [unknown, -32602], [capability, -32021]] as const) {
        assert.isFalse(outcome.ok)
        if (outcome.ok) continue
        assert.notInstanceOf(outcome.error, SdkHttpError)
        assert.strictEqual(outcome.error.code, code)
      }
      // and the server keeps answering that client normally
      const listed = yield* withOfficialClient(url, (c) => c.listTools())
      assert.isTrue(listed.ok && listed.value.tools.length > 0)
    }).pipe(Effect.scoped))

  it.live("raw statuses: 200 for errors of a running method, 400/404 for the envelope, as in the table", () =>
    Effect.gen(function*() {
      const url = yield* serve
      const post = (message: unknown, headers: Record<string, string> = {}) =>
        mcpPost(url, message, { accept: "application/json", ...headers }).pipe(Effect.map((reply) => {
          validateWire("JSONRPCErrorResponse", reply.json)
          return { status: reply.status, code: reply.json.error.code as number }
        }))
      const cases = [
        [request("tools/call", { name: "no_such_tool" }), undefined, -32602, 200],
        [request("tools/call", { name: "greet", arguments: { greeting: 1 } }), undefined, -32602, 200],
        [
          request("prompts/get", {
            name: "topic",
            arguments: { subject: "x" },
            inputResponses: { name: { action: "decline" } }
          }),
          undefined,
          -32603,
          200
        ],
        [request("tools/call", { name: "needs_sampling" }, { elicitation: {} }), undefined, -32021, 400],
        [request("tools/list"), { "mcp-protocol-version": "2025-11-25" }, -32020, 400],
        [request("nope/nope"), undefined, -32601, 404]
      ] as const
      for (const [message, headers, code, status] of cases) {
        const reply = yield* post(message, headers)
        assert.deepStrictEqual(reply, { code, status })
        assert.strictEqual(HttpStatus.ofError(code, "method"), status)
      }
    }).pipe(Effect.scoped))
})
