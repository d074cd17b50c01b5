/**
 * Test helper: the MCP Streamable HTTP plumbing tests share. A request built as a 2026-07-28 client builds it (its
 * `_meta` from `makeRequestMeta`, its headers from `requestHeaders`, so no test types the era's headers by hand), posted
 * with `fetch` and its reply read whether it came as JSON or as an SSE stream; a server on a free port of 127.0.0.1 for
 * the test's scope; a fixed request-state key ring from a seed.
 *
 * Gotcha: a test of a malformed or mismatched header writes that header itself, on top of `mcpHeaders`.
 *
 * @since 0.1.0
 */
import { RequestState } from "@mrtr/core"
import { type HeaderCheckedMessage, requestHeaders, type ToolLike } from "@mrtr/protocol/Headers"
import { makeRequestMeta } from "@mrtr/protocol/Meta"
import type { ClientCapabilities } from "@mrtr/protocol/Schema"
import { HttpTransport, type McpHandler } from "@mrtr/server"
import { Effect, Layer, type Scope } from "effect"

/** Every client capability of 2026-07-28's asks: elicitation (form and URL), sampling, roots. */
export const allCapabilities: ClientCapabilities = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }

let nextId = 1

/**
 * A JSON-RPC request of 2026-07-28: `params._meta` carries the protocol version, the client's capabilities and a
 * `clientInfo` naming the test.
 */
export const request = (
  method: string,
  params: Record<string, unknown> = {},
  options: { readonly id?: string | number; readonly clientCapabilities?: ClientCapabilities } = {}
): { jsonrpc: "2.0"; id: string | number; method: string; params: Record<string, any> } => ({
  jsonrpc: "2.0",
  id: options.id ?? nextId++,
  method,
  params: {
    ...params,
    _meta: {
      ...makeRequestMeta({
        clientCapabilities: options.clientCapabilities ?? allCapabilities,
        clientInfo: { name: "test", version: "0" }
      }),
      ...params._meta as object
    }
  }
})

/**
 * The headers of a POST of `message`: content type, accept, and the era's `MCP-*` headers from `requestHeaders`, every
 * name in lower case, so that a test's `{ ...mcpHeaders(message), "mcp-method": "other" }` replaces one.
 */
export const mcpHeaders = (message: unknown, tool?: ToolLike): Record<string, string> => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...Object.fromEntries(
    Object.entries(requestHeaders(message as HeaderCheckedMessage, tool)).map((
      [name, value]
    ) => [name.toLowerCase(), value])
  )
})

/** A reply to a POST: its status and headers, its body, and the JSON-RPC message in it (JSON or the SSE stream's last). */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: any
}

/** The JSON-RPC messages of an SSE body (`data:` lines), in order. */
export const sseMessages = (text: string): Array<any> =>
  text.split(/\r?\n\r?\n/).flatMap((event) => {
    const data = event.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) =>
      line.slice(5).trimStart()
    )
    if (data.length === 0) return []
    try {
      return [JSON.parse(data.join("\n"))]
    } catch {
      return []
    }
  })

const parse = (contentType: string | null, text: string): any => {
  if (contentType?.includes("text/event-stream")) return sseMessages(text).at(-1)
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * POSTs `message` to `url` with `mcpHeaders(message)` and `headers` on top (a test of a bad header overrides one). A
 * string `message` is sent as it is (a malformed body), with the headers of nothing but its transport.
 */
export const mcpPost = (url: string, message: unknown, headers: Record<string, string> = {}): Effect.Effect<Reply> =>
  Effect.promise(async () => {
    const base = typeof message === "string"
      ? { "content-type": "application/json", accept: "application/json, text/event-stream" }
      : mcpHeaders(message)
    const response = await fetch(url, {
      method: "POST",
      body: typeof message === "string" ? message : JSON.stringify(message),
      headers: { ...base, ...headers }
    })
    const text = await response.text()
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: parse(response.headers.get("content-type"), text)
    }
  })

/** Serves `server` over Streamable HTTP on a free port of 127.0.0.1 for the scope; the endpoint's URL. */
export const serveHttp = <E>(
  server: Layer.Layer<McpHandler, E>,
  options: HttpTransport.LayerOptions = {}
): Effect.Effect<string, never, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      HttpTransport.layer({ port: 0, ...options }).pipe(Layer.provide(server), Layer.orDie)
    )
    return yield* Effect.provide(HttpTransport.url, context)
  })

/** A request-state key ring of one key whose 32 bytes are all `seed`: the same in every process of a test. */
export const testKeyRing = (seed = 1) => RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(seed) }])
