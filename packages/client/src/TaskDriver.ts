/**
 * The client side of the Tasks extension (SEP-2663): what `McpClient.callTool`
 * does when a `tools/call` answers `CreateTaskResult` (`resultType: "task"`).
 *
 * {@link drive} polls `tasks/get` at the server's `pollIntervalMs` (kept
 * within 10 ms–30 s; 1 s when the server gives none), answers
 * the task's `inputRequests` with the same input handlers as an MRTR round
 * (through `tasks/update`; each question answered once), reports the seed
 * status and every change, and returns the task's final `tools/call` result. A `failed` task
 * fails with its JSON-RPC error as an `McpError`, a `cancelled` one with
 * {@link TaskCancelled}. Interrupting the fiber that drives it sends
 * `tasks/cancel` (best effort, bounded by 5 seconds). In manual mode the
 * call fails with {@link TaskStarted} instead, carrying the task to drive by
 * hand with `McpClient.getTask` / `updateTask` / `cancelTask`.
 *
 * Gotcha: a question asked again under the same key with the very same
 * request is not answered twice (the spec's "never answer a key twice"); a
 * server that re-asks after refusing an answer must change the question
 * (this runtime's server adds the reason to a form's message).
 * Source: ext-tasks `specification/draft/tasks.md` §Task Polling, §Task
 * Update Requests, §Task Cancellation.
 *
 * @since 0.1.0
 */
import type { InputRequests, InputResponses } from "@mrtr/protocol/Schema"
import { TASKS_EXTENSION, type TaskStatus } from "@mrtr/protocol/Tasks"
import { Duration, Effect } from "effect"
import {
  InputRequiredError,
  MaxRoundsExceeded,
  type MrtrError,
  ProtocolViolation,
  type RequestError,
  TaskCancelled
} from "./Errors.ts"
import { mcpErrorOf, readInputRequests } from "./internal/results.ts"

/**
 * A task's status as `CallOptions.onTaskStatus` sees it, once per change:
 * `taskId`, `status`, `statusMessage` (when the server gave one) and the
 * `inputRequests` keys the server waits for (on `input_required`).
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskStatusChange {
  readonly taskId: string
  readonly status: TaskStatus
  readonly statusMessage?: string | undefined
  readonly waitingFor?: ReadonlyArray<string> | undefined
}

export {
  /**
   * @category models
   * @since 0.1.0
   */
  TaskCancelled,
  /**
   * @category models
   * @since 0.1.0
   */
  TaskStarted
} from "./Errors.ts"

/**
 * How the client treats tasks: `"auto"` declares the extension on
 * `tools/call` and drives task results to their end; `"manual"` declares it
 * and fails the call with {@link TaskStarted}; absent, the extension is not
 * declared (a server then answers synchronously, or -32021 for a tool that
 * requires a task).
 *
 * @category models
 * @since 0.1.0
 */
export type TasksMode = "auto" | "manual"

/**
 * The capabilities a task-declaring request sends: `capabilities` plus
 * `extensions["io.modelcontextprotocol/tasks"]: {}`.
 *
 * @category capabilities
 * @since 0.1.0
 */
export const declaring = <C extends { readonly extensions?: Readonly<Record<string, unknown>> | undefined }>(
  capabilities: C
): C => ({ ...capabilities, extensions: { ...capabilities.extensions, [TASKS_EXTENSION]: {} } })

/**
 * What {@link drive} needs from the client: `request` sends one task method
 * (the client adds `_meta`, the declaration and the headers); `answer`
 * answers a set of input requests with the input handlers, or `undefined`
 * when some cannot be answered here; `maxRounds`, the call's `maxRounds`
 * counted as the MRTR loop counts its requests (the `tools/call` the first,
 * each set of answers another: at most `maxRounds - 1` sets are answered),
 * past which the task is cancelled and the call fails with
 * `MaxRoundsExceeded`; absent, no cap; a value that is no number is a defect.
 *
 * @category models
 * @since 0.1.0
 */
export interface Deps {
  readonly request: (
    method: string,
    params: Record<string, unknown>
  ) => Effect.Effect<Record<string, unknown>, RequestError>
  readonly answer: (inputRequests: InputRequests, round: number) => Effect.Effect<InputResponses | undefined, MrtrError>
  readonly onStatus?: ((change: TaskStatusChange) => Effect.Effect<void>) | undefined
  /** @since 0.3.0 */
  readonly maxRounds?: number | undefined
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const STATUSES = new Set(["working", "input_required", "completed", "failed", "cancelled"])

/** The poll interval to use: the server's, kept within 10 ms–30 s, by default 1 second. */
const intervalOf = (task: Record<string, unknown>, previous: number): number => {
  const value = task.pollIntervalMs
  return typeof value === "number" && Number.isFinite(value) && value > 0
    ? Math.min(30_000, Math.max(10, value))
    : previous
}

/**
 * Drives the task `created` (a `CreateTaskResult`) to its end and returns
 * the raw `tools/call` result of a `completed` task. Fails with the task's
 * error (`McpError`) when it `failed`, {@link TaskCancelled} when it was
 * cancelled, `InputRequiredError` when it asks what no handler here answers
 * and `MaxRoundsExceeded` when it asks more than `deps.maxRounds` times (the
 * task is cancelled first), `ProtocolViolation` for a malformed task (its
 * input requests are checked as a round's: `MAX_INPUT_REQUESTS` at most,
 * before `onStatus` sees them), and the transport's errors. Interrupting it
 * cancels the task.
 *
 * @category tasks
 * @since 0.1.0
 */
export const drive = (
  created: Record<string, unknown>,
  deps: Deps
): Effect.Effect<Record<string, unknown>, MrtrError | TaskCancelled> => {
  const taskId = created.taskId
  if (typeof taskId !== "string") {
    return Effect.fail(
      new ProtocolViolation({
        method: "tools/call",
        reason: "a CreateTaskResult needs a string taskId",
        result: created
      })
    )
  }
  const maxRounds = deps.maxRounds
  if (maxRounds !== undefined && (typeof maxRounds !== "number" || Number.isNaN(maxRounds))) {
    return Effect.die(new RangeError(`TaskDriver.drive: maxRounds must be a number, got ${String(maxRounds)}`))
  }
  const cancel = deps.request("tasks/cancel", { taskId }).pipe(Effect.timeout(Duration.seconds(5)), Effect.ignore)
  const violation = (reason: string, result: unknown) => new ProtocolViolation({ method: "tasks/get", reason, result })
  return Effect.gen(function*() {
    let interval = intervalOf(created, 1_000)
    let last: string | undefined
    // The seed status (usually `working`), as the CreateTaskResult gave it.
    if (typeof created.status === "string" && STATUSES.has(created.status) && deps.onStatus !== undefined) {
      const statusMessage = typeof created.statusMessage === "string" ? created.statusMessage : undefined
      last = `${created.status}\u0000${statusMessage ?? ""}\u0000`
      yield* deps.onStatus({
        taskId,
        status: created.status as TaskStatus,
        ...(statusMessage === undefined ? {} : { statusMessage })
      })
    }
    // Each question is answered once: key → the JSON of the request answered.
    const answered = new Map<string, string>()
    let round = 0
    for (;;) {
      const task = yield* deps.request("tasks/get", { taskId })
      const status = task.status
      if (typeof status !== "string" || !STATUSES.has(status)) return yield* violation("unknown task status", task)
      interval = intervalOf(task, interval)
      // Checked like a round's (internal/results.ts: shapes, methods, at most MAX_INPUT_REQUESTS) before
      // anything of them is shown or answered; only an `input_required` task's are read.
      let inputRequests: InputRequests = {}
      if (status === "input_required") {
        const read = readInputRequests(task.inputRequests === undefined ? {} : task.inputRequests)
        if (read._tag === "Failure") return yield* violation(read.failure, task)
        inputRequests = read.success
      }
      const statusMessage = typeof task.statusMessage === "string" ? task.statusMessage : undefined
      const signature = `${status}\u0000${statusMessage ?? ""}\u0000${Object.keys(inputRequests).join("\u0000")}`
      if (signature !== last && deps.onStatus !== undefined) {
        yield* deps.onStatus({
          taskId,
          status: status as TaskStatus,
          ...(statusMessage === undefined ? {} : { statusMessage }),
          ...(status === "input_required" ? { waitingFor: Object.keys(inputRequests) } : {})
        })
      }
      last = signature
      switch (status) {
        case "completed": {
          if (!isRecord(task.result)) return yield* violation("a completed task needs a result object", task)
          return task.result
        }
        case "failed": {
          const error = mcpErrorOf(task.error)
          if (error === undefined) return yield* violation("a failed task needs an error { code, message }", task)
          return yield* error
        }
        case "cancelled":
          return yield* new TaskCancelled({ taskId, ...(statusMessage === undefined ? {} : { statusMessage }) })
        case "input_required": {
          const fresh: Record<string, unknown> = Object.create(null)
          for (const [key, request] of Object.entries(inputRequests)) {
            const json = JSON.stringify(request)
            if (answered.get(key) !== json) fresh[key] = request
          }
          if (Object.keys(fresh).length > 0) {
            round++
            // Counted as the MRTR loop counts requests: the tools/call is the first, each set of answers another.
            if (deps.maxRounds !== undefined && round >= deps.maxRounds) {
              yield* cancel
              return yield* new MaxRoundsExceeded({ method: "tools/call", rounds: round, lastResult: task })
            }
            const answers = yield* deps.answer(fresh as InputRequests, round)
            if (answers === undefined) {
              yield* cancel
              return yield* new InputRequiredError({
                method: "tools/call",
                inputRequests: fresh as InputRequests,
                result: task,
                round
              })
            }
            for (const key of Object.keys(answers)) answered.set(key, JSON.stringify(inputRequests[key]))
            yield* deps.request("tasks/update", { taskId, inputResponses: answers })
            continue
          }
        }
      }
      yield* Effect.sleep(Duration.millis(interval))
    }
  }).pipe(Effect.onInterrupt(() => cancel))
}
