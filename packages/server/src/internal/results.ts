/**
 * The fields every complete result carries (MCP 2026-07-28): `resultType:
 * "complete"`, the server's `_meta` (`serverInfo`), and for the cacheable
 * methods `ttlMs` and `cacheScope` (SEP-2567).
 *
 * Gotchas: only a first-round result may use the server's `cache` hints (a
 * retried MRTR call or one that replayed answers is not cacheable); an
 * authenticated caller's results are never `"public"` (they may depend on
 * who asks); the object is built in place rather than by spreading (a
 * visible cost per result), with the same keys in the same order.
 *
 * Source: MCP 2026-07-28, basic (resultType, `_meta`), caching (SEP-2567).
 *
 * @internal
 */
import { isRecord } from "./errors.ts"

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

/**
 * The stamp of a server whose hints are `cache` and whose results carry
 * `serverMeta`: a copy of `result` with `resultType`, the cache fields (when
 * `method` is cacheable: `cache` if `cacheable`, else none; `"private"` for
 * a `principal`) and `_meta` (the result's own keys, then the server's).
 */
export const makeStamp = (cache: CacheHints, serverMeta: Readonly<Record<string, unknown>>) =>
(method: string, result: Record<string, unknown>, cacheable: boolean, principal?: string): Record<string, unknown> => {
  const stamped: Record<string, unknown> = Object.assign({}, result)
  stamped.resultType = "complete"
  if (CACHEABLE.has(method)) {
    const fields = cacheable ? cache : NOT_CACHEABLE
    stamped.ttlMs = fields.ttlMs
    stamped.cacheScope = principal === undefined ? fields.cacheScope : "private"
  }
  stamped._meta = isRecord(result._meta) ? Object.assign({}, result._meta, serverMeta) : serverMeta
  return stamped
}

/** What {@link makeStamp} returns. */
export type Stamp = ReturnType<typeof makeStamp>
