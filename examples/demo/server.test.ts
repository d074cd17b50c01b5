/**
 * The demo server's command line: `--help` prints its options and exits
 * (it used to start a server), a bad option is refused with the usage.
 */
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { parseArgs, USAGE } from "./server.ts"

const ENTRY = fileURLToPath(new URL("./server.ts", import.meta.url))

const run = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    // A server that started instead would never exit: the timeout kills it, and the code is then null.
    execFile(
      process.execPath,
      [...sourceNodeArgs, ENTRY, ...args],
      { timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
    )
  })

describe("examples/demo/server.ts", () => {
  it("--help prints the options and exits 0 without serving", async () => {
    const { code, stdout } = await run(["--help"])
    expect(code).toBe(0)
    expect(stdout).toBe(USAGE)
    expect(stdout).toContain("--port <port>")
    expect(stdout).not.toMatch(/^listening http/m)
  }, 40_000)

  it("a bad option or port is refused with the usage (exit 2)", async () => {
    const { code, stderr, stdout } = await run(["--prot", "3000"])
    expect(code).toBe(2)
    expect(stderr).toContain(`Unknown option "--prot"`)
    expect(stderr).toContain("Usage: server.ts")
    expect(stdout).toBe("")
    expect(parseArgs(["--port", "abc"])).toMatchObject({ exitCode: 2 })
    expect(parseArgs(["--port"])).toMatchObject({ exitCode: 2 })
    expect(parseArgs(["--port", "70000"])).toMatchObject({ exitCode: 2 })
    expect(parseArgs(["-h"])).toEqual({ print: USAGE, exitCode: 0 })
    expect(parseArgs(["--port", "8080"])).toEqual({ port: 8080 })
    expect(parseArgs(["--port=0"])).toEqual({ port: 0 })
    expect(parseArgs([])).toEqual({ port: 0 })
  }, 40_000)
})
