/**
 * `@mrtr/core/engine`: the continuation engine's plumbing, what `@mrtr/server`
 * builds its transports and task runner on. Unstable: any release may change
 * it. A handler author needs none of it (`@mrtr/core`'s `Elicitation`,
 * `Sampling`, `Roots`, `Mrtr`, `Task` and `RequestState` are the public API).
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Canonical from "../Canonical.ts"
/** @since 0.1.0 */
export * as Conversation from "../Conversation.ts"
/** @since 0.1.0 */
export * as Engine from "../Engine.ts"
/** @since 0.1.0 */
export * as InteractionLinks from "../InteractionLinks.ts"
/** @since 0.4.0 */
export * as InteractionSeal from "../InteractionSeal.ts"
/** @since 0.1.0 */
export * as Journal from "../Journal.ts"
