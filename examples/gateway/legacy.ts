/**
 * A 2025-11-25 server on stdio, written with the official TypeScript SDK v1
 * (`@modelcontextprotocol/sdk`): `book_train` asks the user in flight
 * (`elicitation/create` while the call is open). One of the gateway
 * example's two upstreams.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { z } from "zod"

const server = new McpServer({ name: "trains", version: "1.0.0" })

server.registerTool(
  "book_train",
  { description: "Books a train, asking for the class", inputSchema: { to: z.string() } },
  async ({ to }, extra) => {
    const answer = await server.server.elicitInput({
      message: `First or second class to ${to}?`,
      requestedSchema: {
        type: "object",
        properties: { class: { type: "string", enum: ["first", "second"] } },
        required: ["class"]
      }
    }, { relatedRequestId: extra.requestId })
    const text = answer.action === "accept"
      ? `Booked ${String(answer.content?.class)} class to ${to}`
      : `Not booked (${answer.action})`
    return { content: [{ type: "text", text }] }
  }
)

await server.connect(new StdioServerTransport())
