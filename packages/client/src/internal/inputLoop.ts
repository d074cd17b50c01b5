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
import { type Duration, Effect, Schedule } from "effect"
import type { ClientCapabilities, InputRequests, InputResponses, Tool } from "@mrtr/protocol/Schema"
import {
  type InputHandlerError,
  InputRequiredError,
  MaxRoundsExceeded,
  type MrtrError,
  type ProtocolViolation,
  type RequestError,
  type RequestTimeout
} from "../Errors.ts"
import * as TaskDriver from "../TaskDriver.ts"
import type { Eras } from "./eras.ts"
import { answer, canAnswer, type Handlers, isAcceptedUrl } from "./inputHandlers.ts"
import type { CallOptions, Notification, RetryParams } from "../Models.ts"
import { classify } from "./results.ts"

/** URL elicitations the user accepted in one call, by key (see `ElicitationHandler.urlWait`). */
type AcceptedUrls = Map<string, { readonly url: string; attempts: number }>

/** What the loop needs of the client it runs in. */
export interface LoopContext {
  readonly eras: Eras
  readonly currentHandlers: Effect.Effect<Handlers>
  readonly declared: (handlers: Handlers) => ClientCapabilities
  readonly onNotification: (callOptions: CallOptions | undefined) => (notification: Notification) => Effect.Effect<void>
  /** One task method (`tasks/get`, `tasks/update`, ...) with the call's capabilities; the raw result. */
  readonly taskRequest: (
    method: string,
    params: Record<string, unknown>,
    capabilities: ClientCapabilities,
    handlers: Handlers,
    callOptions: CallOptions | undefined
  ) => Effect.Effect<Record<string, unknown>, RequestError>
  readonly requestTimeout: (callOptions: CallOptions | undefined) => Duration.Duration
  readonly maxRounds: (callOptions: CallOptions | undefined) => number
  readonly backoff: Schedule.Schedule<unknown>
  /** How a `tools/call` treats tasks (`McpClient` options, per call overridden by `CallOptions.tasks`). */
  readonly tasks: CallOptions["tasks"]
  /** `effect` bounded by the call's `callTimeout` (interrupted, then `RequestTimeout`). */
  readonly withCallTimeout: <A, E>(
    method: string,
    callOptions: CallOptions | undefined,
    effect: Effect.Effect<A, E>
  ) => Effect.Effect<A, E | RequestTimeout>
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
        Effect.map(answer(key, request, handlers, { key, ...context }, acceptedUrls), (response) => [key, response] as const),
      { concurrency: "unbounded" }
    ),
    (answers): InputResponses => Object.assign(Object.create(null), Object.fromEntries(answers))
  )
}

/**
 * Runs one MRTR call to completion, bounded by its `callTimeout`: `base` is the request's params
 * (`name` / `arguments`, or `uri`), `retry` the caller's own
 * `inputResponses` / `requestState` for its first round, `decode` the
 * complete result's schema. Fails with `MrtrError` (transport, protocol,
 * timeouts, `InputRequiredError`, `MaxRoundsExceeded`, a handler's error),
 * or `TaskStarted` / `TaskCancelled` when the server made the call a task.
 */
export const run = <A>(
  loop: LoopContext,
  method: "tools/call" | "prompts/get" | "resources/read",
  target: string,
  base: Record<string, unknown>,
  retry: RetryParams,
  tool: Tool | undefined,
  decode: (raw: Record<string, unknown>) => Effect.Effect<A, ProtocolViolation>,
  callOptions: CallOptions | undefined
): Effect.Effect<A, MrtrError | TaskDriver.TaskStarted | TaskDriver.TaskCancelled> =>
  loop.withCallTimeout(method, callOptions, Effect.gen(function*() {
    const handlers = yield* loop.currentHandlers
    const tasksMode = method === "tools/call" ? callOptions?.tasks ?? loop.tasks : undefined
    const capabilities = tasksMode === undefined ? loop.declared(handlers) : TaskDriver.declaring(loop.declared(handlers))
    const maxRounds = loop.maxRounds(callOptions)
    let inputResponses = retry.inputResponses
    let requestState = retry.requestState
    let sleep: ((input: unknown) => Effect.Effect<unknown, unknown>) | undefined
    const acceptedUrls: AcceptedUrls = new Map()
    let waited = 0
    for (let round = 1;; round++) {
      const answers = inputResponses
      const state = requestState
      const raw = yield* loop.eras.send({
        method,
        // the request's params, `_meta`, then this round's answers and state (assigned: spreads of
        // conditional objects cost more here, once per round)
        params: (meta) => {
          const params: Record<string, unknown> = { ...base }
          if (meta !== undefined) params._meta = meta
          if (answers !== undefined) params.inputResponses = answers
          if (state !== undefined) params.requestState = state
          return params
        },
        capabilities,
        progressToken: callOptions?.progressToken,
        tool,
        target,
        handlers,
        failOnHandlerError: true,
        onNotification: loop.onNotification(callOptions),
        onServerRequest: callOptions?.onServerRequest,
        requestTimeout: loop.requestTimeout(callOptions)
      })
      if (tasksMode !== undefined && raw.resultType === "task") {
        return yield* tasksMode === "manual"
          ? new TaskDriver.TaskStarted({ taskId: String(raw.taskId), task: raw })
          : TaskDriver.drive(raw, {
            request: (taskMethod, taskParams) => loop.taskRequest(taskMethod, taskParams, capabilities, handlers, callOptions),
            answer: (inputRequests, taskRound) => {
              const entries = Object.entries(inputRequests)
              return entries.some(([, request]) => !canAnswer(request, handlers, capabilities))
                ? Effect.succeed(undefined)
                : answerEach(entries, handlers, { method: "tools/call", target, round: taskRound }, acceptedUrls)
            },
            onStatus: callOptions?.onTaskStatus,
            maxRounds
          }).pipe(Effect.flatMap(decode))
      }
      const outcome = yield* classify(method, raw)
      if (outcome._tag === "Complete") return yield* decode(raw)
      const entries = Object.entries(outcome.inputRequests)
      if (entries.length > 0 && entries.every(([key, request]) => isAcceptedUrl(acceptedUrls, key, request))) waited++
      if (round - waited >= maxRounds) return yield* new MaxRoundsExceeded({ method, rounds: round, lastResult: raw })
      if (entries.length === 0) {
        sleep ??= yield* Schedule.toStepWithSleep(loop.backoff)
        yield* Effect.ignore(sleep(undefined))
        inputResponses = undefined
      } else {
        sleep = undefined
        if (entries.some(([, request]) => !canAnswer(request, handlers, capabilities))) {
          return yield* new InputRequiredError({
            method,
            inputRequests: outcome.inputRequests,
            ...(outcome.requestState === undefined ? {} : { requestState: outcome.requestState }),
            result: raw,
            round
          })
        }
        inputResponses = yield* answerEach(entries, handlers, { method, target, round }, acceptedUrls)
      }
      requestState = outcome.requestState
      if (callOptions?.onRound !== undefined) {
        yield* callOptions.onRound({
          round,
          method,
          target,
          inputRequests: outcome.inputRequests,
          ...(requestState === undefined ? {} : { requestState }),
          ...(inputResponses === undefined ? {} : { inputResponses })
        })
      }
    }
  }))
