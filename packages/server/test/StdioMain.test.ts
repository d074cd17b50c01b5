/**
 * `StdioTransport.main` as a real process: stdout carries nothing but
 * JSON-RPC (the key ring warning logged while the server is built goes to
 * stderr), an MRTR round trip works, and the process exits when stdin ends.
 */
import { describe, expect, it } from "@effect/vitest"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { validateWire } from "@mrtr/test-support/wire"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const script = fileURLToPath(new URL("./stdio-main.ts", import.meta.url))
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} }
}

describe("StdioTransport.main", () => {
  it("writes only JSON-RPC to stdout, logs to stderr, and exits when stdin ends", async () => {
    const child = spawn(process.execPath, [...sourceNodeArgs, script], {
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      env: { ...process.env, MRTR_REQUEST_STATE_KEYS: "" },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const lines = () => stdout.split("\n").filter((line) => line !== "")
    const waitFor = async (count: number) => {
      for (let i = 0; i < 400 && lines().length < count; i++) await new Promise((r) => setTimeout(r, 50))
    }
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "greet", arguments: { greeting: "Hi" }, _meta: meta }
      }) + "\n"
    )
    await waitFor(1)
    const first = JSON.parse(lines()[0]!)
    expect(first.result.resultType).toBe("input_required")
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "greet",
          arguments: { greeting: "Hi" },
          inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
          requestState: first.result.requestState,
          _meta: meta
        }
      }) + "\n"
    )
    await waitFor(2)
    child.stdin.end()
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve))
    expect(code).toBe(0)
    for (const line of lines()) validateWire("JSONRPCResultResponse", JSON.parse(line))
    expect(JSON.parse(lines()[1]!).result.content).toEqual([{ type: "text", text: "Hi, Ada!" }])
    expect(stderr).toMatch(/random per-process key/)
    expect(stdout).not.toMatch(/random per-process key/)
  }, 60_000)
  it("exits when stdin ends while a subscriptions/listen is open, without waiting for the drain", async () => {
    // A drain far longer than the test's timeout: only closing the listen at the end of input lets the process exit.
    const child = spawn(process.execPath, [...sourceNodeArgs, script, "long-drain"], {
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      env: { ...process.env, MRTR_REQUEST_STATE_KEYS: "" },
      stdio: ["pipe", "pipe", "ignore"]
    })
    let stdout = ""
    const acknowledged = new Promise<void>((resolve) =>
      child.stdout.on("data", (chunk) => {
        stdout += chunk
        if (stdout.includes("\n")) resolve()
      })
    )
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "subscriptions/listen",
        params: { notifications: { toolsListChanged: true }, _meta: meta }
      }) + "\n"
    )
    await acknowledged
    const ack = JSON.parse(stdout.split("\n")[0]!)
    validateWire("SubscriptionsAcknowledgedNotification", ack)
    child.stdin.end()
    expect(await exited).toBe(0)
  }, 60_000)
})
