/**
 * `@mrtr/core`: the MRTR continuation engine. Handlers ask in direct style
 * (`Elicitation`, `Sampling`, `Roots`), journal expensive work with
 * `Mrtr.step`, and are suspended into a sealed `requestState` by `Mrtr.run`.
 * Knows nothing of transports.
 *
 * The engine's plumbing (`Engine`, `Conversation`, `Journal`, `Canonical`,
 * `InteractionLinks`, `InteractionSeal`) is under `@mrtr/core/engine`, for `@mrtr/server`'s use.
 *
 * @since 0.1.0
 */

/** @since 0.2.0 */
export * as ClientAddress from "./ClientAddress.ts"
/** @since 0.1.0 */
export * as Elicitation from "./Elicitation.ts"
/** @since 0.1.0 */
export * as ElicitationSchema from "./ElicitationSchema.ts"
/** @since 0.1.0 */
export * from "./Errors.ts"
export {
  /**
   * @category errors
   * @since 0.4.0
   */
  InvalidOption
} from "./InvalidOption.ts"
/** @since 0.1.0 */
export * as InteractionStore from "./InteractionStore.ts"
/** @since 0.1.0 */
export * as Mrtr from "./Mrtr.ts"
/** @since 0.1.0 */
export * as RequestState from "./RequestState.ts"
/** @since 0.1.0 */
export * as Roots from "./Roots.ts"
/** @since 0.1.0 */
export * as Sampling from "./Sampling.ts"
/** @since 0.1.0 */
export * as Task from "./Task.ts"
