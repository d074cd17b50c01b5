/**
 * The terminal agent as a story: `verify(url)` runs it unattended against the trip planner at `url` (`server.ts`),
 * on the real `@effect/ai-openai` provider over HTTP, pointed at a local OpenAI-compatible stub that scripts the
 * model's turns and checks each request the provider sends (the tools' JSON Schemas among them). The person's
 * answers are typed at a scripted terminal as its questions appear. Fails on any unexpected request or output.
 *
 * Run it: `node --import ./examples/agent/compat/register.mjs --import tsx examples/agent/client.ts <url>`.
 */
import { NodeRuntime } from "@effect/platform-node"
import { HttpTransport as ClientHttp } from "@mrtr/client"
import { ConfigProvider, Console, Effect, Layer, Terminal } from "effect"
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict"
import * as Agent from "./agent.ts"
import * as Model from "./model.ts"
import * as Stub from "./stub.ts"

/** The roots the agent's client reports in these runs. */
export const ROOTS = [{ uri: "file:///trips", name: "Trips" }]

/** The person's side of the dialog: each answer typed once the terminal shows the expected question. */
export const DIALOG: ReadonlyArray<readonly [question: string, answer: string]> = [
  ["you> ", "Plan a train trip from Paris to Milan for me"],
  ["Answer it? [Y/n]", ""],
  ["Your name", "Ada"],
  ["Email for the tickets", "ada@example.com"],
  ["Departure date", "2026-05-01"],
  ["Passengers", "2"],
  ["First class?", "n"],
  ["Seat", "window"],
  ["Extras", ""],
  ["Answer it? [Y/n]", "y"],
  ["Book it?", "yes"],
  ["you> ", "exit"]
]

/** What `plan_trip` answers to that dialog. */
export const BOOKED = "Booked for Ada <ada@example.com>: Paris → Strasbourg → Zurich → Milan, 7h23, window seat. " +
  "\"Rails, lakes and espresso.\" Plan filed under file:///trips."

/** A terminal that types `dialog`'s answers, checking each question, and records everything it shows. */
export const scriptedTerminal = (dialog: ReadonlyArray<readonly [string, string]>) => {
  const shown: Array<string> = []
  let next = 0
  const terminal = Terminal.make({
    columns: Effect.succeed(80),
    rows: Effect.succeed(24),
    size: Effect.die("no size"),
    readInput: Effect.die("no raw input"),
    display: (text) => Effect.sync(() => void shown.push(text)),
    readLine: Effect.suspend(() => {
      const step = dialog[next++]
      if (step === undefined) return Effect.die(new Error(`no scripted answer after: ${shown.join("")}`))
      const [question, answer] = step
      if (!shown.at(-1)?.includes(question)) {
        return Effect.die(new Error(`expected the question "${question}", the terminal shows "${shown.at(-1)}"`))
      }
      shown.push(`${answer}\n`)
      return Effect.succeed(answer)
    })
  })
  return { layer: Layer.succeed(Terminal.Terminal, terminal), shown, answered: () => next }
}

/** What the real provider must send, request by request, and what the "model" answers. */
export const script: ReadonlyArray<Stub.Step> = [
  {
    name: "the person's message, with the demo's tools",
    check: (request) => {
      strictEqual(request.model, "stub-model")
      const names = (request.tools ?? []).map((tool) => tool.name).sort()
      deepStrictEqual(names, ["book_tickets", "check_timetables", "link_rail_account", "plan_trip"])
      const planTrip = request.tools!.find((tool) => tool.name === "plan_trip")!
      strictEqual(planTrip.type, "function")
      // The tool's inputSchema, as OpenAI's strict mode takes it: every property required, the object closed.
      strictEqual(planTrip.strict, true)
      deepStrictEqual(Object.keys(planTrip.parameters.properties), ["from", "to"])
      deepStrictEqual(planTrip.parameters.required, ["from", "to"])
      strictEqual(planTrip.parameters.additionalProperties, false)
      ok(planTrip.parameters.properties.from.enum.includes("Paris"))
      const said = Stub.texts(request)
      ok(said[0]!.includes("travel agent"))
      strictEqual(said.at(-1), "Plan a train trip from Paris to Milan for me")
    },
    output: Stub.functionCall("plan_trip", { from: "Paris", to: "Milan" })
  },
  {
    name: "the tool's sampling request, sent to the same model without tools",
    check: (request) => {
      strictEqual(request.tools?.length ?? 0, 0)
      ok(/tagline for a train trip via Paris, Strasbourg, Zurich, Milan/.test(Stub.texts(request).join("\n")))
    },
    output: Stub.message("Rails, lakes and espresso.")
  },
  {
    name: "the tool's result, back to the model",
    check: (request) => {
      const output = request.input.find((item) => item.type === "function_call_output")
      ok(output !== undefined)
      strictEqual(output.call_id, "call_plan_trip")
      ok(String(output.output).includes("Booked for Ada <ada@example.com>"))
      ok(String(output.output).includes("Rails, lakes and espresso."))
    },
    output: Stub.message("Your trip is booked.")
  }
]

/** The model's configuration for a stub at `baseUrl`. */
export const stubConfig = (baseUrl: string) =>
  ConfigProvider.layer(ConfigProvider.fromEnv({
    env: { OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: "sk-test", OPENAI_MODEL: "stub-model" }
  }))

/** Runs the agent against the server at `url` with the stub as its model; fails on anything unexpected. */
export const verify = (url: string) =>
  Effect.gen(function*() {
    const stub = yield* Effect.acquireRelease(Effect.promise(() => Stub.start(script)), (stub) =>
      Effect.promise(() => stub.close()))
    const terminal = scriptedTerminal(DIALOG)
    yield* Agent.session.pipe(
      Effect.provide(Agent.client(ClientHttp.layerNode({ url }), "stub-model", ROOTS)),
      Effect.provide(Model.layer),
      Effect.provide(stubConfig(stub.baseUrl)),
      Effect.provide(terminal.layer)
    )
    deepStrictEqual(stub.failures, [])
    strictEqual(stub.answered(), script.length)
    strictEqual(terminal.answered(), DIALOG.length)
    const shown = terminal.shown.join("")
    ok(shown.includes(`[plan_trip] ${BOOKED}`), shown)
    ok(shown.includes("agent> Your trip is booked."), shown)
    yield* Console.log("agent: the model's tool call, the forms, the sampling and the answer verified")
  }).pipe(Effect.scoped)

if (import.meta.url === `file://${process.argv[1]}`) {
  verify(process.argv[2] ?? "http://127.0.0.1:3000/mcp").pipe(NodeRuntime.runMain)
}
