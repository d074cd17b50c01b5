/**
 * One round of the engine's state, and the `Conversation` its handler asks
 * through: which answers the journal and the request's `inputResponses`
 * give (`answerFor`), the asks still pending with their question digests,
 * the steps, `Task.detach`, and the journal the round leaves
 * (`nextJournal`). `Engine.ts` runs the handler against it and decides how
 * the round ends.
 *
 * Gotchas: the records keyed by wire keys have no prototype (`__proto__`,
 * `toString` are plain keys). An answer is journaled only when its ask
 * decoded it; `Ask.record` is applied only when a journal is made (a round
 * that completes needs none of it). An ask inside `Mrtr.step`, or after the
 * round was decided, is a defect with a message.
 * Source: MCP 2026-07-28, basic/patterns/mrtr.
 *
 * @internal
 */
import { missingCapabilities, requiredCapabilities } from "@mrtr/protocol/Capabilities"
import type { ClientCapabilities, InputRequest, InputResponses } from "@mrtr/protocol/Schema"
import { Effect, Option, Result, Schema } from "effect"
import type { Digest } from "effect/crypto"
import { canonicalProblem, digestWith, knownDigest } from "../Canonical.ts"
import { type Ask, Conversation } from "../Conversation.ts"
import { MissingClientCapability } from "../Errors.ts"
import type * as Journal from "../Journal.ts"
import { type RoundEndWatch, roundEndWatch } from "./roundEnd.ts"

/** An ask waiting for its answer this round. */
export interface PendingAsk {
  readonly digest: string
  readonly request: InputRequest
  /** Pending only because the server waits for something outside the conversation (`Ask.waiting`). */
  readonly waiting: boolean
  /** How many asks of the handler wait for this answer (the same ask may run in two branches). */
  waiters: number
}

/** A fresh object without a prototype: keys from the wire (`__proto__`, `toString`) are plain keys in it. */
export const dictionary = <V>(): Record<string, V> => Object.create(null)

/** `record[key]` when `key` is an own key of `record`, never an inherited member. */
const own = <V>(record: Readonly<Record<string, V>>, key: string): V | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined

/** One round's state, as `Engine.ts` reads it. */
export interface Round {
  /** The `Conversation` service the handler runs with. */
  readonly conversation: Conversation["Service"]
  /** The asks waiting for an answer, by key. */
  readonly pending: ReadonlyMap<string, PendingAsk>
  /** Decides when the handler can make no progress without answers (`internal/roundEnd.ts`). */
  readonly watch: RoundEndWatch
  /** Whether the handler reached `Task.detach` in a request run with `detach`. */
  readonly isDetached: () => boolean
  /** Called (once) when the handler reaches `Task.detach` later in the round. */
  readonly onDetach: (listener: () => void) => void
  /**
   * The journal after this round: what was answered and stepped, the digests
   * of `asked` (the pending asks; none when the handler detached), and
   * `waited`, the count of rounds that only waited.
   */
  readonly nextJournal: (round: number, asked: ReadonlyMap<string, PendingAsk>, waited: number) => Journal.Journal
}

type Answer = Journal.Journal["answers"][string]

/** Opens a round of `request` against `journal`; question digests by `digestService` (SHA-256, 16 bytes). */
export const open = (
  digestService: Digest.Digest["Service"],
  request: RoundRequest,
  journal: Journal.Journal
): Round => {
  const state = new RoundState(digestService, request, journal)
  return {
    conversation: state.conversation,
    pending: state.pending,
    watch: state.watch,
    isDetached: () => state.detached,
    onDetach: (listener) => {
      state.onDetach = listener
    },
    nextJournal: (round, asked, waited) => state.nextJournal(round, asked, waited)
  }
}

/** What of the engine's `Request` (`Engine.ts`) a round reads; `Request` extends it. */
export interface RoundRequest {
  readonly clientCapabilities: ClientCapabilities
  readonly principal?: string | undefined
  readonly inProcess?: boolean | undefined
  readonly detach?: boolean | undefined
  readonly inputResponses?: InputResponses | undefined
}

/** The state of one round, local to it, and what the handler's asks and steps do with it. */
class RoundState {
  readonly incoming: InputResponses
  /** The asks without a key, counted by kind (their keys are `<kind>-<n>`). */
  readonly counters: Record<string, number> = dictionary()
  /** The answers taken this round (from the journal or the request). */
  readonly answers: Record<string, Answer> = dictionary()
  /** Why an answer taken this round was refused (shown when its key is asked again). */
  readonly refusals = new Map<string, string>()
  /**
   * How the answers taken this round are journaled (`Ask.record`), applied only
   * when a journal is made: a round that completes needs none of it.
   */
  readonly recorders = new Map<string, (response: unknown) => unknown>()
  readonly steps: Record<string, unknown> = dictionary()
  readonly pending = new Map<string, PendingAsk>()
  readonly watch: RoundEndWatch = roundEndWatch(() => this.pending.size > 0)
  /** `Task.detach` reached with `request.detach`: the round ends at once. */
  detached = false
  onDetach: (() => void) | undefined
  readonly conversation: Conversation["Service"]
  /** The conversation inside `Mrtr.step`: an ask there could never be answered (the step would wait for it and the round for the step). */
  readonly inStep: Conversation["Service"]

  constructor(
    readonly digestService: Digest.Digest["Service"],
    readonly request: RoundRequest,
    readonly journal: Journal.Journal
  ) {
    this.incoming = request.inputResponses ?? {}
    this.conversation = Conversation.of({
      clientCapabilities: request.clientCapabilities,
      principal: request.principal,
      inProcess: request.inProcess === true,
      round: journal.round,
      detach: request.detach === true
        ? Effect.suspend(() => {
          if (!this.detached) {
            this.detached = true
            this.onDetach?.()
          }
          return Effect.interruptible(Effect.never)
        })
        : Effect.void,
      ask: (ask) => this.ask(ask),
      step: (name, effect, schema) => this.step(name, effect, schema)
    })
    this.inStep = Conversation.of({
      ...this.conversation,
      ask: (ask) =>
        Effect.die(
          new Error(
            `The ask "${
              ask.key ?? ask.kind
            }" runs inside Mrtr.step; a step is work between asks: ask before or after it`
          )
        )
    })
  }

  /** The answer to `ask` under `key` for the question digested `digest`: the journal's, else the request's; `undefined` when none is taken. */
  answerFor<A, E>(ask: Ask<A, E>, key: string, digest: string): Result.Result<A, E> | undefined {
    const journal = this.journal
    const recorded = own(journal.answers, key)
    if (recorded !== undefined && recorded.d === digest) {
      const outcome = ask.decode(key, recorded.r)
      if (outcome !== undefined) {
        this.answers[key] = recorded
        return outcome
      }
    }
    const incoming = this.incoming
    if (!Object.hasOwn(incoming, key)) return undefined
    const pinned = own(journal.pending, key)
    const acceptable = pinned === undefined ? recorded === undefined : pinned === digest
    if (!acceptable) return undefined
    const response = incoming[key]
    // A value canonical JSON cannot carry would make a question that quotes it undigestable.
    const problem = canonicalProblem(response, `inputResponses/${key}`)
    const outcome = problem === undefined ? ask.decode(key, response) : undefined
    if (outcome !== undefined) {
      this.answers[key] = { d: digest, r: response }
      if (ask.record !== undefined) this.recorders.set(key, ask.record)
    } else if (ask.withReason !== undefined) {
      const reason = ask.explain?.(key, response) ?? (problem === undefined ? undefined : problem.message)
      if (reason !== undefined) this.refusals.set(key, reason)
    }
    return outcome
  }

  /**
   * Counts `effect` as work in progress for as long as it runs, however it
   * ends: the count and its release cannot be separated by an interruption
   * (which could otherwise land between them, at a scheduler yield).
   */
  inFlight<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> {
    const watch = this.watch
    return Effect.acquireUseRelease(
      Effect.sync(() => {
        watch.begin()
        watch.changed()
      }),
      () => effect,
      () => Effect.sync(watch.end)
    )
  }

  /** `Conversation.ask`: the answer at once when there is one, else the ask waits as pending until the round ends. */
  ask<A, E>(ask: Ask<A, E>): Effect.Effect<A, E | MissingClientCapability> {
    return Effect.suspend((): Effect.Effect<A, E | MissingClientCapability> => {
      const watch = this.watch
      if (watch.isStopped()) {
        return Effect.die(
          new Error(
            `The ask "${
              ask.key ?? ask.kind
            }" runs after its round was decided (in a finalizer or an interruption handler); ask in the handler's body`
          )
        )
      }
      let key = ask.key
      if (key === undefined) {
        const n = (this.counters[ask.kind] ?? 0) + 1
        this.counters[ask.kind] = n
        key = `${ask.kind}-${n}`
      }
      const required = requiredCapabilities(ask.request)
      if (missingCapabilities(required, this.request.clientCapabilities) !== undefined) {
        return Effect.fail(new MissingClientCapability({ key, requiredCapabilities: required }))
      }
      const askKey = key
      // The question's digest counts as work in progress, like a step: with
      // an asynchronous `Digest` (WebCrypto) the round must not end before
      // this ask has registered, or concurrent asks land in separate rounds.
      // A question digested before is known at once (the common case: the same
      // asks every round), and needs no bookkeeping.
      const known = knownDigest(ask.request, 16)
      let digested: Effect.Effect<string>
      if (known !== undefined) {
        // a change all the same: a replayed answer is progress of the round
        watch.changed()
        digested = Effect.succeed(known)
      } else {
        digested = this.inFlight(digestWith(this.digestService, ask.request, 16))
      }
      return Effect.flatMap(digested, (digest): Effect.Effect<A, E> => {
        const outcome = this.answerFor(ask, askKey, digest)
        if (outcome !== undefined) {
          return Result.isSuccess(outcome)
            ? Effect.succeed(outcome.success)
            : Effect.fail(outcome.failure)
        }
        return this.waitFor(ask, askKey, digest)
      })
    })
  }

  /**
   * Registers `ask` as pending under `key`, waits (for the round's end), and
   * unregisters it when the handler itself gives up on it; as one, so an
   * interruption cannot fall between the registration and its release.
   */
  waitFor<A, E>(ask: Ask<A, E>, key: string, digest: string): Effect.Effect<A, E> {
    const pending = this.pending
    const watch = this.watch
    return Effect.acquireUseRelease(
      Effect.suspend(() => {
        let entry = pending.get(key)
        if (entry !== undefined && entry.digest !== digest) {
          return Effect.die(
            new Error(`Two different questions use the ask key "${key}" in one round; give each ask its own key`)
          )
        }
        if (entry === undefined) {
          // Asked again after a refused answer: the reason is shown, the digest stays the question's.
          const reason = this.refusals.get(key)
          const shown = reason === undefined || ask.withReason === undefined ? ask.request : ask.withReason(reason)
          entry = { digest, request: shown, waiting: ask.waiting === true, waiters: 0 }
          pending.set(key, entry)
          watch.changed()
        }
        entry.waiters++
        return Effect.succeed(entry)
      }),
      // Interruptible even inside an uninterruptible region of the
      // handler (an `acquire`), so the round can always end here.
      () => Effect.interruptible(Effect.never),
      (entry) =>
        Effect.sync(() => {
          // The handler itself gave up on the answer (a race, a timeout):
          // unless the round is over, the question is no longer asked.
          if (watch.isStopped()) return
          entry.waiters--
          if (entry.waiters === 0 && pending.get(key) === entry) {
            pending.delete(key)
            watch.changed()
          }
        })
    )
  }

  /** `Conversation.step`: the journaled result (this round's or an earlier one's), else `effect`'s, journaled. */
  step<A, E, R>(
    name: string,
    effect: Effect.Effect<A, E, R>,
    schema: Schema.Codec<A, any, never, never>
  ): Effect.Effect<A, E, R> {
    return Effect.suspend(() => {
      const codec = Schema.toCodecJson(schema)
      const replay = (encoded: unknown) => Schema.decodeUnknownOption(codec)(encoded)
      const steps = this.steps
      if (Object.hasOwn(steps, name)) {
        const again = replay(steps[name])
        if (Option.isSome(again)) return Effect.succeed(again.value)
      }
      const journaled = this.journal.steps
      if (Object.hasOwn(journaled, name)) {
        const recorded = replay(journaled[name])
        if (Option.isSome(recorded)) {
          steps[name] = journaled[name]
          return Effect.succeed(recorded.value)
        }
      }
      return this.inFlight(
        effect.pipe(
          Effect.provideService(Conversation, this.inStep),
          Effect.tap((value) =>
            Effect.sync(() => {
              steps[name] = Schema.encodeSync(codec)(value)
            })
          ),
          // Only a step that runs has a span (a replayed one does not): what a test observes to check that a
          // step runs once per conversation.
          Effect.withSpan("mrtr.step", { attributes: { "mrtr.step.name": name } }, { captureStackTrace: false })
        )
      )
    })
  }

  /** See `Round.nextJournal`. */
  nextJournal(round: number, asked: ReadonlyMap<string, PendingAsk>, waited: number): Journal.Journal {
    const { answers, incoming, journal } = this
    const pendingDigests: Record<string, string> = dictionary()
    for (const [key, ask] of asked) pendingDigests[key] = ask.digest
    // Answers the handler did not reach this round (its path changed before
    // them) are kept, so the client is not asked the same question twice.
    // (Copied key by key: `Object.assign` between prototype-less records is several times slower.)
    const kept: Record<string, Answer> = dictionary()
    for (const key of Object.keys(journal.answers)) kept[key] = journal.answers[key]!
    for (const key of Object.keys(journal.pending)) {
      if (
        Object.hasOwn(incoming, key) && !this.pending.has(key) && !Object.hasOwn(answers, key) &&
        canonicalProblem(incoming[key]) === undefined
      ) kept[key] = { d: journal.pending[key]!, r: incoming[key] }
    }
    for (const [key, record] of this.recorders) {
      const answer = answers[key]
      if (answer !== undefined) answers[key] = { d: answer.d, r: record(answer.r) }
    }
    for (const key of Object.keys(answers)) kept[key] = answers[key]!
    return {
      v: 1,
      round,
      answers: kept,
      steps: this.steps,
      pending: pendingDigests,
      ...(waited === 0 ? {} : { waited })
    }
  }
}
