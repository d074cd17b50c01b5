/**
 * The client's requests outside the `input_required` loop: `server/discover`
 * (when the probe's answer or a 2025-11-25 `InitializeResult` does not give
 * it: `McpClient`), the listings (`tools/list`, `prompts/list`,
 * `resources/list`, `resources/templates/list`), `completion/complete` and
 * the task methods (`tasks/get`, `tasks/update`, `tasks/cancel`). One
 * request each, in the connection's `Era` (`era.ts`), declaring the
 * capabilities of the input handlers (in context; in a call's loop, the
 * call's), bounded by the call's `requestTimeout` and `callTimeout`; a task
 * method declares the Tasks extension too, and is bounded by its
 * `requestTimeout` alone (within a call's `input_required` loop, the call's
 * `callTimeout` bounds it too).
 *
 * Gotchas:
 * - `complete` (all but the task methods): a result must be complete: an
 *   `input_required` one, or an unknown `resultType`, is a
 *   `ProtocolViolation` carrying the result (these methods never suspend);
 *   then the method's schema decodes it. The task methods give the raw
 *   result (`TaskDriver` reads it).
 * - A server request arriving while one of these is in flight (2025-11-25) is
 *   answered, but a handler's failure is only answered to the server: it
 *   never fails the request itself.
 *
 * Source: MCP 2026-07-28, basic/lifecycle (`server/discover`), server/tools,
 * server/prompts, server/resources, server/utilities/completion; SEP-2663
 * (tasks).
 *
 * @internal
 */
import { Effect } from "effect"
import { ProtocolViolation, type RequestError } from "../Errors.ts"
import type { ListParams } from "../Models.ts"
import type { CallContext, Era } from "./era.ts"

/** One request that is not an MRTR call (no `input_required` loop) in `era`; its raw result. */
export const send = (
  era: Era,
  call: CallContext,
  method: string,
  params: Readonly<Record<string, unknown>>
): Effect.Effect<Record<string, unknown>, RequestError> =>
  era.send({ method, params, target: "" }, call).pipe(
    // unreachable: with failOnHandlerError false a handler's failure is only answered to the server
    Effect.catchTag("InputHandlerError", (error) =>
      Effect.fail(new ProtocolViolation({ method, reason: `an input handler failed: ${error.message}` })))
  )

/** A result that must be complete (no `resultType`, or `"complete"`), decoded with `decode`. */
export const complete = <A>(
  method: string,
  raw: Record<string, unknown>,
  decode: (raw: Record<string, unknown>) => Effect.Effect<A, ProtocolViolation>
): Effect.Effect<A, ProtocolViolation> => {
  const resultType = raw.resultType
  if (resultType === undefined || resultType === "complete") return decode(raw)
  return Effect.fail(
    new ProtocolViolation({
      method,
      reason: resultType === "input_required"
        ? `${method} must not return input_required`
        : `unknown resultType '${String(resultType)}'`,
      result: raw
    })
  )
}

/** The params of a listing: the `cursor`, when there is one. */
export const listParams = (params: ListParams | undefined): Record<string, unknown> =>
  params?.cursor === undefined ? {} : { cursor: params.cursor }
