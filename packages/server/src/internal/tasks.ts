/**
 * The Tasks extension's server side (SEP-2663): creating a task from a
 * `tools/call`, running its handler, and answering `tasks/get`,
 * `tasks/update` and `tasks/cancel`.
 *
 * A task is the third way the engine's asks travel (DESIGN.md, "One engine,
 * three ways to deliver an ask"): the handler runs round by round with
 * `Engine.runWith`, its journal kept in the `TaskStore` instead of a sealed
 * `requestState`. A round that ends `InputRequired` publishes the task's
 * `input_required` status with the round's `inputRequests` and ends its
 * fiber; `tasks/update` moves answers for outstanding keys into the record
 * (answered keys leave `inputRequests` before the ack) and, once none is
 * outstanding, the instance that took the last answer claims the task and
 * runs the next round by replay. So any instance sharing the store resumes a
 * task waiting for input; one whose fiber died with its instance (`owner`
 * released on shutdown) is resumed by the next `tasks/get` or `tasks/update`.
 *
 * Gotchas: a round starts again only when every outstanding key is answered
 * (partial answers wait in the record). Cancellation interrupts the fiber
 * where it runs locally (finalizers run before the ack); on another
 * instance the owner's watchdog sees the terminal status within one poll
 * interval and interrupts its fiber. A task past its TTL is deleted (its
 * fiber interrupted by the same watchdog); `tasks/get` then answers -32602.
 * `notifications/tasks` (to `subscriptions/listen` streams that name the
 * task in `notifications.taskIds`) report the changes this instance makes.
 * Source: ext-tasks `specification/draft/tasks.md`.
 */
import { Cause, Clock, Duration, Effect, Exit, Fiber, Option, PubSub, Schedule, type Scope, Stream } from "effect"
import * as SecureRandom from "effect/crypto/SecureRandom"
import {
  declaresTasks,
  ErrorCode,
  type InputResponses,
  isTerminalStatus,
  McpError,
  type RequestId,
  tasksRequiredCapabilities
} from "@mrtr/protocol"
import { Engine, type Journal } from "@mrtr/core"
import { McpRequest } from "../RequestContext.ts"
import type { TaskCall, TaskRecord, TaskStore, TaskStoreFull } from "../TaskStore.ts"

/**
 * Task defaults of a server: `ttlMs` (milliseconds from creation, `null` =
 * unlimited; default 300 000) and `pollIntervalMs` (default 1 000).
 */
export interface TaskOptions {
  readonly ttlMs?: number | null | undefined
  readonly pollIntervalMs?: number | undefined
}

/** What the task runtime needs from the server that hosts it. */
export interface TaskHost {
  readonly store: TaskStore["Service"]
  readonly scope: Scope.Scope
  readonly engine: Engine.Services
  readonly audience: string
  readonly serverMeta: Readonly<Record<string, unknown>>
  readonly options: TaskOptions
  /** The handler of `tool` for `args` (tool errors already turned into `isError` results), if the tool exists. */
  readonly handlerFor: (
    tool: string,
    args: Readonly<Record<string, unknown>>
  ) => Effect.Effect<Record<string, unknown>, unknown, any> | undefined
  /** The JSON-RPC error a handler's failure maps to, when it has one. */
  readonly toMcpError: (error: unknown) => McpError | undefined
}

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const dictionary = <V>(): Record<string, V> => Object.create(null)

/** Unknown, expired and foreign ids get the same answer (the spec's MUST for `tasks/get`). */
const unknownTask = (taskId: string) => McpError.invalidParams(`Unknown task: ${taskId}`)

const iso = (millis: number) => new Date(millis).toISOString()

/** The wire `Task` fields of a record. */
const taskFields = (record: TaskRecord): Record<string, unknown> => ({
  taskId: record.taskId,
  status: record.status,
  ...(record.statusMessage === undefined ? {} : { statusMessage: record.statusMessage }),
  createdAt: iso(record.createdAt),
  lastUpdatedAt: iso(record.lastUpdatedAt),
  ttlMs: record.ttlMs,
  pollIntervalMs: record.pollIntervalMs
})

/** The `DetailedTask` of `tasks/get`: the task plus exactly one of `inputRequests`, `result`, `error`. */
export const detailedTask = (record: TaskRecord): Record<string, unknown> => {
  const fields = taskFields(record)
  if (record.status === "input_required") fields.inputRequests = record.inputRequests
  if (record.status === "completed" && record.result !== undefined) fields.result = record.result
  if (record.status === "failed" && record.error !== undefined) fields.error = record.error
  return fields
}

/**
 * Builds the task runtime of one server instance: `create` (a detached
 * `tools/call` becomes a task), `dispatch` (the three task methods) and
 * `notifications` (the `notifications/tasks` of a `subscriptions/listen`).
 */
export const makeTasks = (host: TaskHost) => Effect.map(PubSub.unbounded<TaskRecord>(), (changes) => runtime(host, changes))

const runtime = (host: TaskHost, changes: PubSub.PubSub<TaskRecord>) => {
  const { store, engine, audience } = host
  const ttlMs = host.options.ttlMs === undefined ? 300_000 : host.options.ttlMs
  const pollIntervalMs = host.options.pollIntervalMs ?? 1_000
  const instanceId = SecureRandom.uuidV4Unsafe()
  // The fibers running task rounds on this instance, by task id.
  const running = new Map<string, Fiber.Fiber<void>>()

  const ackResult = (): Record<string, unknown> => ({})

  /** Publishes the task's current record to this instance's subscribers (when it changed). */
  const published = <A, E>(taskId: string) => (effect: Effect.Effect<A, E>) =>
    Effect.tap(effect, (changed) =>
      changed === false || changed === undefined
        ? Effect.void
        : Effect.flatMap(store.get(taskId), (record) => record === undefined ? Effect.void : PubSub.publish(changes, record)))

  /** Settles a task that is still live; a terminal or deleted one is left as it is. */
  const settle = (taskId: string, patch: Partial<TaskRecord>) =>
    published<boolean | undefined, never>(taskId)(Effect.flatMap(Clock.currentTimeMillis, (now) =>
      store.modify(taskId, (record) =>
        isTerminalStatus(record.status)
          ? [false, record] as const
          : [true, {
            ...record,
            ...patch,
            owner: undefined,
            inputRequests: dictionary(),
            answers: dictionary(),
            lastUpdatedAt: now
          }] as const
      )))

  const failedWith = (taskId: string, cause: Cause.Cause<unknown>) => {
    const failure = Cause.findErrorOption(cause)
    const known = Option.isSome(failure) ? host.toMcpError(failure.value) : undefined
    const error = known?.toJsonRpc() ?? McpError.internalError().toJsonRpc()
    const logged = known === undefined ? Effect.logError("Task failed", cause).pipe(Effect.annotateLogs({ taskId })) : Effect.void
    return Effect.andThen(logged, settle(taskId, { status: "failed", statusMessage: error.message, error }))
  }

  /** The request context a task's handler sees: the creating call's capabilities and principal, no streaming. */
  const requestContext = (taskId: string, call: TaskCall) =>
    McpRequest.of({
      id: `task:${taskId}` as RequestId,
      method: "tools/call",
      clientCapabilities: call.clientCapabilities,
      principal: call.principal,
      notify: () => Effect.void
    })

  /** One round of the task's handler, from the record's journal and answers. */
  const round = (record: TaskRecord): Effect.Effect<void> => {
    const { call, taskId } = record
    const handler = host.handlerFor(call.tool, call.arguments)
    if (handler === undefined) {
      return Effect.asVoid(failedWith(taskId, Cause.fail(McpError.invalidParams(`Unknown tool: ${call.tool}`))))
    }
    const outcome = Engine.runWith(engine, handler, {
      method: "tools/call",
      target: call.tool,
      arguments: call.arguments,
      audience,
      principal: call.principal,
      clientCapabilities: call.clientCapabilities,
      journal: record.journal,
      inputResponses: record.answers as InputResponses
    }).pipe(
      Effect.provideService(McpRequest, requestContext(taskId, call)),
      Effect.scoped
    ) as Effect.Effect<Engine.Outcome<Record<string, unknown>>, unknown>
    return Effect.exit(outcome).pipe(Effect.flatMap((exit): Effect.Effect<unknown> => {
      if (Exit.isFailure(exit)) {
        return Cause.hasInterruptsOnly(exit.cause) ? Effect.void : failedWith(taskId, exit.cause)
      }
      const value = exit.value
      if (value._tag === "Complete") {
        return settle(taskId, { status: "completed", result: { ...value.value, resultType: "complete" } })
      }
      if (value._tag === "InputRequired") return waitForInput(taskId, value.result.inputRequests ?? {}, value.journal)
      // Not run with `detach`: cannot happen; the journal is kept and the task runs on.
      return Effect.void
    }), Effect.asVoid)
  }

  /** The round ended waiting for answers: publish them as the task's `input_required` status. */
  const waitForInput = (taskId: string, inputRequests: TaskRecord["inputRequests"], journal: Journal.Journal) =>
    published<boolean | undefined, never>(taskId)(Effect.flatMap(Clock.currentTimeMillis, (now) =>
      store.modify(taskId, (record) =>
        isTerminalStatus(record.status) ? [false, record] as const : [true, {
          ...record,
          status: "input_required" as const,
          owner: undefined,
          journal,
          inputRequests,
          answers: dictionary<unknown>(),
          lastUpdatedAt: now
        }] as const
      )))

  /**
   * Interrupts `fiber` once its task is terminal or gone (cancelled on
   * another instance, or past its TTL), checking every poll interval.
   */
  const watchdog = (taskId: string) =>
    store.get(taskId).pipe(
      Effect.map((record) => record === undefined || isTerminalStatus(record.status)),
      Effect.repeat({
        until: (over) => over,
        schedule: Schedule.spaced(Duration.millis(Math.min(pollIntervalMs, 1_000)))
      })
    )

  /** Runs rounds of the task on this instance (it owns it) until it waits for input or ends. */
  const launch = (record: TaskRecord) =>
    Effect.flatMap(
      Effect.forkIn(
        Effect.raceFirst(round(record), watchdog(record.taskId)).pipe(
          Effect.onExit((exit) =>
            Effect.andThen(
              Effect.sync(() => running.delete(record.taskId)),
              // Interrupted without a cancel (this instance stops): release the task for another instance.
              Exit.isFailure(exit)
                ? store.modify(record.taskId, (current) =>
                  current.owner === instanceId && !isTerminalStatus(current.status)
                    ? [undefined, { ...current, owner: undefined }] as const
                    : [undefined, current] as const)
                : Effect.void
            )
          ),
          Effect.asVoid
        ),
        host.scope
      ),
      (fiber) => Effect.sync(() => void running.set(record.taskId, fiber))
    )

  /**
   * Creates the task for a `tools/call` whose handler detached (or that goes
   * asynchronous at once), starts it, and returns the `CreateTaskResult`
   * (flat, `resultType: "task"`, no `requestState`). The record is in the
   * store before this returns.
   */
  const create = (call: TaskCall, journal: Journal.Journal) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const record: TaskRecord = {
        taskId: SecureRandom.uuidV4Unsafe(),
        status: "working",
        createdAt: now,
        lastUpdatedAt: now,
        ttlMs,
        pollIntervalMs,
        owner: instanceId,
        call,
        journal,
        inputRequests: dictionary(),
        answers: dictionary()
      }
      return store.insert(record).pipe(
        Effect.mapError((full: TaskStoreFull) => new McpError({ code: ErrorCode.InternalError, message: full.message })),
        Effect.andThen(launch(record)),
        Effect.andThen(PubSub.publish(changes, record)),
        Effect.as({ resultType: "task", ...taskFields(record), _meta: host.serverMeta })
      )
    })

  /** Claims a task nobody runs (all its answers in, or its instance gone) and runs its next round here. */
  const resume = (taskId: string, claim: (record: TaskRecord) => boolean) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      store.modify(taskId, (record) => {
        if (isTerminalStatus(record.status) || record.owner !== undefined || !claim(record)) {
          return [undefined, record] as const
        }
        const claimed: TaskRecord = {
          ...record,
          status: "working",
          owner: instanceId,
          inputRequests: dictionary(),
          lastUpdatedAt: now
        }
        return [claimed, claimed] as const
      })).pipe(published(taskId), Effect.flatMap((claimed) => claimed === undefined ? Effect.void : launch(claimed)))

  /** A `working` task whose fiber is gone (its instance stopped): resumed here by replay. */
  const orphaned = (record: TaskRecord) => record.status === "working" && record.owner === undefined

  /** The record for a request, or -32602: unknown, expired, or another principal's. */
  const lookup = (taskId: string, principal: string | undefined) =>
    Effect.flatMap(store.get(taskId), (record) =>
      record === undefined || record.call.principal !== principal
        ? Effect.fail(unknownTask(taskId))
        : Effect.succeed(record))

  const get = (taskId: string, principal: string | undefined) =>
    Effect.flatMap(lookup(taskId, principal), (record) =>
      orphaned(record)
        ? Effect.andThen(resume(taskId, orphaned), Effect.map(lookup(taskId, principal), detailedTask))
        : Effect.succeed(detailedTask(record)))

  const update = (taskId: string, principal: string | undefined, inputResponses: Record<string, unknown>) =>
    Effect.flatMap(lookup(taskId, principal), () =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        store.modify(taskId, (record) => {
          if (record.status !== "input_required") return [false, record] as const
          // Keys not outstanding (never issued, answered, superseded) are ignored, unvalidated.
          let taken = false
          const inputRequests: Record<string, TaskRecord["inputRequests"][string]> = Object.assign(
            dictionary(),
            record.inputRequests
          )
          const answers: Record<string, unknown> = Object.assign(dictionary(), record.answers)
          for (const key of Object.keys(inputResponses)) {
            if (!Object.hasOwn(inputRequests, key)) continue
            answers[key] = inputResponses[key]
            delete inputRequests[key]
            taken = true
          }
          if (!taken) return [false, record] as const
          return [Object.keys(inputRequests).length === 0, { ...record, inputRequests, answers, lastUpdatedAt: now }] as const
        })
      )).pipe(
        published(taskId),
        Effect.flatMap((complete) =>
          complete === true
            ? resume(taskId, (record) => record.status === "input_required" && Object.keys(record.inputRequests).length === 0)
            : Effect.void
        ),
        Effect.as(ackResult())
      )

  const cancel = (taskId: string, principal: string | undefined) =>
    Effect.flatMap(lookup(taskId, principal), () =>
      settle(taskId, { status: "cancelled", statusMessage: "Cancelled by the client" })).pipe(
        Effect.flatMap(() => {
          const fiber = running.get(taskId)
          // Cooperative: the handler is interrupted and its finalizers run before the ack.
          return fiber === undefined ? Effect.void : Fiber.interrupt(fiber)
        }),
        Effect.as(ackResult())
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
    declared: Parameters<typeof declaresTasks>[0],
    principal: string | undefined
  ): Effect.Effect<Record<string, unknown>, McpError> => {
    if (!declaresTasks(declared)) return Effect.fail(McpError.missingRequiredClientCapability(tasksRequiredCapabilities))
    const taskId = params.taskId
    if (typeof taskId !== "string") return Effect.fail(McpError.invalidParams(`${method} needs a string taskId`))
    switch (method) {
      case "tasks/get":
        return get(taskId, principal)
      case "tasks/update": {
        const inputResponses = params.inputResponses
        if (!isRecord(inputResponses)) return Effect.fail(McpError.invalidParams("tasks/update needs an inputResponses object"))
        return update(taskId, principal, inputResponses)
      }
      case "tasks/cancel":
        return cancel(taskId, principal)
      default:
        return Effect.fail(McpError.methodNotFound(method))
    }
  }

  /**
   * The `notifications/tasks` for `taskIds` (those of `principal` only): the
   * task's `DetailedTask` after each change this instance makes, with `meta`
   * (the subscription id) as `_meta`.
   */
  const notifications = (
    taskIds: ReadonlySet<string>,
    principal: string | undefined,
    meta: Record<string, unknown>
  ): Stream.Stream<Record<string, unknown>> =>
    Stream.fromPubSub(changes).pipe(
      Stream.filter((record) => taskIds.has(record.taskId) && record.call.principal === principal),
      Stream.map((record) => ({
        jsonrpc: "2.0",
        method: "notifications/tasks",
        params: { ...detailedTask(record), _meta: meta }
      }))
    )

  return { create, dispatch, notifications } as const
}

/** The task runtime of one server (see {@link makeTasks}). */
export type Tasks = ReturnType<typeof runtime>

/** The live task methods (the removed `tasks/result` and `tasks/list` are not among them: -32601). */
export const TASK_METHODS: ReadonlySet<string> = new Set(["tasks/get", "tasks/update", "tasks/cancel"])

