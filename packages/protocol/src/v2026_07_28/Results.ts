/**
 * What every 2026-07-28 result carries: `resultType` (a missing one decodes
 * as `"complete"`), `_meta`, and on cacheable results `ttlMs`/`cacheScope`
 * (a missing or negative `ttlMs` decodes as 0, a missing `cacheScope` as
 * `"private"`).
 * Gotcha: the 2025-11-25 wire has none of these fields (see `legacy/`).
 * Source: MCP 2026-07-28, basic (results), SEP-2549 (caching).
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import { ResultMeta } from "../Meta.ts"

/**
 * `resultType` of a result: `"complete"`, `"input_required"` or an
 * extension-defined string.
 *
 * MCP 2026-07-28, schema `ResultType`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResultType = Schema.String
/**
 * The decoded (`Type`) side of the `ResultType` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type ResultType = typeof ResultType.Type

/** @internal shared by the other schema modules; not re-exported by `Schema.ts`. */
export const CompleteResultType = Schema.Literal("complete").pipe(
  Schema.withDecodingDefaultKey(Effect.succeed("complete" as const))
)

/** @internal shared by the other schema modules; not re-exported by `Schema.ts`. */
export const resultFields = {
  resultType: CompleteResultType,
  _meta: Schema.optionalKey(ResultMeta)
}

/**
 * Any result: `{ resultType, _meta?, ...rest }`. Use it when the method is
 * not known; a missing `resultType` decodes as `"complete"`.
 *
 * MCP 2026-07-28, schema `Result`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Result = Schema.StructWithRest(
  Schema.Struct({
    resultType: ResultType.pipe(Schema.withDecodingDefaultKey(Effect.succeed("complete"))),
    _meta: Schema.optionalKey(ResultMeta)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
/**
 * The decoded (`Type`) side of the `Result` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type Result = typeof Result.Type

/**
 * A complete result with no other members: `{ resultType: "complete", _meta? }`.
 *
 * MCP 2026-07-28, schema `EmptyResult`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const EmptyResult = Schema.Struct(resultFields)
/**
 * The decoded (`Type`) side of the `EmptyResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type EmptyResult = typeof EmptyResult.Type

/**
 * Cache scope of a cacheable result, analogous to HTTP `Cache-Control`:
 * `"public"` (no user-specific data, shareable across authorization
 * contexts) or `"private"` (reusable only within the same authorization
 * context).
 *
 * MCP 2026-07-28, schema `CacheableResult.cacheScope` (SEP-2549).
 *
 * @category schemas
 * @since 0.1.0
 */
export const CacheScope = Schema.Literals(["public", "private"])
/**
 * The decoded (`Type`) side of the `CacheScope` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type CacheScope = typeof CacheScope.Type

/**
 * Cache lifetime in milliseconds: an integer ≥ 0 (`0` = immediately stale).
 *
 * MCP 2026-07-28, schema `CacheableResult.ttlMs` (SEP-2549).
 *
 * @category schemas
 * @since 0.1.0
 */
export const TtlMs = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
/**
 * The decoded (`Type`) side of the `TtlMs` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type TtlMs = typeof TtlMs.Type

/** @internal shared by the other schema modules; not re-exported by `Schema.ts`. */
export const cacheableFields = {
  ttlMs: Schema.Number.pipe(
    Schema.decodeTo(TtlMs, {
      decode: SchemaGetter.transform((n: number) => (n < 0 ? 0 : n)),
      encode: SchemaGetter.passthrough()
    }),
    Schema.withDecodingDefaultKey(Effect.succeed(0))
  ),
  cacheScope: CacheScope.pipe(Schema.withDecodingDefaultKey(Effect.succeed("private" as const)))
}
