/**
 * `SamplingHandler`: the service that answers `sampling/createMessage` input
 * requests (run an LLM completion for the server).
 *
 * Providing it makes the client declare `{ sampling: {} }`, plus
 * `sampling.tools` when the handler says it supports tool use (`tools: true`)
 * and `sampling.context` when it supports `includeContext` (`context: true`,
 * deprecated). A request the declared capabilities do not cover, or any
 * sampling request without a handler, ends the call with
 * `InputRequiredError` (manual mode).
 *
 * Source: MCP 2026-07-28, client/sampling (deprecated by SEP-2577 but still
 * part of the revision); basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import type { ClientCapabilities, CreateMessageRequestParams, CreateMessageResult } from "@mrtr/protocol/Schema"
import { Context, Effect, Layer } from "effect"
import type { InputHandlerError } from "./Errors.ts"
import type { InputContext } from "./InputContext.ts"

/**
 * Samples one message: returns `{ role, content, model, stopReason? }`.
 *
 * MCP 2026-07-28, client/sampling.
 *
 * @category models
 * @since 0.1.0
 */
export type CreateMessage<R = never> = (
  params: CreateMessageRequestParams,
  context: InputContext
) => Effect.Effect<CreateMessageResult, InputHandlerError, R>

/**
 * The sampling service: `createMessage`, and whether it supports tool use
 * (`tools`, declares `sampling.tools`) and context inclusion (`context`,
 * declares `sampling.context`). Both default to `false`.
 *
 * MCP 2026-07-28, client/sampling (capabilities).
 *
 * @category services
 * @since 0.1.0
 */
export class SamplingHandler extends Context.Service<SamplingHandler, {
  readonly createMessage: CreateMessage
  readonly tools?: boolean | undefined
  readonly context?: boolean | undefined
}>()("@mrtr/client/SamplingHandler") {}

/**
 * Provides a `SamplingHandler`; the services `createMessage` needs (`R`) are
 * taken from the Layer's context.
 *
 * MCP 2026-07-28, client/sampling.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <R = never>(options: {
  readonly createMessage: CreateMessage<R>
  readonly tools?: boolean | undefined
  readonly context?: boolean | undefined
}): Layer.Layer<SamplingHandler, never, R> =>
  Layer.effect(
    SamplingHandler,
    Effect.gen(function*() {
      const context = yield* Effect.context<R>()
      return SamplingHandler.of({
        createMessage: (params, ctx) => Effect.provideContext(options.createMessage(params, ctx), context),
        tools: options.tools ?? false,
        context: options.context ?? false
      })
    })
  )

/**
 * The `sampling` capability a handler declares: `{}`, plus `tools: {}` and
 * `context: {}` when supported.
 *
 * MCP 2026-07-28, client/sampling (capabilities).
 *
 * @category capabilities
 * @since 0.1.0
 */
export const capability = (handler: SamplingHandler["Service"]): NonNullable<ClientCapabilities["sampling"]> => ({
  ...(handler.context === true ? { context: {} } : {}),
  ...(handler.tools === true ? { tools: {} } : {})
})
