/**
 * Test fixture: an upstream built with the official TypeScript SDK v2
 * (`@modelcontextprotocol/server` 2.x) as its v2 docs write it: a fresh
 * `McpServer` per request behind `createMcpHandler`, tools asking with
 * `inputRequired(...)` and a `requestState` minted by
 * `createRequestStateCodec` (HMAC-SHA256).
 */
import { type NodeIncomingMessageLike, toNodeHandler } from "@modelcontextprotocol/node"
import {
  acceptedContent,
  type CallToolResult,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired,
  type InputRequiredResult,
  McpServer
} from "@modelcontextprotocol/server"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as z from "zod/v4"

const codec = createRequestStateCodec<{ readonly answers: ReadonlyArray<string> }>({
  key: randomBytes(32),
  ttlSeconds: 600
})

const NAME_SCHEMA = { type: "object" as const, properties: { name: { type: "string" as const } }, required: ["name"] }
const ANSWER_SCHEMA = {
  type: "object" as const,
  properties: { answer: { type: "string" as const } },
  required: ["answer"]
}

/** How many requests reached this upstream's tools. */
export const calls = { count: 0 }

const build = (): McpServer => {
  const server = new McpServer(
    { name: "official-v2", version: "1.0.0" },
    { capabilities: { tools: {} }, requestState: { verify: codec.verify } }
  )
  server.registerTool(
    "greet",
    { description: "Asks for a name, then greets" },
    async (ctx): Promise<CallToolResult | InputRequiredResult> => {
      calls.count++
      const answer = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, "name")
      if (typeof answer?.name !== "string") {
        return inputRequired({
          inputRequests: { name: inputRequired.elicit({ message: "Your name?", requestedSchema: NAME_SCHEMA }) },
          requestState: await codec.mint({ answers: [] })
        })
      }
      return { content: [{ type: "text", text: `Hello, ${answer.name}!` }] }
    }
  )
  server.registerTool(
    "ask_n",
    { description: "Asks n questions, one per round", inputSchema: z.object({ n: z.number() }) },
    async ({ n }, ctx): Promise<CallToolResult | InputRequiredResult> => {
      calls.count++
      const answers = [...(ctx.mcpReq.requestState<{ answers: Array<string> }>()?.answers ?? [])]
      const answer = acceptedContent<{ answer: string }>(ctx.mcpReq.inputResponses, `q${answers.length}`)
      if (typeof answer?.answer === "string") answers.push(answer.answer)
      if (answers.length >= n) return { content: [{ type: "text", text: answers.join(" ") }] }
      return inputRequired({
        inputRequests: {
          [`q${answers.length}`]: inputRequired.elicit({
            message: `Question ${answers.length}?`,
            requestedSchema: ANSWER_SCHEMA
          })
        },
        requestState: await codec.mint({ answers })
      })
    }
  )
  return server
}

/** Serves the v2 fixture on 127.0.0.1 (a free port). */
export const listenV2 = (): Promise<{ readonly url: string; readonly close: () => Promise<void> }> =>
  new Promise((resolve) => {
    const handler = toNodeHandler(createMcpHandler(build))
    const server = createServer((req, res) => void handler(req as NodeIncomingMessageLike, res))
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
        close: () => new Promise((done) => server.close(() => done()))
      }))
  })
