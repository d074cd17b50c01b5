/**
 * What one explored conversation is, whichever way it is carried: its
 * target, user, record (`Trace`) and violations, the wire checks every
 * driver shares, and how an ending is judged.
 */
import type { ClientCapabilities, InputRequest } from "@mrtr/protocol/Schema"
import type { Effect } from "effect"
import type { Choice } from "./answers.ts"
import type { Era } from "./wire.ts"

/** How a conversation is carried: MRTR rounds, a legacy session's in-flight requests, or a task. */
export type Mode = "2026-07-28" | "2025-11-25" | "task"

/** What is explored: a tool, a prompt or a resource, with its arguments. */
export type Target =
  | { readonly tool: string; readonly arguments?: unknown }
  | { readonly prompt: string; readonly arguments?: unknown }
  | { readonly resource: string }

/** Validates a message against `$defs[defName]` of the official JSON Schema of `era`; an error text, or `undefined`. */
export type Validate = (defName: string, value: unknown, era: Era) => string | undefined

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
  readonly mode: Mode
  readonly era: "2026-07-28" | "2025-11-25"
  readonly arguments: unknown
  readonly asked: ReadonlyArray<Asked>
  readonly askedAgain: ReadonlyArray<string>
  readonly ending: Ending
  readonly violations: ReadonlyArray<Violation>
}

/**
 * The user the explorer plays (drawn answers) or replays (a scripted user):
 * its capabilities, and an answer per ask (`answer` undefined for the choice
 * `"omit"`).
 */
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
  readonly maxRounds: number
  readonly uncaughtDeclines?: "fail" | "allow" | undefined
  readonly determinism: boolean
  readonly validate?: Validate | undefined
}

export type Json = Record<string, any>

/** The method of a target. */
export const methodOf = (target: Target): "tools/call" | "prompts/get" | "resources/read" =>
  "tool" in target ? "tools/call" : "prompt" in target ? "prompts/get" : "resources/read"

/** The request's params for a target. */
export const paramsOf = (target: Target, args: unknown): Json =>
  "tool" in target
    ? { name: target.tool, arguments: args ?? {} }
    : "prompt" in target
    ? { name: target.prompt, ...(args === undefined ? {} : { arguments: args }) }
    : { uri: target.resource }

/** The result definition of each method. */
export const resultDef: Record<string, string> = {
  "tools/call": "CallToolResult",
  "prompts/get": "GetPromptResult",
  "resources/read": "ReadResourceResult"
}

/** The request definition of each kind of ask. */
export const inputDef: Record<string, string> = {
  "elicitation/create": "ElicitRequest",
  "sampling/createMessage": "CreateMessageRequest",
  "roots/list": "ListRootsRequest"
}

/** A JSON round trip: what went over a wire. */
export const wireCopy = <A>(value: A): A => JSON.parse(JSON.stringify(value))

/** Checks one message the server sent against `era`'s schema, into `violations`. */
export const checkWire = (
  violations: Array<Violation>,
  validate: Validate | undefined,
  era: Era
) =>
(defName: string, value: unknown): void => {
  const errors = validate?.(defName, value, era)
  if (errors !== undefined) {
    violations.push({
      property: "wire",
      message: `a ${defName} the server sent is not valid (${era}): ${errors}\n${JSON.stringify(value)}`
    })
  }
}

/**
 * The violations an ending is: an uncaught decline (the server reported the
 * handler's `ElicitationDeclined` or `ElicitationCancelled`, see
 * the conversation's observer), a defect (-32603 otherwise), a bound.
 */
export const judge = (
  ending: Ending,
  options: { readonly maxRounds: number; readonly uncaughtDeclines?: "fail" | "allow" | undefined },
  observer: {
    readonly errors: ReadonlyArray<string>
    readonly uncaught: ReadonlyArray<{ readonly action: "decline" | "cancel"; readonly key: string }>
  }
): ReadonlyArray<Violation> => {
  const failed = ending._tag === "Error" || (ending._tag === "Result" && ending.result.isError === true)
  const decline = failed ? observer.uncaught.at(-1) : undefined
  if (decline !== undefined) {
    if (options.uncaughtDeclines === "allow") return []
    const how = ending._tag === "Error"
      ? `${ending.error.code} ${ending.error.message}`
      : `the tool failed with ${JSON.stringify(ending._tag === "Result" ? ending.result.content : undefined)}`
    return [{
      property: "uncaught-decline",
      key: decline.key,
      message: `the handler does not catch the user's ${decline.action} of "${decline.key}" (${how})`
    }]
  }
  if (ending._tag !== "Error") return []
  const { code, message } = ending.error
  if (code === -32603) {
    return [{
      property: "defect",
      message: `the request failed with ${code} ${message}: a defect, or a failure the handler does not declare` +
        (observer.errors.length === 0 ? "" : `; the server logged:\n${observer.errors.join("\n")}`)
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
