/**
 * The agent's model: `@effect/ai-openai`'s `LanguageModel` (the OpenAI Responses API, `POST {baseUrl}/responses`)
 * at any endpoint that speaks it (OpenAI, or a local llama.cpp, vLLM or Ollama server), configured by `Config`:
 *
 * - `OPENAI_BASE_URL`: the API's base URL (default `https://api.openai.com/v1`; a local server's `.../v1`),
 * - `OPENAI_API_KEY`: the bearer token (optional: local servers take none),
 * - `OPENAI_MODEL`: the model's name (default `gpt-4.1-mini`).
 */
import { OpenAiClient, OpenAiLanguageModel } from "@effect/ai-openai"
import { Config, Effect, Layer, Option } from "effect"
import type { LanguageModel } from "effect/ai"
import { FetchHttpClient } from "effect/http"

// #region config
/** What the agent reads from its environment (or any `ConfigProvider`). */
export const ModelConfig = Config.all({
  baseUrl: Config.String("OPENAI_BASE_URL").pipe(Config.withDefault("https://api.openai.com/v1")),
  apiKey: Config.option(Config.Redacted("OPENAI_API_KEY")),
  model: Config.String("OPENAI_MODEL").pipe(Config.withDefault("gpt-4.1-mini"))
})

/** The `LanguageModel` of the configured endpoint and model. */
export const layer: Layer.Layer<LanguageModel.LanguageModel, Config.ConfigError> = Layer.unwrap(
  Effect.gen(function*() {
    const { apiKey, baseUrl, model } = yield* ModelConfig
    return OpenAiLanguageModel.layer({ model }).pipe(
      Layer.provide(OpenAiClient.layer({ apiUrl: baseUrl, apiKey: Option.getOrUndefined(apiKey) })),
      Layer.provide(FetchHttpClient.layer)
    ) as Layer.Layer<LanguageModel.LanguageModel> // the beta's declarations lose the provided requirement's type
  })
)
// #endregion config

/** The configured model's name, as the agent reports it to servers that sample. */
export const modelName: Effect.Effect<string, Config.ConfigError> = Effect.map(ModelConfig, (config) => config.model)
