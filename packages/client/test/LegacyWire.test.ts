/**
 * Bad input from a 2025-11-25 server, against a hand-written `node:http`
 * server on 127.0.0.1 that sends what no SDK server would: malformed and
 * unknown server requests, requests for capabilities the client lacks, an
 * older negotiated version, a 2026 version or a malformed `InitializeResult`.
 * Each server request gets the spec's error at once (never silence), the
 * call still completes, and every answer is a valid 2025-11-25 message.
 * Source: MCP 2025-11-25, basic/lifecycle, basic/transports, client/*; schema `JSONRPCErrorResponse`.
 */
import { assert, describe, it } from "@effect/vitest"
import { LEGACY_SCHEMA_ID, validateWire } from "@mrtr/test-support/wire"
import { Deferred, Effect, Fiber, Layer, Ref } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as ElicitationHandler from "../src/ElicitationHandler.ts"
import * as HttpTransport from "../src/HttpTransport.ts"
import * as McpClient from "../src/McpClient.ts"

type InitializeMode = "older" | "modern" | "malformed"

/** How many elicitations the `flood` tool sends at once (more than the client answers at a time). */
const FLOOD = 100

interface Posted {
  readonly headers: Http.IncomingHttpHeaders
  readonly body: Record<string, any>
}

/** The server requests of `bad_requests`, by id, and the answer each must get. */
const BAD_REQUESTS = [
  { id: "malformed", message: { method: "elicitation/create", params: { message: 3 } }, code: -32602 },
  { id: "unknown", message: { method: "foo/bar", params: {} }, code: -32601 },
  { id: "ping", message: { method: "ping" }, code: undefined },
  {
    id: "no-sampling",
    message: {
      method: "sampling/createMessage",
      params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 }
    },
    code: -32601
  },
  {
    id: "undeclared-url",
    message: {
      method: "elicitation/create",
      params: { mode: "url", message: "Go", url: "https://example.com", elicitationId: "e-1" }
    },
    code: -32602
  }
] as const

const serveLegacy = (mode: InitializeMode) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly posted: Array<Posted>; readonly server: Http.Server }>(
      (resume) => {
        const posted: Array<Posted> = []
        const waiting = new Map<string, (answer: Record<string, any>) => void>()
        const server = Http.createServer((req, res) => {
          if (req.method === "GET") {
            res.writeHead(405).end()
            return
          }
          if (req.method === "DELETE") {
            res.writeHead(200).end()
            return
          }
          let text = ""
          req.setEncoding("utf8")
          req.on("data", (chunk) => (text += chunk))
          req.on("end", () => {
            const body = JSON.parse(text)
            posted.push({ headers: req.headers, body })
            const json = (status: number, message: unknown, headers: Record<string, string> = {}) => {
              res.writeHead(status, { "content-type": "application/json", ...headers })
              res.end(JSON.stringify(message))
            }
            if (body.method === undefined) {
              // an answer to one of our requests
              waiting.get(body.id)?.(body)
              res.writeHead(202).end()
              return
            }
            switch (body.method) {
              case "server/discover":
                return json(400, {
                  jsonrpc: "2.0",
                  id: null,
                  error: { code: -32000, message: "Bad Request: Server not initialized" }
                })
              case "initialize":
                return json(200, {
                  jsonrpc: "2.0",
                  id: body.id,
                  result: mode === "malformed"
                    ? { protocolVersion: 7 }
                    : {
                      protocolVersion: mode === "older" ? "2025-06-18" : "2026-07-28",
                      capabilities: { tools: {} },
                      serverInfo: { name: "raw-legacy", version: "1.0.0" }
                    }
                }, { "mcp-session-id": "s-1" })
              case "notifications/initialized":
                res.writeHead(202).end()
                return
              case "tools/call": {
                res.writeHead(200, { "content-type": "text/event-stream" })
                if (body.params.name === "flood") {
                  // FLOOD elicitations at once; the call answers with how many got each outcome
                  const ids = Array.from({ length: FLOOD }, (_, i) => `flood-${i}`)
                  const answers = ids.map((id) =>
                    new Promise<Record<string, any>>((resolve) => waiting.set(id, resolve))
                  )
                  for (const id of ids) {
                    res.write(`data: ${
                      JSON.stringify({
                        jsonrpc: "2.0",
                        id,
                        method: "elicitation/create",
                        params: {
                          message: "Name?",
                          requestedSchema: { type: "object", properties: { name: { type: "string" } } }
                        }
                      })
                    }\n\n`)
                  }
                  void Promise.all(answers).then((all) => {
                    const accepted = all.filter((a) => a.result?.action === "accept").length
                    const refused = all.filter((a) => a.error?.code === -32603).length
                    res.end(`data: ${
                      JSON.stringify({
                        jsonrpc: "2.0",
                        id: body.id,
                        result: { content: [{ type: "text", text: `${accepted}/${refused}` }] }
                      })
                    }\n\n`)
                  })
                  return
                }
                const answers = BAD_REQUESTS.map((request) =>
                  new Promise<Record<string, any>>((resolve) => waiting.set(request.id, resolve))
                )
                for (const request of BAD_REQUESTS) {
                  res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: request.id, ...request.message })}\n\n`)
                }
                res.write(
                  `data: ${
                    JSON.stringify({
                      jsonrpc: "2.0",
                      method: "notifications/message",
                      params: { level: "info", data: "x" }
                    })
                  }\n\n`
                )
                void Promise.all(answers).then((all) => {
                  res.end(`data: ${
                    JSON.stringify({
                      jsonrpc: "2.0",
                      id: body.id,
                      result: { content: [{ type: "text", text: JSON.stringify(all) }] }
                    })
                  }\n\n`)
                })
                return
              }
              default:
                return json(200, { jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } })
            }
          })
        })
        server.listen(0, "127.0.0.1", () =>
          resume(Effect.succeed({
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
            posted,
            server
          })))
      }
    ),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const clientOver = (url: string) =>
  McpClient.layer().pipe(
    Layer.provide(HttpTransport.layerNode({ url })),
    // form only: URL mode and sampling are not declared
    Layer.provide(ElicitationHandler.layer({ form: () => Effect.succeed(ElicitationHandler.accept({ name: "x" })) }))
  )

describe("McpClient: bad input from a 2025-11-25 server", () => {
  it.live("each server request gets the spec's answer at once; the call completes; an older version is spoken", () =>
    Effect.gen(function*() {
      const { posted, url } = yield* serveLegacy("older")
      const { connection, result } = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const connection = yield* client.connection
        const result = yield* client.callTool({ name: "bad_requests" })
        return { connection, result }
      }).pipe(Effect.provide(clientOver(url)))
      assert.strictEqual(connection.era, "2025-11-25")
      assert.strictEqual(connection.protocolVersion, "2025-06-18")
      const answers = JSON.parse((result.content[0] as { text: string }).text) as Array<Record<string, any>>
      BAD_REQUESTS.forEach((request, i) => {
        const answer = answers[i]!
        assert.strictEqual(answer.id, request.id)
        if (request.code === undefined) {
          assert.deepStrictEqual(answer.result, {})
          validateWire("JSONRPCResultResponse", answer, LEGACY_SCHEMA_ID)
        } else {
          assert.strictEqual(answer.error.code, request.code, JSON.stringify(answer))
          validateWire("JSONRPCErrorResponse", answer, LEGACY_SCHEMA_ID)
        }
      })
      // every later message carries the session and the negotiated (older) version
      const answered = posted.filter((p) => p.body.method === undefined)
      assert.strictEqual(answered.length, BAD_REQUESTS.length)
      for (const p of answered) {
        assert.strictEqual(p.headers["mcp-session-id"], "s-1")
        assert.strictEqual(p.headers["mcp-protocol-version"], "2025-06-18")
      }
    }).pipe(Effect.scoped))

  for (const mode of ["modern", "malformed"] as const) {
    it.live(`an InitializeResult that is ${mode === "modern" ? "for 2026-07-28" : "malformed"} is a ProtocolViolation`, () =>
      Effect.gen(function*() {
        const { posted, url } = yield* serveLegacy(mode)
        const error = yield* McpClient.McpClient.use((client) => client.callTool({ name: "bad_requests" })).pipe(
          Effect.provide(clientOver(url)),
          Effect.flip
        )
        assert.strictEqual(error._tag, "ProtocolViolation")
        assert.include(error.message, "initialize")
        // nothing is sent on a session the client could not establish
        assert.deepStrictEqual(posted.map((p) => p.body.method), ["server/discover", "initialize"])
      }).pipe(Effect.scoped))
  }

  it.live("a flood of server requests: 64 are answered at a time, the rest refused at once with -32603", () =>
    Effect.gen(function*() {
      const { url } = yield* serveLegacy("older")
      const started = yield* Ref.make(0)
      const release = yield* Deferred.make<void>()
      const slowUser = ElicitationHandler.layer({
        form: () =>
          Ref.update(started, (n) => n + 1).pipe(
            Effect.andThen(Deferred.await(release)),
            Effect.as(ElicitationHandler.accept({ name: "x" }))
          )
      })
      const text = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const call = yield* client.callTool({ name: "flood" }).pipe(Effect.forkChild)
        // the refusals need no handler: they arrive while the first 64 still wait
        while ((yield* Ref.get(started)) < 64) yield* Effect.sleep("10 millis")
        yield* Effect.sleep("100 millis")
        assert.strictEqual(yield* Ref.get(started), 64)
        yield* Deferred.succeed(release, undefined)
        const result = yield* Fiber.join(call)
        return (result.content[0] as { text: string }).text
      }).pipe(
        Effect.provide(McpClient.layer().pipe(Layer.provide(HttpTransport.layerNode({ url })), Layer.provide(slowUser)))
      )
      assert.strictEqual(text, `64/${FLOOD - 64}`)
    }).pipe(Effect.scoped))
})
