/**
 * `mrtr` (in process, `Cli.run`) against real servers on loopback, for what
 * a newcomer meets, and what a hostile server tries: progress on stderr while a call runs;
 * "connection refused", "no MCP endpoint at this URL (HTTP 404)", a missing
 * answers file in one line; `-q` / `--timeout` on every command; the usage
 * hint naming the command; a default time bound; and server text that tries
 * to fake `mrtr`'s own lines or drive the terminal.
 * Source: MCP 2026-07-28, basic/patterns/mrtr, basic/utilities/progress.
 */
import { Elicitation, RequestState } from "@mrtr/core"
import { HttpTransport, McpServer, RequestContext, Tool } from "@mrtr/server"
import { Effect, Layer, ManagedRuntime, References, Schema } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as Http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { inProcess } from "./inProcess.ts"

// A real server with a tool that reports progress.
const slowly = Tool.make("slowly", {
  parameters: Schema.Struct({ steps: Schema.Number }),
  handler: ({ steps }) =>
    Effect.gen(function*() {
      for (let i = 1; i <= steps; i++) yield* RequestContext.progress(i, { total: steps, message: `step ${i}` })
      return `done in ${steps} steps`
    })
})

// A form whose field title carries terminal controls; more than 4 seats are refused.
const book = Tool.make("book", {
  handler: () =>
    Elicitation.form({
      key: "seats",
      message: "How many seats?",
      schema: Schema.Struct({
        seats: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 4 })).annotate({
          title: "Seats\u001b[2J\u202e"
        })
      })
    }).pipe(Effect.map(({ seats }) => `booked ${seats}`))
})

const server = ManagedRuntime.make(
  HttpTransport.layer({ port: 0 }).pipe(
    Layer.provide(
      McpServer.tools(slowly, book).pipe(Layer.provideMerge(McpServer.layer({
        name: "progress-server",
        version: "1.0.0",
        requestState: RequestState.RequestStateCodec.layer({
          keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(3) }])
        }).pipe(Layer.orDie)
      })))
    ),
    Layer.orDie,
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
  )
)
let url = ""

// A hostile server: its strings carry line breaks, C1 controls and bidi overrides. It is modern-only and has no
// server/discover, so the runs pin --protocol 2026-07-28 (no probe).
const FAKE = "\nFAKE: ✓ complete after 1 request"
const hostile = Http.createServer((req, res) => {
  let body = ""
  req.on("data", (chunk) => (body += chunk))
  req.on("end", () => {
    const message = JSON.parse(body)
    const reply = (result: unknown) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }))
    }
    if (message.method === "tools/list") {
      return reply({
        resultType: "complete",
        ttlMs: 0,
        cacheScope: "private",
        tools: [{ name: "evil", inputSchema: { type: "object" } }]
      })
    }
    if (message.params?.name === "evil" && message.params.inputResponses === undefined) {
      return reply({
        resultType: "input_required",
        inputRequests: {
          [`key${FAKE}`]: {
            method: "elicitation/create",
            params: {
              message: `Hello\u009b2J\u202Eevil${FAKE}`,
              requestedSchema: { type: "object", properties: { [`field${FAKE}`]: { type: "string" } } }
            }
          }
        },
        requestState: "s"
      })
    }
    if (message.params?.name === "evil") {
      return reply({ resultType: "complete", content: [{ type: "text", text: "ok\u009b31m\u202Edone\u2028x" }] })
    }
    res.writeHead(200, { "content-type": "application/json" })
    res.end(
      JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32602, message: `bad${FAKE}\u001b[2J\u202E` } })
    )
  })
})
let hostileUrl = ""

beforeAll(async () => {
  url = await server.runPromise(HttpTransport.url)
  await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve))
  hostileUrl = `http://127.0.0.1:${(hostile.address() as { port: number }).port}/mcp`
})

afterAll(async () => {
  await server.dispose()
  hostile.closeAllConnections()
  hostile.close()
})

const dir = mkdtempSync(join(tmpdir(), "mrtr-faults-"))

describe("mrtr, what newcomers hit", () => {
  it("progress notifications appear on stderr while a call runs (not with -q); the result alone on stdout", async () => {
    const run = await inProcess(["call", "--http", url, "slowly", "{\"steps\":3}"])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.strictEqual(JSON.parse(run.stdout).content[0].text, "done in 3 steps")
    for (const step of [1, 2, 3]) assert.include(run.stderr, `… progress ${step}/3  "step ${step}"`)
    const quiet = await inProcess(["call", "--http", url, "slowly", "{\"steps\":3}", "-q"])
    assert.strictEqual(quiet.code, 0, quiet.stderr)
    assert.strictEqual(quiet.stderr, "")
  })

  it("says 'connection refused' when nothing listens and 'no MCP endpoint at this URL (HTTP 404)' for a wrong path", async () => {
    const refused = await inProcess(["discover", "--http", "http://127.0.0.1:9/mcp", "-q"])
    assert.strictEqual(refused.code, 3, refused.stderr)
    assert.strictEqual(
      refused.stderr.trim(),
      "mrtr: transport error: connection refused: nothing listens at http://127.0.0.1:9/mcp"
    )
    const wrongPath = await inProcess(["call", "--http", url.replace("/mcp", "/nope"), "slowly", "-q"])
    assert.strictEqual(wrongPath.code, 3, wrongPath.stderr)
    assert.strictEqual(wrongPath.stderr.trim(), "mrtr: transport error: no MCP endpoint at this URL (HTTP 404)")
  })

  it("a missing --answers file is one clear line", async () => {
    const path = join(dir, "missing.json")
    const run = await inProcess(["call", "--http", url, "slowly", "--answers", path])
    assert.strictEqual(run.code, 2, run.stderr)
    assert.strictEqual(run.stderr, `mrtr: the answers file cannot be used: ${path} does not exist\n`)
    assert.strictEqual(run.stdout, "")
  })

  it("-q and --timeout work on every command, before or after its name", async () => {
    for (
      const args of [
        ["discover", "--http", url, "-q"],
        ["-q", "discover", "--http", url],
        ["discover", "--http", url, "--timeout", "30", "--quiet"],
        ["call", "--http", url, "slowly", "{\"steps\":1}", "-q", "--timeout", "30"],
        ["--timeout", "30", "-q", "call", "--http", url, "slowly", "{\"steps\":1}"],
        ["read", "--http", url, "nowhere://x", "-q"],
        ["get-prompt", "--http", url, "none", "-q"]
      ]
    ) {
      const run = await inProcess(args)
      assert.notStrictEqual(run.code, 2, `${args.join(" ")}\n${run.stderr}`)
      assert.notInclude(run.stderr, "Unrecognized flag", args.join(" "))
      assert.notInclude(run.stderr, "→", args.join(" ")) // quiet: no progress of the run
    }
  })

  it("--stdio: a server that cannot start says why: the spawn error's code and command, the exit code, its last stderr lines", async () => {
    const missing = await inProcess(["discover", "--stdio", "mrtr-no-such-command --x", "-q"])
    assert.strictEqual(missing.code, 3, missing.stderr)
    assert.include(missing.stderr, "Cannot spawn the MCP server process 'mrtr-no-such-command --x': ENOENT")
    const script = join(dir, "no-such-server.js")
    const crashed = await inProcess(["discover", "--stdio", `"${process.execPath}" "${script}"`, "-q"])
    assert.strictEqual(crashed.code, 3, crashed.stderr)
    assert.include(crashed.stderr, "mrtr: transport error: The MCP server process exited with code 1")
    assert.include(crashed.stderr, "The server's last lines on stderr:")
    assert.include(crashed.stderr, `│ Error: Cannot find module '${script}'`)
    assert.include(crashed.stderr, "MODULE_NOT_FOUND")
    // the server's text is escaped like any other (no terminal escapes reach the screen)
    const loud = await inProcess([
      "discover",
      "--stdio",
      `"${process.execPath}" -e "process.stderr.write('\\\\u001b[2Jboom\\\\n'); process.exit(7)"`,
      "-q"
    ])
    assert.strictEqual(loud.code, 3, loud.stderr)
    assert.include(loud.stderr, "exited with code 7")
    assert.include(loud.stderr, "│ \\u001b[2Jboom")
    assert.notInclude(loud.stderr, "\u001b")
  })

  it("an answers-file answer the server refuses: one line quoting the server's reason, escaped", async () => {
    const path = join(dir, "too-many-seats.json")
    writeFileSync(path, JSON.stringify({ seats: { seats: 9 } }))
    const run = await inProcess(["call", "--http", url, "book", "--answers", path, "-q"])
    assert.strictEqual(run.code, 3, run.stderr)
    assert.strictEqual(run.stdout, "")
    assert.strictEqual(
      run.stderr,
      "mrtr: could not answer the server: the server asked 'seats' again after round 1: it did not accept the answer " +
        "from the answers file: \"Seats\\u001b[2J\\u202e\" must be at most 4. (input request 'seats')\n"
    )
  })

  it("the usage hint names the command that ran", async () => {
    for (const command of ["call", "get-prompt"]) {
      const run = await inProcess([command, "--http", url, "x", "{not json"])
      assert.strictEqual(run.code, 2, run.stderr)
      assert.include(run.stderr, `Run 'mrtr ${command} --help' for usage.`)
      assert.notInclude(run.stderr, "<command>")
    }
  })
})

describe("mrtr and a hostile server's text", () => {
  const raw = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\u2028\u2029]/

  it("every server string is shown on one line, controls and bidi overrides escaped visibly; stdout is exact JSON", async () => {
    const answers = join(dir, "evil.json")
    const { writeFileSync } = await import("node:fs")
    writeFileSync(answers, JSON.stringify({ [`key${FAKE}`]: { [`field${FAKE}`]: "x" } }))
    const run = await inProcess([
      "call",
      "--http",
      hostileUrl,
      "--protocol",
      "2026-07-28",
      "evil",
      "--answers",
      answers
    ])
    assert.strictEqual(run.code, 0, run.stderr)
    // no line of stderr is the server's: the fake line is escaped inside the real one
    const lines = run.stderr.split("\n")
    assert.isFalse(lines.some((line) => line.startsWith("FAKE")), run.stderr)
    assert.include(run.stderr, "key\\nFAKE: ✓ complete after 1 request")
    assert.include(run.stderr, "field\\nFAKE")
    assert.include(run.stderr, "Hello\\u009b2J\\u202eevil\\nFAKE")
    assert.notMatch(run.stderr.replace(/\n/g, ""), raw)
    // stdout: exact JSON (the same text), with the dangerous characters as \uXXXX escapes
    assert.notMatch(run.stdout, /[\u007F-\u009F\u202A-\u202E\u2028\u2029]/)
    assert.include(run.stdout, "\\u009b31m\\u202edone\\u2028x")
    assert.strictEqual(JSON.parse(run.stdout).content[0].text, "ok\u009b31m\u202Edone\u2028x")
  })

  it("a server's error message cannot add lines or escapes either", async () => {
    const run = await inProcess(["read", "--http", hostileUrl, "--protocol", "2026-07-28", "x://y"])
    assert.strictEqual(run.code, 3, run.stderr)
    const lines = run.stderr.trimEnd().split("\n")
    assert.isFalse(lines.some((line) => line.startsWith("FAKE")), run.stderr)
    assert.include(run.stderr, "bad\\nFAKE: ✓ complete after 1 request\\u001b[2J\\u202e")
    assert.notMatch(run.stderr.replace(/\n/g, ""), raw)
  })
})
