/**
 * `ElicitationHandler`: the service that answers `elicitation/create` input
 * requests (ask the user to fill in a form, or send them to a URL).
 *
 * Providing it is what makes the client declare the `elicitation`
 * capability, and only for the modes it implements: a handler with only
 * `form` declares `{ elicitation: { form: {} } }`, one with only `url`
 * declares `{ elicitation: { url: {} } }`, one with both declares
 * `{ elicitation: { form: {}, url: {} } }`. Without it the client declares no
 * elicitation capability and an elicitation input request ends the call with
 * `InputRequiredError` (manual mode).
 *
 * Source: MCP 2026-07-28, client/elicitation; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { ClientCapabilities, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from "@mrtr/protocol"
import type { InputHandlerError } from "./Errors.ts"
import type { InputContext } from "./InputContext.ts"

/**
 * Answers a form-mode elicitation (`mode` absent or `"form"`): show
 * `params.message` and a form for `params.requestedSchema`, return
 * `{ action: "accept", content }`, `{ action: "decline" }` or
 * `{ action: "cancel" }`.
 *
 * MCP 2026-07-28, client/elicitation.
 *
 * @since 0.1.0
 */
export type FormHandler<R = never> = (
  params: ElicitRequestFormParams,
  context: InputContext
) => Effect.Effect<ElicitResult, InputHandlerError, R>

/**
 * Answers a URL-mode elicitation (`mode: "url"`): send the user to
 * `params.url`, return `{ action: "accept" }` (no content) once they went
 * there, or `decline` / `cancel`.
 *
 * MCP 2026-07-28, client/elicitation.
 *
 * @since 0.1.0
 */
export type UrlHandler<R = never> = (
  params: ElicitRequestURLParams,
  context: InputContext
) => Effect.Effect<ElicitResult, InputHandlerError, R>

/**
 * The elicitation service: a `form` handler, a `url` handler, or both. The
 * modes present are the modes the client declares.
 *
 * MCP 2026-07-28, client/elicitation (capabilities, modes).
 *
 * @since 0.1.0
 */
export class ElicitationHandler extends Context.Service<ElicitationHandler, {
  readonly form?: FormHandler | undefined
  readonly url?: UrlHandler | undefined
}>()("@mrtr/client/ElicitationHandler") {}

/**
 * Provides an `ElicitationHandler` from `form` and / or `url` functions; the
 * services they need (`R`) are taken from the Layer's context.
 *
 * @example
 * ```ts
 * const user = ElicitationHandler.layer({
 *   form: (params) => Effect.succeed(ElicitationHandler.accept({ name: "Alice" }))
 * })
 * ```
 *
 * MCP 2026-07-28, client/elicitation.
 *
 * @since 0.1.0
 */
export const layer = <R = never>(handlers: {
  readonly form?: FormHandler<R> | undefined
  readonly url?: UrlHandler<R> | undefined
}): Layer.Layer<ElicitationHandler, never, R> =>
  Layer.effect(
    ElicitationHandler,
    Effect.gen(function*() {
      const context = yield* Effect.context<R>()
      const { form, url } = handlers
      return ElicitationHandler.of({
        ...(form === undefined ? {} : { form: (params, ctx) => Effect.provideContext(form(params, ctx), context) }),
        ...(url === undefined ? {} : { url: (params, ctx) => Effect.provideContext(url(params, ctx), context) })
      })
    })
  )

/**
 * The `elicitation` capability a handler declares:
 * `{ form?: {}, url?: {} }` with a member per implemented mode, or
 * `undefined` when it implements none.
 *
 * MCP 2026-07-28, client/elicitation (capabilities).
 *
 * @since 0.1.0
 */
export const capability = (handler: ElicitationHandler["Service"]): ClientCapabilities["elicitation"] => {
  if (handler.form === undefined && handler.url === undefined) return undefined
  return {
    ...(handler.form === undefined ? {} : { form: {} }),
    ...(handler.url === undefined ? {} : { url: {} })
  }
}

/**
 * `{ action: "accept", content? }`: the user submitted the form (form mode,
 * with `content`) or agreed to go to the URL (URL mode, without content).
 *
 * MCP 2026-07-28, schema `ElicitResult`.
 *
 * @since 0.1.0
 */
export const accept = (content?: ElicitResult["content"]): ElicitResult =>
  content === undefined ? { action: "accept" } : { action: "accept", content }

/**
 * `{ action: "decline" }`: the user explicitly refused.
 *
 * MCP 2026-07-28, client/elicitation.
 *
 * @since 0.1.0
 */
export const decline: ElicitResult = { action: "decline" }

/**
 * `{ action: "cancel" }`: the user dismissed the request without choosing.
 *
 * MCP 2026-07-28, client/elicitation.
 *
 * @since 0.1.0
 */
export const cancel: ElicitResult = { action: "cancel" }
