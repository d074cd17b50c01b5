/**
 * One explored conversation on 2026-07-28: the explorer is the client. It
 * sends the request to the server's dispatcher (`McpHandler`, in memory,
 * JSON round trip), answers each round's `inputRequests` through a `User`,
 * and retries with `inputResponses` and the echoed `requestState`, checking as
 * it goes:
 *
 * - determinism: after each `input_required` result the state is sent again
 *   without answers, with `Date`, `Date.now` and `Math.random` changed; the
 *   handler, replayed from the same journal, must ask the same questions
 *   (same keys, same questions but for a refusal's presentation);
 * - each `Mrtr.step` runs once (its `mrtr.step` span, seen by a tracer);
 * - every message the server sends is valid against the era's JSON Schema
 *   (with the `validate` function given);
 * - how the conversation ends: a defect or an uncaught decline is a violation.
 *
 * Gotcha: the determinism replay sends a state twice, so a server with
 * single-use states (`ReplayGuard`) refuses it; turn `determinism` off there.
 */
import type { ClientCapabilities, InputRequest } from "@mrtr/protocol/Schema"
import type { Transport } from "@mrtr/server"
import { Cause, Effect, Exit, Logger, Stream, Tracer } from "effect"
import type { Choice } from "./answers.ts"

/** What is explored: a tool, a prompt or a resource, with its arguments. */
export type Target =
  | { readonly tool: string; readonly arguments?: unknown }
  | { readonly prompt: string; readonly arguments?: unknown }
  | { readonly resource: string }

/** Validates a message against `$defs[defName]` of the official JSON Schema of `era`; an error text, or `undefined`. */
export type Validate = (defName: string, value: unknown, era: "2026-07-28" | "2025-11-25") => string | undefined

/** One answered (or unanswered) ask. */
export interface Asked {
  readonly round: number
  readonly key: string
  readonly request: InputRequest
  readonly choice: Choice
  readonly answer: unknown
}

/** What went wrong. */
export interface Violation {
  readonly property:
    | "defect"
    | "uncaught-decline"
    | "rounds"
    | "journal"
    | "determinism"
    | "step-once"
    | "wire"
    | "property"
  readonly message: string
  readonly key?: string | undefined
}

/** How the conversation ended. */
export type Ending =
  | { readonly _tag: "Result"; readonly result: Record<string, any> }
  | {
    readonly _tag: "Error"
    readonly error: { readonly code: number; readonly message: string; readonly data?: unknown }
  }
  | { readonly _tag: "Unfinished" }

/** The record of one conversation. */
export interface Trace {
  readonly era: "2026-07-28" | "2025-11-25"
  readonly arguments: unknown
  readonly asked: ReadonlyArray<Asked>
  readonly askedAgain: ReadonlyArray<string>
  readonly ending: Ending
  readonly violations: ReadonlyArray<Violation>
}

/** The user the explorer plays (drawn answers) or replays (a scripted user). */
export interface User {
  readonly capabilities: ClientCapabilities
  readonly answer: (
    key: string,
    request: InputRequest,
    round: number
  ) => Effect.Effect<{ readonly choice: Choice; readonly answer: unknown }, unknown>
}

/** The options of one conversation. */
export interface Options {
  /** The most rounds of the conversation (`Explore.Options.maxRounds`). */
  readonly maxRounds: number
  /** Whether a decline the handler does not catch fails the run (`Explore.Options.uncaughtDeclines`). @default "fail" */
  readonly uncaughtDeclines?: "fail" | "allow" | undefined
  /** Whether each round is replayed to check the handler is deterministic. */
  readonly determinism: boolean
  /** Validates each wire message against the official schema. @default undefined (not validated) */
  readonly validate?: Validate | undefined
}

type Json = Record<string, any>

const declined = /^The user (declined|cancelled) the elicitation "(.*)"$/

/** The uncaught decline or cancel a tool's error text or a JSON-RPC error message reports, with its key. */
export const uncaughtDecline = (text: string): { readonly action: string; readonly key: string } | undefined => {
  const match = declined.exec(text)
  return match === null ? undefined : { action: match[1]!, key: match[2]! }
}

const methodOf = (target: Target) =>
  "tool" in target ? "tools/call" : "prompt" in target ? "prompts/get" : "resources/read"

/** The request's params for a target. */
export const paramsOf = (target: Target, args: unknown): Json =>
  "tool" in target
    ? { name: target.tool, arguments: args ?? {} }
    : "prompt" in target
    ? { name: target.prompt, ...(args === undefined ? {} : { arguments: args }) }
    : { uri: target.resource }

const resultDef: Record<string, string> = {
  "tools/call": "CallToolResult",
  "prompts/get": "GetPromptResult",
  "resources/read": "ReadResourceResult"
}

const inputDef: Record<string, string> = {
  "elicitation/create": "ElicitRequest",
  "sampling/createMessage": "CreateMessageRequest",
  "roots/list": "ListRootsRequest"
}

/** The question of an input request, as the determinism check compares it: a refusal's presentation left out. */
const question = (request: InputRequest): string => {
  const params = { ...(request.params as Json) }
  if (request.method === "elicitation/create" && typeof params.message === "string") {
    const message: string = params.message
    const refused = message.startsWith("Your answer was not accepted: ") ? message.indexOf("\n\n") : -1
    if (refused !== -1) params.message = message.slice(refused + 2)
  }
  return JSON.stringify({ method: request.method, params })
}

/** A tracer that reports each `mrtr.step` that ran to completion. */
const stepTracer = (onStep: (name: string) => void): Tracer.Tracer =>
  Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      if (options.name !== "mrtr.step") return span
      const end = span.end.bind(span)
      span.end = (endTime, exit) => {
        end(endTime, exit)
        if (Exit.isSuccess(exit)) onStep(String(span.attributes.get("mrtr.step.name")))
      }
      return span
    }
  })

const SHIFT_MS = 61_000

/**
 * Runs `effect` with the clock 61 s ahead (`Date`, `Date.now`, so Effect's
 * `Clock` too) and another `Math.random`: what a replay that reads them
 * outside `Mrtr.step` sees differently.
 */
const elsewhen = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const RealDate = globalThis.Date
      const random = Math.random
      let seed = 0x2f6b
      const Shifted = function(this: unknown, ...args: Array<any>) {
        if (!new.target) return new RealDate(RealDate.now() + SHIFT_MS).toString()
        return args.length === 0 ? new RealDate(RealDate.now() + SHIFT_MS) : new (RealDate as any)(...args)
      } as unknown as DateConstructor
      Object.setPrototypeOf(Shifted, RealDate)
      ;(Shifted as any).prototype = RealDate.prototype
      ;(Shifted as any).now = () => RealDate.now() + SHIFT_MS
      globalThis.Date = Shifted
      Math.random = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648
        return seed / 2147483648
      }
      return { RealDate, random }
    }),
    () => effect,
    ({ RealDate, random }) =>
      Effect.sync(() => {
        globalThis.Date = RealDate
        Math.random = random
      })
  )

/** Runs one conversation. */
export const run = Effect.fnUntraced(function*(
  handler: Transport.Handler,
  target: Target,
  args: unknown,
  user: User,
  options: Options
) {
  const method = methodOf(target)
  const violations: Array<Violation> = []
  const asked: Array<Asked> = []
  const askedAgain: Array<string> = []
  const steps = new Map<string, number>()
  let checking = false
  const tracer = stepTracer((name) => {
    if (checking) {
      violations.push({
        property: "step-once",
        message:
          `Mrtr.step "${name}" ran again when the round was replayed from its journal (was its value journaled? ` +
          `does its schema decode what it encoded? is its name unique?)`
      })
    } else steps.set(name, (steps.get(name) ?? 0) + 1)
  })
  // The server's logs are kept, not printed: its error logs (a defect's cause) go into the violation.
  const errors: Array<string> = []
  const logger = Logger.make<unknown, void>((entry) => {
    if (entry.logLevel === "Error" || entry.logLevel === "Fatal") {
      errors.push(
        [entry.message].flat().map(String).join(" ") +
          (entry.cause.reasons.length === 0 ? "" : `\n${Cause.pretty(entry.cause)}`)
      )
    }
  })
  let id = 0
  const wire = (defName: string, value: unknown) => {
    const errors = options.validate?.(defName, value, "2026-07-28")
    if (errors !== undefined) {
      violations.push({
        property: "wire",
        message: `a ${defName} the server sent is not valid: ${errors}\n${JSON.stringify(value)}`
      })
    }
  }
  const send = Effect.fnUntraced(function*(retry: Json) {
    const message = {
      jsonrpc: "2.0",
      id: ++id,
      method,
      params: {
        ...paramsOf(target, args),
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": user.capabilities
        },
        ...retry
      }
    }
    const reply = yield* handler.handle({ message: JSON.parse(JSON.stringify(message)) }).pipe(
      Effect.withTracer(tracer),
      Effect.provideService(Logger.CurrentLoggers, new Set([logger]))
    )
    let response: Json | undefined
    if (reply._tag === "Response") response = reply.message
    else if (reply._tag === "Stream") {
      const messages = yield* Stream.runCollect(reply.messages)
      for (const m of messages) {
        if ("id" in m && m.id === message.id && !("method" in m)) response = m
        else wire("JSONRPCNotification", m)
      }
    }
    return {
      request: message,
      response: response === undefined ? undefined : JSON.parse(JSON.stringify(response)) as Json
    }
  })

  let retry: Json = {}
  let round = 0
  let ending: Ending = { _tag: "Unfinished" }
  const previous = new Map<string, unknown>()
  while (violations.length === 0) {
    round++
    if (round > options.maxRounds + 1) {
      violations.push({
        property: "rounds",
        message: `the conversation did not end within ${options.maxRounds} rounds`
      })
      break
    }
    const { response } = yield* send(retry)
    if (response === undefined) {
      violations.push({ property: "wire", message: `round ${round}: the server sent no response` })
      break
    }
    if (response.error !== undefined) {
      wire("JSONRPCErrorResponse", response)
      ending = { _tag: "Error", error: response.error }
      break
    }
    wire("JSONRPCResultResponse", response)
    const result: Json = response.result ?? {}
    if (result.resultType !== "input_required") {
      wire(resultDef[method]!, result)
      ending = { _tag: "Result", result }
      break
    }
    wire("InputRequiredResult", result)
    const requests: Record<string, InputRequest> = result.inputRequests ?? {}
    for (const [key, request] of Object.entries(requests)) {
      wire(inputDef[request.method] ?? "JSONRPCRequest", { jsonrpc: "2.0", id: 0, ...request })
      if (previous.has(key)) askedAgain.push(key)
    }
    if (options.determinism) {
      checking = true
      const again = yield* elsewhen(
        send({ ...(result.requestState === undefined ? {} : { requestState: result.requestState }) })
      )
      checking = false
      const replayed: Json | undefined = again.response?.result
      if (replayed?.resultType !== "input_required") {
        violations.push({
          property: "determinism",
          message:
            `round ${round}: replayed from the same journal without answers, the handler did not ask again but answered ` +
            JSON.stringify(again.response).slice(0, 300)
        })
        break
      }
      const before = Object.keys(requests).sort()
      const after = Object.keys(replayed.inputRequests ?? {}).sort()
      const changed = before.find((key) => !after.includes(key)) ?? after.find((key) => !before.includes(key)) ??
        before.find((key) => question(requests[key]!) !== question(replayed.inputRequests[key]))
      if (changed !== undefined) {
        violations.push({
          property: "determinism",
          key: changed,
          message: `round ${round}: replayed from the same journal, the handler asked "${changed}" differently ` +
            `(the first run: ${
              requests[changed] === undefined ? "not asked" : question(requests[changed])
            }; the replay, ` +
            `with the clock and Math.random changed: ${
              replayed.inputRequests?.[changed] === undefined ? "not asked" : question(replayed.inputRequests[changed])
            }): something outside Mrtr.step (time, randomness, a mutable variable) changes its path`
        })
        break
      }
    }
    const responses: Record<string, unknown> = {}
    for (const [key, request] of Object.entries(requests)) {
      const given = yield* user.answer(key, request, round)
      asked.push({ round, key, request, choice: given.choice, answer: given.answer })
      previous.set(key, given.answer)
      if (given.choice !== "omit") responses[key] = given.answer
    }
    retry = {
      inputResponses: responses,
      ...(result.requestState === undefined ? {} : { requestState: result.requestState })
    }
  }
  for (const [name, count] of steps) {
    if (count > 1) {
      violations.push({ property: "step-once", message: `Mrtr.step "${name}" ran ${count} times in one conversation` })
    }
  }
  if (violations.length === 0) { for (const v of judge(ending, options, errors)) violations.push(v) }
  return { era: "2026-07-28" as const, arguments: args, asked, askedAgain, ending, violations } satisfies Trace
})

/** The violations an ending is: a defect, an uncaught decline, a bound. */
export const judge = (
  ending: Ending,
  options: { readonly maxRounds: number; readonly uncaughtDeclines?: "fail" | "allow" | undefined },
  logged: ReadonlyArray<string> = []
): ReadonlyArray<Violation> => {
  const declines = options.uncaughtDeclines !== "allow"
  if (ending._tag === "Result") {
    if (declines && ending.result.isError === true) {
      const text = (ending.result.content ?? []).map((c: Json) => (c.type === "text" ? c.text : "")).join("")
      const decline = uncaughtDecline(text)
      if (decline !== undefined) {
        return [{
          property: "uncaught-decline",
          key: decline.key,
          message:
            `the handler does not catch the user's ${
              decline.action === "declined" ? "decline" : "cancel"
            } of "${decline.key}" ` +
            `(the tool failed with "${text}")`
        }]
      }
    }
    return []
  }
  if (ending._tag === "Unfinished") return []
  const { code, message } = ending.error
  const decline = uncaughtDecline(message)
  if (decline !== undefined && !declines) return []
  if (decline !== undefined) {
    return [{
      property: "uncaught-decline",
      key: decline.key,
      message: `the handler does not catch the user's ${
        decline.action === "declined" ? "decline" : "cancel"
      } of "${decline.key}" (${code} ${message})`
    }]
  }
  if (code === -32603) {
    return [{
      property: "defect",
      message: `the request failed with ${code} ${message}: a defect, or a failure the handler does not declare` +
        (logged.length === 0 ? "" : `; the server logged:\n${logged.join("\n")}`)
    }]
  }
  if (/needed more than \d+ rounds/.test(message)) {
    return [{
      property: "rounds",
      message: `the server ended the conversation: ${message} (maxRounds ${options.maxRounds})`
    }]
  }
  if (/size limit for requestState/.test(message)) {
    return [{ property: "journal", message: `the server ended the conversation: ${message}` }]
  }
  return []
}
