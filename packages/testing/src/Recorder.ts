/**
 * `Recorder`: captures every question the server asked the (scripted) user,
 * with the answer given, so tests can assert on them.
 *
 * `ScriptedUser.layer` provides one and records into it; tests read it with
 * `Recorder.questions`.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr (input requests).
 *
 * @since 0.1.0
 */
import type { InputContext as InputContextModule } from "@mrtr/client"
import type { InputRequest, InputResponse } from "@mrtr/protocol/Schema"
import { Context, Effect, Layer, Ref } from "effect"

/**
 * One recorded question:
 *
 * - `kind`: `"elicitation"`, `"sampling"` or `"roots"`.
 * - `key`, `method`, `target`, `round`: see `InputContext` (the input
 *   request's key, the request being retried, its tool / prompt / URI, the
 *   1-based exchange that asked).
 * - `request`: the input request as the server sent it (`{ method, params }`).
 * - `answer`: what the scripted user answered, or `undefined` when the
 *   handler failed (no scripted answer).
 *
 * MCP 2026-07-28, basic/patterns/mrtr (input requests).
 *
 * @category models
 * @since 0.1.0
 */
export interface Question extends InputContextModule.InputContext {
  readonly kind: "elicitation" | "sampling" | "roots"
  readonly request: InputRequest
  readonly answer: InputResponse | undefined
}

/**
 * The recorder service: `record` appends a question, `questions` returns all
 * of them in the order they were answered, `clear` forgets them.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (input requests).
 *
 * @category services
 * @since 0.1.0
 */
export class Recorder extends Context.Service<Recorder, {
  readonly record: (question: Question) => Effect.Effect<void>
  readonly questions: Effect.Effect<ReadonlyArray<Question>>
  readonly clear: Effect.Effect<void>
}>()("@mrtr/testing/Recorder") {}

/**
 * Builds an empty recorder.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (input requests).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<Recorder["Service"]> = Effect.map(
  Ref.make<ReadonlyArray<Question>>([]),
  (ref) =>
    Recorder.of({
      record: (question) => Ref.update(ref, (all) => [...all, question]),
      questions: Ref.get(ref),
      clear: Ref.set(ref, [])
    })
)

/**
 * A fresh recorder as a Layer.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (input requests).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Recorder> = Layer.effect(Recorder, make)

/**
 * Every recorded question so far.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (input requests).
 *
 * @category accessors
 * @since 0.1.0
 */
export const questions: Effect.Effect<ReadonlyArray<Question>, never, Recorder> = Recorder.use((r) => r.questions)

/**
 * The recorded questions of one kind.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (input requests).
 *
 * @category accessors
 * @since 0.1.0
 */
export const questionsOf = (
  kind: Question["kind"]
): Effect.Effect<ReadonlyArray<Question>, never, Recorder> =>
  Effect.map(questions, (all) => all.filter((q) => q.kind === kind))

/**
 * Forgets every recorded question.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (input requests).
 *
 * @category combinators
 * @since 0.1.0
 */
export const clear: Effect.Effect<void, never, Recorder> = Recorder.use((r) => r.clear)
