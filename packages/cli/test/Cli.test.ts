/**
 * `mrtr` end to end: the command runs as a child process (through its bin
 * launcher) against the demo server (started in this process on an
 * ephemeral port, Streamable HTTP) and against a stdio server it spawns.
 * Checks exit codes (0 success, 1 tool error, 2 usage, 3 protocol error /
 * round cap / nobody to answer), that stdout carries only the JSON result,
 * and that the rounds go to stderr.
 * Source: MCP 2026-07-28, basic/patterns/mrtr, basic/transports.
 */
import { HttpTransport } from "@mrtr/server"
import { stdioServerScript } from "@mrtr/test-support/fixtures"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { serve } from "@mrtr/test-support/travel"
import { Console, Effect, Layer, ManagedRuntime, References } from "effect"
import { spawn } from "node:child_process"
import { Console as NodeConsole } from "node:console"
import { mkdtempSync, writeFileSync } from "node:fs"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { Writable } from "node:stream"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as Cli from "../src/Cli.ts"
import { inProcess } from "./inProcess.ts"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const BIN = fileURLToPath(new URL("../bin/mrtr.js", import.meta.url))
const STDIO = [process.execPath, ...sourceNodeArgs, stdioServerScript].map((part) => JSON.stringify(part)).join(" ")

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

// Each `mrtr` process boots tsx and effect (seconds of CPU): run at most one per core at a time.
const slots = { free: Math.max(2, availableParallelism()), waiting: [] as Array<() => void> }
const limited = async <A>(f: () => Promise<A>): Promise<A> => {
  if (slots.free === 0) await new Promise<void>((resolve) => slots.waiting.push(resolve))
  else slots.free--
  try {
    return await f()
  } finally {
    const next = slots.waiting.shift()
    if (next === undefined) slots.free++
    else next()
  }
}

/** Runs `mrtr args…` as a child process (stdin not a terminal) and collects its exit code and output. */
const mrtr = (args: ReadonlyArray<string>, command: ReadonlyArray<string> = [process.execPath, BIN]): Promise<Run> =>
  limited(() => spawnRun(args, command))

const spawnRun = (args: ReadonlyArray<string>, command: ReadonlyArray<string>): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(command[0]!, [...command.slice(1), ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const json = (run: Run) => {
  try {
    return JSON.parse(run.stdout)
  } catch {
    assert.fail(`stdout is not JSON:\n${run.stdout}\n--- stderr:\n${run.stderr}`)
  }
}

const text = (result: { readonly content: ReadonlyArray<{ readonly text?: string }> }) => result.content[0]?.text ?? ""

const dir = mkdtempSync(join(tmpdir(), "mrtr-cli-"))
const answersFile = (name: string, answers: unknown) => {
  const path = join(dir, name)
  writeFileSync(path, typeof answers === "string" ? answers : JSON.stringify(answers))
  return path
}

const TRIP = JSON.stringify({ from: "Paris", to: "Milan" })
const TRAVELLER = {
  details: {
    traveller: "Ada Lovelace",
    email: "ada@example.com",
    date: "2026-08-01",
    passengers: 2,
    firstClass: true,
    seat: "window",
    extras: ["bike"]
  },
  tagline: "Alps by rail.",
  roots: ["file:///home/ada/trips"],
  confirm: { action: "accept", content: { book: true } },
  style: { style: "comfort" },
  unit: "cancel"
}

// the server's own logs (e.g. the single-instance key warning) stay out of the test output
const server = ManagedRuntime.make(serve(0).pipe(Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))))
let url = ""

beforeAll(async () => {
  url = await server.runPromise(HttpTransport.url)
})

afterAll(async () => {
  await server.dispose()
})

describe.concurrent("mrtr over Streamable HTTP", () => {
  it("call with --answers: every round answered from the file, the JSON result alone on stdout, exit 0", async () => {
    const run = await mrtr(["call", "--http", url, "plan_trip", TRIP, "--answers", answersFile("trip.json", TRAVELLER)])
    assert.strictEqual(run.code, 0, run.stderr)
    const result = json(run)
    assert.strictEqual(result.isError, undefined)
    assert.include(text(result), "Booked for Ada Lovelace <ada@example.com>: Paris → Strasbourg → Zurich → Milan")
    assert.include(text(result), "\"Alps by rail.\" Plan filed under file:///home/ada/trips.")
    // the rounds are reported on stderr: questions, answers, requestState sizes
    for (
      const expected of [
        "round 1",
        "round 2",
        "round 3",
        "details",
        "tagline",
        "roots/list",
        "confirm",
        "accept {\"book\":true}"
      ]
    ) {
      assert.include(run.stderr, expected)
    }
    assert.match(run.stderr, /requestState \d+ bytes/)
    assert.include(run.stderr, "✓ complete after 4 requests (3 input rounds, MCP 2026-07-28)")
  })

  it("a secure elicitation: the URL is accepted from the file, mrtr waits while the page is not completed, then completes", async () => {
    // in this process, so that the test reads the URL from stderr while mrtr waits, and completes the page itself
    let stdout = ""
    let stderr = ""
    let completed: Promise<number> | undefined
    const completePage = async (page: string) => {
      const form = await fetch(page)
      const html = await form.text()
      const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""
      const cookie = form.headers.get("set-cookie")?.split(";")[0] ?? ""
      const submitted = await fetch(page, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: new URLSearchParams({ csrf: token, accountId: "ada-1815", apiKey: "rk_live_0123456789" }).toString()
      })
      return submitted.status
    }
    const sink = (append: (text: string) => void) =>
      new Writable({
        write(chunk, _encoding, callback) {
          append(String(chunk))
          callback()
        }
      })
    const console = new NodeConsole({
      stdout: sink((t) => (stdout += t)),
      stderr: sink((t) => {
        stderr += t
        const page = /(http:\/\/127\.0\.0\.1:\d+\/mrtr\/interactions\/[A-Za-z0-9_-]{43})/.exec(stderr)?.[1]
        // the first retry found the page waiting: now the person completes it
        if (page !== undefined && completed === undefined && stderr.includes("round 2")) completed = completePage(page)
      })
    })
    const code = await Effect.runPromise(
      Cli.run([
        "call",
        "--http",
        url,
        "link_rail_account",
        JSON.stringify({ operator: "EuroRail" }),
        "--answers",
        answersFile("secret.json", { rail_api_key: "accept" })
      ]).pipe(
        Effect.provideService(Console.Console, console as unknown as Console.Console),
        Effect.provideService(Cli.Stdout, (text) => Effect.sync(() => void (stdout += text)))
      )
    )
    assert.strictEqual(code, 0, stderr)
    assert.strictEqual(await completed, 200)
    assert.include(text(JSON.parse(stdout)), "Linked EuroRail account ada-1815 (key rk_…89)")
    assert.notInclude(stdout + stderr, "rk_live_0123456789", "the secret never passed through mrtr")
  })

  it("the tool reports an error (isError: true): the result on stdout, exit 1", async () => {
    const run = await mrtr([
      "call",
      "--http",
      url,
      "plan_trip",
      TRIP,
      "--answers",
      answersFile("decline.json", { details: "decline" })
    ])
    assert.strictEqual(run.code, 1, run.stderr)
    const result = json(run)
    assert.strictEqual(result.isError, true)
    assert.include(text(result), "declined")
    assert.include(run.stderr, "reported an error")
  })

  it("usage errors exit 2 with nothing on stdout (as a process)", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["call", "plan_trip", TRIP], "--http <url> or --stdio"],
      [["call", "--http", url, "plan_trip", "--no-such-flag"], "Unrecognized flag"]
    ]
    const runs = await Promise.all(cases.map(([args]) => mrtr(args)))
    runs.forEach((run, i) => {
      const [args, message] = cases[i]!
      assert.strictEqual(run.code, 2, `${args.join(" ")}\n${run.stderr}`)
      assert.strictEqual(run.stdout, "", args.join(" "))
      assert.include(run.stderr, message, args.join(" "))
    })
  })

  it("a question nobody can answer (no --answers entry, stdin not a terminal): a clear error, exit 3, no hang", async () => {
    const run = await mrtr(["call", "--http", url, "plan_trip", TRIP])
    assert.strictEqual(run.code, 3, run.stderr)
    assert.strictEqual(run.stdout, "")
    assert.include(run.stderr, "the server asked 'details' and there is nobody to answer")
    assert.include(run.stderr, "\"traveller\": \"<string>\"")
    assert.include(run.stderr, "\"extras\": \"<array of bike | pet | wifi | meal, optional>\"")
  })

  it("the round cap: exit 3", async () => {
    const run = await mrtr([
      "call",
      "--http",
      url,
      "plan_trip",
      TRIP,
      "--answers",
      answersFile("cap.json", TRAVELLER),
      "--max-rounds",
      "2"
    ])
    assert.strictEqual(run.code, 3, run.stderr)
    assert.strictEqual(run.stdout, "")
    assert.include(run.stderr, "still asked for input after 2 requests")
  })

  it("a protocol error (a JSON-RPC error from the server): exit 3", async () => {
    const run = await mrtr(["call", "--http", url, "no_such_tool"])
    assert.strictEqual(run.code, 3, run.stderr)
    assert.include(run.stderr, "JSON-RPC error -32602")
    assert.strictEqual(run.stdout, "")
  })

  it("call: a tool that becomes a task shows its status changes on stderr and prints the final result", async () => {
    const run = await mrtr([
      "call",
      "--http",
      url,
      "book_tickets",
      TRIP,
      "--answers",
      answersFile("tickets.json", { passenger: { name: "Ada" }, confirm_booking: { book: true } })
    ])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.match(text(json(run)), /^Booked seat \S+ for Ada: Paris → .* → Milan\.$/)
    // The MRTR round before Task.detach, then the task's own statuses, in order.
    assert.include(run.stderr, "round 1")
    const statuses = run.stderr.split("\n").filter((line) => line.startsWith("task ")).map((line) =>
      line.split(/\s+/)[2]
    )
    assert.deepStrictEqual([statuses[0], statuses.at(-1)], ["working", "completed"])
    assert.include(statuses, "input_required")
    assert.match(run.stderr, /input_required {2}waiting for confirm_booking/)
  })

  it("discover: server/discover plus the lists", async () => {
    const run = await mrtr(["discover", "--http", url])
    assert.strictEqual(run.code, 0, run.stderr)
    const result = json(run)
    assert.strictEqual(result.era, "2026-07-28")
    assert.strictEqual(result.protocolVersion, "2026-07-28")
    assert.deepStrictEqual(result.supportedVersions, ["2026-07-28"])
    assert.deepStrictEqual(result.tools.map((t: { name: string }) => t.name), [
      "plan_trip",
      "link_rail_account",
      "book_tickets",
      "check_timetables"
    ])
    assert.deepStrictEqual(result.prompts.map((p: { name: string }) => p.name), ["packing_list"])
    assert.deepStrictEqual(result.resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate), [
      "weather://{city}/{date}"
    ])
    // the same (dual-era) server over 2025-11-25: the same lists, the era named first
    const legacy = await mrtr(["discover", "--http", url, "--protocol", "2025-11-25"])
    assert.strictEqual(legacy.code, 0, legacy.stderr)
    const legacyResult = json(legacy)
    assert.strictEqual(legacyResult.era, "2025-11-25")
    assert.deepStrictEqual(legacyResult.supportedVersions, ["2025-11-25"])
    const names = (items: ReadonlyArray<{ readonly name: string }>) => items.map((item) => item.name)
    assert.deepStrictEqual(names(legacyResult.tools), names(result.tools))
    assert.deepStrictEqual(names(legacyResult.prompts), names(result.prompts))
  })

  it("read: a resource template that asks; get-prompt: a prompt that asks", async () => {
    const answers = answersFile("other.json", { ...TRAVELLER, unit: { unit: "fahrenheit" } })
    const [read, prompt] = await Promise.all([
      mrtr(["read", "--http", url, "weather://Zurich/2026-08-01", "--answers", answers]),
      mrtr(["get-prompt", "--http", url, "packing_list", "{\"city\":\"Rome\"}", "--answers", answers])
    ])
    assert.strictEqual(read.code, 0, read.stderr)
    assert.match(json(read).contents[0].text, /^Zurich on 2026-08-01: .*°F$/)
    assert.include(read.stderr, "unit")
    assert.strictEqual(prompt.code, 0, prompt.stderr)
    assert.strictEqual(json(prompt).messages[0].content.text, "Write a comfortable packing list for a trip to Rome.")
  })

  it("npx mrtr runs the installed bin", async () => {
    const run = await mrtr(["--version"], ["npx", "--no-install", "mrtr"])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.stdout, "mrtr v0.1.0")
  })
})

describe("mrtr in process (the same Cli.run, without booting a process per case)", () => {
  it("usage errors exit 2 with nothing on stdout", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["call", "plan_trip", TRIP], "--http <url> or --stdio"],
      [["call", "--http", url, "--stdio", "node x.js", "plan_trip"], "not both"],
      [["call", "--http", url, "plan_trip", "{not json"], "not valid JSON"],
      [["call", "--http", url, "plan_trip", "[1, 2]"], "must be a JSON object"],
      [["call", "--http", "ftp://example.com", "plan_trip"], "http(s) URL"],
      [["call", "--stdio", "  ", "plan_trip"], "--stdio needs a command line"],
      [["call", "--http", url, "plan_trip", "--no-such-flag"], "Unrecognized flag"],
      [["call", "--http", url], "Missing required argument: tool"],
      [["call", "--http", url, "plan_trip", "--max-rounds", "zero"], "max-rounds"],
      [["call", "--http", url, "plan_trip", "--max-rounds", "0"], "--max-rounds must be at least 1"],
      [["get-prompt", "--http", url, "packing_list", "{\"city\": 1}"], "strings"],
      [
        ["call", "--http", url, "plan_trip", TRIP, "--answers", join(dir, "missing.json")],
        "missing.json does not exist"
      ],
      [["call", "--http", url, "plan_trip", TRIP, "--answers", answersFile("broken.json", "{")], "not JSON"],
      [
        ["call", "--http", url, "plan_trip", TRIP, "--answers", answersFile("array.json", "[]")],
        "expected a JSON object"
      ],
      // an answer of the wrong shape for the question asked under its key
      [
        ["call", "--http", url, "plan_trip", TRIP, "--answers", answersFile("shape.json", { details: 42 })],
        "answer 'details'"
      ],
      [["nonsense"], "nonsense"],
      [[], "SUBCOMMANDS"]
    ]
    for (const [args, message] of cases) {
      const run = await inProcess(args)
      assert.strictEqual(run.code, 2, `${args.join(" ")}\n${run.stderr}`)
      assert.strictEqual(run.stdout, "", args.join(" "))
      assert.include(run.stderr, message, args.join(" "))
    }
  })

  it("protocol errors, the round cap and unanswered questions exit 3 on every command", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["discover", "--http", "http://127.0.0.1:9/mcp"], "transport error"],
      [["read", "--http", url, "nowhere://x"], "JSON-RPC error"],
      [["get-prompt", "--http", url, "no_such_prompt"], "JSON-RPC error -32602"],
      [["read", "--http", url, "weather://Rome/2026-08-01"], "the server asked 'unit'"],
      [["get-prompt", "--http", url, "packing_list", "{\"city\":\"Rome\"}", "--max-rounds", "1"], "after 1 requests"]
    ]
    for (const [args, message] of cases) {
      const run = await inProcess(args)
      assert.strictEqual(run.code, 3, `${args.join(" ")}\n${run.stderr}`)
      assert.strictEqual(run.stdout, "", args.join(" "))
      assert.include(run.stderr, message, args.join(" "))
    }
  })

  it("an answer the server does not accept is reported at once (exit 3), not re-sent until the round cap", async () => {
    const file = answersFile("out-of-range.json", { ...TRAVELLER, details: { ...TRAVELLER.details, passengers: 200 } })
    const run = await inProcess(["call", "--http", url, "plan_trip", TRIP, "--answers", file, "-q"])
    assert.strictEqual(run.code, 3, run.stderr)
    assert.strictEqual(run.stdout, "")
    assert.include(
      run.stderr,
      "the server asked 'details' again after round 1: it did not accept the answer from the answers file: \"Passengers\" must be at most 8."
    )
    // one line: the server's reason is inside it, not below it
    assert.strictEqual(run.stderr.trim().split("\n").length, 1, run.stderr)
  })

  it("--root and --sampling-reply answer roots and sampling; --quiet keeps stderr empty", async () => {
    const run = await inProcess([
      "call",
      "--http",
      url,
      "plan_trip",
      TRIP,
      "--answers",
      answersFile("form-only.json", { details: TRAVELLER.details, confirm: { book: true } }),
      "--root",
      "file:///srv/a",
      "--root",
      "file:///srv/b",
      "--sampling-reply",
      "By train!",
      "-q"
    ])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(text(json(run)), "\"By train!\" Plan filed under file:///srv/a.")
    assert.strictEqual(run.stderr, "")
  })

  it("--help and --version go to stdout, exit 0", async () => {
    const help = await inProcess(["call", "--help"])
    assert.strictEqual(help.code, 0)
    assert.include(help.stdout, "mrtr call [flags] <tool> [<json-arguments>]")
    assert.include(help.stdout, "--answers file.json")
    const version = await inProcess(["--version"])
    assert.strictEqual(version.code, 0)
    assert.include(version.stdout, "mrtr v0.1.0")
  })

  it("splits --stdio command lines like a shell would (quotes, escapes)", () => {
    assert.deepStrictEqual(Cli.splitCommandLine("node  \"my server.js\" --name 'a b' x\\ y \"\""), [
      "node",
      "my server.js",
      "--name",
      "a b",
      "x y",
      ""
    ])
  })
})

describe.concurrent("mrtr over stdio", () => {
  it("call: the server is spawned, every round answered, exit 0", async () => {
    const run = await mrtr([
      "call",
      "--stdio",
      STDIO,
      "plan",
      "{\"city\":\"Rome\"}",
      "--answers",
      answersFile("plan.json", {
        who: { name: "Kim" },
        idea: "Take the night train.",
        roots: ["file:///kim"],
        confirm: { ok: true }
      })
    ])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.strictEqual(text(json(run)), "Kim: Take the night train. (1 roots) booked")
    assert.include(run.stderr, "stdio:")
    assert.include(run.stderr, "round 2")
  })

  it("in process: a URL-mode elicitation answered \"accept\" from the file; nobody to answer; a command that does not start", async () => {
    const signIn = await inProcess([
      "call",
      "--stdio",
      STDIO,
      "sign_in",
      "--answers",
      answersFile("url.json", { auth: "accept" })
    ])
    assert.strictEqual(signIn.code, 0, signIn.stderr)
    assert.strictEqual(text(JSON.parse(signIn.stdout)), "signed in")
    assert.include(signIn.stderr, "elicitation/create (url)")
    const unanswered = await inProcess(["call", "--stdio", STDIO, "greet", "{\"greeting\":\"Hi\"}"])
    assert.strictEqual(unanswered.code, 3, unanswered.stderr)
    assert.include(unanswered.stderr, "the server asked 'name'")
    const missing = await inProcess(["discover", "--stdio", "/nonexistent/mcp-server"])
    assert.strictEqual(missing.code, 3, missing.stderr)
    assert.strictEqual(missing.stdout, "")
  })
})

describe("mrtr against a server that never answers", () => {
  it(
    "--timeout (call, discover) gives up with exit 3 instead of hanging; a too-deep result is a clear error, not a crash",
    async () => {
      const { createServer } = await import("node:http")
      const deep = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":{"x":${
        "[".repeat(100_000)
      }${"]".repeat(100_000)}}}}`
      const server = createServer((req, res) => {
        let body = ""
        req.on("data", (chunk) => (body += chunk))
        req.on("end", () => {
          const message = JSON.parse(body)
          if (message.params?.name === "deep") {
            res.writeHead(200, { "content-type": "application/json" })
            res.end(deep.replace("\"id\":1", `"id":${JSON.stringify(message.id)}`))
          } else if (message.method === "tools/list") {
            res.writeHead(200, { "content-type": "application/json" })
            res.end(
              JSON.stringify({
                jsonrpc: "2.0",
                id: message.id,
                result: { resultType: "complete", ttlMs: 0, cacheScope: "private", tools: [] }
              })
            )
          }
          // anything else: headers never sent, the request hangs
        })
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const hung = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`
      try {
        const started = Date.now()
        const run = await inProcess(["call", "--http", hung, "slow", "--timeout", "1", "-q"])
        assert.strictEqual(run.code, 3, run.stderr)
        assert.include(run.stderr, "within 1 seconds")
        assert.isBelow(Date.now() - started, 15_000)
        // discover takes --timeout too (server/discover is never answered here)
        const discovered = await inProcess(["discover", "--http", hung, "--timeout", "1"])
        assert.strictEqual(discovered.code, 3, discovered.stderr)
        assert.include(discovered.stderr, "within 1 seconds")
        assert.strictEqual(discovered.stdout, "")
        const zero = await inProcess(["discover", "--http", hung, "--timeout", "0"])
        assert.strictEqual(zero.code, 2, zero.stderr)
        assert.include(zero.stderr, "--timeout must be at least 1 second")
        // pinned: this server does not implement server/discover (the probe would hang)
        const deepRun = await inProcess(["call", "--http", hung, "--protocol", "2026-07-28", "deep", "-q"])
        assert.strictEqual(deepRun.code, 3, deepRun.stderr)
        assert.strictEqual(deepRun.stdout, "")
        assert.include(deepRun.stderr, "cannot be printed as JSON")
      } finally {
        server.closeAllConnections()
        server.close()
      }
    },
    60_000
  )
})

describe("mrtr against a 2025-11-25 server (the official v1 SDK, over stdio)", () => {
  const V1 = [
    process.execPath,
    ...sourceNodeArgs,
    fileURLToPath(new URL("../../client/test/v1-server.ts", import.meta.url)),
    "--stdio"
  ]
    .map((part) => JSON.stringify(part))
    .join(" ")

  it("the same flags work: --answers by derived key answers in-flight requests, discover names the era", async () => {
    const answers = answersFile("v1.json", {
      "elicitation-1": { name: "Zed" },
      "sampling-1": "Lisbon",
      "roots-1": ["file:///srv"]
    })
    const greet = await inProcess(["call", "--stdio", V1, "greet", "--answers", answers])
    assert.strictEqual(greet.code, 0, greet.stderr)
    assert.strictEqual(text(JSON.parse(greet.stdout)), "Hello, Zed!")
    assert.include(greet.stderr, "over MCP 2025-11-25")
    // each question answered in flight is reported on stderr, as rounds are on 2026-07-28
    assert.match(greet.stderr, /in flight ← elicitation-1 +elicitation\/create/)
    assert.match(greet.stderr, /→ elicitation-1 +accept/)
    const everything = await inProcess(["call", "--stdio", V1, "everything", "--answers", answers, "-q"])
    assert.strictEqual(everything.code, 0, everything.stderr)
    assert.strictEqual(text(JSON.parse(everything.stdout)), "Zed|Lisbon|1")
    const discovered = await inProcess(["discover", "--stdio", V1])
    assert.strictEqual(discovered.code, 0, discovered.stderr)
    const output = JSON.parse(discovered.stdout)
    assert.strictEqual(output.era, "2025-11-25")
    assert.strictEqual(output.protocolVersion, "2025-11-25")
    assert.deepStrictEqual(output.supportedVersions, ["2025-11-25"])
    assert.isTrue(output.tools.some((tool: { readonly name: string }) => tool.name === "greet"))
    // a question nobody answers: exit 3 with the answers-file skeleton under the derived key, as on 2026-07-28
    const unanswered = await inProcess(["call", "--stdio", V1, "greet", "-q"])
    assert.strictEqual(unanswered.code, 3, unanswered.stderr)
    assert.include(unanswered.stderr, "elicitation-1")
    assert.include(unanswered.stderr, "--answers")
    assert.strictEqual(unanswered.stdout, "")
    // pinned to 2026-07-28 there is no initialize: the v1 server knows no client capabilities and cannot elicit
    const pinned = await inProcess([
      "call",
      "--stdio",
      V1,
      "--protocol",
      "2026-07-28",
      "greet",
      "--answers",
      answers,
      "-q"
    ])
    assert.strictEqual(pinned.code, 1, pinned.stderr)
  }, 60_000)
})
