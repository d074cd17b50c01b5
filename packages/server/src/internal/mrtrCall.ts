/**
 * An MRTR method (`tools/call`, `prompts/get`, `resources/read`) through the
 * engine: the registry finds the handler, `Engine.runWith` runs it against
 * the request's `inputResponses` and unsealed `requestState`, and the outcome
 * becomes the result (complete, stamped; `input_required` with the new
 * sealed state; or a task, SEP-2663), with one `mrtr.round` span and the
 * round's metrics.
 *
 * Gotchas: a task-eligible tool runs as a task only when the request
 * declares the Tasks extension (else `required` tools fail with -32021 and
 * the others run as plain calls); `start: "detach"` runs the first round
 * until `Task.detach`, whose journal becomes the task's.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr; SEP-2663 (tasks).
 *
 * @internal
 */
import { Effect } from "effect"
import { declaresTasks, type InputResponses, McpError, tasksRequiredCapabilities } from "@mrtr/protocol"
import { RequestState } from "@mrtr/core"
import { Engine, Journal } from "@mrtr/core/engine"
import * as Observability from "../Observability.ts"
import type * as Envelope from "./envelope.ts"
import { isRecord } from "./errors.ts"
import * as Registry from "./registry.ts"
import type { Stamp } from "./results.ts"
import type { makeTasks } from "./tasks.ts"

type Parsed = Envelope.Parsed

/** What an MRTR call needs of its server. */
export interface Deps {
  readonly engine: Engine.Services
  readonly registry: Registry.Registry
  readonly audience: string
  readonly serverMeta: Readonly<Record<string, unknown>>
  readonly stamp: Stamp
  readonly tasks: Effect.Success<ReturnType<typeof makeTasks>>
}

/** One round of `handler` through the engine: the request's answers and state in, the round's result (or task) out. */
const runMrtr = <E>(
  deps: Deps,
  parsed: Parsed,
  principal: string | undefined,
  target: string,
  args: unknown,
  handler: Effect.Effect<Record<string, unknown>, E, any>,
  // A task-eligible tools/call: `Task.detach` ends the round, and its journal becomes a task.
  detached?: (journal: Journal.Journal) => Effect.Effect<Record<string, unknown>, McpError>
) => {
  const inputResponses = parsed.params.inputResponses
  const requestState = parsed.params.requestState
  if (inputResponses !== undefined && !isRecord(inputResponses)) {
    return Effect.fail(McpError.invalidParams("inputResponses must be an object"))
  }
  if (requestState !== undefined && typeof requestState !== "string") {
    return Effect.fail(McpError.invalidParams("requestState must be a string"))
  }
  const retried = inputResponses !== undefined || requestState !== undefined
  // Filled by the codec: the id every round of this conversation carries (the span's mrtr.conversation.id).
  const conversation: { id: string | undefined } = { id: undefined }
  const { audience, serverMeta, stamp } = deps
  return Engine.runWith(deps.engine, handler, {
    method: parsed.method,
    target,
    arguments: args,
    audience,
    principal,
    clientCapabilities: parsed.clientCapabilities,
    inputResponses: inputResponses as InputResponses | undefined,
    requestState,
    detach: detached !== undefined
  }).pipe(
    Effect.flatMap((outcome): Effect.Effect<Record<string, unknown>, McpError> => {
      const complete = outcome._tag === "Complete"
      const recorded = Effect.andThen(
        Effect.annotateCurrentSpan({
          "mrtr.round": outcome.round,
          "mrtr.outcome": complete ? "complete" : outcome._tag === "Detached" ? "task" : "input_required",
          ...(conversation.id === undefined ? {} : { "mrtr.conversation.id": conversation.id })
        }),
        Observability.recordRound(parsed.method, requestState === undefined, complete, outcome.round)
      )
      return outcome._tag === "Detached"
        ? Effect.andThen(recorded, detached!(outcome.journal))
        : Effect.as(
          recorded,
          outcome._tag === "InputRequired"
            ? { ...outcome.result, _meta: serverMeta }
            : stamp(parsed.method, outcome.value, !retried && outcome.round === 0, principal)
        )
    }),
    Effect.provideService(RequestState.CurrentConversation, conversation),
    // No stack trace captured for the span: an `Error` per request, for a frame the span's name already tells.
    Effect.withSpan("mrtr.round", { attributes: { "mrtr.method": parsed.method, "mrtr.target": target } }, {
      captureStackTrace: false
    })
  )
}

/** The handler of the request's target, run as a plain MRTR call or as a task (SEP-2663). */
const callMethod = (deps: Deps, parsed: Parsed, principal: string | undefined) => {
  const { registry, tasks } = deps
  const call = registry.call(parsed.method, parsed.params)
  if (call instanceof McpError) return Effect.fail(call)
  if (call instanceof Registry.ResourceNotFound) {
    return Effect.fail(McpError.invalidParams(`Resource not found: ${call.uri}`, { uri: call.uri }))
  }
  const tool = parsed.method === "tools/call" ? registry.tools.get(call.target) : undefined
  if (tool?.task === undefined) return runMrtr(deps, parsed, principal, call.target, call.arguments, call.handler)
  // Tasks extension (SEP-2663): the tool's policy and the request's own declaration decide.
  if (!declaresTasks(parsed.clientCapabilities)) {
    return tool.task.support === "required"
      ? Effect.fail(McpError.missingRequiredClientCapability(tasksRequiredCapabilities))
      : runMrtr(deps, parsed, principal, call.target, call.arguments, call.handler)
  }
  const task = {
    tool: call.target,
    arguments: call.arguments as Record<string, unknown>,
    clientCapabilities: parsed.clientCapabilities,
    principal
  }
  return tool.task.start === "detach"
    ? runMrtr(deps, parsed, principal, call.target, call.arguments, call.handler, (journal) => tasks.create(task, journal))
    : tasks.create(task, Journal.empty)
}

/**
 * The MRTR methods of a server: `(parsed, principal)` to the method's result
 * (failing with the `McpError` the client gets, e.g. -32602 for a bad
 * `inputResponses`, `requestState` or an unknown resource).
 */
export const make = (deps: Deps) => (parsed: Parsed, principal: string | undefined) => callMethod(deps, parsed, principal)
