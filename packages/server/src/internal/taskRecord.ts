/**
 * A task record's wire views and its status transitions, as pure functions
 * over `TaskRecord` (the `TaskStore` applies them atomically with `modify`).
 *
 * Transitions return the next record, or `undefined` when the transition
 * does not apply (a terminal task never changes: `completed`, `failed` and
 * `cancelled` are final). Times are epoch milliseconds.
 * Source: ext-tasks `specification/draft/tasks.md` §Tasks, §Task Status.
 */
import { McpError } from "@mrtr/protocol/ErrorCode"
import type { InputRequest } from "@mrtr/protocol/Schema"
import { isTerminalStatus } from "@mrtr/protocol/Tasks"
import type { TaskRecord } from "../TaskStore.ts"

/** A fresh object without a prototype: keys from the wire are plain keys in it. */
export const dictionary = <V>(): Record<string, V> => Object.create(null)

/** Unknown, expired and foreign ids get the same answer (the spec's MUST for `tasks/get`). */
export const unknownTask = (taskId: string) => McpError.invalidParams(`Unknown task: ${taskId}`)

const iso = (millis: number) => new Date(millis).toISOString()

/** The wire `Task` fields of a record (ISO 8601 timestamps). */
export const taskFields = (record: TaskRecord): Record<string, unknown> => ({
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

/** The task ends (`completed`, `failed`, `cancelled`) with `patch`; nobody runs it any more. */
export const settled = (record: TaskRecord, patch: Partial<TaskRecord>, now: number): TaskRecord | undefined =>
  isTerminalStatus(record.status) ? undefined : {
    ...record,
    ...patch,
    owner: undefined,
    leaseExpiresAt: undefined,
    inputRequests: dictionary(),
    answers: dictionary(),
    lastUpdatedAt: now
  }

/**
 * The wire key of an ask the task publishes: its own key the first time;
 * `<key>#<n>` (the smallest n >= 2 never published) when the key was
 * published before (asked again after its answer: a form answer the schema
 * refused, a secure page still waiting), since a task's keys must be unique
 * over its whole life (SEP-2663 §Task Update Requests). `taken` holds every
 * key published so far and those of this round.
 */
const wireKey = (key: string, taken: ReadonlySet<string>): string => {
  if (!taken.has(key)) return key
  for (let n = 2;; n++) if (!taken.has(`${key}#${n}`)) return `${key}#${n}`
}

/**
 * A round ended waiting for `inputRequests` (keyed by the handler's keys):
 * `input_required`, the round's journal kept (sealed), no fiber. A key
 * published before goes out under a fresh suffix (see `wireKey`);
 * `keyAliases` maps it back for `answered`.
 */
export const waiting = (
  record: TaskRecord,
  inputRequests: Readonly<Record<string, InputRequest>>,
  journal: string | undefined,
  now: number
): TaskRecord | undefined => {
  if (isTerminalStatus(record.status)) return undefined
  const published: Array<string> = [...(record.askedKeys ?? [])]
  const taken = new Set(published)
  const own = Object.keys(inputRequests)
  // The handler's fresh keys keep their names; only keys published before are renamed.
  for (const key of own) if (!taken.has(key)) taken.add(key)
  const wire: Record<string, InputRequest> = dictionary()
  const aliases: Record<string, string> = dictionary()
  const before = new Set(published)
  for (const key of own) {
    const name = before.has(key) ? wireKey(key, taken) : key
    taken.add(name)
    published.push(name)
    wire[name] = inputRequests[key]!
    if (name !== key) aliases[name] = key
  }
  return {
    ...record,
    status: "input_required",
    owner: undefined,
    leaseExpiresAt: undefined,
    journal,
    inputRequests: wire,
    answers: dictionary(),
    askedKeys: published,
    keyAliases: Object.keys(aliases).length === 0 ? undefined : aliases,
    lastUpdatedAt: now
  }
}

/**
 * `tasks/update`: the answers for outstanding keys move into `answers`
 * (under the handler's key, for a key published with a suffix) and their
 * keys leave `inputRequests`; other keys are ignored, unvalidated.
 * `undefined` when nothing was taken (not waiting, or no outstanding key).
 */
export const answered = (
  record: TaskRecord,
  inputResponses: Readonly<Record<string, unknown>>,
  now: number
): TaskRecord | undefined => {
  if (record.status !== "input_required") return undefined
  const inputRequests: Record<string, InputRequest> = Object.assign(dictionary(), record.inputRequests)
  const answers: Record<string, unknown> = Object.assign(dictionary(), record.answers)
  const aliases = record.keyAliases
  let taken = false
  for (const key of Object.keys(inputResponses)) {
    if (!Object.hasOwn(inputRequests, key)) continue
    answers[aliases !== undefined && Object.hasOwn(aliases, key) ? aliases[key]! : key] = inputResponses[key]
    delete inputRequests[key]
    taken = true
  }
  return taken ? { ...record, inputRequests, answers, lastUpdatedAt: now } : undefined
}

/** Every outstanding key of a waiting task is answered: its next round can run. */
export const allAnswered = (record: TaskRecord): boolean =>
  record.status === "input_required" && Object.keys(record.inputRequests).length === 0

/** Nobody runs the task at `now`: no owner, or the owner's lease has passed (it crashed without releasing it). */
export const unowned = (record: TaskRecord, now: number): boolean =>
  record.owner === undefined || (record.leaseExpiresAt !== undefined && record.leaseExpiresAt <= now)

/** A `working` task whose fiber is gone at `now`: released by a stopped instance, or its owner's lease expired. */
export const orphaned = (record: TaskRecord, now: number): boolean =>
  record.status === "working" && unowned(record, now)

/**
 * `owner` runs the task's next round, holding it for `leaseMs`: `working`,
 * when nobody runs it (see {@link unowned}) and `claimable` holds.
 */
export const claimed = (
  record: TaskRecord,
  owner: string,
  claimable: (record: TaskRecord, now: number) => boolean,
  now: number,
  leaseMs: number
): TaskRecord | undefined =>
  isTerminalStatus(record.status) || !unowned(record, now) || !claimable(record, now)
    ? undefined
    : {
      ...record,
      status: "working",
      owner,
      leaseExpiresAt: now + leaseMs,
      inputRequests: dictionary(),
      lastUpdatedAt: now
    }

/** `owner`'s heartbeat: its lease runs `leaseMs` from `now`; `undefined` when it no longer owns the task. */
export const renewed = (record: TaskRecord, owner: string, now: number, leaseMs: number): TaskRecord | undefined =>
  record.owner === owner && !isTerminalStatus(record.status) ? { ...record, leaseExpiresAt: now + leaseMs } : undefined

/** `owner` stops without finishing the task: another instance may resume it. */
export const released = (record: TaskRecord, owner: string): TaskRecord | undefined =>
  record.owner === owner && !isTerminalStatus(record.status)
    ? { ...record, owner: undefined, leaseExpiresAt: undefined }
    : undefined
