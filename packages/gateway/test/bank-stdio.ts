/**
 * Test fixture: a 2025-11-25 stdio server (the official SDK v1) whose
 * session holds state, as real ones do: `ask` asks its caller at once;
 * `slow_ask` works 800 ms, then asks its caller to approve a transfer
 * (whether or not its call was cancelled meanwhile); `allowed` lists the
 * client's roots once per session and keeps them as its allowed directories
 * (as `@modelcontextprotocol/server-filesystem` does). Every start and every
 * answer `slow_ask` got is appended to the file named by `BANK_LOG`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { appendFileSync } from "node:fs"
import { z } from "zod"

const log = (line: string) => appendFileSync(process.env.BANK_LOG!, `${line}\n`)
log(`start ${process.pid}`)

const server = new McpServer({ name: "bank", version: "1.0.0" })
const schema = { type: "object" as const, properties: { ok: { type: "string" as const } }, required: ["ok"] }
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] })

server.registerTool("ask", { inputSchema: { who: z.string() } }, async ({ who }, extra) => {
  const answer = await server.server.elicitInput(
    { message: `${who}: your favourite colour?`, requestedSchema: schema },
    { relatedRequestId: extra.requestId }
  )
  return text(`${who} answered ${String(answer.content?.ok)}`)
})

server.registerTool("slow_ask", { inputSchema: { who: z.string() } }, async ({ who }, extra) => {
  await new Promise((resolve) => setTimeout(resolve, 800))
  try {
    const answer = await server.server.elicitInput(
      { message: `${who}: approve the transfer from ${who}'s account?`, requestedSchema: schema },
      { relatedRequestId: extra.requestId }
    )
    log(`slow_ask for ${who} got ${answer.action} ${String(answer.content?.ok)}`)
    return text(`${who}: ${String(answer.content?.ok)}`)
  } catch (error) {
    log(`slow_ask for ${who} got error ${String((error as { code?: unknown }).code)}`)
    throw error
  }
})

let allowed: ReadonlyArray<string> | undefined
server.registerTool("allowed", { inputSchema: { who: z.string() } }, async ({ who }, extra) => {
  allowed ??= (await server.server.listRoots(undefined, { relatedRequestId: extra.requestId })).roots.map((r) => r.uri)
  return text(`${who} may use ${allowed.join(",")}`)
})

await server.connect(new StdioServerTransport())
