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
 * A URL-mode elicitation the user already accepted may come back unchanged
 * (same key, same URL): the server has not seen the interaction completed
 * yet (a secure elicitation's page not submitted). The client then calls
 * `urlWait` instead of asking again; by default ({@link waitAndRetry}) it
 * waits with backoff (1, 2, 4, ... up to 30 seconds) and retries.
 *
 * Source: MCP 2026-07-28, client/elicitation; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import type {
  ClientCapabilities,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult
} from "@mrtr/protocol/Schema"
import { Context, Duration, Effect, Layer } from "effect"
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
 * @category models
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
 * @category models
 * @since 0.1.0
 */
export type UrlHandler<R = never> = (
  params: ElicitRequestURLParams,
  context: InputContext
) => Effect.Effect<ElicitResult, InputHandlerError, R>

/**
 * The context of a URL-mode elicitation asked again after the user accepted
 * it: the input context plus `attempt`, how many times it came back
 * unchanged in this call (1 the first time).
 *
 * @category models
 * @since 0.1.0
 */
export interface UrlWaitContext extends InputContext {
  readonly attempt: number
}

/**
 * Answers a URL-mode elicitation that came back unchanged after the user
 * accepted it (the server waits for the interaction at the URL to be
 * completed): wait, then `{ action: "accept" }` to retry, or `cancel` /
 * `decline` to give up. See {@link waitAndRetry}, the default.
 *
 * MCP 2026-07-28, client/elicitation (URL mode); basic/patterns/mrtr ("the
 * server may return another InputRequiredResult").
 *
 * @category models
 * @since 0.1.0
 */
export type UrlWaitHandler<R = never> = (
  params: ElicitRequestURLParams,
  context: UrlWaitContext
) => Effect.Effect<ElicitResult, InputHandlerError, R>

/**
 * The wait before retry `attempt` (1-based) of a URL elicitation that came
 * back unchanged: 1 s, 2 s, 4 s, 8 s, 16 s, then 30 s.
 *
 * @category url mode
 * @since 0.1.0
 */
export const urlBackoff = (attempt: number): Duration.Duration =>
  Duration.seconds(Math.min(30, 2 ** Math.max(0, Math.min(attempt, 6) - 1)))

/**
 * The default {@link UrlWaitHandler}: waits {@link urlBackoff} of the attempt,
 * then accepts again (the retry asks the server whether the interaction is
 * completed). Rounds that only wait for accepted URLs do not count toward
 * the client's `maxRounds`: the call's `callTimeout` (and the server's expiry
 * of the page) bound the wait.
 *
 * @category url mode
 * @since 0.1.0
 */
export const waitAndRetry: UrlWaitHandler = (_params, context) =>
  Effect.as(Effect.sleep(urlBackoff(context.attempt)), accept())

/**
 * The elicitation service: a `form` handler, a `url` handler, or both (the
 * modes present are the modes the client declares), and `urlWait`, for a URL
 * elicitation the user accepted that comes back unchanged (default
 * {@link waitAndRetry}).
 *
 * MCP 2026-07-28, client/elicitation (capabilities, modes).
 *
 * @category services
 * @since 0.1.0
 */
export class ElicitationHandler extends Context.Service<ElicitationHandler, {
  readonly form?: FormHandler | undefined
  readonly url?: UrlHandler | undefined
  readonly urlWait?: UrlWaitHandler | undefined
}>()("@mrtr/client/ElicitationHandler") {}

/**
 * Provides an `ElicitationHandler` from `form` and / or `url` (and
 * optionally `urlWait`) functions; the
 * services they need (`R`) are taken from the Layer's context.
 *
 * **Example** (Answering every form)
 *
 * ```ts
 * import { ElicitationHandler } from "@mrtr/client"
 * import { Effect } from "effect"
 *
 * const user = ElicitationHandler.layer({
 *   form: (params) => Effect.succeed(ElicitationHandler.accept({ name: "Alice", asked: params.message }))
 * })
 * ```
 *
 * MCP 2026-07-28, client/elicitation.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <R = never>(handlers: {
  readonly form?: FormHandler<R> | undefined
  readonly url?: UrlHandler<R> | undefined
  readonly urlWait?: UrlWaitHandler<R> | undefined
}): Layer.Layer<ElicitationHandler, never, R> =>
  Layer.effect(
    ElicitationHandler,
    Effect.gen(function*() {
      const context = yield* Effect.context<R>()
      const { form, url, urlWait } = handlers
      return ElicitationHandler.of({
        ...(form === undefined ? {} : { form: (params, ctx) => Effect.provideContext(form(params, ctx), context) }),
        ...(url === undefined ? {} : { url: (params, ctx) => Effect.provideContext(url(params, ctx), context) }),
        ...(urlWait === undefined
          ? {}
          : { urlWait: (params, ctx) => Effect.provideContext(urlWait(params, ctx), context) })
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
 * @category capabilities
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
 * @category constructors
 * @since 0.1.0
 */
export const accept = (content?: ElicitResult["content"]): ElicitResult =>
  content === undefined ? { action: "accept" } : { action: "accept", content }

/**
 * `{ action: "decline" }`: the user explicitly refused.
 *
 * MCP 2026-07-28, client/elicitation.
 *
 * @category constructors
 * @since 0.1.0
 */
export const decline: ElicitResult = { action: "decline" }

/**
 * `{ action: "cancel" }`: the user dismissed the request without choosing.
 *
 * MCP 2026-07-28, client/elicitation.
 *
 * @category constructors
 * @since 0.1.0
 */
export const cancel: ElicitResult = { action: "cancel" }
