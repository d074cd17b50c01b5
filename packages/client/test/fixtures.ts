/**
 * Test support: a scripted in-memory "server" that answers each request with
 * whatever a script says (including things a correct server never would),
 * records every request it receives, and validates each one against the
 * official 2026-07-28 JSON Schema.
 */
import { validateWire } from "@mrtr/test-support/wire"
import { Effect, Layer } from "effect"
import * as McpClient from "../src/McpClient.ts"
import * as MemoryTransport from "../src/MemoryTransport.ts"

/** `$defs` name of the request schema for each method the client sends. */
export const requestDef: Record<string, string> = {
  "server/discover": "DiscoverRequest",
  "tools/list": "ListToolsRequest",
  "tools/call": "CallToolRequest",
  "prompts/list": "ListPromptsRequest",
  "prompts/get": "GetPromptRequest",
  "resources/list": "ListResourcesRequest",
  "resources/templates/list": "ListResourceTemplatesRequest",
  "resources/read": "ReadResourceRequest",
  "completion/complete": "CompleteRequest"
}

/** Throws unless `message` is a valid 2026-07-28 request of its method. */
export const validateRequest = (message: Record<string, any>): void => {
  const def = requestDef[message.method]
  if (def === undefined) throw new Error(`no schema for ${message.method}`)
  validateWire(def, message)
}

/** What a script returns for one request: a result object, or a JSON-RPC error. */
export type ScriptAnswer = Record<string, unknown> | {
  readonly error: { code: number; message: string; data?: unknown }
}

export interface FakeServer {
  readonly handler: MemoryTransport.Handler
  /** Every request received, in order (after the JSON round trip). */
  readonly received: Array<Record<string, any>>
  /** Validation errors of received requests (should stay empty). */
  readonly invalid: Array<string>
}

/**
 * A server whose answers come from `script(request, n)` (`n` = 1-based count
 * of requests received so far, this one included). A request that is not
 * valid against the 2026-07-28 JSON Schema dies, failing the test.
 */
export const fakeServer = (script: (request: Record<string, any>, n: number) => ScriptAnswer): FakeServer => {
  const received: Array<Record<string, any>> = []
  const invalid: Array<string> = []
  const handler: MemoryTransport.Handler = {
    handle: ({ message }) =>
      Effect.suspend(() => {
        const request = message as Record<string, any>
        received.push(request)
        try {
          validateRequest(request)
        } catch (error) {
          // An invalid request fails the test (as a defect), whatever it asserts.
          invalid.push(String(error))
          return Effect.die(error)
        }
        const answer = script(request, received.length)
        return Effect.succeed({
          _tag: "Response" as const,
          message: "error" in answer && typeof answer.error === "object"
            ? { jsonrpc: "2.0", id: request.id, error: answer.error }
            : { jsonrpc: "2.0", id: request.id, result: answer },
          httpStatus: 200
        })
      })
  }
  return { handler, received, invalid }
}

/** A 2026-07-28 client (no probe: the scripts are modern-only servers) over `server`, with the given input handlers. */
export const clientLayer = <R = never>(
  server: FakeServer,
  options: McpClient.Options = {},
  user: Layer.Layer<R> = Layer.empty as any
): Layer.Layer<McpClient.McpClient | R> =>
  McpClient.layer({ protocol: "2026-07-28", ...options }).pipe(
    Layer.provide(MemoryTransport.layer(server.handler)),
    Layer.provideMerge(user)
  )

export const elicit = (message = "Your name?") => ({
  method: "elicitation/create",
  params: {
    message,
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
  }
})

export const sample = {
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }], maxTokens: 10 }
}

export const roots = { method: "roots/list", params: {} }

export const complete = (text = "done") => ({ resultType: "complete", content: [{ type: "text", text }] })

export const inputRequired = (fields: { inputRequests?: Record<string, unknown>; requestState?: string }) => ({
  resultType: "input_required",
  ...fields
})
