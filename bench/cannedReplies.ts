/**
 * The canned replies of a stub MCP server for the client benchmarks
 * (`bench/client.ts`, `bench/profileClient.ts`): the era probe, `tools/list`
 * and the two rounds of `greet`, as JSON-RPC response text, so that the
 * client's own processing is all that is measured. No client is imported
 * here (`profileClient.ts` loads client builds of its own).
 */

const GREET_TOOL = {
  name: "greet",
  description: "Asks for a name, then greets",
  inputSchema: { type: "object", properties: {} }
}
const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "stub", version: "1.0.0" } }
// A sealed state the size of ours (about 300 characters).
const STATE = `v2.bench.${"A".repeat(290)}`
const ROUND_ONE = JSON.stringify({
  _meta: SERVER_INFO,
  resultType: "input_required",
  inputRequests: {
    name: {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: "Your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
      }
    }
  },
  requestState: STATE
})
const ROUND_TWO = JSON.stringify({
  _meta: SERVER_INFO,
  resultType: "complete",
  content: [{ type: "text", text: "Hello, Alice!" }]
})
// The answer to the client's era probe (`protocol: "auto"`, once per client).
const DISCOVER = JSON.stringify({
  _meta: SERVER_INFO,
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: "private"
})
const TOOLS = JSON.stringify({
  _meta: SERVER_INFO,
  resultType: "complete",
  tools: [GREET_TOOL],
  ttlMs: 0,
  cacheScope: "private"
})

/** The JSON-RPC response text to `message`. */
export const replyText = (message: { id: unknown; method: string; params?: { inputResponses?: unknown } }): string =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${
    message.method === "server/discover"
      ? DISCOVER
      : message.method === "tools/list"
      ? TOOLS
      : message.params?.inputResponses === undefined
      ? ROUND_ONE
      : ROUND_TWO
  }}`
