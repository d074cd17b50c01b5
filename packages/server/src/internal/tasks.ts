/**
 * The Tasks extension's server methods (SEP-2663): `tasks/get`,
 * `tasks/update`, `tasks/cancel`, and the `notifications/tasks` of a
 * `subscriptions/listen` stream, over the `TaskStore` and this instance's
 * runner (`taskRunner.ts`).
 *
 * A task is the third way the engine's asks travel (`docs/architecture.md`,
 * "A task"): a round that needs answers publishes the
 * task's `input_required` status; `tasks/update` moves answers for
 * outstanding keys into the record (answered keys leave `inputRequests`
 * before the ack, as the conformance suite checks) and, once none is
 * outstanding, this instance claims the task and runs its next round by
 * replay. A `working` task released by a stopped instance, or whose owner's
 * lease lapsed (it crashed), is resumed by the next `tasks/get` or
 * `tasks/update`.
 *
 * Gotchas: the three methods need the request's declaration of the
 * extension (-32021 with `data.requiredCapabilities`, checked before the
 * id); unknown, expired and other principals' ids are all -32602. Cancel is
 * cooperative: the task is marked `cancelled`, then its fiber interrupted
 * where it runs here (its finalizers run before the ack; elsewhere the owner's
 * watchdog interrupts it). Notifications report this instance's changes
 * and, through the `NotificationBus` (Redis pub/sub in a fleet), the other
 * instances' (at most once: a bus message lost is a notification missed;
 * `tasks/get` stays the truth). A task store that cannot answer
 * (`TaskStoreUnavailable`) is JSON-RPC -32603, retry later.
 * Source: ext-tasks `specification/draft/tasks.md` §Task Polling, §Task
 * Update Requests, §Task Cancellation, §Task Status Notifications.
 */
import { ErrorCode, McpError } from "@mrtr/protocol/ErrorCode"
import type { ClientCapabilities } from "@mrtr/protocol/Schema"
import { declaresTasks, tasksRequiredCapabilities } from "@mrtr/protocol/Tasks"
import { Clock, Effect, PubSub, Stream } from "effect"
import type { TaskStatus } from "../NotificationBus.ts"
import type { TaskRecord, TaskStoreUnavailable } from "../TaskStore.ts"
import { allAnswered, answered, detailedTask, orphaned, unknownTask } from "./taskRecord.ts"
import { makeRunner, type Runner, type TaskHost } from "./taskRunner.ts"

export type { TaskHost, TaskOptions } from "./taskRunner.ts"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** A task's change as the `subscriptions/listen` streams see it: its `DetailedTask`, and who may see it. */
type TaskChange = Omit<TaskStatus, "_tag">

/** The task store could not answer: -32603 with the error's fixed "retry later" message. */
const unavailable = (error: TaskStoreUnavailable) =>
  new McpError({ code: ErrorCode.InternalError, message: error.message })

/** The task runtime of one server instance (see {@link makeTasks}). */
export interface Tasks {
  /** A `tools/call` becomes a task (its journal so far): the `CreateTaskResult`. */
  readonly create: Runner["create"]
  /** Answers `tasks/get`, `tasks/update` or `tasks/cancel` for `principal`, given the request's declared capabilities. */
  readonly dispatch: (
    method: string,
    params: Record<string, unknown>,
    declared: ClientCapabilities,
    principal: string | undefined
  ) => Effect.Effect<Record<string, unknown>, McpError>
  /** The `notifications/tasks` for `taskIds` (those of `principal` only), with `meta` as `_meta`. */
  readonly notifications: (
    taskIds: ReadonlySet<string>,
    principal: string | undefined,
    meta: Record<string, unknown>
  ) => Stream.Stream<Record<string, unknown>>
  /** A change published by another instance: to this instance's streams (never back on the bus). */
  readonly deliverRemote: (change: TaskStatus) => Effect.Effect<boolean>
}

/**
 * Builds the task runtime of one server instance: `create` (a `tools/call`
 * becomes a task), `dispatch` (the three task methods), `notifications`
 * (for `subscriptions/listen`) and `deliverRemote` (a change another
 * instance published on the bus). `publish` sends this instance's changes to
 * the other instances.
 */
export const makeTasks = (
  host: TaskHost,
  publish: (change: TaskStatus) => Effect.Effect<void> = () => Effect.void
): Effect.Effect<Tasks> =>
  Effect.map(PubSub.unbounded<TaskChange>(), (changes): Tasks => {
    const { store } = host
    const announce = (record: TaskRecord) => {
      const change: TaskChange = {
        taskId: record.taskId,
        ...(record.call.principal === undefined ? {} : { principal: record.call.principal }),
        task: detailedTask(record)
      }
      return Effect.andThen(PubSub.publish(changes, change), publish({ _tag: "TaskStatus", ...change }))
    }
    const runner = makeRunner(host, announce)

    /** The record for a request, or -32602: unknown, expired, or another principal's. */
    const lookup = (taskId: string, principal: string | undefined) =>
      Effect.flatMap(store.get(taskId), (record) =>
        record === undefined || record.call.principal !== principal
          ? Effect.fail(unknownTask(taskId))
          : Effect.succeed(record))

    const get = (taskId: string, principal: string | undefined) =>
      Effect.flatMap(Effect.zip(lookup(taskId, principal), Clock.currentTimeMillis), ([record, now]) =>
        orphaned(record, now)
          ? Effect.andThen(runner.resume(taskId, orphaned), Effect.map(lookup(taskId, principal), detailedTask))
          : Effect.succeed(detailedTask(record)))

    const update = (taskId: string, principal: string | undefined, inputResponses: Record<string, unknown>) =>
      lookup(taskId, principal).pipe(
        Effect.andThen(runner.apply(taskId, (record, now) =>
          answered(record, inputResponses, now))),
        Effect.flatMap((next) =>
          next !== undefined && allAnswered(next)
            ? runner.resume(taskId, allAnswered)
            // Not waiting: a working task whose owner is gone is resumed here, as `tasks/get` would.
            : next === undefined
            ? runner.resume(taskId, orphaned)
            : Effect.void
        ),
        Effect.as({})
      )

    const cancel = (taskId: string, principal: string | undefined) =>
      lookup(taskId, principal).pipe(
        Effect.andThen(runner.settle(taskId, { status: "cancelled", statusMessage: "Cancelled by the client" })),
        Effect.andThen(runner.interruptLocal(taskId)),
        Effect.as({})
      )

    /**
     * Answers `tasks/get`, `tasks/update` or `tasks/cancel`: -32021 (with
     * `data.requiredCapabilities`) without the request's declaration, checked
     * before the id; -32602 for a missing or non-string `taskId`, an unknown,
     * expired or foreign task, or `inputResponses` that is not an object.
     */
    const dispatch = (
      method: string,
      params: Record<string, unknown>,
      declared: ClientCapabilities,
      principal: string | undefined
    ): Effect.Effect<Record<string, unknown>, McpError> => {
      if (!declaresTasks(declared)) {
        return Effect.fail(McpError.missingRequiredClientCapability(tasksRequiredCapabilities))
      }
      const taskId = params.taskId
      if (typeof taskId !== "string") {
        return Effect.fail(McpError.invalidParams(`${method} needs a string taskId`))
      }
      const answer = (): Effect.Effect<Record<string, unknown>, McpError | TaskStoreUnavailable> => {
        switch (method) {
          case "tasks/get":
            return get(taskId, principal)
          case "tasks/update": {
            const inputResponses = params.inputResponses
            if (!isRecord(inputResponses)) {
              return Effect.fail(McpError.invalidParams("tasks/update needs an inputResponses object"))
            }
            return update(taskId, principal, inputResponses)
          }
          case "tasks/cancel":
            return cancel(taskId, principal)
          default:
            return Effect.fail(McpError.methodNotFound(method))
        }
      }
      return Effect.mapError(answer(), (error) =>
        error instanceof McpError ? error : unavailable(error))
    }

    /**
     * The `notifications/tasks` for `taskIds` (those of `principal` only): the
     * task's `DetailedTask` after each change this instance or another one
     * (through the bus) makes, with `meta` (the subscription id) as `_meta`.
     */
    const notifications = (
      taskIds: ReadonlySet<string>,
      principal: string | undefined,
      meta: Record<string, unknown>
    ): Stream.Stream<Record<string, unknown>> =>
      Stream.fromPubSub(changes).pipe(
        Stream.filter((change) => taskIds.has(change.taskId) && change.principal === principal),
        Stream.map((change) => ({
          jsonrpc: "2.0",
          method: "notifications/tasks",
          params: { ...change.task, _meta: meta }
        }))
      )

    /** A change published by another instance: to this instance's streams (never back on the bus). */
    const deliverRemote = (change: TaskStatus) =>
      PubSub.publish(changes, {
        taskId: change.taskId,
        ...(change.principal === undefined ? {} : { principal: change.principal }),
        task: change.task
      })

    return { create: runner.create, dispatch, notifications, deliverRemote }
  })
