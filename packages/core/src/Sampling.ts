/**
 * Sampling asks: request an LLM completion from the client, in direct style.
 *
 * `yield* Sampling.createMessage({ messages, maxTokens })` returns the
 * client's `CreateMessageResult`.
 * Source: MCP 2026-07-28, client/sampling; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import { type CreateMessageRequestParams, CreateMessageResult } from "@mrtr/protocol/Schema"
import type { Effect } from "effect"
import { Result, Schema } from "effect"
import { Conversation } from "./Conversation.ts"
import type { MissingClientCapability } from "./Errors.ts"

/**
 * The options of a sampling ask: the spec's `CreateMessageRequestParams`
 * (`messages`, `maxTokens`, optional `systemPrompt`, `temperature`,
 * `modelPreferences`, `tools`, ...) plus `key` (default `sampling-<n>` by
 * program order).
 *
 * @category models
 * @since 0.1.0
 */
export type CreateMessageOptions = Omit<CreateMessageRequestParams, "_meta"> & { readonly key?: string | undefined }

const decodeResult = Schema.decodeUnknownOption(CreateMessageResult)

/**
 * Asks the client to sample a message from a model and returns its
 * `CreateMessageResult` (`{ role, content, model, stopReason? }`).
 *
 * Input request: `{ method: "sampling/createMessage", params }`. Needs the
 * client capability `sampling`; `sampling.tools` when `tools` or `toolChoice`
 * is given; `sampling.context` when `includeContext` is not `"none"`.
 * Fails with `MissingClientCapability`. A response that is not a
 * `CreateMessageResult` is treated as missing and asked again.
 *
 * @category constructors
 * @since 0.1.0
 */
export const createMessage = (
  options: CreateMessageOptions
): Effect.Effect<CreateMessageResult, MissingClientCapability, Conversation> => {
  const { key, ...params } = options
  return Conversation.use((conversation) =>
    conversation.ask({
      kind: "sampling",
      key,
      request: { method: "sampling/createMessage", params: params as CreateMessageRequestParams },
      decode: (_key, response) => {
        const decoded = decodeResult(response)
        return decoded._tag === "Some" ? Result.succeed(decoded.value) : undefined
      }
    })
  )
}

/**
 * The text of a sampled message: its text content blocks joined (an empty
 * string when the model answered with images, audio or tool use only).
 *
 * @category asking
 * @since 0.1.0
 */
export const textOf = (result: CreateMessageResult): string => {
  const blocks: ReadonlyArray<{ readonly type: string; readonly text?: string }> = Array.isArray(result.content)
    ? result.content
    : [result.content as { readonly type: string; readonly text?: string }]
  return blocks.flatMap((block) => (block.type === "text" && typeof block.text === "string" ? [block.text] : [])).join(
    ""
  )
}
