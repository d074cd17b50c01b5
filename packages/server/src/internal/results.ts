/**
 * The encoding step of the server path (see `docs/architecture.md`): how a
 * handler's value becomes the result a client reads, in every era, in one
 * place.
 *
 * - 2026-07-28: a complete result carries `resultType: "complete"`, the
 *   server's `_meta` (`serverInfo`), and for the cacheable methods `ttlMs`
 *   and `cacheScope` (SEP-2567); an `InputRequiredResult` carries the
 *   server's `_meta`.
 * - 2025-11-25: the handler's value as is (legacy results carry no
 *   `resultType`).
 * - a task's result (SEP-2663): `resultType: "complete"` only (the server's
 *   `_meta` travels on the `tasks/get` response around it).
 *
 * Gotchas: only a first-round result may use the server's `cache` hints (a
 * retried MRTR call or one that replayed answers is not cacheable); an
 * authenticated caller's results are never `"public"` (they may depend on
 * who asks).
 *
 * Source: MCP 2026-07-28, basic (resultType, `_meta`), caching (SEP-2567);
 * MCP 2025-11-25, server/tools; ext-tasks §Task Status.
 *
 * @internal
 */
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import type { InputRequiredResult } from "@mrtr/protocol/Schema"
import { Effect, Predicate } from "effect"
import type { WireMessage } from "../Transport.ts"
import { type FailureContext, toErrorResponse } from "./errors.ts"

/** A server's cache hints: how long (ms) and for whom a result may be reused. */
export interface CacheHints {
  readonly ttlMs: number
  readonly cacheScope: "public" | "private"
}

/** The hints of a result that must not be reused. */
export const NOT_CACHEABLE: CacheHints = { ttlMs: 0, cacheScope: "private" }

const CACHEABLE = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read"
])

/** What every result of one server carries: its cache hints and its `_meta` (built once, never mutated). */
export interface Encoding {
  readonly cache: CacheHints
  readonly serverMeta: Readonly<Record<string, unknown>>
}

/** Where a result goes: the 2026-07-28 wire, a 2025-11-25 session, or a task's record. */
export type Destination = "2026-07-28" | "2025-11-25" | "task"

/**
 * The complete result of `method` for `destination`; see the module header.
 * On 2026-07-28: a copy of `result` with `resultType`, the cache fields
 * (when `method` is cacheable: the server's hints if `cacheable`, else
 * none; `"private"` for a `principal`) and `_meta` (the result's own keys,
 * then the server's).
 */
export const encodeResult = (
  encoding: Encoding,
  destination: Destination,
  method: string,
  result: Record<string, unknown>,
  cacheable: boolean,
  principal: string | undefined
): Record<string, unknown> => {
  if (destination === "2025-11-25") return result
  if (destination === "task") return { ...result, resultType: "complete" }
  const encoded: Record<string, unknown> = { ...result, resultType: "complete" }
  if (CACHEABLE.has(method)) {
    const fields = cacheable ? encoding.cache : NOT_CACHEABLE
    encoded.ttlMs = fields.ttlMs
    encoded.cacheScope = principal === undefined ? fields.cacheScope : "private"
  }
  encoded._meta = Predicate.isObject(result._meta) ? { ...result._meta, ...encoding.serverMeta } : encoding.serverMeta
  return encoded
}

/** The `InputRequiredResult` of a suspended 2026-07-28 call, with the server's `_meta`. */
export const encodeInputRequired = (encoding: Encoding, result: InputRequiredResult): Record<string, unknown> => ({
  ...result,
  _meta: encoding.serverMeta
})

/** The `CreateTaskResult` of a call that became a task (flat: `resultType: "task"`, the task's fields, the server's `_meta`). */
export const encodeCreateTask = (
  encoding: Encoding,
  task: Readonly<Record<string, unknown>>
): Record<string, unknown> => ({
  resultType: "task",
  ...task,
  _meta: encoding.serverMeta
})

/**
 * The response to request `id`: `work`'s result, or the JSON-RPC error its
 * failure answers (`errors.ts`, {@link toErrorResponse}; `context` says the
 * era and what an unknown failure's log is annotated with).
 */
export const toResponse = <R>(
  id: RequestId,
  work: Effect.Effect<unknown, unknown, R>,
  context: FailureContext
): Effect.Effect<WireMessage, never, R> =>
  Effect.matchCauseEffect(work, {
    onFailure: (cause) => toErrorResponse(id, cause, context),
    onSuccess: (result) => Effect.succeed<WireMessage>({ jsonrpc: "2.0", id, result })
  })
