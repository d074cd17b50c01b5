/**
 * What an input handler (`ElicitationHandler`, `SamplingHandler`,
 * `RootsHandler`) is told about the question it answers, besides the
 * question itself.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr.
 *
 * @since 0.1.0
 */

/**
 * The context of one input request:
 *
 * - `key`: the server-chosen key of the input request in `inputRequests`
 *   (the answer goes back under the same key in `inputResponses`).
 * - `method`: the request being retried: `tools/call`, `prompts/get` or
 *   `resources/read`.
 * - `target`: the tool or prompt name, or the resource URI.
 * - `round`: 1-based number of the exchange whose result asked the question.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (InputRequests keys).
 *
 * @since 0.1.0
 */
export interface InputContext {
  readonly key: string
  readonly method: string
  readonly target: string
  readonly round: number
}
