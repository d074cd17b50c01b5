/**
 * The handler-facing entry points of the continuation engine besides the
 * asks: `step` for work that must run once per conversation, `all` for asks
 * that belong in one round, and `run`, which the server calls once per round.
 *
 * **Determinism rule.** A suspended handler is resumed by running it again
 * from the top against its replay journal. Between asks, a handler must take
 * the same path given the same answers: anything non-deterministic or
 * expensive (I/O, time, randomness) goes inside `Mrtr.step`, whose result is
 * journaled and replayed. Asks must not be raced against timers.
 * Source: MCP 2026-07-28, basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import { Effect, type Schema } from "effect"
import { Conversation } from "./Conversation.ts"

export {
  /**
   * Runs one round of a handler; see `Engine.run`.
   *
   * @category models
   * @since 0.1.0
   */
  run
} from "./Engine.ts"

/**
 * Runs `effect` once per conversation and journals its result.
 *
 * On the first run the effect runs and its value is encoded with `schema`'s
 * JSON codec into the replay journal; on every later round of the same
 * conversation the value is decoded from the journal and the effect does not
 * run. `name` must be unique within the handler. A step that fails is not
 * journaled (it runs again next round if the handler reaches it). When a
 * journaled value no longer decodes (the schema changed), the step runs again.
 * A step is work between asks: an ask inside `effect` dies with a defect
 * that says so (it could never be answered while the step waits for it).
 *
 * @category combinators
 * @since 0.1.0
 */
export const step = <A, E, R>(
  name: string,
  effect: Effect.Effect<A, E, R>,
  schema: Schema.Codec<A, any, never, never>
): Effect.Effect<A, E, R | Conversation> => Conversation.use((conversation) => conversation.step(name, effect, schema))

/**
 * Runs asks (or any effects) concurrently, so that every unanswered ask among
 * them lands in the same round: `Effect.all(effects, { concurrency: "unbounded" })`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const all = <
  const Arg extends Iterable<Effect.Effect<any, any, any>> | Record<string, Effect.Effect<any, any, any>>
>(
  effects: Arg
) => Effect.all(effects, { concurrency: "unbounded" })

/**
 * The round of the conversation the handler runs in: 0 on the first request,
 * n after n `input_required` results.
 *
 * @category accessors
 * @since 0.1.0
 */
export const round: Effect.Effect<number, never, Conversation> = Conversation.useSync((c) => c.round)
