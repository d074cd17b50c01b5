/**
 * The drive step of the 2026-07-28 server path (see `docs/architecture.md`):
 * an MRTR method (`tools/call`, `prompts/get`, `resources/read`) through
 * `Engine.drive`. The registry finds the handler; the first round runs
 * against the request's `inputResponses` and unsealed `requestState`; its
 * end is encoded here (`results.ts`): complete and stamped; suspended, the
 * `InputRequiredResult` with the new sealed state (this era's fulfil: the
 * client carries the round and retries); or a task (SEP-2663). One
 * `mrtr.round` span and the round's metrics per call.
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
import { ClientAddress, RequestState } from "@mrtr/core"
import { Engine, Journal } from "@mrtr/core/engine"
import { McpError } from "@mrtr/protocol/ErrorCode"
import { type InputResponses } from "@mrtr/protocol/Schema"
import { declaresTasks, tasksRequiredCapabilities } from "@mrtr/protocol/Tasks"
import { Effect, Predicate } from "effect"
import * as Observability from "../Observability.ts"
import { isCreated } from "../TaskSource.ts"
import type * as Envelope from "./envelope.ts"
import * as Registry from "./registry.ts"
import * as Results from "./results.ts"
import type { Tasks } from "./tasks.ts"
import type { TaskSources } from "./taskSources.ts"

type Parsed = Envelope.Parsed

/** What an MRTR call needs of its server. */
export interface MrtrServer {
  readonly engine: Engine.Services
  readonly registry: Registry.Registry
  readonly audience: string
  readonly encoding: Results.Encoding
  readonly tasks: Tasks
  readonly taskSources: TaskSources
}

/** A retry's `inputResponses` and `requestState`, or the -32602 their shapes answer. */
const retryOf = (parsed: Parsed) => {
  const { inputResponses, requestState } = parsed.params
  if (inputResponses !== undefined && !Predicate.isObject(inputResponses)) {
    return McpError.invalidParams("inputResponses must be an object")
  }
  if (requestState !== undefined && typeof requestState !== "string") {
    return McpError.invalidParams("requestState must be a string")
  }
  return { inputResponses: inputResponses as InputResponses | undefined, requestState }
}

/**
 * `call` through `Engine.drive`: the request's answers and state in, the
 * call's result out. A suspended round ends the call with its
 * `InputRequiredResult`; `detach` (a task-eligible `tools/call`): `Task.detach`
 * ends it, and its journal becomes a task.
 */
const runMrtr = Effect.fnUntraced(function*(
  server: MrtrServer,
  parsed: Parsed,
  principal: string | undefined,
  call: Registry.Call,
  detach?: (journal: Journal.Journal) => Effect.Effect<Record<string, unknown>, McpError>
) {
  const retry = retryOf(parsed)
  if (retry instanceof McpError) return yield* retry
  const { inputResponses, requestState } = retry
  const retried = inputResponses !== undefined || requestState !== undefined
  const { audience, encoding } = server
  const method = parsed.method
  // Filled by the codec: the id every round of this conversation carries (the span's mrtr.conversation.id).
  const conversation: { id: string | undefined } = { id: undefined }
  const recorded = Effect.fnUntraced(function*(outcome: "complete" | "input_required" | "task", round: number) {
    yield* Effect.annotateCurrentSpan({
      "mrtr.round": round,
      "mrtr.outcome": outcome,
      ...(conversation.id === undefined ? {} : { "mrtr.conversation.id": conversation.id })
    })
    yield* Observability.recordRound(method, requestState === undefined, outcome === "complete", round)
  })
  return yield* Engine.drive(server.engine, call.handler, {
    method,
    target: call.target,
    arguments: call.arguments,
    audience,
    principal,
    clientCapabilities: parsed.clientCapabilities,
    inputResponses,
    requestState,
    detach: detach !== undefined
  }, {
    // This era's fulfil: the client carries the round (and retries with its answers).
    fulfil: Effect.fnUntraced(function*(suspended) {
      yield* recorded("input_required", suspended.round)
      return Engine.end(Results.encodeInputRequired(encoding, suspended.result))
    }),
    complete: Effect.fnUntraced(function*(value, round) {
      if (isCreated(value)) {
        // a task started elsewhere (`TaskSource.ts`): its CreateTaskResult, under an id sealed here
        yield* recorded("task", round)
        return yield* server.taskSources.create(value, parsed.clientCapabilities, principal)
      }
      yield* recorded("complete", round)
      return Results.encodeResult(encoding, "2026-07-28", method, value, !retried && round === 0, principal)
    }),
    detach: detach === undefined ? undefined : Effect.fnUntraced(function*(journal, round) {
      yield* recorded("task", round)
      return yield* detach(journal)
    })
  }).pipe(
    Effect.provideService(RequestState.CurrentConversation, conversation),
    // No stack trace captured for the span: an `Error` per request, for a frame the span's name already tells.
    Effect.withSpan("mrtr.round", { attributes: { "mrtr.method": method, "mrtr.target": call.target } }, {
      captureStackTrace: false
    })
  )
})

/**
 * The MRTR methods of a server: the handler of the request's target, run as
 * a plain MRTR call or as a task (SEP-2663); fails with the `McpError` the
 * client gets (e.g. -32602 for a bad `inputResponses`, `requestState` or an
 * unknown resource).
 */
export const call = Effect.fnUntraced(function*(server: MrtrServer, parsed: Parsed, principal: string | undefined) {
  const { registry, tasks } = server
  const found = registry.call(parsed.method, parsed.params)
  if (found instanceof McpError) return yield* found
  if (found instanceof Registry.ResourceNotFound) {
    return yield* McpError.invalidParams(`Resource not found: ${found.uri}`, { uri: found.uri })
  }
  const tool = parsed.method === "tools/call" ? registry.tools.get(found.target) : undefined
  if (tool?.task === undefined) return yield* runMrtr(server, parsed, principal, found)
  // Tasks extension (SEP-2663): the tool's policy and the request's own declaration decide.
  if (!declaresTasks(parsed.clientCapabilities)) {
    return tool.task.support === "required"
      ? yield* McpError.missingRequiredClientCapability(tasksRequiredCapabilities)
      : yield* runMrtr(server, parsed, principal, found)
  }
  // A task keeps what the tool's parameters decode to (unknown keys dropped), and the client address of an
  // unauthenticated call (its share of the task store).
  const kept = tool.decodeArguments === undefined
    ? Effect.succeed(found.arguments as Record<string, unknown>)
    : Effect.mapError(tool.decodeArguments(found.arguments), (error) => McpError.invalidParams(error.message))
  const create = Effect.fnUntraced(function*(journal: Journal.Journal) {
    const args = yield* kept
    const address = yield* ClientAddress.currentGroup
    return yield* tasks.create({
      tool: found.target,
      arguments: args,
      clientCapabilities: parsed.clientCapabilities,
      principal,
      ...(principal === undefined && address !== undefined ? { address } : {})
    }, journal)
  })
  return tool.task.start === "detach"
    ? yield* runMrtr(server, parsed, principal, found, create)
    : yield* create(Journal.empty)
})
