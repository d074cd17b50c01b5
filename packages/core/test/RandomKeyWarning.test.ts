/**
 * The random-key warning (no `MRTR_REQUEST_STATE_KEYS`) as a real process
 * sees it: on stderr, never stdout (a stdio server's stdout carries the
 * protocol), and once per process however many codecs are built.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const script = fileURLToPath(new URL("./random-key.ts", import.meta.url))

describe("the random per-process key warning", () => {
  it("goes to stderr, once per process", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      env: { ...process.env, MRTR_REQUEST_STATE_KEYS: "" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve))
    assert.strictEqual(code, 0)
    assert.strictEqual(stdout, "done\n")
    assert.lengthOf(stderr.match(/random per-process key/g) ?? [], 1)
  }, 30_000)
})
