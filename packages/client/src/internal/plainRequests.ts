/**
 * The client's requests outside the `input_required` loop: `server/discover`
 * (when the probe's answer or a 2025-11-25 `InitializeResult` does not give
 * it: `McpClient`), the listings (`tools/list`, `prompts/list`,
 * `resources/list`, `resources/templates/list`), `completion/complete` and
 * the task methods (`tasks/get`, `tasks/update`, `tasks/cancel`). One
 * request each, in the connection's era (`eras.ts`), declaring the
 * capabilities of the input handlers (in context; in a call's loop, the
 * call's), bounded by the call's `requestTimeout` and `callTimeout`; a task
 * method declares the Tasks extension too, and is bounded by its
 * `requestTimeout` alone (within a call's `input_required` loop, the call's
 * `callTimeout` bounds it too).
 *
 * Gotchas:
 * - `plain` (all but the task methods): a result must be complete: an
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
import { Effect, type Schema } from "effect"
import { ProtocolViolation, type RequestError } from "../Errors.ts"
import * as TaskDriver from "../TaskDriver.ts"
import type { LoopContext } from "./inputLoop.ts"
import type { CallOptions, ListParams } from "../Models.ts"
import { decodeWith } from "./results.ts"

/** What these requests need of the client they are sent by (a part of the loop's `LoopContext`). */
export type RequestContext = Pick<
  LoopContext,
  "eras" | "currentHandlers" | "declared" | "onNotification" | "requestTimeout" | "withCallTimeout"
>

/**
 * A request `(context, method, params, capabilities, handlers, callOptions)`
 * sent with the given capabilities and input handlers: its raw result (the
 * loop's `taskRequest`, given the context).
 */
export type Send = (
  context: Pick<RequestContext, "eras" | "onNotification" | "requestTimeout">,
  ...request: Parameters<LoopContext["taskRequest"]>
) => Effect.Effect<Record<string, unknown>, RequestError>

/** One request that is not an MRTR call (no `input_required` loop); its raw result. */
export const send: Send = (context, method, params, capabilities, handlers, callOptions) =>
  context.eras.send({
    method,
    params: (meta) => ({ ...params, ...(meta === undefined ? {} : { _meta: meta }) }),
    capabilities,
    progressToken: callOptions?.progressToken,
    target: "",
    handlers,
    failOnHandlerError: false,
    onNotification: context.onNotification(callOptions),
    requestTimeout: context.requestTimeout(callOptions)
  }).pipe(
    // unreachable: with failOnHandlerError false a handler's failure is only answered to the server
    Effect.catchTag("InputHandlerError", (error) =>
      Effect.fail(new ProtocolViolation({ method, reason: `an input handler failed: ${error.message}` })))
  )

/**
 * The request `method`, its complete result decoded with `schema`, within the
 * call's `callTimeout`: `(params, callOptions) => Effect<A, RequestError>`.
 */
export const plain = <A>(context: RequestContext, method: string, schema: Schema.Codec<A, any>) => {
  const decode = decodeWith(method, schema)
  return (params: Record<string, unknown>, callOptions: CallOptions | undefined): Effect.Effect<A, RequestError> =>
    context.withCallTimeout(method, callOptions, Effect.gen(function*() {
      const handlers = yield* context.currentHandlers
      const raw = yield* send(context, method, params, context.declared(handlers), handlers, callOptions)
      const resultType = raw.resultType
      if (resultType !== undefined && resultType !== "complete") {
        return yield* new ProtocolViolation({
          method,
          reason: resultType === "input_required"
            ? `${method} must not return input_required`
            : `unknown resultType '${String(resultType)}'`,
          result: raw
        })
      }
      return yield* decode(raw)
    }))
}

/** One task method (`tasks/get`, `tasks/update`, `tasks/cancel`), declaring the extension; the raw result. */
export const taskRequest: Send = (context, method, params, capabilities, handlers, callOptions) =>
  send(context, method, params, TaskDriver.declaring(capabilities), handlers, callOptions)

/** The task method `method` with the input handlers in context: `(params, callOptions?) => Effect<raw result>`. */
export const taskMethod = (context: RequestContext, method: string) =>
(params: Record<string, unknown>, callOptions?: CallOptions): Effect.Effect<Record<string, unknown>, RequestError> =>
  Effect.flatMap(
    context.currentHandlers,
    (handlers) => taskRequest(context, method, params, context.declared(handlers), handlers, callOptions)
  )

/** The params of a listing: the `cursor`, when there is one. */
export const listParams = (params: ListParams | undefined): Record<string, unknown> =>
  params?.cursor === undefined ? {} : { cursor: params.cursor }
