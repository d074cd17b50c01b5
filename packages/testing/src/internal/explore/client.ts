/**
 * One explored conversation through the real `McpClient` over the in-memory
 * transport: on 2025-11-25 (the server's shim sends each round's asks as
 * `elicitation/create`, `sampling/createMessage`, `roots/list` requests the
 * client answers in flight) and as a task (the client declares the Tasks
 * extension and answers `input_required` through `tasks/update`). The user
 * answers through the client's input handler services, so a drawn user and a
 * scripted one (`ScriptedUser.layer`) are interchangeable here.
 *
 * Checked: how the call ends (a defect, an uncaught decline) and, with
 * `validate`, every message the server sent against the era's JSON Schema.
 * The determinism and step checks need the state a 2026-07-28 client echoes,
 * so they run on that era (`conversation.ts`) only.
 */
import { McpClient } from "@mrtr/client"
import { McpHandler, type Transport } from "@mrtr/server"
import { Cause, Effect, Exit, Layer, Logger } from "effect"
import * as Harness from "../../Harness.ts"
import { type Ending, judge, type Target, type Trace, type Validate, type Violation } from "./conversation.ts"

type Json = Record<string, any>

const inputDef: Record<string, string> = {
  "elicitation/create": "ElicitRequest",
  "sampling/createMessage": "CreateMessageRequest",
  "roots/list": "ListRootsRequest"
}

/** Validates what the server sent over the in-memory wire. */
const checkWire = (
  entries: ReadonlyArray<Harness.WireEntry>,
  era: "2026-07-28" | "2025-11-25",
  validate: Validate
): ReadonlyArray<Violation> => {
  const violations: Array<Violation> = []
  for (const entry of entries) {
    if (entry.direction !== "reply") continue
    const message = entry.message as Json
    const defs = message.method !== undefined && message.id !== undefined
      ? ["JSONRPCRequest", ...(inputDef[message.method] === undefined ? [] : [inputDef[message.method]!])]
      : message.method !== undefined
      ? ["JSONRPCNotification"]
      : message.error !== undefined
      ? ["JSONRPCErrorResponse"]
      : ["JSONRPCResultResponse"]
    for (const def of defs) {
      const errors = validate(def, message, era)
      if (errors !== undefined) {
        violations.push({
          property: "wire",
          message: `a ${def} the server sent is not valid (${era}): ${errors}\n${JSON.stringify(message)}`
        })
      }
    }
  }
  return violations
}

/** Runs one conversation through `McpClient`; `user` provides the input handlers (and may record what it answered). */
export const run = Effect.fnUntraced(function*<E>(
  handler: Transport.Handler,
  target: Target,
  args: unknown,
  user: Layer.Layer<any, E, never>,
  options: {
    readonly protocol: "2026-07-28" | "2025-11-25"
    readonly tasks: boolean
    readonly maxRounds: number
    readonly uncaughtDeclines?: "fail" | "allow" | undefined
    readonly validate?: Validate | undefined
  }
) {
  const harness = Harness.layer({
    server: Layer.succeed(McpHandler, handler),
    user,
    protocol: options.protocol,
    client: { maxRounds: options.maxRounds + 1, ...(options.tasks ? { tasks: "auto" as const } : {}) }
  })
  const errors: Array<string> = []
  const logger = Logger.make<unknown, void>((entry) => {
    if (entry.logLevel === "Error" || entry.logLevel === "Fatal") {
      errors.push(
        [entry.message].flat().map(String).join(" ") +
          (entry.cause.reasons.length === 0 ? "" : `\n${Cause.pretty(entry.cause)}`)
      )
    }
  })
  return yield* Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const call: Effect.Effect<Json, unknown> = "tool" in target
      ? client.callTool({ name: target.tool, arguments: (args ?? {}) as Record<string, unknown> })
      : "prompt" in target
      ? client.getPrompt({
        name: target.prompt,
        ...(args === undefined ? {} : { arguments: args as Record<string, string> })
      })
      : client.readResource({ uri: target.resource })
    const exit = yield* Effect.exit(call)
    const violations: Array<Violation> = []
    let ending: Ending = { _tag: "Unfinished" }
    if (Exit.isSuccess(exit)) ending = { _tag: "Result", result: exit.value }
    else {
      const error = Cause.findErrorOption(exit.cause)
      const failure: any = error._tag === "Some" ? error.value : undefined
      if (failure?._tag === "McpError") {
        ending = { _tag: "Error", error: { code: failure.code, message: failure.message, data: failure.data } }
      } else if (failure?._tag === "MaxRoundsExceeded") {
        violations.push({
          property: "rounds",
          message: `the conversation did not end within ${options.maxRounds} rounds`
        })
      } else {
        violations.push({ property: "defect", message: `the call failed on the client: ${Cause.pretty(exit.cause)}` })
      }
    }
    if (options.validate !== undefined) {
      for (const v of checkWire(yield* Harness.entries, options.protocol, options.validate)) violations.push(v)
    }
    if (violations.length === 0) { for (const v of judge(ending, options, errors)) violations.push(v) }
    return { era: options.protocol, arguments: args, asked: [], askedAgain: [], ending, violations } satisfies Trace
  }).pipe(Effect.provide(harness), Effect.provideService(Logger.CurrentLoggers, new Set([logger])))
})
