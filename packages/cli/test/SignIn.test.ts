/**
 * `mrtr` signs in when the server answers 401: the command runs as a child
 * process against an MCP server protected by `Authorization.layer`, with a
 * real authorization server (oidc-provider); `$BROWSER` is a headless
 * browser script that signs in and loads the loopback redirect. Checks the
 * result, the 0600 token file under `$MRTR_CONFIG_DIR`, that a second run
 * signs in no more, `mrtr logout`, and that without a terminal or a browser
 * the sign-in URL is printed and `mrtr` waits for the person to open it.
 * Source: MCP 2026-07-28 basic/authorization; RFC 8252.
 */
import { RequestState } from "@mrtr/core"
import { Authorization, HttpTransport, McpServer, Tool } from "@mrtr/server"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { type AuthorizationServer, headlessBrowser, startAuthorizationServer } from "@mrtr/test-support/oauth"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url))
const BROWSER = [process.execPath, ...sourceNodeArgs, fileURLToPath(new URL("./browser.ts", import.meta.url))].join(" ")

const whoami = Tool.make("whoami", {
  handler: () =>
    Effect.map(
      Authorization.authInfo,
      (auth) => Option.match(auth, { onNone: () => "nobody", onSome: (a) => a.subject })
    )
})

let as: AuthorizationServer
let runtime: ManagedRuntime.ManagedRuntime<HttpTransport.HttpEndpoint, never>
let url: string
beforeAll(async () => {
  as = await startAuthorizationServer({ scopes: ["mcp:basic"] })
  runtime = ManagedRuntime.make(
    HttpTransport.layer({ port: 0 }).pipe(
      Layer.provide(Authorization.layer({
        verifier: Authorization.jwt({ issuer: as.issuer, jwksUri: as.jwksUri }),
        requiredScopes: ["mcp:basic"]
      })),
      Layer.provide(
        McpServer.tools(whoami).pipe(
          Layer.provideMerge(McpServer.layer({
            name: "cli-auth",
            version: "1.0.0",
            requestState: RequestState.RequestStateCodec.layer({
              keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(5) }])
            }).pipe(Layer.orDie)
          })),
          Layer.orDie
        )
      ),
      Layer.orDie
    )
  )
  url = await runtime.runPromise(HttpTransport.url)
}, 60_000)
afterAll(async () => {
  await runtime?.dispose()
  await as?.close()
})

const mrtr = (args: ReadonlyArray<string>, env: Record<string, string>, onStderr?: (stderr: string) => void) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [...sourceNodeArgs, MAIN, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", BROWSER: "", ...env }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
      onStderr?.(stderr)
    })
    // Never a hang: a run that takes a minute is killed and reported as such.
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("error", reject)
    child.on("close", (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })))
  })

describe("mrtr sign-in", () => {
  it("signs in through the browser and the loopback redirect, keeps the tokens in a 0600 file, logs out", async () => {
    const config = mkdtempSync(join(tmpdir(), "mrtr-signin-"))
    const env = { MRTR_CONFIG_DIR: config, BROWSER }
    const port = ["--callback-port", String(40_000 + Math.floor(Math.random() * 20_000))]
    const first = await mrtr(["call", "--http", url, ...port, "whoami"], env)
    assert.strictEqual(first.code, 0, first.stderr)
    assert.strictEqual(JSON.parse(first.stdout).content[0].text, "alice")
    assert.include(first.stderr, "sign in at ")
    const file = join(config, "tokens.json")
    assert.strictEqual(statSync(file).mode & 0o777, 0o600)
    assert.property(JSON.parse(readFileSync(file, "utf8")).tokens, url)

    // No browser this time: the stored token is enough.
    const second = await mrtr(["call", "--http", url, ...port, "whoami"], { MRTR_CONFIG_DIR: config })
    assert.strictEqual(second.code, 0, second.stderr)
    assert.notInclude(second.stderr, "sign in at ")

    const out = await mrtr(["logout", "--http", url], { MRTR_CONFIG_DIR: config })
    assert.strictEqual(out.code, 0, out.stderr)
    assert.notProperty(JSON.parse(readFileSync(file, "utf8")).tokens, url)

    // Signed out, no terminal, no browser: the URL is printed and mrtr waits for the person, who opens it
    // in a browser of theirs (here the headless one, as bob).
    let signedIn: Promise<unknown> | undefined
    const third = await mrtr(["call", "--http", url, ...port, "whoami"], { MRTR_CONFIG_DIR: config }, (stderr) => {
      const printed = /sign in at (\S+)/.exec(stderr)?.[1]
      if (printed === undefined || signedIn !== undefined) return
      signedIn = headlessBrowser("bob")(printed).then((redirect) => fetch(redirect))
    })
    assert.strictEqual(third.code, 0, third.stderr)
    assert.strictEqual(JSON.parse(third.stdout).content[0].text, "bob")
    assert.include(third.stderr, "waiting for the browser")
  })
})
