/**
 * CORS as a browser sees it: headless Chromium (Debian package `chromium`,
 * at /usr/bin/chromium or `$CHROMIUM_PATH`) loads a page served on one local
 * origin (a port of 127.0.0.1) that runs a full two-round MRTR conversation
 * with `fetch` against the MCP server on another port (a tool whose argument
 * is mirrored in an `Mcp-Param-Region` header, which asks a form), and reports
 * what it saw back to its own origin. The same page calls a server without
 * `cors`, and an iframe on a third, disallowed origin calls the CORS server:
 * the browser must block both.
 *
 * The browser is driven by its command line (no driver library): a report
 * POSTed by the page is the result; the process is killed afterwards. A
 * missing Chromium fails the test with a message naming the apt package; it
 * is never skipped.
 */
import { assert, describe, it } from "@effect/vitest"
import { Elicitation, RequestState } from "@mrtr/core"
import { makeRequestMeta } from "@mrtr/protocol/Meta"
import { mcpHeaders } from "@mrtr/test-support/http"
import { validateWire } from "@mrtr/test-support/wire"
import { Deferred, Effect, Layer, Schema, type Scope } from "effect"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { HttpTransport, McpServer, Tool } from "../src/index.ts"
import { keys } from "./fixtures.ts"

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"

/** Fails (never skips) when Chromium is missing, naming what to install. */
const requireChromium = (): string => {
  if (!Fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install the Debian package "chromium" (apt-get install -y chromium) ` +
        "or set CHROMIUM_PATH to a Chromium binary"
    )
  }
  return CHROMIUM
}

// -----------------------------------------------------------------------------
// The MCP server: one asking tool with an x-mcp-header argument
// -----------------------------------------------------------------------------

const book = Tool.make("book", {
  description: "Books a trip: asks who travels",
  parameters: Schema.Struct({ region: Schema.String.annotate({ "x-mcp-header": "Region" }) }),
  handler: ({ region }) =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({
        key: "who",
        message: "Who travels?",
        schema: Schema.Struct({ name: Schema.String })
      })
      return `${name} travels to ${region}`
    })
})

const mcpServer = (options: HttpTransport.LayerOptions): Effect.Effect<string, never, Scope.Scope> =>
  Layer.build(
    HttpTransport.layer({ port: 0, gracefulShutdownTimeout: "1 second", ...options }).pipe(
      Layer.provide(
        McpServer.tools(book).pipe(
          Layer.provideMerge(McpServer.layer({
            name: "browser-test",
            version: "1.0.0",
            requestState: RequestState.RequestStateCodec.layer({
              keyRing: RequestState.KeyRing.fromBytes(keys.map((bytes) => ({ bytes })))
            }).pipe(Layer.orDie)
          }))
        )
      ),
      Layer.orDie
    )
  ).pipe(Effect.flatMap((context) => Effect.provide(HttpTransport.url, context)))

// -----------------------------------------------------------------------------
// The pages, on their own origins
// -----------------------------------------------------------------------------

/** The page's `_meta`, and the headers of its calls of `book` (the same in both rounds), as a client builds them. */
const meta = makeRequestMeta({
  clientCapabilities: { elicitation: {} },
  clientInfo: { name: "browser-page", version: "1.0.0" }
})
const headers = mcpHeaders(
  { method: "tools/call", params: { name: "book", arguments: { region: "eu-west" }, _meta: meta } },
  book.definition
)

/** What runs in the browser: the conversation, then a report to the page's own origin. */
const pageScript = String.raw`
const params = new URLSearchParams(location.search)
const meta = ${JSON.stringify(meta)}
const headers = ${JSON.stringify(headers)}
let nextId = 1
async function call(url, extra) {
  const message = {
    jsonrpc: "2.0", id: nextId++, method: "tools/call",
    params: { name: "book", arguments: { region: "eu-west" }, ...extra, _meta: meta }
  }
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(message)
  })
  const text = await response.text()
  const body = (response.headers.get("content-type") || "").startsWith("text/event-stream")
    ? text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).pop()
    : text
  return { sent: message, status: response.status, reply: JSON.parse(body) }
}
async function run() {
  const report = { origin: location.origin, rounds: [] }
  const target = params.get("mcp")
  try {
    const first = await call(target, {})
    report.rounds.push(first)
    const state = first.reply.result && first.reply.result.requestState
    const second = await call(target, {
      inputResponses: { who: { action: "accept", content: { name: "Ada" } } },
      ...(state === undefined ? {} : { requestState: state })
    })
    report.rounds.push(second)
  } catch (error) {
    report.error = String(error)
  }
  const plain = params.get("plain")
  if (plain !== null) {
    try {
      const reply = await call(plain, {})
      report.plain = { status: reply.status }
    } catch (error) {
      report.plain = { error: String(error) }
    }
  }
  await fetch("/report", { method: "POST", body: JSON.stringify(report) })
}
run()
`

const page = (iframe: string | undefined) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>mrtr CORS</title></head><body>` +
  (iframe === undefined ? "" : `<iframe src="${iframe}"></iframe>`) +
  `<script>${pageScript}</script></body></html>`

interface PageServer {
  readonly origin: string
  readonly report: Deferred.Deferred<any>
}

/** A static page server on a free port of 127.0.0.1: `GET /page?...` serves the page, `POST /report` resolves `report`. */
const pageServer = (
  iframeOf: (query: URLSearchParams) => string | undefined
): Effect.Effect<PageServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const report = yield* Deferred.make<any>()
    const server = Http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1")
      if (req.method === "GET" && url.pathname === "/page") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page(iframeOf(url.searchParams)))
      } else if (req.method === "POST" && url.pathname === "/report") {
        let body = ""
        req.setEncoding("utf8")
        req.on("data", (chunk: string) => (body += chunk))
        req.on("end", () => {
          res.writeHead(204).end()
          Deferred.doneUnsafe(report, Effect.succeed(JSON.parse(body)))
        })
      } else {
        res.writeHead(404).end()
      }
    })
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, report }
  })

/** Starts headless Chromium on `url` with a fresh profile; killed (by its pid) and the profile removed on scope close. */
const chromium = (url: string): Effect.Effect<{ readonly stderr: () => string }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const executable = requireChromium()
    const profile = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mrtr-chromium-"))
    let stderr = ""
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(executable, [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--disable-dev-shm-usage",
          `--user-data-dir=${profile}`,
          url
        ], { stdio: ["ignore", "ignore", "pipe"], detached: true })
      ),
      (child) =>
        Effect.callback<void>((resume) => {
          if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
          child.once("exit", () => resume(Effect.void))
          // Chromium's own helpers (zygote, renderers) share the process group this test made for it.
          try {
            process.kill(-child.pid!, "SIGKILL")
          } catch {
            child.kill("SIGKILL")
          }
        }).pipe(Effect.ensuring(Effect.sync(() =>
          // A helper may still be writing the profile for a moment after the kill.
          Fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
        )))
    )
    child.stderr?.setEncoding("utf8")
    child.stderr?.on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)))
    return { stderr: () => stderr }
  })

const awaitReport = (server: PageServer, browser: { readonly stderr: () => string }, what: string) =>
  Deferred.await(server.report).pipe(
    Effect.timeoutOrElse({
      duration: "45 seconds",
      orElse: () => Effect.die(new Error(`no report from the ${what} within 45 s; Chromium said:\n${browser.stderr()}`))
    })
  )

describe("HttpTransport CORS in a browser (headless Chromium)", () => {
  it.live(
    "a page on another origin holds a two-round conversation; no cors or a disallowed origin is blocked",
    () =>
      Effect.gen(function*() {
        requireChromium()
        // The foreign frame and the page, each on its own port.
        const foreign = yield* pageServer(() => undefined)
        const app = yield* pageServer((query) =>
          `${foreign.origin}/page?mcp=${encodeURIComponent(query.get("mcp") ?? "")}`
        )
        // Only the page's origin is allowed; the foreign origin is another port of the same host.
        const corsUrl = yield* mcpServer({ cors: true, allowedOrigins: [app.origin] })
        const plainUrl = yield* mcpServer({ allowedOrigins: [app.origin] })
        const browser = yield* chromium(
          `${app.origin}/page?mcp=${encodeURIComponent(corsUrl)}&plain=${encodeURIComponent(plainUrl)}`
        )

        const report = yield* awaitReport(app, browser, "page")
        assert.strictEqual(report.origin, app.origin)
        assert.isUndefined(report.error, `the browser blocked the CORS server: ${report.error}`)
        assert.strictEqual(report.rounds.length, 2)
        const [first, second] = report.rounds
        for (const round of report.rounds) {
          validateWire("CallToolRequest", round.sent)
          assert.strictEqual(round.status, 200)
          validateWire("JSONRPCResultResponse", round.reply)
        }
        validateWire("InputRequiredResult", first.reply.result)
        assert.strictEqual(first.reply.result.resultType, "input_required")
        assert.strictEqual(first.reply.result.inputRequests.who.method, "elicitation/create")
        validateWire("CallToolResult", second.reply.result)
        assert.deepStrictEqual(second.reply.result.content, [{ type: "text", text: "Ada travels to eu-west" }])
        // Without `cors` the browser does not let the page read anything.
        assert.match(
          String(report.plain?.error),
          /TypeError/,
          `a server without cors was readable: ${JSON.stringify(report.plain)}`
        )

        const blocked = yield* awaitReport(foreign, browser, "foreign frame")
        assert.strictEqual(blocked.origin, foreign.origin)
        assert.match(String(blocked.error), /TypeError/, `a disallowed origin got through: ${JSON.stringify(blocked)}`)
        assert.deepStrictEqual(blocked.rounds, [])
      }),
    { timeout: 90_000 }
  )
})
