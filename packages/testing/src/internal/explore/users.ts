/**
 * The two users of an exploration: the drawn one (each ask consumes the next
 * draw of the tape, `answers.ts`) and a scripted one (the client's input
 * handler services in context, e.g. `ScriptedUser.layer`), both as the
 * `User` every driver answers through.
 */
import type { Errors } from "@mrtr/client"
import { ElicitationHandler, RootsHandler, SamplingHandler } from "@mrtr/client"
import type { ClientCapabilities, InputRequest } from "@mrtr/protocol/Schema"
import { Effect, Option } from "effect"
import { answer, type Choice, type Draw, zero } from "./answers.ts"
import type { User } from "./model.ts"

/** The reason of the `InputHandlerError` that `Explore.noAnswer` fails with: the key is left out of `inputResponses`. */
export const NO_ANSWER = "no answer (Explore.noAnswer)"

/** What the drawn user declares: every kind, sampling with tools. */
export const drawnCapabilities: ClientCapabilities = { elicitation: { form: {} }, sampling: { tools: {} }, roots: {} }

/** The drawn user: answers from `draws`, one per ask, in the order asked. */
export const drawn = (draws: ReadonlyArray<Draw>, wrong: boolean): User => {
  let next = 0
  return {
    capabilities: drawnCapabilities,
    answer: (_key, request) => Effect.sync(() => answer(request, draws[next++] ?? zero, wrong))
  }
}

const choiceOf = (request: InputRequest, response: any): Choice =>
  request.method === "elicitation/create" && (response?.action === "decline" || response?.action === "cancel")
    ? response.action
    : "accept"

/** The scripted user: the input handler services in context, as the 2026-07-28 driver's `User`. */
export const scripted = Effect.gen(function*() {
  const elicitation = yield* Effect.serviceOption(ElicitationHandler.ElicitationHandler)
  const sampling = yield* Effect.serviceOption(SamplingHandler.SamplingHandler)
  const roots = yield* Effect.serviceOption(RootsHandler.RootsHandler)
  const capabilities: Record<string, unknown> = {}
  if (Option.isSome(elicitation)) {
    const declared = ElicitationHandler.capability(elicitation.value)
    if (declared !== undefined) capabilities.elicitation = declared
  }
  if (Option.isSome(sampling)) capabilities.sampling = SamplingHandler.capability(sampling.value)
  if (Option.isSome(roots)) capabilities.roots = {}
  const user: User = {
    capabilities: capabilities as ClientCapabilities,
    answer: (key, request, round) => {
      const context = { key, method: "", target: "", round }
      const params = request.params as any
      const given: Effect.Effect<unknown, Errors.InputHandlerError> = request.method === "elicitation/create"
        ? Option.match(
          elicitation.pipe(
            Option.flatMapNullishOr((
              h
            ): ((p: any, c: typeof context) => Effect.Effect<unknown, Errors.InputHandlerError>) | undefined =>
              params.mode === "url" ? h.url : h.form
            )
          ),
          { onNone: () => Effect.succeed(undefined), onSome: (handle) => handle(params, context) }
        )
        : request.method === "sampling/createMessage"
        ? Option.match(sampling, {
          onNone: () => Effect.succeed(undefined),
          onSome: (h) => h.createMessage(params, context)
        })
        : Option.match(roots, {
          onNone: () => Effect.succeed(undefined),
          onSome: (h) => Effect.map(h.listRoots(context), (list) => ({ roots: list }))
        })
      return given.pipe(
        Effect.map((response) => ({
          choice: response === undefined ? "omit" as const : choiceOf(request, response),
          answer: response
        })),
        Effect.catchIf(
          (error) => error.reason === NO_ANSWER,
          () => Effect.succeed({ choice: "omit" as const, answer: undefined })
        )
      )
    }
  }
  return user
})
