/**
 * Test helpers for the 2025-11-25 wire on a real Streamable HTTP server
 * (127.0.0.1, a free port): raw `fetch` POST/GET/DELETE with the legacy
 * headers, an SSE reader over the response body, and a server with the test
 * fixtures plus the legacy-only ones (a URL-mode elicitation, a tool that
 * falls back when the client cannot elicit).
 */
import { Elicitation, MissingClientCapability } from "@mrtr/core"
import { mcpHeaders } from "@mrtr/test-support/http"
import { Context, Effect, Exit, Layer, Schema, Scope } from "effect"
import { HttpTransport, type McpHandler, McpServer, RequestContext, Tool } from "../src/index.ts"
import { serverLayer } from "./fixtures.ts"

export const signIn = Tool.make("sign_in", {
  description: "Sends the user to a URL, then a form",
  handler: () =>
    Effect.gen(function*() {
      yield* Elicitation.url({ key: "login", message: "Sign in", url: "https://example.com/login" })
      const { name } = yield* Elicitation.form({
        key: "name",
        message: "Name?",
        schema: Schema.Struct({ name: Schema.String })
      })
      return `signed in as ${name}`
    })
})

export const fallback = Tool.make("fallback", {
  description: "Asks for a name, or uses a default when the client cannot elicit",
  handler: () =>
    Elicitation.form({ key: "name", message: "Name?", schema: Schema.Struct({ name: Schema.String }) }).pipe(
      Effect.map(({ name }) => `hello ${name}`),
      Effect.catch((error) =>
        error instanceof MissingClientCapability ? Effect.succeed("hello stranger") : Effect.fail(error)
      )
    )
})

export const reconnect = Tool.make("reconnect", {
  description: "Closes its SSE stream at once (SEP-1699), then asks for a name",
  handler: () =>
    Effect.gen(function*() {
      yield* RequestContext.closeStream
      const { name } = yield* Elicitation.form({
        key: "name",
        message: "Name?",
        schema: Schema.Struct({ name: Schema.String })
      })
      return `reconnected as ${name}`
    })
})

export const legacyServer = (options: Partial<McpServer.Options> = {}) =>
  McpServer.tools(signIn, fallback, reconnect).pipe(Layer.provideMerge(serverLayer(options)))

/** Runs `body` against the server on a free port; the server stops afterwards. */
export const withServer = (
  options: Partial<McpServer.Options>,
  body: (url: string, server: McpServer.McpServer["Service"]) => Promise<void>,
  transport: HttpTransport.LayerOptions = {}
) => withLayer(legacyServer(options), body, transport)

/** `withServer` for any server Layer. */
export const withLayer = async (
  layer: Layer.Layer<McpServer.McpServer | McpHandler, unknown>,
  body: (url: string, server: McpServer.McpServer["Service"]) => Promise<void>,
  transport: HttpTransport.LayerOptions = {}
) => {
  const scope = Effect.runSync(Scope.make())
  try {
    const context = await Effect.runPromise(
      Layer.buildWithScope(HttpTransport.layer({ port: 0, ...transport }).pipe(Layer.provideMerge(layer)), scope)
    )
    const url = Effect.runSync(Effect.provide(HttpTransport.url, context))
    const server = Context.get(context, McpServer.McpServer)
    await body(url, server)
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

export const LEGACY_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25"
}

export const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { ...LEGACY_HEADERS, ...headers }, body: JSON.stringify(body) })

/** POSTs a 2026-07-28 `message` with the headers its client sends (`mcpHeaders`), and `headers` on top. */
export const postModern = (url: string, message: unknown, headers: Record<string, string> = {}) =>
  post(url, message, { ...mcpHeaders(message), ...headers })

let nextId = 1
export const rpc = (method: string, params?: unknown) => ({
  jsonrpc: "2.0" as const,
  id: nextId++,
  method,
  ...(params === undefined ? {} : { params })
})

export const CAPS = { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } }

/** `initialize` + `notifications/initialized`; returns the session id and the result. */
export const initialize = async (
  url: string,
  capabilities: object = CAPS,
  protocolVersion = "2025-11-25"
): Promise<{ readonly session: string; readonly result: any; readonly headers: Record<string, string> }> => {
  const response = await post(
    url,
    rpc("initialize", {
      protocolVersion,
      capabilities,
      clientInfo: { name: "raw", version: "1" }
    })
  )
  if (response.status !== 200) throw new Error(`initialize: HTTP ${response.status} ${await response.text()}`)
  const session = response.headers.get("mcp-session-id")
  if (session === null) throw new Error("initialize: no Mcp-Session-Id")
  const body = await response.json() as any
  const headers = { "mcp-session-id": session }
  const initialized = await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)
  if (initialized.status !== 202) throw new Error(`initialized: HTTP ${initialized.status}`)
  return { session, result: body.result, headers }
}

export interface SseEvent {
  readonly id: string | undefined
  readonly data: string
}

/** Reads SSE events from a response body, one at a time. */
export const sseReader = (response: Response) => {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  const queue: Array<SseEvent> = []
  const next = async (timeoutMs = 10_000): Promise<SseEvent | undefined> => {
    const deadline = Date.now() + timeoutMs
    while (queue.length === 0) {
      const separator = buffer.indexOf("\n\n")
      if (separator >= 0) {
        const block = buffer.slice(0, separator)
        buffer = buffer.slice(separator + 2)
        let id: string | undefined
        const data: Array<string> = []
        for (const line of block.split("\n")) {
          if (line.startsWith("id:")) id = line.slice(3).trim()
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""))
        }
        queue.push({ id, data: data.join("\n") })
        continue
      }
      const left = deadline - Date.now()
      if (left <= 0) throw new Error("no SSE event in time")
      const read = await Promise.race([
        reader.read(),
        new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), left))
      ])
      if (read === "timeout") throw new Error("no SSE event in time")
      if (read.done) return undefined
      buffer += read.value
    }
    return queue.shift()
  }
  /** The next event that carries a JSON-RPC message (priming events skipped). */
  const message = async (timeoutMs?: number): Promise<any | undefined> => {
    for (;;) {
      const event = await next(timeoutMs)
      if (event === undefined) return undefined
      if (event.data.trim() !== "") return JSON.parse(event.data)
    }
  }
  return { next, message, cancel: () => reader.cancel() }
}
