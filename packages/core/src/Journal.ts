/**
 * The replay journal: the serialized continuation of a suspended handler.
 *
 * JavaScript cannot serialize a closure, so a suspended handler is its code
 * plus this journal: the answers received so far (each pinned to a digest of
 * the exact question), the encoded results of `Mrtr.step`s, the round number,
 * and the questions left pending. Resuming runs the handler from the top
 * against the journal. The journal travels sealed inside `requestState`, in
 * a compact JSON form (keys shortened, an accepted answer stored as its
 * content; `internal/journalWire.ts`, state format `v2`); the server keeps
 * nothing between rounds. This schema is the journal's decoded form (what a
 * `TaskStore` keeps).
 * Source: MCP 2026-07-28, basic/patterns/mrtr ("requestState").
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * One recorded answer: `d` is the question digest (22 base64url characters,
 * SHA-256/128 of method + canonical params) and `r` the client's raw
 * `InputResponse`, re-decoded on every replay.
 *
 * @category schemas
 * @since 0.1.0
 */
export const RecordedAnswer = Schema.Struct({
  d: Schema.String,
  r: Schema.Unknown
})

/**
 * The journal, version 1:
 * - `round`: how many `input_required` results this conversation has produced;
 * - `answers`: ask key → recorded answer;
 * - `steps`: `Mrtr.step` name → its result encoded with the step's JSON codec;
 * - `pending`: ask key → digest of the question left unanswered last round
 *   (an incoming response for that key is accepted only for that question);
 * - `waited` (optional, absent when 0): how many of those rounds only waited
 *   for something outside the conversation (every pending ask a `waiting`
 *   one, e.g. a secure elicitation's page not completed yet); they do not
 *   count toward `maxRounds`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Journal = Schema.Struct({
  v: Schema.Literal(1),
  round: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  answers: Schema.Record(Schema.String, RecordedAnswer),
  steps: Schema.Record(Schema.String, Schema.Unknown),
  pending: Schema.Record(Schema.String, Schema.String),
  waited: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)))
})

/**
 * The decoded journal.
 *
 * @category models
 * @since 0.1.0
 */
export type Journal = typeof Journal.Type

/**
 * The journal of a conversation's first round: nothing recorded yet.
 *
 * @category constructors
 * @since 0.1.0
 */
export const empty: Journal = { v: 1, round: 0, answers: {}, steps: {}, pending: {} }
