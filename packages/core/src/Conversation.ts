/**
 * The per-request context that asks and steps talk to.
 *
 * `Mrtr.run` provides a `Conversation` to the handler it runs. An ask
 * (`Elicitation.form`, `Sampling.createMessage`, `Roots.list`) checks the
 * request's `clientCapabilities`, then looks for its answer in the replay
 * journal and the request's `inputResponses`; without one it registers its
 * input request and waits, and the round closes once the handler can make no
 * further progress. A `Mrtr.step` replays its journaled result or runs once.
 * Handler code never uses this module directly: it is the contract between
 * the asks and the engine.
 * Source: MCP 2026-07-28, basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import type { ClientCapabilities, InputRequest } from "@mrtr/protocol/Schema"
import type { Effect, Result, Schema } from "effect"
import { Context } from "effect"
import type { MissingClientCapability } from "./Errors.ts"

/**
 * The kinds of input an ask can request: elicitation (`elicitation/create`),
 * sampling (`sampling/createMessage`) and roots (`roots/list`).
 *
 * @category models
 * @since 0.1.0
 */
export type AskKind = "elicitation" | "sampling" | "roots"

/**
 * One ask, as the engine sees it.
 *
 * - `key`: the `inputRequests` key; when absent the engine derives
 *   `<kind>-<n>` from the kind and program order (n counts from 1).
 * - `request`: the `InputRequest` sent to the client (`{ method, params }`).
 * - `decode`: turns a client's raw `InputResponse` into the ask's outcome, a
 *   success or one of its typed failures; `undefined` when the response is of
 *   the wrong kind or shape, in which case the question is asked again.
 * - `record` (optional): the response as the replay journal keeps it, called
 *   once `decode` gave it an outcome; by default the response as received. It
 *   must decode to the same outcome: it drops what `decode` ignores (unknown
 *   keys), so that a client cannot grow the sealed `requestState` with them.
 * - `explain` (optional): for a response `decode` refused, why, in plain
 *   words for the person answering (e.g. `"email" must be an email address`).
 * - `waiting` (optional): the ask is pending only because the server waits
 *   for something outside the conversation (a secure elicitation whose page
 *   is not completed yet): a round whose pending asks are all waiting ones
 *   does not count toward `maxRounds` (the thing waited for must expire).
 * - `withReason` (optional): the input request to send when the key is asked
 *   again after a refusal, presenting `reason` (a form puts it in its
 *   `message`). Presentation only: the engine pins the next answer to the
 *   digest of `request`, so the handler's question on replay accepts it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Ask<A, E> {
  readonly kind: AskKind
  readonly key?: string | undefined
  readonly request: InputRequest
  readonly decode: (key: string, response: unknown) => Result.Result<A, E> | undefined
  readonly record?: ((response: unknown) => unknown) | undefined
  readonly explain?: ((key: string, response: unknown) => string | undefined) | undefined
  readonly withReason?: ((reason: string) => InputRequest) | undefined
  readonly waiting?: boolean | undefined
}

/**
 * The service behind every ask and step of one request.
 *
 * - `clientCapabilities`: the capabilities the request declared.
 * - `principal`: the authenticated user the request (and its sealed state)
 *   is bound to, when there is one.
 * - `inProcess`: the next round runs in this process (the 2025-11-25 shim,
 *   a task), not on a client's retry (see `Engine.Request.inProcess`).
 * - `ask`: fails with `MissingClientCapability` when the request did not
 *   declare what the input request needs; otherwise returns the answer or
 *   suspends the handler until the next round.
 * - `step`: see `Mrtr.step`.
 * - `detach` (optional): what `Task.detach` does; absent or `Effect.void`
 *   when the request cannot become a task (the handler runs on).
 *
 * @category services
 * @since 0.1.0
 */
export class Conversation extends Context.Service<Conversation, {
  readonly clientCapabilities: ClientCapabilities
  readonly principal?: string | undefined
  readonly inProcess?: boolean | undefined
  readonly round: number
  readonly ask: <A, E>(ask: Ask<A, E>) => Effect.Effect<A, E | MissingClientCapability>
  readonly step: <A, E, R>(
    name: string,
    effect: Effect.Effect<A, E, R>,
    schema: Schema.Codec<A, any, never, never>
  ) => Effect.Effect<A, E, R>
  readonly detach?: Effect.Effect<void> | undefined
}>()("@mrtr/core/Conversation") {}
