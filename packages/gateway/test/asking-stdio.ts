/**
 * Test fixture: a 2025-11-25 stdio server built with the official TypeScript
 * SDK v1 (`@modelcontextprotocol/sdk` 1.x) whose tool `ask` asks the client a
 * question naming its argument, in flight, and returns the answer with it:
 * `ask({ who: "ann" })` asks "Name for ann?" and returns "ann is <name>".
 * Appends its pid to the file named by `SPAWN_LOG`, when set, as it starts.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { appendFileSync } from "node:fs"
import { z } from "zod"

if (process.env.SPAWN_LOG !== undefined) appendFileSync(process.env.SPAWN_LOG, `${process.pid}\n`)

const server = new McpServer({ name: "asking", version: "1.0.0" })

server.registerTool(
  "ask",
  { description: "Asks a name for `who`", inputSchema: { who: z.string() } },
  async ({ who }, extra) => {
    const answer = await server.server.elicitInput({
      message: `Name for ${who}?`,
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
    }, { relatedRequestId: extra.requestId })
    return {
      content: [{
        type: "text",
        text: answer.action === "accept" ? `${who} is ${String(answer.content?.name)}` : `${who}: ${answer.action}`
      }]
    }
  }
)

await server.connect(new StdioServerTransport())
