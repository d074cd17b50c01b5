/**
 * Multi Round-Trip Requests: `InputRequest`/`InputRequests`,
 * `InputResponse`/`InputResponses`, the retry params and
 * `InputRequiredResult` (`resultType: "input_required"`, only for
 * `tools/call`, `prompts/get`, `resources/read`).
 * Gotcha: the 2025-11-25 wire carries the same requests as real
 * server-to-client JSON-RPC requests instead (`legacy/ServerRequests.ts`).
 * Source: MCP 2026-07-28, basic/patterns/mrtr (SEP-2322).
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { RequestMeta, ResultMeta } from "../Meta.ts"
import { ElicitRequest, ElicitResult } from "./Elicitation.ts"
import { ListRootsRequest, ListRootsResult } from "./Roots.ts"
import { CreateMessageRequest, CreateMessageResult } from "./Sampling.ts"

/**
 * One server→client request embedded in an `InputRequiredResult`:
 * `ElicitRequest | CreateMessageRequest | ListRootsRequest` (discriminated by
 * `method`).
 *
 * MCP 2026-07-28, schema `InputRequest`; basic/patterns/mrtr.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputRequest = Schema.Union([ElicitRequest, CreateMessageRequest, ListRootsRequest])
/**
 * The decoded (`Type`) side of the `InputRequest` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type InputRequest = typeof InputRequest.Type

/**
 * Server-chosen key → `InputRequest`. Keys are unique within one request.
 *
 * MCP 2026-07-28, schema `InputRequests`; basic/patterns/mrtr.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputRequests = Schema.Record(Schema.String, InputRequest)
/**
 * The decoded (`Type`) side of the `InputRequests` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type InputRequests = typeof InputRequests.Type

/**
 * The client's answer to one `InputRequest`:
 * `ElicitResult | CreateMessageResult | ListRootsResult`.
 *
 * MCP 2026-07-28, schema `InputResponse`; basic/patterns/mrtr.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputResponse = Schema.Union([ElicitResult, CreateMessageResult, ListRootsResult])
/**
 * The decoded (`Type`) side of the `InputResponse` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type InputResponse = typeof InputResponse.Type

/**
 * Key (from `InputRequests`) → `InputResponse`.
 *
 * MCP 2026-07-28, schema `InputResponses`; basic/patterns/mrtr.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputResponses = Schema.Record(Schema.String, InputResponse)
/**
 * The decoded (`Type`) side of the `InputResponses` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type InputResponses = typeof InputResponses.Type

/** @internal shared by the other schema modules; not re-exported by `Schema.ts`. */
export const inputResponseFields = {
  inputResponses: Schema.optionalKey(InputResponses),
  requestState: Schema.optionalKey(Schema.String)
}

/**
 * The MRTR retry members every retryable request's params may carry:
 * `{ _meta, inputResponses?, requestState? }`. `requestState` must be echoed
 * byte-for-byte from the `InputRequiredResult`, and omitted if there was none.
 *
 * MCP 2026-07-28, schema `InputResponseRequestParams`; basic/patterns/mrtr.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputResponseRequestParams = Schema.Struct({
  _meta: RequestMeta,
  ...inputResponseFields
})
/**
 * The decoded (`Type`) side of the `InputResponseRequestParams` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type InputResponseRequestParams = typeof InputResponseRequestParams.Type

const hasInputRequests = (inputRequests: InputRequests | undefined): boolean =>
  inputRequests !== undefined && Object.keys(inputRequests).length > 0

const INPUT_REQUIRED_MESSAGE =
  "InputRequiredResult must include a non-empty inputRequests or a requestState (at least one of the two)"

/**
 * An interim result asking the client for input before it retries the
 * original request with a new JSON-RPC id:
 * `{ resultType: "input_required", inputRequests?, requestState?, _meta? }`.
 *
 * Decoding and encoding check that at least one of `inputRequests` and
 * `requestState` is present (the spec text requires it; the JSON schema
 * does not). `makeInputRequiredResult` is stricter and also refuses an empty
 * `inputRequests` without `requestState`. Only `tools/call`, `prompts/get`
 * and `resources/read` may return it, and it is never cached.
 *
 * MCP 2026-07-28, schema `InputRequiredResult`; basic/patterns/mrtr.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputRequiredResult = Schema.Struct({
  resultType: Schema.Literal("input_required"),
  inputRequests: Schema.optionalKey(InputRequests),
  requestState: Schema.optionalKey(Schema.String),
  _meta: Schema.optionalKey(ResultMeta)
}).check(
  Schema.makeFilter(
    (r) =>
      r.inputRequests !== undefined || r.requestState !== undefined ?
        undefined :
        "InputRequiredResult must include at least one of inputRequests or requestState",
    { title: "InputRequiredResult.atLeastOne" }
  )
)
/**
 * The decoded (`Type`) side of the `InputRequiredResult` schema.
 *
 * @category models
 * @since 0.1.0
 */
export type InputRequiredResult = typeof InputRequiredResult.Type

/**
 * Arguments of `makeInputRequiredResult`: `inputRequests`, `requestState`, or
 * both (the type rules out passing neither).
 *
 * @category models
 * @since 0.1.0
 */
export type InputRequiredResultFields =
  | {
    readonly inputRequests: InputRequests
    readonly requestState?: string | undefined
    readonly _meta?: ResultMeta | undefined
  }
  | {
    readonly inputRequests?: InputRequests | undefined
    readonly requestState: string
    readonly _meta?: ResultMeta | undefined
  }

/**
 * Builds an `InputRequiredResult` (`resultType: "input_required"`).
 *
 * Throws a `TypeError` when `inputRequests` is empty (or absent) and
 * `requestState` is absent: such a result would ask the client for nothing.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (server requirements).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeInputRequiredResult = (fields: InputRequiredResultFields): InputRequiredResult => {
  const { _meta, inputRequests, requestState } = fields
  if (!hasInputRequests(inputRequests) && requestState === undefined) {
    throw new TypeError(INPUT_REQUIRED_MESSAGE)
  }
  // Built in place: spreading conditional parts is slow on a hot path.
  const result: { -readonly [K in keyof InputRequiredResult]: InputRequiredResult[K] } = {
    resultType: "input_required"
  }
  if (inputRequests !== undefined) result.inputRequests = inputRequests
  if (requestState !== undefined) result.requestState = requestState
  if (_meta !== undefined) result._meta = _meta
  return result
}

/**
 * True if a decoded result object is an `InputRequiredResult`
 * (`resultType === "input_required"`).
 *
 * @category guards
 * @since 0.1.0
 */
export const isInputRequiredResult = (result: { readonly resultType?: string | undefined }): boolean =>
  result.resultType === "input_required"
