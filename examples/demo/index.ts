/**
 * `npm run demo`: the trip-planner server (./server.ts) and a client that
 * drives every tool, the prompt and a resource template read to completion
 * over Streamable HTTP on 127.0.0.1, printing each round as it happens (and,
 * for `book_tickets`, which runs as a task, each status change of the task).
 *
 * - default: the answers come from a built-in script (an answers file, as
 *   `mrtr call --answers` takes), so it runs unattended and in CI; the
 *   secret of `link_rail_account` is typed on the server's page by a
 *   scripted browser (`ScriptedUser.completePage`);
 * - `--interactive`: you answer at the terminal (forms, the model's reply),
 *   with the same prompts as `mrtr call` in a terminal;
 * - `--auth`: the server is an OAuth 2.1 protected resource
 *   (`Authorization.layer`, JWT access tokens checked against a real
 *   authorization server, oidc-provider, started on 127.0.0.1 for the demo);
 *   the client signs in on the first `401` (discovery, dynamic registration,
 *   code + PKCE, with a headless browser playing Ada), and every
 *   `requestState` is bound to her; the interaction page of
 *   `link_rail_account` opens only for her, known from the session cookie
 *   of the trip planner's web sign-in (./signIn.ts), in which her browser
 *   signs in first.
 *
 * Exits 0 when every conversation completes, non-zero on any failure, and
 * gives up after 60 seconds (10 minutes with `--interactive`).
 */
import { NodeRuntime } from "@effect/platform-node"
import { AnswersFile, Report, TerminalUser } from "@mrtr/cli"
import { Authorization as ClientAuth, Errors, HttpTransport as HttpClientTransport, McpClient } from "@mrtr/client"
import { HttpTransport as HttpServerTransport } from "@mrtr/server"
import { browserSession, headlessBrowser, startAuthorizationServer } from "@mrtr/test-support/oauth"
import { ScriptedUser } from "@mrtr/testing"
import { Console, Effect, Layer, Predicate, References } from "effect"
import { serve, serveAuthorized } from "./server.ts"

const interactive = process.argv.includes("--interactive")
const auth = process.argv.includes("--auth")
const s = Report.style(Report.colorsFor(process.stdout))

/** The scripted traveller: answers by input-request key (AnswersFile shorthands). */
export const script: AnswersFile.Answers = {
  // plan_trip, round 1: the form (an object = the accepted form's content)
  details: {
    traveller: "Ada Lovelace",
    email: "ada@example.com",
    date: "2026-08-01",
    passengers: 2,
    firstClass: false,
    seat: "window",
    extras: ["bike", "wifi"]
  },
  // plan_trip, round 2: a sampling request (a string = the model's reply) and a roots request (URIs)
  tagline: "Croissant in Paris, espresso in Milan, the Alps in between.",
  roots: ["file:///home/ada/trips"],
  // plan_trip, round 3: the confirmation (the full ElicitResult form works too)
  confirm: { action: "accept", content: { book: true } },
  // book_tickets: who travels (an MRTR round), then, once it runs as a task, the confirmation (task input)
  passenger: { name: "Ada Lovelace" },
  confirm_booking: { action: "accept", content: { book: true } },
  // packing_list
  style: { style: "light" },
  // weather://{city}/{date}
  unit: { unit: "celsius" }
}

/** Arguments for each tool the server lists: the demo drives every one of them. */
const TOOL_ARGUMENTS: Readonly<Record<string, Record<string, unknown>>> = {
  plan_trip: { from: "Paris", to: "Milan" },
  link_rail_account: { operator: "EuroRail" },
  book_tickets: { from: "Paris", to: "Zurich" },
  check_timetables: { from: "Lyon", to: "Rome", seconds: 0.5 }
}

/**
 * The scripted traveller's browser: `link_rail_account` sends a URL (the server's own page, URL mode); unattended,
 * the page is completed programmatically (as a person would in the browser), then the client consents and retries.
 */
/**
 * With `--auth` the interaction page belongs to the signed-in user, known from the session cookie of the trip
 * planner's web sign-in (./signIn.ts): Ada's browser signs in there first (a real sign-in at the demo's
 * authorization server), then opens the page with its cookie.
 */
const adasBrowser = browserSession("ada")
const RAIL_ACCOUNT = { accountId: "ada-1815", apiKey: "rk_live_0123456789abcdef" }
const railAccount: ReturnType<typeof ScriptedUser.completePage> = auth
  ? (params, context) =>
    Effect.gen(function*() {
      if (params.mode === "url") {
        const page = new URL(params.url)
        const signedIn = yield* Effect.promise(() =>
          adasBrowser.visit(`${page.origin}/signin?next=${encodeURIComponent(page.pathname)}`)
        )
        if (signedIn.status !== 200) {
          return yield* new Errors.InputHandlerError({
            kind: "elicitation",
            key: context.key,
            reason: `the sign-in ended with ${signedIn.status}: ${yield* Effect.promise(() => signedIn.text())}`
          })
        }
        yield* Effect.promise(() => signedIn.text())
      }
      return yield* ScriptedUser.completePage(RAIL_ACCOUNT, { fetch: adasBrowser.fetch })(params, context)
    })
  : ScriptedUser.completePage(RAIL_ACCOUNT)
const PROMPT = { name: "packing_list", arguments: { city: "Rome" } }
const RESOURCE = "weather://Zurich/2026-08-01"

const say = (text = "") => Console.log(text)

const header = (url: string) =>
  say(
    [
      s.bold("MRTR demo: Multi Round-Trip Requests (MCP 2026-07-28)"),
      "",
      `A trip-planner MCP server is running at ${s.cyan(url)} (Streamable HTTP). Its tool, prompt and resource`,
      "need answers from the user, a model and the client's roots halfway through a request. In 2026-07-28 a server",
      `never calls back into the client: it answers ${s.yellow("input_required")} with the questions (${
        s.bold("inputRequests")
      }, by key)`,
      `and a sealed ${s.bold("requestState")}. The client answers and retries the same request with ${
        s.bold("inputResponses")
      }`,
      "and the state echoed byte for byte, until the result is complete. The server needs nothing between rounds:",
      "its journal (answers so far, work already done) travels inside requestState, encrypted and authenticated,",
      "so the client carries it but cannot read or change it, and any server instance can resume the request.",
      "",
      interactive
        ? `You answer the questions at the terminal (${s.dim("Esc cancels a form")}).`
        : `The answers come from a built-in script (${s.dim("npm run demo -- --interactive")} to answer yourself).`,
      s.dim("Below, ← is what the server answered and → what the client sent back; the first column of a round is the"),
      s.dim("key of each input request, under which the answer goes back.")
    ].join("\n")
  )

interface Tally {
  conversations: number
  failed: number
  rounds: number
  stateBytes: number
}

const quoteLines = (text: string) => text.split("\n").map((line) => `           ${line}`).join("\n")

/**
 * Drives one conversation, printing its rounds and its result (`show`). A
 * failure (e.g. a form declined or cancelled at the terminal, which the
 * handler does not catch) is printed and counted; the demo goes on with
 * the next conversation and exits non-zero at the end.
 */
const conversation = <A>(
  tally: Tally,
  title: string,
  run: (options: McpClient.CallOptions) => Effect.Effect<A, unknown>,
  show: (result: A) => { readonly text: string; readonly error?: boolean }
) =>
  Effect.gen(function*() {
    tally.conversations++
    yield* say()
    yield* say(s.bold(`━━ ${tally.conversations}. ${title} ━━`))
    let rounds = 0
    const outcome = yield* Effect.result(run({
      // A tools/call the server runs as a task (Tasks extension): each status change as it happens.
      onTaskStatus: (change) => say(`         ${Report.taskLine(change, s)}`),
      onRound: (round) =>
        Effect.suspend(() => {
          rounds = round.round
          tally.rounds++
          tally.stateBytes = Math.max(
            tally.stateBytes,
            round.requestState === undefined ? 0 : Report.byteSize(round.requestState)
          )
          return say(Report.roundLines(round, s).join("\n"))
        })
    }))
    const label = s.bold("result".padEnd(9))
    if (outcome._tag === "Failure") {
      tally.failed++
      const error = outcome.failure
      const message = error instanceof Error
        ? Predicate.hasProperty(error, "code") && Predicate.isNumber(error.code)
          ? `the server answered JSON-RPC error ${error.code}: ${error.message}`
          : error.message
        : String(error)
      return yield* say(`${label}${s.red("✗ failed")}: ${message}`)
    }
    const { error, text } = show(outcome.success)
    if (error === true) tally.failed++
    yield* say(
      `${label}${error === true ? s.red("✗ the tool reported an error") : s.green("✓ complete")}` +
        ` after ${rounds + 1} request${rounds === 0 ? "" : "s"} (${rounds} input round${rounds === 1 ? "" : "s"}):`
    )
    yield* say(quoteLines(text))
  })

const main = Effect.gen(function*() {
  const url = yield* HttpServerTransport.url
  yield* header(url)
  const tally: Tally = { conversations: 0, failed: 0, rounds: 0, stateBytes: 0 }

  const user = interactive
    ? TerminalUser.layerNode({})
    : AnswersFile.layer(script, { url: railAccount })
  const transport = HttpClientTransport.layerNode({ url })
  const clientLayer = McpClient.layer({ clientInfo: { name: "mrtr-demo", version: "0.1.0" }, tasks: "auto" }).pipe(
    Layer.provide(auth ? transport.pipe(Layer.provide(signIn)) : transport),
    Layer.provide(user)
  )

  yield* Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const discovered = yield* client.discover()
    const { tools } = yield* client.listTools()
    const { prompts } = yield* client.listPrompts()
    const { resourceTemplates } = yield* client.listResourceTemplates()
    const info = discovered._meta?.["io.modelcontextprotocol/serverInfo"] as { readonly name?: string } | undefined
    yield* say()
    yield* say(
      `${s.bold("server/discover")}: ${info?.name ?? "?"}, protocol ${discovered.supportedVersions.join(", ")}; ` +
        `tools: ${tools.map((t) => t.name).join(", ")}; prompts: ${prompts.map((p) => p.name).join(", ")}; ` +
        `resource templates: ${resourceTemplates.map((t) => t.uriTemplate).join(", ")}`
    )

    for (const tool of tools) {
      const args = TOOL_ARGUMENTS[tool.name]
      if (args === undefined) {
        return yield* Effect.fail(new Error(`the demo has no arguments for the tool ${tool.name}`))
      }
      yield* conversation(
        tally,
        `tools/call ${tool.name} ${JSON.stringify(args)}`,
        (options) => client.callTool({ name: tool.name, arguments: args }, options),
        (result) => ({ text: Report.textOf(result.content), error: result.isError === true })
      )
    }

    yield* conversation(
      tally,
      `prompts/get ${PROMPT.name} ${JSON.stringify(PROMPT.arguments)}`,
      (options) => client.getPrompt(PROMPT, options),
      (result) => ({ text: result.messages.map((m) => `${m.role}: ${Report.textOf(m.content)}`).join("\n") })
    )

    yield* conversation(
      tally,
      `resources/read ${RESOURCE}  (template ${resourceTemplates[0]?.uriTemplate ?? "?"})`,
      (options) => client.readResource({ uri: RESOURCE }, options),
      (result) => ({ text: result.contents.map((c) => "text" in c ? c.text : `[${c.mimeType ?? "blob"}]`).join("\n") })
    )
  }).pipe(Effect.provide(clientLayer))

  yield* say()
  if (tally.failed > 0) {
    return yield* Effect.fail(new Error(`${tally.failed} of ${tally.conversations} conversations did not complete`))
  }
  yield* say(
    s.green(`✓ ${tally.conversations} conversations complete`) +
      ` (${tally.rounds} input rounds; the largest requestState was ${tally.stateBytes} bytes, carried by the client,` +
      ` none of it needed by the server between rounds).`
  )
})

if (interactive && !(process.stdin.isTTY && process.stdout.isTTY)) {
  process.stderr.write(
    "npm run demo -- --interactive asks you questions: run it in a terminal (stdin and stdout a TTY).\n"
  )
  process.exit(2)
}

/** `--auth`: the client's sign-in, with a headless browser in which Ada signs in and consents. */
const signIn = ClientAuth.layer({ clientName: "mrtr-demo" }).pipe(
  Layer.provide(Layer.sync(ClientAuth.UserAgent, () => {
    const browser = headlessBrowser("ada")
    return ClientAuth.UserAgent.of({
      redirectUri: "http://127.0.0.1:1/callback",
      authorize: (url) =>
        Effect.gen(function*() {
          yield* say(
            `${s.yellow("401")}       the server wants a token: sign-in at ${s.cyan(url.origin)} ` +
              s.dim(
                `(scope "${url.searchParams.get("scope") ?? ""}", resource ${
                  url.searchParams.get("resource")
                }, PKCE S256)`
              )
          )
          const redirected = yield* Effect.tryPromise({
            try: () => browser(url.href),
            catch: (cause) => new ClientAuth.AuthorizationError({ reason: "the browser failed", cause })
          })
          yield* say(`${s.green("signed in")} as ada; the client retries the same request with its bearer token`)
          return redirected
        })
    })
  }))
)

/** The demo server, with `--auth` behind `Authorization.layer` and an authorization server of its own. */
const server = auth
  ? Layer.unwrap(Effect.gen(function*() {
    const as = yield* Effect.acquireRelease(
      Effect.promise(() => startAuthorizationServer({ scopes: ["trips"] })),
      (as) => Effect.promise(() => as.close())
    )
    // The interaction page's user is the one signed in to the trip planner's web app (a session cookie).
    return serveAuthorized(as.issuer, as.jwksUri)
  }))
  : serve(0)

main.pipe(
  Effect.timeoutOrElse({
    duration: interactive ? "10 minutes" : "60 seconds",
    orElse: () => Effect.fail(new Error("the demo did not finish in time"))
  }),
  Effect.provide(server),
  // The server logs to stderr; only errors, so the output stays readable (the default key ring, a random
  // per-process key, is what a single-instance demo wants: the server warns about it otherwise).
  Effect.provideService(References.LogToStderr, true),
  Effect.provideService(References.MinimumLogLevel, "Error"),
  NodeRuntime.runMain
)
