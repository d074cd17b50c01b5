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
 *   (the answer goes back under the same key in `inputResponses`). For a
 *   request a 2025-11-25 server sends in flight, which carries no key: the
 *   key the server's engine derives for an ask without an explicit one,
 *   `<kind>-<n>` (`elicitation-1`, `sampling-1`, `roots-1`, numbered per kind
 *   in arrival order within the call).
 * - `method`: the request being retried: `tools/call`, `prompts/get` or
 *   `resources/read`.
 * - `target`: the tool or prompt name, or the resource URI.
 * - `round`: 1-based number of the exchange whose result asked the question
 *   (always 1 for a 2025-11-25 in-flight request: the call is one exchange).
 *
 * MCP 2026-07-28, basic/patterns/mrtr (InputRequests keys).
 *
 * @category models
 * @since 0.1.0
 */
export interface InputContext {
  readonly key: string
  readonly method: string
  readonly target: string
  readonly round: number
}
