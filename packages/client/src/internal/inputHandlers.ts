/**
 * The client's input handlers (`ElicitationHandler`, `SamplingHandler`,
 * `RootsHandler`) as one value: which are in context, the capabilities they
 * declare, and answering one input request with them. Shared by both eras:
 * `inputRequests` of a 2026-07-28 `input_required` result and the requests a
 * 2025-11-25 server sends in flight are answered by the same code.
 *
 * Gotcha: an answer is checked against the wire schema before it is sent
 * (`InputHandlerError` when it does not encode), so a handler bug never
 * reaches the server as a malformed response.
 *
 * Source: MCP 2026-07-28, client/elicitation, client/sampling, client/roots,
 * basic/patterns/mrtr.
 */
import { mergeCapabilities, missingCapabilities, requiredCapabilities } from "@mrtr/protocol/Capabilities"
import {
  type ClientCapabilities,
  CreateMessageResult,
  ElicitResult,
  type InputRequest,
  type InputResponse,
  ListRootsResult
} from "@mrtr/protocol/Schema"
import { Effect, Option, Schema } from "effect"
import * as Elicitation from "../ElicitationHandler.ts"
import { InputHandlerError } from "../Errors.ts"
import type { InputContext } from "../InputContext.ts"
import { RootsHandler } from "../RootsHandler.ts"
import * as Sampling from "../SamplingHandler.ts"

export interface Handlers {
  readonly elicitation: Option.Option<Elicitation.ElicitationHandler["Service"]>
  readonly sampling: Option.Option<Sampling.SamplingHandler["Service"]>
  readonly roots: Option.Option<RootsHandler["Service"]>
}

export const handlersInContext: Effect.Effect<Handlers> = Effect.all({
  elicitation: Effect.serviceOption(Elicitation.ElicitationHandler),
  sampling: Effect.serviceOption(Sampling.SamplingHandler),
  roots: Effect.serviceOption(RootsHandler)
})

/**
 * The capabilities declared for a set of input handlers: `elicitation`
 * (modes the handler implements), `sampling` (`tools` / `context` when
 * supported), `roots: {}`; merged (`mergeCapabilities`) with `extra`, the
 * explicitly configured capabilities. `{}` when there is neither.
 *
 * MCP 2026-07-28, basic (capabilities); client/elicitation, client/sampling, client/roots.
 *
 * @since 0.1.0
 */
export const capabilitiesOf = (
  handlers: {
    readonly elicitation?: Elicitation.ElicitationHandler["Service"] | undefined
    readonly sampling?: Sampling.SamplingHandler["Service"] | undefined
    readonly roots?: RootsHandler["Service"] | undefined
  },
  extra: ClientCapabilities = {}
): ClientCapabilities => {
  const elicitation = handlers.elicitation === undefined ? undefined : Elicitation.capability(handlers.elicitation)
  const derived: ClientCapabilities = {
    ...(handlers.roots === undefined ? {} : { roots: {} }),
    ...(handlers.sampling === undefined ? {} : { sampling: Sampling.capability(handlers.sampling) }),
    ...(elicitation === undefined ? {} : { elicitation })
  }
  return Object.keys(extra).length === 0 ? derived : mergeCapabilities(derived, extra)
}

/** The encoders of the answers, built once (not per answer: every round answers). */
const encoders = {
  elicitation: Schema.encodeUnknownEffect(ElicitResult),
  sampling: Schema.encodeUnknownEffect(CreateMessageResult),
  roots: Schema.encodeUnknownEffect(ListRootsResult)
} as const

/** Checks that a handler's answer encodes with the wire schema of its kind (`InputHandlerError` otherwise). */
export const checkEncoded = (kind: "elicitation" | "sampling" | "roots", key: string) => {
  const encode: (value: unknown) => Effect.Effect<unknown, { readonly message: string }> = encoders[kind]
  return (value: unknown): Effect.Effect<InputResponse, InputHandlerError> =>
    encode(value).pipe(
      Effect.mapError((issue) =>
        new InputHandlerError({ kind, key, reason: `the handler's answer is not valid: ${issue.message}` })
      )
    ) as Effect.Effect<InputResponse, InputHandlerError>
}

/**
 * Is `request` a URL elicitation the user accepted before in this call, back
 * unchanged under the same key (the server waits for the interaction)?
 */
export const isAcceptedUrl = (
  acceptedUrls: Map<string, { readonly url: string; attempts: number }>,
  key: string,
  request: InputRequest
): boolean =>
  request.method === "elicitation/create" && request.params.mode === "url" &&
  acceptedUrls.get(key)?.url === request.params.url

/**
 * Answers one input request with the handlers. `acceptedUrls` (2026-07-28
 * MRTR calls) remembers the URL elicitations accepted in the call, so one
 * asked again unchanged goes to `ElicitationHandler.urlWait` instead of
 * sending the user to the page again.
 */
export const answer = (
  key: string,
  request: InputRequest,
  handlers: Handlers,
  context: InputContext,
  acceptedUrls: Map<string, { readonly url: string; attempts: number }> = new Map()
): Effect.Effect<InputResponse, InputHandlerError> => {
  switch (request.method) {
    case "elicitation/create": {
      const handler = Option.getOrUndefined(handlers.elicitation)
      const params = request.params
      let run: Effect.Effect<ElicitResult, InputHandlerError> | undefined
      if (params.mode === "url") {
        // Accepted before in this call and back unchanged: the server waits for the interaction.
        const accepted = acceptedUrls.get(key)
        const again = accepted !== undefined && isAcceptedUrl(acceptedUrls, key, request)
        if (again) accepted.attempts++
        const asked = again
          ? (handler?.urlWait ?? Elicitation.waitAndRetry)(params, { ...context, attempt: accepted.attempts })
          : handler?.url?.(params, context)
        run = asked?.pipe(
          // URL-mode acceptance carries no content.
          Effect.map((result): ElicitResult => {
            if (result.action !== "accept") return result
            if (!again) acceptedUrls.set(key, { url: params.url, attempts: 0 })
            return { action: "accept" }
          })
        )
      } else {
        run = handler?.form?.(params, context)
      }
      return run === undefined
        ? Effect.fail(new InputHandlerError({ kind: "elicitation", key, reason: "no handler for this mode" }))
        : Effect.flatMap(run, checkEncoded("elicitation", key))
    }
    case "sampling/createMessage": {
      const handler = Option.getOrUndefined(handlers.sampling)
      return handler === undefined
        ? Effect.fail(new InputHandlerError({ kind: "sampling", key, reason: "no sampling handler" }))
        : Effect.flatMap(handler.createMessage(request.params, context), checkEncoded("sampling", key))
    }
    case "roots/list": {
      const handler = Option.getOrUndefined(handlers.roots)
      return handler === undefined
        ? Effect.fail(new InputHandlerError({ kind: "roots", key, reason: "no roots handler" }))
        : Effect.flatMap(
          handler.listRoots(context),
          (roots) => checkEncoded("roots", key)({ roots })
        )
    }
  }
}

export const canAnswer = (request: InputRequest, handlers: Handlers, capabilities: ClientCapabilities): boolean => {
  if (missingCapabilities(requiredCapabilities(request), capabilities) !== undefined) return false
  switch (request.method) {
    case "elicitation/create": {
      const handler = Option.getOrUndefined(handlers.elicitation)
      return (request.params.mode === "url" ? handler?.url : handler?.form) !== undefined
    }
    case "sampling/createMessage":
      return Option.isSome(handlers.sampling)
    case "roots/list":
      return Option.isSome(handlers.roots)
  }
}
