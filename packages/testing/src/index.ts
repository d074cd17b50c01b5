/**
 * `@mrtr/testing`: test Layers that play the user (scripted answers,
 * recorders) and an in-memory client-server harness for `@effect/vitest`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Explore from "./Explore.ts"
/** @since 0.1.0 */
export * as Harness from "./Harness.ts"
/** @since 0.1.0 */
export * as Recorder from "./Recorder.ts"
/** @since 0.1.0 */
export * as ScriptedUser from "./ScriptedUser.ts"
