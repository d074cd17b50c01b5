/**
 * `mrtr gateway --config <file>` as a user runs it: the built `mrtr` binary
 * in a child process, serving the official SDK servers (v1 over stdio, v2
 * over HTTP) named in an `mcpServers` file, with the official v2 client and
 * `@mrtr/client` downstream.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { ElicitationHandler, HttpTransport, McpClient } from "@mrtr/client"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { Context, Effect, Layer } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listenV2 } from "../../gateway/test/official-v2-server.ts"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const BIN = fileURLToPath(new URL("../bin/mrtr.js", import.meta.url))
const V1_SCRIPT = fileURLToPath(new URL("../../client/test/v1-server.ts", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "mrtr-gateway-"))

let v2: Awaited<ReturnType<typeof listenV2>>
const children: Array<ChildProcess> = []

beforeAll(async () => {
  v2 = await listenV2()
})
afterAll(async () => {
  for (const child of children) child.kill()
  await v2?.close()
})

const writeConfig = (name: string, config: unknown) => {
  const file = join(dir, name)
  writeFileSync(file, JSON.stringify(config))
  return file
}

/** Starts `mrtr gateway` and resolves with its URL once it prints `listening <url>`. */
const startGateway = (config: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "gateway", "--config", config, "--port", "0"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"]
    })
    children.push(child)
    let stdout = ""
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      const found = /^listening (\S+)$/m.exec(stdout)
      if (found !== null) resolve(found[1]!)
    })
    child.on("close", (code) => reject(new Error(`mrtr gateway exited with ${code}:\n${stdout}\n${stderr}`)))
  })

const run = (args: ReadonlyArray<string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

describe("mrtr gateway", () => {
  it(
    "a single upstream is served unprefixed; the official v2 client answers its question through the gateway",
    async () => {
      const url = await startGateway(writeConfig("single.json", { mcpServers: { official: { url: v2.url } } }))
      const client = new Client(
        { name: "official", version: "1" },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } }
      )
      client.setRequestHandler(
        "elicitation/create",
        async () => ({ action: "accept" as const, content: { name: "Ada" } })
      )
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      try {
        const tools = await client.listTools()
        expect(tools.tools.map((t) => t.name).sort()).toEqual(["ask_n", "greet"])
        const result = await client.callTool({ name: "greet" })
        expect((result as any).content[0].text).toBe("Hello, Ada!")
      } finally {
        await client.close()
      }
    },
    60_000
  )

  it("two upstreams of different eras, each under its name: @mrtr/client calls both", async () => {
    const url = await startGateway(writeConfig("two.json", {
      mcpServers: {
        legacy: {
          command: process.execPath,
          args: [...sourceNodeArgs, V1_SCRIPT, "--stdio"],
          include: ["greet", "two_*"]
        },
        modern: { type: "http", url: v2.url }
      },
      gateway: { name: "test-gateway" }
    }))
    const outcome = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(
        McpClient.layer({ protocol: "2026-07-28" }).pipe(
          Layer.provide(HttpTransport.layerNode({ url })),
          Layer.provide(ElicitationHandler.layer({
            form: (params) =>
              Effect.succeed(ElicitationHandler.accept(
                params.message.startsWith("Question")
                  ? { answer: "ok" }
                  : { name: params.message.startsWith("Second") ? "Lee" : "Kim" }
              ))
          }))
        )
      )
      const client = Context.get(context, McpClient.McpClient)
      const names = (yield* client.listTools()).tools.map((t) => t.name).sort()
      const text = (r: any) => r.content[0].text as string
      return {
        names,
        greet: text(yield* client.callTool({ name: "legacy_greet" })),
        twoNames: text(yield* client.callTool({ name: "legacy_two_names" })),
        askN: text(yield* client.callTool({ name: "modern_ask_n", arguments: { n: 2 } }))
      }
    })))
    expect(outcome).toEqual({
      names: ["legacy_greet", "legacy_two_names", "modern_ask_n", "modern_greet"],
      greet: "Hello, Kim!",
      twoNames: "Kim and Lee",
      askN: "ok ok"
    })
  }, 90_000)

  it("--transport stdio: answers on stdout, and exits once stdin ends", async () => {
    const config = writeConfig("stdio.json", { mcpServers: { official: { url: v2.url } } })
    const child = spawn(process.execPath, [BIN, "gateway", "--config", config, "--transport", "stdio"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"]
    })
    children.push(child)
    let stdout = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    const discover = {
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {}
        }
      }
    }
    child.stdin.write(`${JSON.stringify(discover)}\n`)
    await new Promise<void>((resolve) => {
      const check = () => (stdout.includes("\n") ? resolve() : setTimeout(check, 50))
      check()
    })
    child.stdin.end()
    expect(await exited).toBe(0)
    const answer = JSON.parse(stdout.split("\n")[0]!)
    expect(answer.id).toBe(1)
    expect(answer.result.supportedVersions).toContain("2026-07-28")
  }, 60_000)

  it("--help documents the command and its file; a bad file is a usage error (exit 2) saying where", async () => {
    const help = await run(["gateway", "--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("--config")
    expect(help.stdout).toContain("mcpServers")
    expect(help.stdout).toContain("--transport")
    const bad = await run([
      "gateway",
      "--config",
      writeConfig("bad.json", { mcpServers: { x: { url: "ftp://nope" } } })
    ])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("mcpServers.x.url must be an http(s) URL")
    const notJson = writeConfig("notjson.json", {}).replace(/$/, "")
    writeFileSync(notJson, "{ nope")
    const parse = await run(["gateway", "--config", notJson])
    expect(parse.code).toBe(2)
    expect(parse.stderr).toContain("not JSON")
  }, 60_000)
})
