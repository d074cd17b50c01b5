/**
 * Reading results: an MRTR method's result classified as complete or
 * `input_required` (with its input requests validated), and a result decoded
 * with its wire schema. A missing `resultType` (every 2025-11-25 result) is
 * `"complete"`.
 *
 * Source: MCP 2026-07-28, basic (resultType), basic/patterns/mrtr.
 */
import { SafeText } from "@mrtr/protocol"
import { McpError } from "@mrtr/protocol/ErrorCode"
import { JsonRpcErrorObject } from "@mrtr/protocol/JsonRpc"
import { InputRequest, type InputRequests } from "@mrtr/protocol/Schema"
import { Effect, Result, Schema } from "effect"
import { ProtocolViolation } from "../Errors.ts"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const decodeErrorObject = Schema.decodeUnknownResult(JsonRpcErrorObject)

/**
 * A JSON-RPC error object (of a response, or of a failed task) as `McpError`:
 * `{ code, message, data? }` with a safe-integer code, read with the
 * protocol's `JsonRpcErrorObject` schema; `undefined` when `error` is no
 * such object (the caller's `ProtocolViolation`).
 */
export const mcpErrorOf = (error: unknown): McpError | undefined => {
  const decoded = decodeErrorObject(error)
  return Result.isSuccess(decoded) ? McpError.fromJsonRpc(decoded.success) : undefined
}

const INPUT_METHODS = new Set(["elicitation/create", "sampling/createMessage", "roots/list"])
const decodeInputRequest = Schema.decodeUnknownResult(InputRequest)

/**
 * The most input requests one round (an `input_required` result, or a task's
 * `input_required` status) may carry: a server asking for more is refused
 * with a `ProtocolViolation` before any handler runs, so it cannot make the
 * client answer without end (every one could be a sampling call, or a
 * question to the user). The 2025-11-25 path answers at most as many server
 * requests at a time (`MAX_PENDING_SERVER_REQUESTS`).
 */
export const MAX_INPUT_REQUESTS = 64

export type Outcome =
  | { readonly _tag: "Complete" }
  | { readonly _tag: "InputRequired"; readonly inputRequests: InputRequests; readonly requestState: string | undefined }

/**
 * The input requests of a round, each checked against the protocol's
 * `InputRequest` schema, in a prototype-less record; or why they are not:
 * not an object, more than {@link MAX_INPUT_REQUESTS}, an unknown method, a
 * malformed request.
 */
export const readInputRequests = (inputRequests: unknown): Result.Result<InputRequests, string> => {
  if (!isRecord(inputRequests)) return Result.fail("inputRequests is not an object")
  const entries = Object.entries(inputRequests)
  if (entries.length > MAX_INPUT_REQUESTS) {
    return Result.fail(
      `${entries.length} input requests in one round; the client answers at most ${MAX_INPUT_REQUESTS}`
    )
  }
  // Null prototype: keys come from the server (`__proto__`, `toString` are keys like any other).
  const decoded: Record<string, InputRequest> = Object.create(null)
  for (const [key, request] of entries) {
    const requestMethod = isRecord(request) ? request.method : undefined
    // The server's key and method are quoted escaped (SafeText): a reason may end up in a log line.
    const shownKey = SafeText.oneLine(key)
    if (typeof requestMethod !== "string" || !INPUT_METHODS.has(requestMethod)) {
      const shownMethod = typeof requestMethod === "string"
        ? SafeText.oneLine(requestMethod)
        : requestMethod === null || typeof requestMethod !== "object"
        ? String(requestMethod)
        : "an object"
      return Result.fail(`input request '${shownKey}' has an unknown method '${shownMethod}'`)
    }
    const result = decodeInputRequest(request)
    if (Result.isFailure(result)) {
      return Result.fail(`input request '${shownKey}' is malformed: ${SafeText.lines(result.failure.message)}`)
    }
    decoded[key] = result.success
  }
  return Result.succeed(decoded)
}

const noInputRequests: InputRequests = Object.freeze(Object.create(null))

/**
 * Classifies a raw result of an MRTR method: complete (no `resultType`, or
 * `"complete"`), or `input_required` with validated input requests
 * ({@link readInputRequests}).
 * (Plain code rather than a generator: it runs once per round.)
 */
export const classify = (method: string, raw: Record<string, unknown>): Effect.Effect<Outcome, ProtocolViolation> => {
  const violation = (reason: string) => Effect.fail(new ProtocolViolation({ method, reason, result: raw }))
  const resultType = raw.resultType
  if (resultType === undefined || resultType === "complete") return complete
  if (typeof resultType !== "string") return violation("resultType is not a string")
  if (resultType !== "input_required") return violation(`unknown resultType '${SafeText.oneLine(resultType)}'`)
  const { inputRequests, requestState } = raw
  if (requestState !== undefined && typeof requestState !== "string") return violation("requestState is not a string")
  const read = inputRequests === undefined ? Result.succeed(noInputRequests) : readInputRequests(inputRequests)
  if (Result.isFailure(read)) return violation(read.failure)
  if (requestState === undefined && Object.keys(read.success).length === 0) {
    return violation("an input_required result must carry inputRequests or requestState")
  }
  return Effect.succeed({ _tag: "InputRequired", inputRequests: read.success, requestState })
}

const complete: Effect.Effect<Outcome> = Effect.succeed({ _tag: "Complete" })

export const decodeWith = <A>(method: string, schema: Schema.Codec<A, any>) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (raw: Record<string, unknown>): Effect.Effect<A, ProtocolViolation> =>
    decode(raw).pipe(
      Effect.mapError((issue) =>
        new ProtocolViolation({
          method,
          reason: `the result does not decode: ${SafeText.lines(issue.message)}`,
          result: raw
        })
      )
    ) as Effect.Effect<A, ProtocolViolation>
}
