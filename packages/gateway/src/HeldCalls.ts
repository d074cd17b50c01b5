/**
 * Upstream calls held open between a 2026-07-28 client's rounds: when a
 * 2025-11-25 upstream asks in flight (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`) and waits, the gateway keeps that
 * call running here, turns its questions into `input_required` rounds, and
 * gives the answers of the client's retry to the waiting call, so the
 * upstream does not start over on each round.
 *
 * A held call is named by an id (`<instance>.<random>`) journaled in the
 * gateway's sealed `requestState`; the retry carrying it reaches the call
 * through {@link HeldCalls}:
 *
 * - {@link layerMemory}: this process only. A retry that reaches another
 *   process (a restart, a fleet without affinity) finds no call and the
 *   gateway replays: it calls the upstream again and answers the questions it
 *   repeats from the journal.
 * - {@link layerRedis}: a fleet. A retry landing on another instance is
 *   forwarded over Redis pub/sub (channel `<prefix>instance:<id>`) to the
 *   instance holding the call, which answers with the call's next step; when
 *   that instance is gone (nobody listens on its channel) the gateway
 *   replays, as above.
 *
 * Bounds: at most `maxHeld` calls held by the instance and `maxPerPrincipal`
 * per principal (the gateway holds a call without a principal in the share
 * of its client address's group, IPv6 by /48; the store counts it as one
 * principal, as it does calls with no address at all); past either,
 * starting a call fails with {@link HeldCallsFull} (the forwarded request is
 * refused with -32603, `data.reason: "held_calls_full"`). A call no retry has
 * reached for `timeout` (keep it at the gateway's `requestState` TTL: a state
 * that has expired cannot reach it anyway) is interrupted, and so is its
 * upstream request.
 *
 * Gotchas: a held call is bound to the principal that started it; another
 * principal's retry does not reach it (it replays instead, under its own
 * principal). Answers are handed to the call once, whatever the number of
 * retries carrying them.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr (`requestState`); MCP
 * 2025-11-25, client/elicitation, client/sampling, client/roots.
 *
 * @since 0.3.0
 */
import { McpError } from "@mrtr/protocol/ErrorCode"
import type { InputRequest } from "@mrtr/protocol/Schema"
import { Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Queue, Schema, Scope } from "effect"
import * as Redis from "effect/persistence/Redis"

/**
 * One question a held call waits on: its key (the client's derived key,
 * `elicitation-1`, ...) and the upstream's request.
 *
 * @since 0.3.0
 * @category models
 */
export interface Question {
  readonly key: string
  readonly request: InputRequest
}

/**
 * What a held call does next, once given the answers it waited on:
 *
 * - `Ask`: it waits on these questions (none of them answered yet);
 * - `Done`: the upstream's result;
 * - `Failed`: the upstream's (or the connection's) JSON-RPC error;
 * - `Unknown`: no such call is held (never was, timed out, its instance is
 *   gone, or another principal's): the caller replays.
 *
 * @since 0.3.0
 * @category models
 */
export type Next =
  | { readonly _tag: "Ask"; readonly questions: ReadonlyArray<Question> }
  | { readonly _tag: "Done"; readonly result: Record<string, unknown> }
  | {
    readonly _tag: "Failed"
    readonly error: { readonly code: number; readonly message: string; readonly data?: unknown }
  }
  | { readonly _tag: "Unknown" }

/**
 * Asks the gateway's client one question for the held call; the call waits
 * for the answer.
 *
 * @since 0.3.0
 * @category models
 */
export type Answer = (question: Question) => Effect.Effect<unknown>

/**
 * The store is full: `scope` says which bound (`"instance"`: `maxHeld`,
 * `"principal"`: `maxPerPrincipal`). Answered -32603 with
 * `data.reason: "held_calls_full"`.
 *
 * @since 0.3.0
 * @category errors
 */
export class HeldCallsFull extends Schema.TaggedError<HeldCallsFull>()("HeldCallsFull", {
  scope: Schema.Literals(["instance", "principal"]),
  max: Schema.Number
}) {
  override get message(): string {
    return `Too many upstream calls held open (${
      this.scope === "instance" ? "on this gateway" : "for this principal"
    }: at most ${this.max})`
  }

  /** The JSON-RPC error the forwarded request is refused with. */
  toMcpError(): McpError {
    return new McpError({ code: -32603, message: this.message, data: { reason: "held_calls_full", scope: this.scope } })
  }
}

/**
 * The held calls of this gateway (and, with {@link layerRedis}, the route to
 * those of the other instances of its fleet).
 *
 * - `newId`: a fresh id naming a call held by this instance.
 * - `start`: holds `run` under `id` for `principal`; `run` asks its questions
 *   through the {@link Answer} it is given and ends with the upstream's result
 *   (or fails with its `McpError`).
 * - `advance`: gives the call `answers` (by question key; each handed over
 *   once) and waits for its {@link Next}.
 * - `cancel`: interrupts the call (its client cannot go on).
 *
 * @since 0.3.0
 * @category services
 */
export class HeldCalls extends Context.Service<HeldCalls, {
  readonly instanceId: string
  readonly newId: Effect.Effect<string>
  readonly start: (
    id: string,
    principal: string | undefined,
    run: (answer: Answer) => Effect.Effect<Record<string, unknown>, McpError>
  ) => Effect.Effect<void, HeldCallsFull>
  readonly advance: (
    id: string,
    principal: string | undefined,
    answers: Readonly<Record<string, unknown>>
  ) => Effect.Effect<Next>
  readonly cancel: (id: string, principal: string | undefined) => Effect.Effect<void>
  /** How many calls this instance holds now. */
  readonly size: Effect.Effect<number>
}>()("@mrtr/gateway/HeldCalls") {}

/**
 * Options of {@link layerMemory} and {@link layerRedis}.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  /**
   * Most calls held by this instance at once.
   * @default 1000
   */
  readonly maxHeld?: number | undefined
  /**
   * Most calls held for one principal at once (unauthenticated callers share
   * one share).
   * @default 32
   */
  readonly maxPerPrincipal?: number | undefined
  /**
   * How long a held call waits for a retry (between two rounds) before it is
   * interrupted; keep it at the gateway's `requestState` TTL.
   * @default "10 minutes"
   */
  readonly timeout?: Duration.Input | undefined
  /**
   * This instance's id (letters, digits, `-`, `_`), in the ids of the calls it holds.
   * @default a random one
   */
  readonly instanceId?: string | undefined
}

interface Pending {
  readonly question: Question
  readonly answer: Deferred.Deferred<unknown>
  delivered: boolean
}

interface Entry {
  readonly principal: string
  readonly pending: Map<string, Pending>
  readonly changed: Queue.Queue<void>
  readonly done: Deferred.Deferred<Next>
  fiber: Fiber.Fiber<unknown, unknown> | undefined
  lastTouched: number
  waiting: number
}

const ANONYMOUS = "\u0000anonymous"
const principalOf = (principal: string | undefined) => principal ?? ANONYMOUS

const randomId = (): string => {
  const bytes = new Uint8Array(16)
  globalThis.crypto.getRandomValues(bytes)
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
}

const positive = (name: string, value: number) => {
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`HeldCalls: ${name} must be a positive integer`)
  return value
}

/**
 * The instance part of a held call's id (`""` for an id without one).
 *
 * @since 0.3.0
 * @category utils
 */
export const instanceOf = (id: string): string => id.slice(0, Math.max(0, id.indexOf(".")))

/** The local store: calls held by this process, in `scope`. */
const makeLocal = (options: Options, scope: Scope.Scope) =>
  Effect.gen(function*() {
    const maxHeld = positive("maxHeld", options.maxHeld ?? 1000)
    const maxPerPrincipal = positive("maxPerPrincipal", options.maxPerPrincipal ?? 32)
    const timeoutMillis = Duration.toMillis(Duration.fromInputUnsafe(options.timeout ?? "10 minutes"))
    const instanceId = options.instanceId ?? randomId().slice(0, 12)
    const entries = new Map<string, Entry>()
    const perPrincipal = new Map<string, number>()
    const now = () => Date.now()

    const remove = (id: string, entry: Entry) => {
      if (entries.get(id) !== entry) return
      entries.delete(id)
      const left = (perPrincipal.get(entry.principal) ?? 1) - 1
      if (left <= 0) perPrincipal.delete(entry.principal)
      else perPrincipal.set(entry.principal, left)
    }

    const start = (
      id: string,
      principal: string | undefined,
      run: (answer: Answer) => Effect.Effect<Record<string, unknown>, McpError>
    ) =>
      Effect.gen(function*() {
        const owner = principalOf(principal)
        if (entries.size >= maxHeld) return yield* new HeldCallsFull({ scope: "instance", max: maxHeld })
        if ((perPrincipal.get(owner) ?? 0) >= maxPerPrincipal) {
          return yield* new HeldCallsFull({ scope: "principal", max: maxPerPrincipal })
        }
        const entry: Entry = {
          principal: owner,
          pending: new Map(),
          changed: yield* Queue.sliding<void>(1),
          done: yield* Deferred.make<Next>(),
          fiber: undefined,
          lastTouched: now(),
          waiting: 0
        }
        entries.set(id, entry)
        perPrincipal.set(owner, (perPrincipal.get(owner) ?? 0) + 1)
        const answer: Answer = (question) =>
          Effect.gen(function*() {
            const found = entry.pending.get(question.key)
            if (found !== undefined) return yield* Deferred.await(found.answer)
            const pending: Pending = { question, answer: yield* Deferred.make<unknown>(), delivered: false }
            entry.pending.set(question.key, pending)
            yield* Queue.offer(entry.changed, undefined)
            return yield* Deferred.await(pending.answer)
          })
        entry.fiber = yield* run(answer).pipe(
          Effect.exit,
          Effect.flatMap((exit) =>
            Deferred.succeed(
              entry.done,
              Exit.isSuccess(exit)
                ? { _tag: "Done", result: exit.value }
                : Option.match(Exit.findErrorOption(exit), {
                  onNone: () => ({ _tag: "Failed", error: { code: -32603, message: "The held upstream call ended" } }),
                  onSome: (error) => ({
                    _tag: "Failed",
                    error: {
                      code: error.code,
                      message: error.message,
                      ...(error.data === undefined ? {} : { data: error.data })
                    }
                  })
                })
            )
          ),
          Effect.onInterrupt(() => Deferred.succeed(entry.done, { _tag: "Unknown" })),
          // a finished call stays for a retry to collect its result, until the timeout
          Effect.ensuring(Effect.sync(() => (entry.lastTouched = now()))),
          Effect.forkIn(scope)
        )
      })

    const unanswered = (entry: Entry): ReadonlyArray<Question> =>
      Array.from(entry.pending.values()).filter((p) => !p.delivered).map((p) => p.question)

    const advance = (id: string, principal: string | undefined, answers: Readonly<Record<string, unknown>>) =>
      Effect.gen(function*() {
        const entry = entries.get(id)
        if (entry === undefined || entry.principal !== principalOf(principal)) return { _tag: "Unknown" } as Next
        entry.lastTouched = now()
        for (const [key, value] of Object.entries(answers)) {
          const pending = entry.pending.get(key)
          if (pending !== undefined && !pending.delivered) {
            pending.delivered = true
            yield* Deferred.succeed(pending.answer, value)
          }
        }
        entry.waiting++
        const next = yield* Effect.gen(function*() {
          while (true) {
            const done = yield* Deferred.poll(entry.done)
            if (Option.isSome(done)) {
              const next = yield* done.value
              if (next._tag !== "Ask") remove(id, entry)
              return next
            }
            // let concurrent questions of the upstream arrive together
            yield* Effect.yieldNow
            const questions = unanswered(entry)
            if (questions.length > 0) return { _tag: "Ask", questions } as Next
            yield* Effect.raceFirst(Queue.take(entry.changed), Deferred.await(entry.done))
          }
        }).pipe(Effect.ensuring(Effect.sync(() => {
          entry.waiting--
          entry.lastTouched = now()
        })))
        return next
      })

    const cancel = (id: string, principal: string | undefined) =>
      Effect.suspend(() => {
        const entry = entries.get(id)
        if (entry === undefined || entry.principal !== principalOf(principal)) return Effect.void
        remove(id, entry)
        return entry.fiber === undefined ? Effect.void : Fiber.interrupt(entry.fiber)
      })

    // Interrupts the calls no retry reached for `timeout`.
    yield* Effect.gen(function*() {
      while (true) {
        yield* Effect.sleep(Duration.millis(Math.min(1000, Math.max(10, timeoutMillis / 4))))
        const limit = now() - timeoutMillis
        for (const [id, entry] of Array.from(entries)) {
          if (entry.waiting === 0 && entry.lastTouched < limit) {
            remove(id, entry)
            if (entry.fiber !== undefined) yield* Fiber.interrupt(entry.fiber)
          }
        }
      }
    }).pipe(Effect.forkIn(scope))

    yield* Scope.addFinalizer(
      scope,
      Effect.suspend(() => {
        const fibers = Array.from(entries.values(), (entry) => entry.fiber).filter((f) => f !== undefined)
        entries.clear()
        perPrincipal.clear()
        return Fiber.interruptAll(fibers)
      })
    )

    return {
      instanceId,
      newId: Effect.sync(() => `${instanceId}.${randomId()}`),
      start,
      advance,
      cancel,
      size: Effect.sync(() => entries.size)
    }
  })

/**
 * Held calls in this process only.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerMemory = (options: Options = {}): Layer.Layer<HeldCalls> =>
  Layer.effect(HeldCalls, Effect.flatMap(Effect.scope, (scope) => Effect.map(makeLocal(options, scope), HeldCalls.of)))

/**
 * Options of {@link layerRedis}.
 *
 * @since 0.3.0
 * @category models
 */
export interface RedisOptions extends Options {
  /**
   * Prefix of the fleet's channels; every instance of one fleet uses the same.
   * @default "mrtr:gateway:held:"
   */
  readonly prefix?: string | undefined
  /**
   * How often a forwarded retry checks that the holding instance still listens.
   * @default "1 second"
   */
  readonly livenessInterval?: Duration.Input | undefined
}

const Wire = Schema.Union([
  Schema.Struct({
    op: Schema.Literal("advance"),
    corr: Schema.String,
    reply: Schema.String,
    id: Schema.String,
    principal: Schema.optionalKey(Schema.String),
    answers: Schema.Record(Schema.String, Schema.Unknown)
  }),
  Schema.Struct({ op: Schema.Literal("cancel"), id: Schema.String, principal: Schema.optionalKey(Schema.String) }),
  Schema.Struct({ op: Schema.Literal("next"), corr: Schema.String, next: Schema.Unknown })
])
const WireJson = Schema.fromJsonString(Wire)
const decodeWire = Schema.decodeUnknownOption(WireJson)
const encodeWire = Schema.encodeSync(WireJson)

/**
 * Held calls of a fleet: held by the instance that started them, reached
 * from any instance over Redis pub/sub (the `Redis` service of
 * `effect/persistence/Redis`, e.g. `@mrtr/server`'s `Redis.layerClient`).
 * A retry whose holder no longer listens gets `Unknown` (the gateway
 * replays); one whose holder dies while it waits, within `livenessInterval`.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerRedis = (options: RedisOptions = {}): Layer.Layer<HeldCalls, never, Redis.Redis> =>
  Layer.effect(
    HeldCalls,
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      const redis = yield* Redis.Redis
      const local = yield* makeLocal(options, scope)
      const prefix = options.prefix ?? "mrtr:gateway:held:"
      const liveness = Duration.fromInputUnsafe(options.livenessInterval ?? "1 second")
      const channel = (instance: string) => `${prefix}instance:${instance}`
      const replyChannel = `${prefix}reply:${local.instanceId}`
      const waiting = new Map<string, Deferred.Deferred<Next>>()
      const publish = (to: string, message: typeof Wire.Type) =>
        redis.send<number>("PUBLISH", to, encodeWire(message)).pipe(
          Effect.timeout("1 second"),
          Effect.orElseSucceed(() => 0)
        )
      const listening = (instance: string) =>
        redis.send<Array<unknown>>("PUBSUB", "NUMSUB", channel(instance)).pipe(
          Effect.timeout("1 second"),
          Effect.map((reply) => Number(reply[1] ?? 0) > 0),
          // Redis unreachable: say nothing about the holder, keep waiting
          Effect.orElseSucceed(() => true)
        )

      const handle = (raw: string) =>
        Effect.gen(function*() {
          const message = decodeWire(raw)
          if (Option.isNone(message)) return
          const m = message.value
          switch (m.op) {
            case "advance": {
              // answered on its own fiber: a long wait must not hold up the channel
              yield* local.advance(m.id, m.principal, m.answers).pipe(
                Effect.flatMap((next) => publish(m.reply, { op: "next", corr: m.corr, next })),
                Effect.forkIn(scope)
              )
              return
            }
            case "cancel":
              return yield* local.cancel(m.id, m.principal)
            case "next": {
              const deferred = waiting.get(m.corr)
              if (deferred !== undefined) yield* Deferred.succeed(deferred, m.next as Next)
              return
            }
          }
        })

      for (const name of [channel(local.instanceId), replyChannel]) {
        const queue = yield* Effect.provideService(redis.subscribe(name), Scope.Scope, scope)
        yield* Effect.forever(Effect.flatMap(Queue.take(queue), (message) =>
          handle(message.message).pipe(
            Effect.catchCause((cause) => Effect.logWarning("A held-call message could not be handled", cause))
          ))).pipe(
            Effect.catchCause((cause) => Effect.logWarning("The held-call subscription ended", cause)),
            Effect.forkIn(scope)
          )
      }

      const remoteAdvance = (
        owner: string,
        id: string,
        principal: string | undefined,
        answers: Readonly<Record<string, unknown>>
      ) =>
        Effect.gen(function*() {
          const corr = randomId()
          const deferred = yield* Deferred.make<Next>()
          waiting.set(corr, deferred)
          return yield* Effect.gen(function*() {
            const heard = yield* publish(channel(owner), {
              op: "advance",
              corr,
              reply: replyChannel,
              id,
              ...(principal === undefined ? {} : { principal }),
              answers: { ...answers }
            })
            if (heard === 0) return { _tag: "Unknown" } as Next
            while (true) {
              const next = yield* Deferred.await(deferred).pipe(Effect.timeoutOption(liveness))
              if (Option.isSome(next)) return next.value
              if (!(yield* listening(owner))) return { _tag: "Unknown" } as Next
            }
          }).pipe(Effect.ensuring(Effect.sync(() => waiting.delete(corr))))
        })

      return HeldCalls.of({
        ...local,
        advance: (id, principal, answers) => {
          const owner = instanceOf(id)
          return owner === local.instanceId || owner === ""
            ? local.advance(id, principal, answers)
            : remoteAdvance(owner, id, principal, answers)
        },
        cancel: (id, principal) => {
          const owner = instanceOf(id)
          return owner === local.instanceId || owner === ""
            ? local.cancel(id, principal)
            : Effect.asVoid(
              publish(channel(owner), { op: "cancel", id, ...(principal === undefined ? {} : { principal }) })
            )
        }
      })
    })
  )
