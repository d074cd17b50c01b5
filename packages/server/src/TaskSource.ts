/**
 * Tasks (SEP-2663) that run elsewhere, on a server this one forwards to (a
 * gateway's upstream), served as this server's own.
 *
 * A `tools/call` handler that started a task elsewhere returns
 * {@link created}`(source, task)`. The server answers the request's
 * `CreateTaskResult` with the task's fields and an id of its own: the
 * source's name and task id sealed with the server's key ring, bound to its
 * audience and to the caller's principal. `tasks/get`, `tasks/update` and
 * `tasks/cancel` for that id go to the {@link TaskSource} registered under
 * that name (`McpServer.addTaskSource`), with the source's own task id; the
 * `taskId` of what `tasks/get` answers is the sealed one.
 *
 * An id that does not open (tampered, sealed by another server, or for
 * another principal) or whose source is no longer registered is answered as
 * an unknown task (-32602), as the server's own tasks are, and the source is
 * never asked.
 *
 * Gotchas: the three methods need the request's declaration of the
 * extension (-32021 first, as for the server's own tasks). A handler returns
 * `created` only for a request that declared the extension: anywhere else
 * (a 2025-11-25 session, an undeclaring request, a task of this server) the
 * call fails with -32603. The source's name is global to the server (a mount
 * does not namespace it).
 *
 * Source: ext-tasks `specification/draft/tasks.md` §Task Creation, §Task
 * Polling, §Task Update Requests, §Task Cancellation, §Security Considerations.
 *
 * @since 0.5.0
 */
import type { McpError } from "@mrtr/protocol/ErrorCode"
import type { Effect } from "effect"

/**
 * Where the tasks of one source go: each method gets the source's own task
 * id; `get` answers the `DetailedTask` (its `taskId` is replaced by the
 * sealed one), `update` and `cancel` acknowledge. A failure is the
 * JSON-RPC error the client gets (the source's -32602 for a task it does not
 * know, -32603 when it cannot be reached).
 *
 * @since 0.5.0
 * @category models
 */
export interface TaskSource {
  readonly get: (taskId: string) => Effect.Effect<Record<string, unknown>, McpError>
  readonly update: (taskId: string, inputResponses: Readonly<Record<string, unknown>>) => Effect.Effect<void, McpError>
  readonly cancel: (taskId: string) => Effect.Effect<void, McpError>
}

const TypeId = "~@mrtr/server/TaskSource/Created"

/**
 * A task started on the source `source`, as a `tools/call` handler returns
 * it (see {@link created}).
 *
 * @since 0.5.0
 * @category models
 */
export interface Created {
  readonly [TypeId]: typeof TypeId
  readonly source: string
  /** The source's `CreateTaskResult` (its `taskId` is the source's own). */
  readonly task: Readonly<Record<string, unknown>>
}

/**
 * What a `tools/call` handler returns for a task started on `source`: the
 * server answers the `CreateTaskResult` of `task` under a sealed id.
 *
 * @since 0.5.0
 * @category constructors
 */
export const created = (source: string, task: Readonly<Record<string, unknown>>): Created => ({
  [TypeId]: TypeId,
  source,
  task
})

/**
 * Whether a handler's value is a {@link Created} task.
 *
 * @since 0.5.0
 * @category guards
 */
export const isCreated = (u: unknown): u is Created =>
  typeof u === "object" && u !== null && (u as Record<string, unknown>)[TypeId] === TypeId

/**
 * The prefix of the ids the server seals for the tasks of its sources (its
 * own tasks' ids never start with it).
 *
 * @since 0.5.0
 * @category constants
 */
export const ID_PREFIX = "src."
