/**
 * Test fixture: a 2025-11-25 upstream built with the official TypeScript SDK
 * v1 (`@modelcontextprotocol/sdk` 1.x), served over sessionful Streamable
 * HTTP as the SDK's examples do, with tools that show what reaches it through
 * a gateway: cancellation (`wait`, `ask_wait`: the request's `AbortSignal`),
 * progress and log messages on the request's stream (`report`), and
 * completions of a prompt argument (`greeting`).
 */
import { completable } from "@modelcontextprotocol/sdk/server/completable.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage } from "node:http"
import * as z from "zod/v4"

/** The calls whose `AbortSignal` fired (the client cancelled them), by tool. */
export const aborted: Array<string> = []
/** The calls that started, by tool. */
export const started: Array<string> = []

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] })

const build = (): McpServer => {
  const server = new McpServer({ name: "v1-upstream", version: "1.0.0" }, {
    capabilities: { logging: {}, completions: {} }
  })

  server.registerTool("wait", { description: "Waits until the call is cancelled" }, async (extra) => {
    started.push("wait")
    await new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve()))
    aborted.push("wait")
    return text("cancelled")
  })

  server.registerTool("ask_wait", { description: "Asks a name and waits for the answer" }, async (extra) => {
    started.push("ask_wait")
    extra.signal.addEventListener("abort", () => void aborted.push("ask_wait"))
    const answer = await server.server.elicitInput({
      message: "Who waits?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
    }, { relatedRequestId: extra.requestId })
    return text(`answered ${answer.action}`)
  })

  server.registerTool("report", { description: "Reports progress and logs, then answers" }, async (extra) => {
    const token = extra._meta?.progressToken
    for (let n = 1; n <= 2; n++) {
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: n, total: 2, message: `step ${n}` }
        })
      }
    }
    await extra.sendNotification({
      method: "notifications/message",
      params: { level: "warning", logger: "report", data: "almost done" }
    })
    return text("reported")
  })

  server.registerPrompt("greeting", {
    description: "Greets in a city",
    argsSchema: {
      city: completable(
        z.string(),
        (value) => ["Paris", "Porto", "Prague", "Oslo"].filter((city) => city.startsWith(value))
      )
    }
  }, ({ city }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello from ${city}` } }] }))

  return server
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => (body += chunk))
    req.on("end", () => resolve(body))
    req.on("error", reject)
  })

/** Serves the fixture on 127.0.0.1 (a free port); `received` holds every POSTed message. */
export const listenV1 = async () => {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const received: Array<unknown> = []
  const http = createServer(async (req, res) => {
    const raw = req.method === "POST" ? await readBody(req) : ""
    const body = raw === "" ? undefined : JSON.parse(raw)
    if (body !== undefined) received.push(body)
    const sessionId = req.headers["mcp-session-id"]
    const known = typeof sessionId === "string" ? sessions.get(sessionId) : undefined
    if (known !== undefined) return known.handleRequest(req, res, body)
    if (sessionId === undefined && req.method === "POST" && isInitializeRequest(body)) {
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport)
      })
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
      }
      await build().connect(transport)
      return transport.handleRequest(req, res, body)
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  const { port } = http.address() as { readonly port: number }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    received,
    close: async () => {
      for (const transport of sessions.values()) await transport.close()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  }
}
