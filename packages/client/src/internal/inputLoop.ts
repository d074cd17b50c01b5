/**
 * The `input_required` loop of an MRTR call (`tools/call`, `prompts/get`,
 * `resources/read`): send the request, and while the server answers
 * `input_required`, answer its `inputRequests` with the input handlers and
 * retry with `inputResponses` and the echoed `requestState`, until a
 * complete result (decoded), a task (SEP-2663), or a typed failure.
 *
 * Gotchas:
 * - Every round's params are the original request plus that round's answers
 *   and state only: nothing stale (or from another call) leaks into a retry.
 * - A round with no `inputRequests` (state only) backs off on `backoff`
 *   before retrying; a round that only asks again URLs the user accepted is a
 *   wait and does not count toward `maxRounds` (`callTimeout` bounds it).
 * - An input request no handler can answer ends the call with
 *   `InputRequiredError` (carrying the requests and state, so the caller can
 *   answer them and retry itself); `maxRounds` rounds end it with
 *   `MaxRoundsExceeded`.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr; SEP-2663 (tasks).
 *
 * @internal
 */
import type { InputRequests, InputResponses, Tool } from "@mrtr/protocol/Schema"
import { Effect, Schedule } from "effect"
import {
  type InputHandlerError,
  InputRequiredError,
  MaxRoundsExceeded,
  type MrtrError,
  type ProtocolViolation
} from "../Errors.ts"
import type { RetryParams, Round } from "../Models.ts"
import * as TaskDriver from "../TaskDriver.ts"
import type { CallContext, Era } from "./era.ts"
import { answer, canAnswer, type Handlers, isAcceptedUrl } from "./inputHandlers.ts"
import { send } from "./plainRequests.ts"
import { classify } from "./results.ts"

/** URL elicitations the user accepted in one call, by key (see `ElicitationHandler.urlWait`). */
type AcceptedUrls = Map<string, { readonly url: string; attempts: number }>

/** One MRTR call as `McpClient` asks for it. */
export interface MrtrRequest<A> {
  readonly method: "tools/call" | "prompts/get" | "resources/read"
  /** The tool or prompt name, or the resource URI. */
  readonly target: string
  /** The request's own params (`name` / `arguments`, or `uri`), sent in every round. */
  readonly params: Readonly<Record<string, unknown>>
  /** The caller's own `inputResponses` / `requestState` for the first round (manual mode). */
  readonly retry: RetryParams
  readonly tool: Tool | undefined
  /** Decodes the complete result with the method's schema. */
  readonly decode: (raw: Record<string, unknown>) => Effect.Effect<A, ProtocolViolation>
}

/** The loop's bounds and hooks for one call (the client's options, per call overridden by its `CallOptions`). */
export interface LoopSettings {
  /** The most requests the call may send (at least 1). */
  readonly maxRounds: number
  /** Spaces consecutive rounds that carry only a `requestState`. */
  readonly backoff: Schedule.Schedule<unknown>
  /** How a `tools/call` treats tasks (`undefined`: the Tasks extension is not declared). */
  readonly tasks: TaskDriver.TasksMode | undefined
  readonly onRound: ((round: Round) => Effect.Effect<void>) | undefined
  readonly onTaskStatus: ((change: TaskDriver.TaskStatusChange) => Effect.Effect<void>) | undefined
}

/** The answers to `entries`, all asked at once; own data properties whatever the keys (no `__proto__` setter runs). */
const answerEach = (
  entries: ReadonlyArray<readonly [string, InputRequests[string]]>,
  handlers: Handlers,
  context: { readonly method: string; readonly target: string; readonly round: number },
  acceptedUrls: AcceptedUrls
): Effect.Effect<InputResponses, InputHandlerError> => {
  const only = entries.length === 1 ? entries[0]! : undefined
  if (only !== undefined) {
    // the usual round asks one thing: answered in this fiber (no fiber forked per answer)
    const [key, request] = only
    return Effect.map(answer(key, request, handlers, { key, ...context }, acceptedUrls), (response): InputResponses => {
      const answers: Record<string, InputResponses[string]> = Object.create(null)
      answers[key] = response
      return answers
    })
  }
  return Effect.map(
    Effect.forEach(
      entries,
      ([key, request]) =>
        Effect.map(
          answer(key, request, handlers, { key, ...context }, acceptedUrls),
          (response) => [key, response] as const
        ),
      { concurrency: "unbounded" }
    ),
    (answers): InputResponses => Object.assign(Object.create(null), Object.fromEntries(answers))
  )
}

/** A round's params: the request's own, then that round's answers and state (nothing stale from an earlier round). */
const roundParams = (
  params: Readonly<Record<string, unknown>>,
  inputResponses: InputResponses | undefined,
  requestState: string | undefined
): Readonly<Record<string, unknown>> => {
  if (inputResponses === undefined && requestState === undefined) return params
  const round: Record<string, unknown> = { ...params }
  if (inputResponses !== undefined) round.inputResponses = inputResponses
  if (requestState !== undefined) round.requestState = requestState
  return round
}

/** A task result driven to its end (`tasks/get` polls, `tasks/update` answers), then decoded. */
const driveTask = <A>(
  era: Era,
  call: CallContext,
  request: MrtrRequest<A>,
  settings: LoopSettings,
  raw: Record<string, unknown>,
  acceptedUrls: AcceptedUrls
): Effect.Effect<A, MrtrError | TaskDriver.TaskStarted | TaskDriver.TaskCancelled> => {
  if (settings.tasks === "manual") {
    return Effect.fail(new TaskDriver.TaskStarted({ taskId: String(raw.taskId), task: raw }))
  }
  // task methods only answer the server's requests, never fail on a handler's error
  const taskCall: CallContext = { ...call, onServerRequest: undefined, failOnHandlerError: false }
  return TaskDriver.drive(raw, {
    request: (method, params) => send(era, taskCall, method, params),
    answer: (inputRequests, taskRound) => {
      const entries = Object.entries(inputRequests)
      return entries.some(([, input]) => !canAnswer(input, call.handlers, call.capabilities))
        ? Effect.succeed(undefined)
        : answerEach(
          entries,
          call.handlers,
          { method: "tools/call", target: request.target, round: taskRound },
          acceptedUrls
        )
    },
    onStatus: settings.onTaskStatus,
    maxRounds: settings.maxRounds
  }).pipe(Effect.flatMap(request.decode))
}

/**
 * Runs one MRTR call to completion in `era`: sends the request, and while
 * the server answers `input_required`, answers the round with
 * `call.handlers` and sends it again. Fails with `MrtrError` (transport,
 * protocol, timeouts, `InputRequiredError`, `MaxRoundsExceeded`, a
 * handler's error), or `TaskStarted` / `TaskCancelled` when the server made
 * the call a task. `call.capabilities` declare the Tasks extension when
 * `settings.tasks` is set (`McpClient` sees to it).
 */
export const run: <A>(
  era: Era,
  call: CallContext,
  request: MrtrRequest<A>,
  settings: LoopSettings
) => Effect.Effect<A, MrtrError | TaskDriver.TaskStarted | TaskDriver.TaskCancelled> = Effect.fnUntraced(
  function*<A>(era: Era, call: CallContext, request: MrtrRequest<A>, settings: LoopSettings) {
    const { method, target } = request
    let inputResponses = request.retry.inputResponses
    let requestState = request.retry.requestState
    let sleep: ((input: unknown) => Effect.Effect<unknown, unknown>) | undefined
    const acceptedUrls: AcceptedUrls = new Map()
    let waited = 0
    for (let round = 1;; round++) {
      const raw = yield* era.send({
        method,
        params: roundParams(request.params, inputResponses, requestState),
        target,
        tool: request.tool
      }, call)
      if (settings.tasks !== undefined && raw.resultType === "task") {
        return yield* driveTask(era, call, request, settings, raw, acceptedUrls)
      }
      const outcome = yield* classify(method, raw)
      if (outcome._tag === "Complete") return yield* request.decode(raw)
      const entries = Object.entries(outcome.inputRequests)
      if (entries.length > 0 && entries.every(([key, input]) => isAcceptedUrl(acceptedUrls, key, input))) waited++
      if (round - waited >= settings.maxRounds) {
        return yield* new MaxRoundsExceeded({ method, rounds: round, lastResult: raw })
      }
      if (entries.length === 0) {
        sleep ??= yield* Schedule.toStepWithSleep(settings.backoff)
        yield* Effect.ignore(sleep(undefined))
        inputResponses = undefined
      } else {
        sleep = undefined
        if (entries.some(([, input]) => !canAnswer(input, call.handlers, call.capabilities))) {
          return yield* new InputRequiredError({
            method,
            inputRequests: outcome.inputRequests,
            ...(outcome.requestState === undefined ? {} : { requestState: outcome.requestState }),
            result: raw,
            round
          })
        }
        inputResponses = yield* answerEach(entries, call.handlers, { method, target, round }, acceptedUrls)
      }
      requestState = outcome.requestState
      if (settings.onRound !== undefined) {
        yield* settings.onRound({
          round,
          method,
          target,
          inputRequests: outcome.inputRequests,
          ...(requestState === undefined ? {} : { requestState }),
          ...(inputResponses === undefined ? {} : { inputResponses })
        })
      }
    }
  }
)
