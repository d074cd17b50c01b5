/**
 * The wire model of the Tasks extension (`io.modelcontextprotocol/tasks`,
 * SEP-2663) on MCP 2026-07-28: the extension key, task statuses, the `Task`
 * object and its detailed form, and the methods the extension defines or
 * removes. Plain types: the server builds these objects itself and tests
 * validate them against the official `schema-tasks-draft.json`.
 *
 * Gotcha: a task's `ttlMs` is counted from its creation, `null` meaning
 * unlimited; `resultType: "task"` is reserved for `CreateTaskResult`, the
 * `tasks/*` results use `"complete"`.
 * Source: ext-tasks `specification/draft/tasks.md`, `schema/draft/schema.ts`.
 *
 * @since 0.1.0
 */
import type { ClientCapabilities } from "./internal/base.ts"

/**
 * The extension's key in `capabilities.extensions` (server/discover) and in a
 * request's declared `clientCapabilities.extensions`.
 *
 * @category constants
 * @since 0.1.0
 */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks" as const

/**
 * A task's status. `completed` (including a tool result with `isError: true`),
 * `failed` (a JSON-RPC error during execution) and `cancelled` are terminal.
 *
 * @category models
 * @since 0.1.0
 */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled"

/**
 * Whether `status` is terminal (`completed`, `failed`, `cancelled`): the task
 * never changes status again.
 *
 * @category guards
 * @since 0.1.0
 */
export const isTerminalStatus = (status: TaskStatus): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

/**
 * The `Task` object (also the body of `CreateTaskResult`, flat):
 * `createdAt`/`lastUpdatedAt` are ISO 8601 strings, `ttlMs` milliseconds
 * from creation or `null` (unlimited), `pollIntervalMs` the suggested
 * interval between `tasks/get` polls, in milliseconds.
 *
 * @category models
 * @since 0.1.0
 */
export interface Task {
  readonly taskId: string
  readonly status: TaskStatus
  readonly statusMessage?: string
  readonly createdAt: string
  readonly lastUpdatedAt: string
  readonly ttlMs: number | null
  readonly pollIntervalMs?: number
}

/**
 * A `Task` as `tasks/get` returns it, with exactly one of: `inputRequests`
 * (`input_required`), `result` (`completed`: the `tools/call` result) or
 * `error` (`failed`: `{ code, message, data? }`).
 *
 * @category models
 * @since 0.1.0
 */
export interface DetailedTask extends Task {
  readonly inputRequests?: Readonly<Record<string, unknown>>
  readonly result?: Readonly<Record<string, unknown>>
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
}

/**
 * The extension's live methods, and the 2025-11-25 ones it removed
 * (`tasks/result`, `tasks/list`: answered `-32601` MethodNotFound).
 *
 * @category constants
 * @since 0.1.0
 */
export const TaskMethod = {
  get: "tasks/get",
  update: "tasks/update",
  cancel: "tasks/cancel"
} as const

/**
 * Whether `capabilities` (a request's declared client capabilities) declare
 * the Tasks extension. Only the current request counts (SEP-2663 §Capability
 * Negotiation).
 *
 * @category guards
 * @since 0.1.0
 */
export const declaresTasks = (capabilities: ClientCapabilities | undefined): boolean => {
  const extensions = capabilities?.extensions
  return extensions !== undefined && Object.hasOwn(extensions, TASKS_EXTENSION)
}

/**
 * The `requiredCapabilities` of the `-32021` error a request gets when it
 * needs the Tasks extension it did not declare.
 *
 * @category constants
 * @since 0.1.0
 */
export const tasksRequiredCapabilities: ClientCapabilities = { extensions: { [TASKS_EXTENSION]: {} } }
