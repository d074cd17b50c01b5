/**
 * The tasks of a server's `TaskSource`s (tasks run elsewhere, see
 * `TaskSource.ts`): the sealed id a `CreateTaskResult` carries, and
 * `tasks/get`, `tasks/update`, `tasks/cancel` for such an id, routed to the
 * source with its own task id.
 *
 * The id is `src.` and the pair `{ s: source, t: taskId }` sealed with the
 * server's key ring as a stored value (`sealStored`: no expiry, no single
 * use: a task is polled many times, for as long as it lives), bound to the
 * server's audience and the caller's principal. Anything that does not open
 * for this request's principal is an unknown task (-32602), before the
 * source is asked.
 */
import type { RequestState } from "@mrtr/core"
import { ErrorCode, McpError } from "@mrtr/protocol/ErrorCode"
import { MetaKey } from "@mrtr/protocol/Meta"
import type { ClientCapabilities } from "@mrtr/protocol/Schema"
import { declaresTasks, tasksRequiredCapabilities } from "@mrtr/protocol/Tasks"
import { Effect } from "effect"
import { type Created, ID_PREFIX, type TaskSource } from "../TaskSource.ts"
import { encodeCreateTask, type Encoding } from "./results.ts"
import { unknownTask } from "./taskRecord.ts"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The task sources of one server. */
export interface TaskSources {
  readonly add: (name: string, source: TaskSource) => Effect.Effect<void>
  readonly remove: (name: string) => Effect.Effect<void>
  /** Whether `params.taskId` is one of the sources' sealed ids. */
  readonly owns: (params: Record<string, unknown>) => boolean
  /** The `CreateTaskResult` of a handler's `created` task, its id sealed for `principal`. */
  readonly create: (
    created: Created,
    declared: ClientCapabilities,
    principal: string | undefined
  ) => Effect.Effect<Record<string, unknown>, McpError>
  /** `tasks/get`, `tasks/update` or `tasks/cancel` for a sealed id (see `owns`). */
  readonly dispatch: (
    method: string,
    params: Record<string, unknown>,
    declared: ClientCapabilities,
    principal: string | undefined
  ) => Effect.Effect<Record<string, unknown>, McpError>
}

/** The sources of a server sealing with `codec` for `audience`. */
export const make = (
  codec: RequestState.RequestStateCodec["Service"],
  audience: string,
  encoding: Encoding
): TaskSources => {
  const sources = new Map<string, TaskSource>()
  const binding = (principal: string | undefined): RequestState.Binding =>
    principal === undefined
      ? { method: "tasks/source", target: "", argumentsDigest: "", audience }
      : { method: "tasks/source", target: "", argumentsDigest: "", audience, principal }

  const create = (created: Created, declared: ClientCapabilities, principal: string | undefined) => {
    const { _meta: _ignored, resultType: _resultType, ...task } = created.task
    if (!declaresTasks(declared) || typeof task.taskId !== "string") {
      return Effect.fail(
        new McpError({ code: ErrorCode.InternalError, message: "A task was started for a request that cannot take it" })
      )
    }
    return Effect.map(
      codec.sealStored({ s: created.source, t: task.taskId }, binding(principal)),
      (sealed) => encodeCreateTask(encoding, { ...task, taskId: `${ID_PREFIX}${sealed}` })
    )
  }

  const dispatch = (
    method: string,
    params: Record<string, unknown>,
    declared: ClientCapabilities,
    principal: string | undefined
  ): Effect.Effect<Record<string, unknown>, McpError> => {
    if (!declaresTasks(declared)) {
      return Effect.fail(McpError.missingRequiredClientCapability(tasksRequiredCapabilities))
    }
    const taskId = params.taskId as string
    return codec.unsealStored(taskId.slice(ID_PREFIX.length), binding(principal)).pipe(
      Effect.mapError(() => unknownTask(taskId)),
      Effect.flatMap((payload) => {
        const source = isRecord(payload) && typeof payload.s === "string" ? sources.get(payload.s) : undefined
        if (source === undefined || !isRecord(payload) || typeof payload.t !== "string") {
          return Effect.fail(unknownTask(taskId))
        }
        const own = payload.t
        switch (method) {
          case "tasks/get":
            return Effect.map(source.get(own), (task): Record<string, unknown> => {
              const { _meta, resultType: _resultType, ...rest } = task
              const meta = isRecord(_meta) ? { ..._meta } : undefined
              if (meta !== undefined) delete meta[MetaKey.serverInfo]
              return {
                ...rest,
                taskId,
                ...(meta === undefined || Object.keys(meta).length === 0 ? {} : { _meta: meta })
              }
            })
          case "tasks/update": {
            const inputResponses = params.inputResponses
            if (!isRecord(inputResponses)) {
              return Effect.fail(McpError.invalidParams("tasks/update needs an inputResponses object"))
            }
            return Effect.as(source.update(own, inputResponses), {})
          }
          case "tasks/cancel":
            return Effect.as(source.cancel(own), {})
          default:
            return Effect.fail(McpError.methodNotFound(method))
        }
      })
    )
  }

  return {
    add: (name, source) => Effect.sync(() => void sources.set(name, source)),
    remove: (name) => Effect.sync(() => void sources.delete(name)),
    owns: (params) => typeof params.taskId === "string" && params.taskId.startsWith(ID_PREFIX),
    create,
    dispatch
  }
}
