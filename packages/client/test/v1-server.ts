/**
 * Test fixture: a 2025-11-25 server built with the official TypeScript SDK v1
 * (`@modelcontextprotocol/sdk` 1.x), whose tools ask the client in flight:
 * form and URL elicitation, sampling, roots, ping, several at once, on the
 * request's own stream (`relatedRequestId`) or outside it (the GET stream on
 * HTTP). Used by `LegacyServer.test.ts` over sessionful Streamable HTTP
 * (`listen`) and, run as a script with `--stdio`, over stdio.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import {
  CreateMessageResultSchema,
  isInitializeRequest,
  RootsListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server } from "node:http"

const nameSchema = {
  type: "object" as const,
  properties: { name: { type: "string" as const } },
  required: ["name"]
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] })

/** A fresh v1 server (one per session on HTTP). */
export const makeV1Server = (): McpServer => {
  const server = new McpServer({ name: "v1-fixture", version: "1.0.0" }, { capabilities: { logging: {} } })
  let rootsChanges = 0
  let lastError = "none"
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    rootsChanges++
  })

  server.registerTool("greet", { description: "Asks the user's name" }, async (extra) => {
    const answer = await server.server.elicitInput(
      { message: "Your name?", requestedSchema: nameSchema },
      { relatedRequestId: extra.requestId }
    )
    return text(answer.action === "accept" ? `Hello, ${String(answer.content?.name)}!` : `no name (${answer.action})`)
  })

  server.registerTool("two_names", { description: "Asks two names in turn" }, async (extra) => {
    const first = await server.server.elicitInput(
      { message: "First name?", requestedSchema: nameSchema },
      { relatedRequestId: extra.requestId }
    )
    const second = await server.server.elicitInput(
      { message: "Second name?", requestedSchema: nameSchema },
      { relatedRequestId: extra.requestId }
    )
    return text(`${String(first.content?.name)} and ${String(second.content?.name)}`)
  })

  server.registerTool("capital", { description: "Asks the model" }, async (extra) => {
    const answer = await server.server.createMessage({
      messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }],
      maxTokens: 20
    }, { relatedRequestId: extra.requestId })
    const content = Array.isArray(answer.content) ? answer.content[0] : answer.content
    return text(`${answer.model} said: ${content?.type === "text" ? content.text : "?"}`)
  })

  server.registerTool("roots", { description: "Lists the client's roots on the request's stream" }, async (extra) => {
    const { roots } = await server.server.listRoots(undefined, { relatedRequestId: extra.requestId })
    return text(roots.map((root) => root.uri).join(","))
  })

  server.registerTool(
    "roots_elsewhere",
    { description: "Lists the roots outside the request (GET stream)" },
    async () => {
      const { roots } = await server.server.listRoots()
      return text(roots.map((root) => root.uri).join(","))
    }
  )

  server.registerTool("everything", { description: "Elicits, samples and lists roots at once" }, async (extra) => {
    const options = { relatedRequestId: extra.requestId }
    const [name, sample, roots] = await Promise.all([
      server.server.elicitInput({ message: "Your name?", requestedSchema: nameSchema }, options),
      server.server.createMessage({
        messages: [{ role: "user", content: { type: "text", text: "Say hi" } }],
        maxTokens: 20
      }, options),
      server.server.listRoots(undefined, options)
    ])
    const content = Array.isArray(sample.content) ? sample.content[0] : sample.content
    return text(
      `${String(name.content?.name)}|${content?.type === "text" ? content.text : "?"}|${roots.roots.length}`
    )
  })

  server.registerTool("consent", { description: "A URL-mode elicitation" }, async (extra) => {
    const answer = await server.server.elicitInput({
      mode: "url",
      message: "Sign in",
      url: "https://example.com/login",
      elicitationId: randomUUID()
    }, { relatedRequestId: extra.requestId })
    return text(`consent: ${answer.action}`)
  })

  server.registerTool("ping_client", { description: "Pings the client" }, async () => {
    await server.server.ping()
    return text("pong")
  })

  server.registerTool("sample_anyway", { description: "Samples without checking the capability" }, async (extra) => {
    try {
      await extra.sendRequest({
        method: "sampling/createMessage",
        params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 }
      }, CreateMessageResultSchema)
      return text("answered")
    } catch (error) {
      return text(`refused: ${String((error as { code?: unknown }).code)}`)
    }
  })

  let cancelled = 0
  server.registerTool("wait", { description: "Waits until the client cancels the call" }, async (extra) => {
    await new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve()))
    cancelled++
    return text("cancelled")
  })

  server.registerTool(
    "cancellations",
    { description: "How many calls the client cancelled" },
    async () => text(String(cancelled))
  )

  server.registerTool("greet_or_error", { description: "Asks the name; reports the client's error" }, async (extra) => {
    try {
      await server.server.elicitInput({ message: "Your name?", requestedSchema: nameSchema }, {
        relatedRequestId: extra.requestId
      })
      return text("answered")
    } catch (error) {
      lastError = `${String((error as { code?: unknown }).code)}`
      return text(`error ${lastError}`)
    }
  })

  server.registerTool("last_error", { description: "The error code greet_or_error got" }, async () => text(lastError))

  // Works a while, then asks outside any request's stream, whether or not its call was cancelled meanwhile.
  let lateOutcome = "none"
  server.registerTool("ask_late", { description: "Asks the name after 300 ms, cancelled or not" }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 300))
    try {
      const answer = await server.server.elicitInput({ message: "ask_late: your name?", requestedSchema: nameSchema })
      lateOutcome = `${answer.action} ${String(answer.content?.name)}`
    } catch (error) {
      lateOutcome = `error ${String((error as { code?: unknown }).code)}`
    }
    return text(lateOutcome)
  })

  server.registerTool("late_outcome", { description: "What ask_late's question got" }, async () => text(lateOutcome))

  server.registerTool(
    "roots_changes",
    { description: "How many roots/list_changed arrived" },
    async () => text(String(rootsChanges))
  )

  return server
}

/** One request the HTTP server received: method, headers, parsed body (POST). */
export interface Received {
  readonly httpMethod: string
  readonly headers: IncomingMessage["headers"]
  readonly body?: unknown
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => (body += chunk))
    req.on("end", () => resolve(body))
    req.on("error", reject)
  })

/**
 * Serves the v1 fixture over sessionful Streamable HTTP on 127.0.0.1 (a free
 * port), the way the SDK's examples do: a transport per session, created by
 * `initialize`; anything else without a known session gets 400 -32000.
 * `json: true` answers POSTs with JSON bodies (`enableJsonResponse`), so
 * server requests can only travel on the GET stream.
 */
export const listen = async (options: { readonly json?: boolean } = {}): Promise<{
  readonly url: string
  readonly received: Array<Received>
  readonly sessions: Map<string, StreamableHTTPServerTransport>
  readonly close: () => Promise<void>
}> => {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const received: Array<Received> = []
  const http: Server = createServer(async (req, res) => {
    const text = req.method === "POST" ? await readBody(req) : ""
    let body: unknown
    try {
      body = text === "" ? undefined : JSON.parse(text)
    } catch {
      body = text
    }
    received.push({ httpMethod: req.method ?? "", headers: req.headers, ...(body === undefined ? {} : { body }) })
    const sessionId = req.headers["mcp-session-id"]
    const known = typeof sessionId === "string" ? sessions.get(sessionId) : undefined
    if (known !== undefined) return known.handleRequest(req, res, body)
    if (sessionId === undefined && req.method === "POST" && isInitializeRequest(body)) {
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: options.json === true,
        onsessioninitialized: (id) => void sessions.set(id, transport)
      })
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
      }
      await makeV1Server().connect(transport)
      return transport.handleRequest(req, res, body)
    }
    res.writeHead(sessionId === undefined ? 400 : 404, { "content-type": "application/json" })
    res.end(JSON.stringify({
      jsonrpc: "2.0",
      error: sessionId === undefined
        ? { code: -32000, message: "Bad Request: No valid session ID provided" }
        : { code: -32001, message: "Session not found" },
      id: null
    }))
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  const { port } = http.address() as { readonly port: number }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    received,
    sessions,
    close: async () => {
      for (const transport of sessions.values()) await transport.close()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  }
}

if (process.argv.includes("--stdio")) {
  await makeV1Server().connect(new StdioServerTransport())
}
