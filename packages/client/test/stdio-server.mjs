// A tiny newline-delimited JSON-RPC MCP "server" for the stdio transport tests.
// STUBBORN=1: keep running after stdin ends (so the client has to kill it).
import * as readline from "node:readline"

const cancelled = []
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n")
const result = (id, value) => send({ jsonrpc: "2.0", id, result: value })
const text = (value) => ({ resultType: "complete", content: [{ type: "text", text: String(value) }] })

const rl = readline.createInterface({ input: process.stdin })
rl.on("line", (line) => {
  const message = JSON.parse(line)
  if (message.method === "notifications/cancelled") {
    cancelled.push(message.params.requestId)
    return
  }
  const { id, method, params } = message
  if (method !== "tools/call") {
    return send({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } })
  }
  switch (params.name) {
    case "pid":
      return result(id, text(process.pid))
    case "ask": {
      if (params.inputResponses === undefined) {
        send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: params._meta.progressToken, progress: 1 }
        })
        send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "unrelated log" } })
        return result(id, {
          resultType: "input_required",
          inputRequests: {
            name: {
              method: "elicitation/create",
              params: {
                message: "Name?",
                requestedSchema: { type: "object", properties: { name: { type: "string" } } }
              }
            }
          },
          requestState: "stdio-state"
        })
      }
      if (params.requestState !== "stdio-state") {
        return send({ jsonrpc: "2.0", id, error: { code: -32602, message: "bad state" } })
      }
      return result(id, text(`Hello, ${params.inputResponses.name.content.name}!`))
    }
    case "slow":
      return
    case "cancelled":
      return result(id, text(JSON.stringify(cancelled)))
    case "flood":
      // a line that never ends
      return process.stdout.write("x".repeat(4 * 1024 * 1024))
    case "exit":
      return process.exit(3)
    default:
      return send({ jsonrpc: "2.0", id, error: { code: -32602, message: `Unknown tool: ${params.name}` } })
  }
})
rl.on("close", () => {
  if (process.env.STUBBORN === "1") setInterval(() => {}, 1000)
  else process.exit(0)
})
