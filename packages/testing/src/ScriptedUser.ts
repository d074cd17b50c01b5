/**
 * `ScriptedUser`: Layers that play the user in tests. They provide the
 * client's input handlers (`ElicitationHandler`, `SamplingHandler`,
 * `RootsHandler`) from a script, plus a `Recorder` of every question asked.
 *
 * Only the kinds present in the script are provided, so the client declares
 * exactly those capabilities (a script without `sampling` makes the client
 * declare no `sampling`, and a sampling question then ends the call with
 * `InputRequiredError`).
 *
 * Answers are chosen per question: first by the input request's key
 * (`byKey`), then by the first matching predicate (`when`), then
 * `otherwise`; a question with no scripted answer fails the call with
 * `InputHandlerError` (so a test never silently answers something it did not
 * expect).
 *
 * A form answer the server refused is never given twice: when the server
 * asks the same key again with the reason it refused the answer (an
 * `@mrtr/core` server's message starts `Your answer was not accepted: `)
 * and the script would give the very same answer again, the call fails at
 * once with `InputHandlerError` whose `cause` is `AnswerRefused` (the key,
 * the answer, the server's reason), instead of looping to
 * `MaxRoundsExceeded`. A script that answers differently the second time
 * (a function of the question) goes on.
 *
 * **Example** (A user who answers by key, by question and by default)
 *
 * ```ts
 * import { ScriptedUser } from "@mrtr/testing"
 *
 * const user = ScriptedUser.layer({
 *   elicitation: {
 *     byKey: { name: ScriptedUser.accept({ name: "Alice" }) },
 *     when: [[(q) => q.message.includes("confirm"), ScriptedUser.decline]]
 *   },
 *   sampling: { otherwise: ScriptedUser.text("Paris") },
 *   roots: [{ uri: "file:///work", name: "work" }]
 * })
 * ```
 *
 * Source: MCP 2026-07-28, client/elicitation, client/sampling, client/roots,
 * basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import { ElicitationHandler, Errors, type InputContext, Refusal, RootsHandler, SamplingHandler } from "@mrtr/client"
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitRequestURLParams,
  ElicitResult,
  InputRequest,
  InputResponse,
  Root
} from "@mrtr/protocol/Schema"
import { Effect, Layer, Schema } from "effect"
import { isDeepStrictEqual } from "node:util"
import * as Page from "./internal/interactionPage.ts"
import * as Recorder from "./Recorder.ts"

type Context = InputContext.InputContext

/**
 * A scripted answer: a fixed value, or a function of the question (its
 * params and context) returning one (effectfully, so it may fail with
 * `InputHandlerError` or wait).
 *
 * MCP 2026-07-28, client/elicitation, client/sampling, client/roots; basic/patterns/mrtr.
 *
 * @category models
 * @since 0.1.0
 */
export type Answer<Params, A> =
  | A
  | ((params: Params, context: Context) => A | Effect.Effect<A, Errors.InputHandlerError>)

/**
 * How to answer one kind of question:
 *
 * - `byKey`: answers by input-request key (e.g. `{ user_name: accept({ name: "Alice" }) }`);
 *   a task's key asked again, published as `<key>#<n>`, is answered as `<key>`.
 * - `when`: `[predicate, answer]` pairs tried in order when no key matches;
 *   the predicate sees the question's params and context.
 * - `otherwise`: the answer when nothing else matches (default: none, the
 *   call fails with `InputHandlerError`).
 *
 * MCP 2026-07-28, client/elicitation, client/sampling, client/roots; basic/patterns/mrtr.
 *
 * @category models
 * @since 0.1.0
 */
export interface Rules<Params, A> {
  readonly byKey?: Readonly<Record<string, Answer<Params, A>>> | undefined
  readonly when?:
    | ReadonlyArray<readonly [(params: Params, context: Context) => boolean, Answer<Params, A>]>
    | undefined
  readonly otherwise?: Answer<Params, A> | undefined
}

/**
 * The elicitation script: `Rules` plus `modes`, the modes the scripted user
 * supports (default `["form"]`; add `"url"` to declare
 * `elicitation.url` and answer URL-mode requests), and `urlWait`, the answer
 * to a URL elicitation accepted before that comes back unchanged (default:
 * retry at once, no wait, so tests never sleep; each retry is a round and
 * recorded as a question).
 *
 * MCP 2026-07-28, client/elicitation, client/sampling, client/roots; basic/patterns/mrtr.
 *
 * @category models
 * @since 0.1.0
 */
export interface ElicitationScript extends Rules<ElicitRequestParams, ElicitResult> {
  readonly modes?: ReadonlyArray<"form" | "url"> | undefined
  readonly urlWait?: ElicitationHandler.UrlWaitHandler | undefined
}

/**
 * The sampling script: `Rules` plus whether to declare `sampling.tools` and
 * `sampling.context` (both default `false`).
 *
 * MCP 2026-07-28, client/elicitation, client/sampling, client/roots; basic/patterns/mrtr.
 *
 * @category models
 * @since 0.1.0
 */
export interface SamplingScript extends Rules<CreateMessageRequestParams, CreateMessageResult> {
  readonly tools?: boolean | undefined
  readonly context?: boolean | undefined
}

/**
 * The whole script. `roots` is either the fixed list of roots or a function
 * of the question's context.
 *
 * MCP 2026-07-28, client/elicitation, client/sampling, client/roots; basic/patterns/mrtr.
 *
 * @category models
 * @since 0.1.0
 */
export interface Script {
  readonly elicitation?: ElicitationScript | undefined
  readonly sampling?: SamplingScript | undefined
  readonly roots?: ReadonlyArray<Root> | ((context: Context) => ReadonlyArray<Root>) | undefined
}

/**
 * `{ action: "accept", content? }`.
 *
 * MCP 2026-07-28, client/elicitation, client/sampling, client/roots; basic/patterns/mrtr.
 *
 * @category answers
 * @since 0.1.0
 */
export const accept = ElicitationHandler.accept

/**
 * `{ action: "decline" }`.
 *
 * MCP 2026-07-28, client/elicitation, client/sampling, client/roots; basic/patterns/mrtr.
 *
 * @category answers
 * @since 0.1.0
 */
export const decline: ElicitResult = ElicitationHandler.decline

/**
 * `{ action: "cancel" }`.
 *
 * MCP 2026-07-28, client/elicitation, client/sampling, client/roots; basic/patterns/mrtr.
 *
 * @category answers
 * @since 0.1.0
 */
export const cancel: ElicitResult = ElicitationHandler.cancel

/**
 * A sampled text message: `{ role: "assistant", content: { type: "text", text }, model, stopReason: "endTurn" }`
 * (`model` defaults to `"scripted-model"`).
 *
 * MCP 2026-07-28, client/elicitation, client/sampling, client/roots; basic/patterns/mrtr.
 *
 * @category answers
 * @since 0.1.0
 */
export const text = (value: string, model = "scripted-model"): CreateMessageResult => ({
  role: "assistant",
  content: { type: "text", text: value },
  model,
  stopReason: "endTurn"
})

/**
 * A value of a field of an interaction page: text, a number, a boolean, or
 * the choices of a multi-select.
 *
 * @category models
 * @since 0.1.0
 */
export type PageValue = Page.PageValue

/**
 * A URL-mode answer that completes the server's interaction page (the page
 * of `Elicitation.secure`) programmatically, as a person in a browser would:
 * it opens `params.url`, submits `values` with the page's CSRF token and
 * cookie, and answers `{ action: "accept" }` once the page says it is done,
 * so the retry resumes the handler with the value. A page that refuses (an
 * invalid value: 400, an expired page: 410, already submitted: 409, a
 * network error) fails the call with `InputHandlerError` whose reason quotes
 * the page. `options.fetch` replaces the global `fetch` (e.g. a Web handler
 * serving the page in memory). Script it under `elicitation` with `modes`
 * including `"url"`:
 *
 * ```ts
 * import { ScriptedUser } from "@mrtr/testing"
 *
 * const user = ScriptedUser.layer({
 *   elicitation: { modes: ["url"], byKey: { api_key: ScriptedUser.completePage({ api_key: "sk-test-123" }) } }
 * })
 * ```
 *
 * Source: MCP 2026-07-28, client/elicitation (URL mode).
 *
 * @category answers
 * @since 0.1.0
 */
export const completePage = (
  values: Readonly<Record<string, PageValue>>,
  options: { readonly fetch?: typeof fetch | undefined } = {}
) =>
(params: ElicitRequestParams, context: Context): Effect.Effect<ElicitResult, Errors.InputHandlerError> => {
  if (params.mode !== "url") {
    return Effect.fail(
      new Errors.InputHandlerError({
        kind: "elicitation",
        key: context.key,
        reason: "completePage answers URL-mode elicitations only"
      })
    )
  }
  return Effect.flatMap(
    Page.complete(params.url, values, options.fetch ?? globalThis.fetch),
    (submitted) =>
      submitted.status === 200
        ? Effect.succeed(accept())
        : Effect.fail(
          new Errors.InputHandlerError({
            kind: "elicitation",
            key: context.key,
            reason: `the interaction page answered ${submitted.status}: ${submitted.text}`
          })
        )
  )
}

/**
 * The key a question was first asked under: a task publishes a key asked
 * again (after a refused answer, a page not completed) as `<key>#<n>`, since
 * its keys are unique over its life (Tasks extension); scripts name `<key>`.
 */
const scriptKey = (key: string, byKey: Readonly<Record<string, unknown>> | undefined): string => {
  if (byKey === undefined || Object.hasOwn(byKey, key)) return key
  const suffixed = /^(.*)#\d+$/.exec(key)
  return suffixed !== null && Object.hasOwn(byKey, suffixed[1]!) ? suffixed[1]! : key
}

const resolve = <Params, A>(
  kind: "elicitation" | "sampling",
  rules: Rules<Params, A>,
  params: Params,
  context: Context
): Effect.Effect<A, Errors.InputHandlerError> => {
  const key = scriptKey(context.key, rules.byKey)
  const byKey = rules.byKey !== undefined && Object.hasOwn(rules.byKey, key)
    ? rules.byKey[key]
    : undefined
  const matched = byKey ?? rules.when?.find(([predicate]) => predicate(params, context))?.[1] ?? rules.otherwise
  if (matched === undefined) {
    return Effect.fail(
      new Errors.InputHandlerError({ kind, key: context.key, reason: `no scripted ${kind} answer` })
    )
  }
  if (typeof matched !== "function") return Effect.succeed(matched as A)
  const out = (matched as (params: Params, context: Context) => A | Effect.Effect<A, Errors.InputHandlerError>)(
    params,
    context
  )
  return Effect.isEffect(out) ? out : Effect.succeed(out)
}

/**
 * The server refused a scripted form answer and the script gave the same
 * answer again: `key` (the input request key), `answer` (the `ElicitResult`
 * refused) and `reason` (the server's words, e.g. `"Seats" must be at most
 * 4.`). The `cause` of the `InputHandlerError` that ends the call.
 *
 * MCP 2026-07-28, client/elicitation; basic/patterns/mrtr; `@mrtr/core` `Elicitation.refusedMessage`.
 *
 * @category errors
 * @since 0.1.0
 */
export class AnswerRefused extends Schema.TaggedError<AnswerRefused>()("AnswerRefused", {
  key: Schema.String,
  answer: Schema.Unknown,
  reason: Schema.String
}) {
  override get message(): string {
    return `the server refused the scripted answer ${JSON.stringify(this.answer)} to '${this.key}' and the script ` +
      `gives it again; the server's reason: ${this.reason}`
  }
}

/**
 * Fails with `AnswerRefused` when the question is the server asking `key`
 * again with a refusal and `answer` is the one given last time under the key.
 */
const refuseRepeat = (
  given: Map<string, unknown>,
  params: ElicitRequestParams,
  context: Context,
  answer: Effect.Effect<ElicitResult, Errors.InputHandlerError>
): Effect.Effect<ElicitResult, Errors.InputHandlerError> =>
  Effect.flatMap(answer, (value) => {
    const id = `${context.method} ${context.target} ${context.key.replace(/#\d+$/, "")}`
    const reason = Refusal.reasonOf(params.message)
    if (reason !== undefined && given.has(id) && isDeepStrictEqual(given.get(id), value)) {
      const refused = new AnswerRefused({ key: context.key, answer: value, reason })
      return Effect.fail(
        new Errors.InputHandlerError({ kind: "elicitation", key: context.key, reason: refused.message, cause: refused })
      )
    }
    given.set(id, value)
    return Effect.succeed(value)
  })

const recorded = <A extends InputResponse>(
  recorder: Recorder.Recorder["Service"],
  kind: Recorder.Question["kind"],
  request: InputRequest,
  context: Context,
  answer: Effect.Effect<A, Errors.InputHandlerError>
): Effect.Effect<A, Errors.InputHandlerError> =>
  answer.pipe(
    Effect.tap((value) => recorder.record({ ...context, kind, request, answer: value })),
    Effect.tapError(() => recorder.record({ ...context, kind, request, answer: undefined }))
  )

/**
 * The scripted user as a Layer: the input handlers for the kinds present in
 * `script`, and the `Recorder` they record into.
 *
 * MCP 2026-07-28, client/elicitation, client/sampling, client/roots; basic/patterns/mrtr.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  script: Script
): Layer.Layer<
  | Recorder.Recorder
  | ElicitationHandler.ElicitationHandler
  | SamplingHandler.SamplingHandler
  | RootsHandler.RootsHandler
> =>
  Layer.unwrap(Effect.gen(function*() {
    const recorder = yield* Recorder.make
    let handlers: Layer.Layer<any> = Layer.succeed(Recorder.Recorder, recorder)
    const elicitation = script.elicitation
    if (elicitation !== undefined) {
      const modes = elicitation.modes ?? ["form"]
      // (method, target, key) -> the last answer given under it
      const given = new Map<string, unknown>()
      const answer = (params: ElicitRequestParams, context: Context) =>
        recorded(
          recorder,
          "elicitation",
          { method: "elicitation/create", params },
          context,
          refuseRepeat(given, params, context, resolve("elicitation", elicitation, params, context))
        )
      handlers = Layer.merge(
        handlers,
        Layer.succeed(
          ElicitationHandler.ElicitationHandler,
          ElicitationHandler.ElicitationHandler.of({
            ...(modes.includes("form") ? { form: answer } : {}),
            ...(modes.includes("url")
              ? {
                url: answer,
                urlWait: (params: ElicitRequestURLParams, context: ElicitationHandler.UrlWaitContext) =>
                  recorded(
                    recorder,
                    "elicitation",
                    { method: "elicitation/create", params },
                    context,
                    elicitation.urlWait === undefined
                      ? Effect.succeed(accept())
                      : elicitation.urlWait(params, context)
                  )
              }
              : {})
          })
        )
      )
    }
    const sampling = script.sampling
    if (sampling !== undefined) {
      handlers = Layer.merge(
        handlers,
        Layer.succeed(
          SamplingHandler.SamplingHandler,
          SamplingHandler.SamplingHandler.of({
            createMessage: (params, context) =>
              recorded(
                recorder,
                "sampling",
                { method: "sampling/createMessage", params },
                context,
                resolve("sampling", sampling, params, context)
              ),
            tools: sampling.tools ?? false,
            context: sampling.context ?? false
          })
        )
      )
    }
    const roots = script.roots
    if (roots !== undefined) {
      handlers = Layer.merge(
        handlers,
        Layer.succeed(
          RootsHandler.RootsHandler,
          RootsHandler.RootsHandler.of({
            listRoots: (context) =>
              recorded(
                recorder,
                "roots",
                { method: "roots/list", params: {} },
                context,
                Effect.sync(() => ({ roots: typeof roots === "function" ? roots(context) : roots }))
              ).pipe(Effect.map((result) => result.roots))
          })
        )
      )
    }
    return handlers
  }))
