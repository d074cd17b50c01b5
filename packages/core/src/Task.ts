/**
 * Tasks (SEP-2663, the `io.modelcontextprotocol/tasks` extension) as a
 * handler sees them: one call, {@link detach}, marks where a tool's work goes
 * asynchronous, and {@link TaskSupport} is the tool's server-side policy.
 *
 * Before `Task.detach`, asks are MRTR rounds of the original `tools/call`
 * (`InputRequiredResult`s, answered synchronously). At it, when the request
 * may become a task, the round ends and the server answers `CreateTaskResult`;
 * the task then replays the handler from the top with the answers and steps
 * journaled so far, and its later asks (the same `Elicitation.form`,
 * `Sampling.createMessage`, `Roots.list`) become the task's `input_required`
 * status, answered through `tasks/update`. When the request cannot become a
 * task (policy `forbidden`, or `optional` without the client's declaration),
 * `Task.detach` does nothing and the handler runs on synchronously.
 *
 * Gotcha: as in MRTR, the handler is replayed from the top after every round
 * of input (on whichever server instance resumes the task): between asks it
 * must take the same path; expensive or non-deterministic work goes inside
 * `Mrtr.step`, whose result is journaled.
 * Source: SEP-2663 (ext-tasks `specification/draft/tasks.md`, §Task Creation,
 * §Composition with Multi Round-Trip Requests).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Conversation } from "./Conversation.ts"

/**
 * A tool's task policy (server-side only; not a wire field in 2026-07-28):
 *
 * - `forbidden`: always synchronous (`Task.detach` does nothing);
 * - `optional`: a task when the request declared the Tasks extension
 *   (`_meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"]`),
 *   else synchronous;
 * - `required`: a task; a request without the declaration is refused with
 *   `-32021` (MissingRequiredClientCapability) before the handler runs.
 *
 * @category models
 * @since 0.1.0
 */
export type TaskSupport = "forbidden" | "optional" | "required"

/**
 * Where a task-eligible tool goes asynchronous:
 *
 * - `"call"` (default): at once, before the handler runs; every ask is task
 *   input (`tasks/get` / `tasks/update`);
 * - `"detach"`: where the handler yields {@link detach}; asks before it are
 *   MRTR rounds of the `tools/call` itself. A handler that completes without
 *   reaching it answers synchronously.
 *
 * @category models
 * @since 0.1.0
 */
export type TaskStart = "call" | "detach"

/**
 * Marks the point where the handler's work goes asynchronous (see the
 * module's header). Never fails. Outside a request that may become a task
 * (and outside any server) it does nothing.
 *
 * **Example** (Asking before and after becoming a task)
 *
 * ```ts
 * import { Elicitation, Task } from "@mrtr/core"
 * import { Effect, Schema } from "effect"
 *
 * const Name = Schema.Struct({ name: Schema.String })
 * const Ok = Schema.Struct({ ok: Schema.Boolean })
 *
 * const handler = () =>
 *   Effect.gen(function*() {
 *     const { name } = yield* Elicitation.form({ key: "user_name", message: "Name?", schema: Name }) // MRTR round
 *     yield* Task.detach // CreateTaskResult
 *     const { ok } = yield* Elicitation.form({ key: "ok", message: "Go on?", schema: Ok }) // task input
 *     return ok ? `Hello, ${name}!` : "Stopped."
 *   })
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const detach: Effect.Effect<void> = Effect.flatMap(
  Effect.serviceOption(Conversation),
  (conversation) =>
    conversation._tag === "Some" && conversation.value.detach !== undefined ? conversation.value.detach : Effect.void
)
