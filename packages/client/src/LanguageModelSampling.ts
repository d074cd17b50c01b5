/**
 * `LanguageModelSampling`: a `SamplingHandler` answered by the app's own
 * `effect/ai` `LanguageModel`, so a server's `sampling/createMessage` runs
 * on the model the app already uses.
 *
 * The request becomes a `generateText` call: `systemPrompt` the first
 * (system) message, each message's text, image and audio blocks text and
 * file parts, `tool_use` / `tool_result` blocks tool calls and results. The
 * server's `tools` are given to the model as tools it may call, never run
 * here: the model's calls go back to the server as `tool_use` blocks with
 * `stopReason: "toolUse"` (MCP sampling with tools; the server runs them
 * and samples again). `toolChoice.mode` is `effect/ai`'s `toolChoice`.
 * The result's `model` is the model id the response reports, else
 * `modelName`; `stopReason` maps `stop` to `endTurn`, `length` to
 * `maxTokens`, `tool-calls` to `toolUse`, `content-filter` to `refusal`.
 *
 * Gotchas:
 * - `effect/ai` has no provider-neutral generation settings: `maxTokens`,
 *   `temperature` and `stopSequences` reach the model through `withSettings`
 *   (for instance a provider's `withConfigOverride`); without it they are
 *   only recorded in telemetry.
 * - `modelPreferences` (hints, cost / speed / intelligence priorities) go to
 *   `selectModel`, which may return the Layer of another `LanguageModel`.
 * - `includeContext` is deprecated: the client declares `sampling.context`
 *   only with an `includeContext` hook; otherwise a request asking for
 *   context gets none.
 * - Each request is a span (`LanguageModelSampling.createMessage`) with
 *   `effect/ai`'s GenAI attributes: the request's settings, the model,
 *   the finish reason and the token usage.
 * - A model failure fails the call with `InputHandlerError` (the server is
 *   answered an error, never a made-up message).
 *
 * Source: MCP 2026-07-28, client/sampling (deprecated by SEP-2577 but still
 * part of the revision).
 *
 * @since 0.1.0
 */
import type { CreateMessageRequestParams, CreateMessageResult, ModelPreferences } from "@mrtr/protocol/Schema"
import type { Layer } from "effect"
import { Effect, Option } from "effect"
import { type AiError, LanguageModel, type Prompt, Telemetry, type Toolkit } from "effect/ai"
import { InputHandlerError } from "./Errors.ts"
import type { InputContext } from "./InputContext.ts"
import * as Mapping from "./internal/samplingMapping.ts"
import * as Sampling from "./SamplingHandler.ts"

/**
 * The generation settings of a sampling request, for `withSettings`.
 *
 * MCP 2026-07-28, client/sampling.
 *
 * @category models
 * @since 0.1.0
 */
export interface Settings {
  readonly maxTokens: number
  readonly temperature?: number | undefined
  readonly stopSequences?: ReadonlyArray<string> | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
}

/**
 * Options of `layer`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * Picks the model of a request from its `modelPreferences`: the Layer of the `LanguageModel` to use, or
   * `undefined` for the one in context.
   * @default the `LanguageModel` in context
   */
  readonly selectModel?:
    | ((
      preferences: ModelPreferences | undefined,
      params: CreateMessageRequestParams
    ) => Layer.Layer<LanguageModel.LanguageModel> | undefined)
    | undefined
  /** The `model` reported when the model's response names none. @default "unknown" */
  readonly modelName?: string | undefined
  /**
   * Applies a request's `maxTokens`, `temperature` and `stopSequences` to the model call (e.g. a provider's
   * `withConfigOverride`).
   * @default the settings are recorded in telemetry only
   */
  readonly withSettings?:
    | ((settings: Settings) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>)
    | undefined
  /**
   * Answers `includeContext` (`"thisServer"` / `"allServers"`): messages put after the system prompt. Declares
   * `sampling.context`.
   * @default not declared; no context is added
   */
  readonly includeContext?:
    | ((
      which: "thisServer" | "allServers",
      params: CreateMessageRequestParams
    ) => Effect.Effect<ReadonlyArray<Prompt.Message>>)
    | undefined
  /** Whether servers may offer tools in sampling (declares `sampling.tools`). @default true */
  readonly tools?: boolean | undefined
}

type Answer = LanguageModel.GenerateTextResponse<any, any>

const settingsOf = (params: CreateMessageRequestParams): Settings => ({
  maxTokens: params.maxTokens,
  ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
  ...(params.stopSequences === undefined ? {} : { stopSequences: params.stopSequences }),
  ...(params.metadata === undefined ? {} : { metadata: params.metadata })
})

/**
 * Answers one `sampling/createMessage` with the `LanguageModel` in context
 * (or the one `selectModel` picks).
 *
 * MCP 2026-07-28, client/sampling.
 *
 * @category constructors
 * @since 0.1.0
 */
export const createMessage = (options: Options = {}) =>
(
  params: CreateMessageRequestParams,
  context: InputContext
): Effect.Effect<CreateMessageResult, InputHandlerError, LanguageModel.LanguageModel> =>
  Effect.gen(function*() {
    const which = params.includeContext
    const extra = which === undefined || which === "none" || options.includeContext === undefined
      ? []
      : yield* options.includeContext(which, params)
    const prompt = Mapping.promptOf(params, extra)
    const offered = options.tools === false ? [] : params.tools ?? []
    const toolkit: Toolkit.WithHandler<Record<string, any>> = {
      tools: Mapping.toolsOf(offered),
      handle: () => Effect.die("sampling tools are run by the server, never by the client") as any
    }
    const settings = settingsOf(params)
    let call: Effect.Effect<Answer, AiError.AiError, LanguageModel.LanguageModel> = offered.length === 0
      ? LanguageModel.generateText({ prompt })
      : LanguageModel.generateText({
        prompt,
        toolkit,
        toolChoice: Mapping.toolChoiceOf(params.toolChoice),
        disableToolCallResolution: true
      }) as Effect.Effect<Answer, AiError.AiError, LanguageModel.LanguageModel>
    if (options.withSettings !== undefined) call = options.withSettings(settings)(call)
    const model = options.selectModel?.(params.modelPreferences, params)
    const response = yield* (model === undefined ? call : Effect.provide(call, model))
    const content = Mapping.contentOf(response.content)
    const metadata = response.content.find((part) => part.type === "response-metadata")
    const modelId = metadata?.modelId ?? options.modelName ?? "unknown"
    const stopReason = Mapping.stopReasonOf(response.finishReason)
    const span = yield* Effect.currentSpan.pipe(Effect.option)
    if (Option.isSome(span)) {
      Telemetry.addGenAIAnnotations(span.value, {
        operation: { name: "chat" },
        request: {
          maxTokens: settings.maxTokens,
          temperature: settings.temperature,
          stopSequences: settings.stopSequences
        },
        response: { model: modelId, finishReasons: [response.finishReason] },
        usage: { inputTokens: response.usage.inputTokens.total, outputTokens: response.usage.outputTokens.total }
      })
    }
    return {
      role: "assistant" as const,
      content: content.length === 1 ? content[0]! : content,
      model: modelId,
      stopReason
    }
  }).pipe(
    Effect.catch((error: AiError.AiError) =>
      Effect.fail(
        new InputHandlerError({ kind: "sampling", key: context.key, reason: `the model failed: ${error.message}` })
      )
    ),
    Effect.withSpan("LanguageModelSampling.createMessage", {
      attributes: { "mcp.sampling.key": context.key, "mcp.sampling.target": context.target }
    })
  )

/**
 * A `SamplingHandler` answered by the `LanguageModel` in context: the
 * client declares `sampling` (with `tools` unless `tools: false`, and
 * `context` when `includeContext` is given), as for any `SamplingHandler`.
 *
 * MCP 2026-07-28, client/sampling.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  options: Options = {}
): Layer.Layer<Sampling.SamplingHandler, never, LanguageModel.LanguageModel> =>
  Sampling.layer({
    createMessage: createMessage(options),
    tools: options.tools ?? true,
    context: options.includeContext !== undefined
  })
