/**
 * `Explore`: tests every conversation an asking handler can have. Given a
 * server Layer and a tool, prompt or resource of it, it runs many
 * conversations; in each, every ask is answered with a choice drawn by
 * `effect/Arbitrary`: accept with content drawn from the form's own
 * `requestedSchema` (its enums, bounds, formats, required and optional
 * fields), decline, cancel; a model's text or tool call; lists of roots; and
 * the answers a real client gets wrong (no answer for a key, an answer of
 * another kind, content the form refuses), which the server must ask again.
 * The explorer is the client, on the wire: conversations run on 2026-07-28
 * (rounds of `inputRequests` and `requestState`), on 2025-11-25 (a session
 * whose in-flight `elicitation/create`, `sampling/createMessage` and
 * `roots/list` it answers) and as a task (`tasks/get`, `input_required`,
 * `tasks/update`), as `modes` says.
 *
 * Checked in every conversation, on every mode (each failure is shrunk to
 * the simplest answers that still fail, and printed as a test to paste):
 *
 * - no defect and no failure outside the handler's own: a decline or cancel
 *   the handler does not catch (as the server reports the handler's failure:
 *   its `ElicitationDeclined` or `ElicitationCancelled`) is reported with the
 *   ask's key;
 * - the conversation ends within `maxRounds` and the journal's size bound;
 * - determinism: each round the handler suspends runs again from the journal
 *   it left, without answers, with the clock 61 s ahead and another
 *   `Math.random` (`Engine.ReplayCheck`); the handler must ask the same
 *   questions (same keys, same digests). A handler that reads the time, a
 *   random number or a mutable variable outside `Mrtr.step` is caught on the
 *   first round it does, with the key whose question changed;
 * - every `Mrtr.step` runs once per conversation;
 * - every message the server sends is valid against the official JSON Schema
 *   of its era (the schemas this package ships, see {@link wireValidator});
 * - the test's own `property` on how the conversation ended.
 *
 * **Example** (Exploring a tool)
 *
 * ```ts skip-type-checking
 * // `server`: the Layer of the McpServer under test
 * import { Explore } from "@mrtr/testing"
 * import { Effect } from "effect"
 * import { it } from "vitest"
 *
 * it("book_trip survives every user", () =>
 *   Effect.runPromise(Explore.check({ server, tool: "book_trip", arguments: { city: "Oslo" }, runs: 200 })))
 * ```
 *
 * Gotchas: while a round is replayed, `Date` and `Math.random` are replaced
 * globally, so run explorations one at a time. URL-mode elicitation is not
 * declared (its page is not explored). On 2025-11-25, where every request is
 * answered, no answer is an empty result.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr, client/elicitation,
 * client/sampling, client/roots; MCP 2025-11-25; Tasks extension (SEP-2663).
 *
 * @since 0.1.0
 */
import { Errors } from "@mrtr/client"
import type { InputContext } from "@mrtr/client"
import type { ElicitResult } from "@mrtr/protocol/Schema"
import { McpHandler, type Transport } from "@mrtr/server"
import { Arbitrary, Context, Effect, Layer, Schema } from "effect"
import * as Answers from "./internal/explore/answers.ts"
import * as Legacy from "./internal/explore/legacy.ts"
import type * as Conversation from "./internal/explore/model.ts"
import * as Mrtr from "./internal/explore/mrtr.ts"
import * as Report from "./internal/explore/report.ts"
import * as TaskRun from "./internal/explore/task.ts"
import * as Users from "./internal/explore/users.ts"
import * as Wire from "./internal/explore/wire.ts"

/**
 * How a conversation is carried: `"2026-07-28"` (MRTR rounds),
 * `"2025-11-25"` (a legacy session's in-flight requests) or `"task"` (a
 * 2026-07-28 client that declares the Tasks extension; the tool must be
 * task-eligible).
 *
 * @category models
 * @since 0.1.0
 */
export type Mode = "2026-07-28" | "2025-11-25" | "task"

/**
 * What is explored: `tool` or `prompt` (a name, with `arguments`) or
 * `resource` (a URI).
 *
 * @category models
 * @since 0.1.0
 */
export type Target = Conversation.Target

/**
 * Validates a message against `$defs[defName]` of the official JSON Schema
 * of `era` (`"tasks"`: the Tasks extension's): the error text, or
 * `undefined` when valid. {@link wireValidator} is the default.
 *
 * @category models
 * @since 0.1.0
 */
export type Validate = Conversation.Validate

/**
 * One ask of a conversation: its `round`, `key`, the input `request`, the
 * `choice` made (`"accept"`, `"decline"`, `"cancel"`, `"omit"`: no answer,
 * `"wrongKind"`, `"invalid"`: content the form refuses) and the `answer`.
 *
 * @category models
 * @since 0.1.0
 */
export type Asked = Conversation.Asked

/**
 * How a conversation ended: the `Result` (the result object), an `Error`
 * (the JSON-RPC error), or `Unfinished` (stopped by a violation).
 *
 * @category models
 * @since 0.1.0
 */
export type Ending = Conversation.Ending

/**
 * A property that does not hold: which (`"defect"`, `"uncaught-decline"`,
 * `"rounds"`, `"journal"`, `"determinism"`, `"step-once"`, `"wire"`,
 * `"property"`), a message, and the ask's key when one is concerned.
 *
 * @category models
 * @since 0.1.0
 */
export type Violation = Conversation.Violation

/**
 * One conversation: its `mode` and `era`, the `arguments`, every ask with
 * its answer, the keys asked again, the ending and the violations.
 *
 * @category models
 * @since 0.1.0
 */
export type Trace = Conversation.Trace

/**
 * Per ask key, how often it was accepted, declined, cancelled, left
 * unanswered, answered with the wrong kind or invalid content, and asked
 * again; and how the conversations ended.
 *
 * @category models
 * @since 0.1.0
 */
export type Coverage = Report.Coverage

/**
 * What the test's `property` sees: the conversation's `mode` and `era`,
 * `arguments`, `asked` and `ending`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Outcome {
  readonly mode: Mode
  readonly era: "2026-07-28" | "2025-11-25"
  readonly arguments: unknown
  readonly asked: ReadonlyArray<Asked>
  readonly ending: Ending
}

/**
 * The options of {@link check}.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options<E = never> {
  /** The server: any Layer that provides its `McpHandler` (e.g. `McpServer.tools(...)` on `McpServer.layer(...)`). */
  readonly server: Layer.Layer<McpHandler, E, never> | Layer.Layer<any, E, never>
  /** The tool to call (or `prompt`, or `resource`). */
  readonly tool?: string | undefined
  /** The prompt to get. */
  readonly prompt?: string | undefined
  /** The resource URI to read. */
  readonly resource?: string | undefined
  /**
   * The arguments: a fixed value, an `Arbitrary` of them, or a `Schema` of
   * the parameters (values drawn from its type, sent encoded as JSON).
   * @default {}
   */
  readonly arguments?: unknown
  /**
   * Conversations to run (shrinking runs more on a failure).
   * @default 100
   */
  readonly runs?: number | undefined
  /**
   * The seed; printed on a failure, so a failure reruns exactly.
   * @default a random seed
   */
  readonly seed?: number | string | undefined
  /**
   * How conversations are carried, one drawn per conversation: any of
   * `"2026-07-28"`, `"2025-11-25"` and `"task"` (a task-eligible tool). Every
   * check runs on each.
   * @default ["2026-07-28", "2025-11-25"]
   */
  readonly modes?: ReadonlyArray<Mode> | undefined
  /**
   * Also answer as a client that gets it wrong: no answer, an answer of
   * another kind, content the form refuses.
   * @default true
   */
  readonly wrongAnswers?: boolean | undefined
  /**
   * Rounds a conversation may take; the server's own `Limits.maxRounds`.
   * @default 16
   */
  readonly maxRounds?: number | undefined
  /**
   * Run each suspended round again from its journal, without answers, and
   * compare the questions.
   * @default true
   */
  readonly determinism?: boolean | undefined
  /**
   * A decline or cancel the handler does not catch: `"fail"` (a violation,
   * with the ask's key) or `"allow"` (the handler means the user's "no" to
   * end the request with its error).
   * @default "fail"
   */
  readonly uncaughtDeclines?: "fail" | "allow" | undefined
  /**
   * Validates every message the server sends against the era's official
   * JSON Schema; `false` turns it off.
   * @default wireValidator
   */
  readonly validate?: Validate | false | undefined
  /**
   * The test's own property of a conversation: `false`, a thrown error or a
   * failed Effect is a violation.
   * @default undefined
   */
  readonly property?: ((outcome: Outcome) => boolean | void | Effect.Effect<boolean | void, unknown>) | undefined
  /**
   * The name of the server Layer in the printed test.
   * @default "server"
   */
  readonly serverName?: string | undefined
  /**
   * Most shrink candidates tried after a failure.
   * @default 400
   */
  readonly maxShrinks?: number | undefined
}

/**
 * The result of an exploration that found nothing: the `seed`, the number of
 * conversations, and the `coverage` (see {@link formatCoverage}).
 *
 * @category models
 * @since 0.1.0
 */
export interface Result {
  readonly seed: number | string
  readonly runs: number
  readonly coverage: Coverage
}

/**
 * An exploration found a conversation that breaks a property: `violation`,
 * the shrunk conversation (`trace`), the `seed` it reruns with, `test`: a
 * test to paste that replays it with a `ScriptedUser`, and the `coverage`.
 * Its `message` says all of it.
 *
 * @category errors
 * @since 0.1.0
 */
export class ExplorationFailed extends Schema.TaggedError<ExplorationFailed>()("ExplorationFailed", {
  target: Schema.String,
  violation: Schema.Struct({ property: Schema.String, message: Schema.String, key: Schema.optional(Schema.String) }),
  trace: Schema.Unknown,
  seed: Schema.Union([Schema.Number, Schema.String]),
  test: Schema.String,
  coverage: Schema.String,
  conversation: Schema.String
}) {
  override get message(): string {
    return `${this.target}: ${this.violation.property}${
      this.violation.key === undefined ? "" : ` (key "${this.violation.key}")`
    }: ` +
      `${this.violation.message}\n\nSeed: ${
        JSON.stringify(this.seed)
      } (pass it as \`seed\` to rerun this exploration)\n\n` +
      `The shrunk conversation:\n${this.conversation}\n\nA test that reproduces it:\n\n${this.test}\n\nCoverage:\n${this.coverage}`
  }
}

/**
 * No answer, for a scripted user replayed by {@link replay}: the key is left
 * out of the retry's `inputResponses` (of `tasks/update` for a task); on
 * 2025-11-25 the request is answered with an empty result. (A real
 * `McpClient` fails the call with `InputHandlerError` instead.)
 *
 * @category answers
 * @since 0.1.0
 */
export const noAnswer = (
  _params: unknown,
  context: InputContext.InputContext
): Effect.Effect<never, Errors.InputHandlerError> =>
  Effect.fail(new Errors.InputHandlerError({ kind: "elicitation", key: context.key, reason: Users.NO_ANSWER }))

/**
 * Any value as a scripted answer, unchecked: an answer of the wrong kind
 * (e.g. roots for a form) replayed by {@link replay}.
 *
 * @category answers
 * @since 0.1.0
 */
export const raw = (value: unknown): ElicitResult & any => value

/**
 * A scripted answer by round (`InputContext.round`): `{ 1: accept(...), 3: decline }`;
 * a round without an entry gets `otherwise` (default: no answer, see {@link noAnswer}).
 * Works for elicitation, sampling and roots (as `roots`'s function).
 *
 * @category answers
 * @since 0.1.0
 */
export const inRounds =
  <A>(answers: Readonly<Record<number, A>>, otherwise?: A) => (...args: ReadonlyArray<any>): any => {
    const context: InputContext.InputContext = args.length >= 2 ? args[1] : args[0]
    const answer = Object.hasOwn(answers, context.round) ? answers[context.round] : otherwise
    if (answer === undefined) return noAnswer(undefined, context)
    return typeof answer === "function" ? (answer as any)(...args) : answer
  }

const targetOf = (
  options: {
    readonly tool?: string | undefined
    readonly prompt?: string | undefined
    readonly resource?: string | undefined
  }
): Target => {
  if (options.tool !== undefined) return { tool: options.tool }
  if (options.prompt !== undefined) return { prompt: options.prompt }
  if (options.resource !== undefined) return { resource: options.resource }
  throw new Error("Explore: give a tool, a prompt or a resource")
}

const nameOf = (target: Target) =>
  "tool" in target
    ? `tools/call ${target.tool}`
    : "prompt" in target
    ? `prompts/get ${target.prompt}`
    : `resources/read ${target.resource}`

const argumentsOf = (args: unknown): Arbitrary.Arbitrary<unknown> => {
  if (Arbitrary.isArbitrary(args)) return args
  if (Schema.isSchema(args)) {
    const encode = Schema.encodeSync(Schema.toCodecJson(args as Schema.Codec<unknown, unknown, never, never>))
    return Arbitrary.map(
      Arbitrary.schema(args as Schema.Codec<unknown, unknown, never, never>),
      (value) => encode(value)
    )
  }
  return Arbitrary.Constant(args)
}

const handlerOf = <E>(server: Layer.Layer<any, E, never>) =>
  Effect.map(Layer.build(server), (context) => Context.get(context as Context.Context<McpHandler>, McpHandler))

/**
 * The default of `validate`: ajv over the official JSON Schemas of
 * 2026-07-28, 2025-11-25 and the Tasks extension, which this package ships
 * (`schemas/`, loaded on first use).
 *
 * @category validation
 * @since 0.5.0
 */
export const wireValidator: Validate = Wire.validate

const checkProperty = (
  trace: Trace,
  property: Options["property"]
): Effect.Effect<Trace> => {
  if (property === undefined || trace.violations.length > 0) return Effect.succeed(trace)
  const outcome: Outcome = {
    mode: trace.mode,
    era: trace.era,
    arguments: trace.arguments,
    asked: trace.asked,
    ending: trace.ending
  }
  return Effect.suspend(() => {
    const out = property(outcome)
    return Effect.isEffect(out) ? out : Effect.succeed(out)
  }).pipe(
    Effect.map((held) => (held === false ? "the property returned false" : undefined)),
    Effect.catchCause((cause) => Effect.succeed(`the property failed: ${String(cause)}`)),
    Effect.map((failed) =>
      failed === undefined ? trace : { ...trace, violations: [{ property: "property" as const, message: failed }] }
    )
  )
}

interface Run extends Conversation.Options {
  readonly handler: Transport.Handler
  readonly target: Target
  readonly property: Options["property"]
}

/** One conversation carried as `mode`, answered by `user`. */
const conversation = (run: Run, mode: Mode, args: unknown, user: Conversation.User): Effect.Effect<Trace, unknown> =>
  mode === "2026-07-28"
    ? Mrtr.run(run.handler, run.target, args, user, run)
    : mode === "2025-11-25"
    ? Legacy.run(run.handler, run.target, args, user, run)
    : TaskRun.run(run.handler, run.target, args, user, run)

/** One conversation of the exploration, with the drawn user. */
const explore1 = (
  run: Run,
  mode: Mode,
  args: unknown,
  draws: ReadonlyArray<Answers.Draw>,
  wrong: boolean
): Effect.Effect<Trace> =>
  conversation(run, mode, args, Users.drawn(draws, wrong)).pipe(
    Effect.catchCause((cause) =>
      Effect.succeed<Trace>({
        mode,
        era: mode === "2025-11-25" ? "2025-11-25" : "2026-07-28",
        arguments: args,
        asked: [],
        askedAgain: [],
        ending: { _tag: "Unfinished" },
        violations: [{ property: "defect", message: `the conversation failed: ${String(cause)}` }]
      })
    ),
    Effect.flatMap((trace) => checkProperty(trace, run.property))
  )

const validatorOf = (validate: Validate | false | undefined): Validate | undefined =>
  validate === false ? undefined : validate ?? wireValidator

/**
 * Explores a tool, prompt or resource: runs `runs` conversations with drawn
 * answers (and arguments, when `arguments` is an `Arbitrary` or a `Schema`);
 * succeeds with the coverage, or fails with `ExplorationFailed` carrying the
 * shrunk conversation, the seed and a test that reproduces it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const check = <E>(options: Options<E>): Effect.Effect<Result, ExplorationFailed | E> =>
  Effect.scoped(Effect.gen(function*() {
    const target = targetOf(options)
    const handler = yield* handlerOf(options.server)
    const modes = options.modes ?? ["2026-07-28", "2025-11-25"]
    const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31)
    const wrong = options.wrongAnswers ?? true
    const run: Run = {
      handler,
      target,
      maxRounds: options.maxRounds ?? 16,
      uncaughtDeclines: options.uncaughtDeclines,
      determinism: options.determinism ?? true,
      validate: validatorOf(options.validate),
      property: options.property
    }
    const coverage = Report.empty()
    const input = Arbitrary.all({
      mode: Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: modes.length - 1 }))),
      args: argumentsOf(options.arguments ?? {}),
      tape: Answers.tape
    })
    const once = (
      value: { readonly mode: number; readonly args: unknown; readonly tape: ReadonlyArray<Answers.Draw> }
    ) => explore1(run, modes[value.mode]!, value.args, value.tape, wrong)
    const result = yield* Arbitrary.checkEffect(
      input,
      (value) =>
        Effect.map(once(value), (trace) => {
          Report.add(coverage, trace)
          return trace.violations.length === 0
        }),
      { runs: options.runs ?? 100, seed, maxShrinks: options.maxShrinks ?? 400 }
    )
    if (result._tag === "Passed") return { seed, runs: result.runs, coverage }
    if (result._tag !== "Falsified") return yield* Effect.die(new Error(Arbitrary.formatCheckFailure(result)))
    const trace = yield* once(result.shrunkInput)
    const violation = trace.violations[0] ??
      { property: "defect", message: "the failure did not reproduce on the shrunk input" }
    return yield* new ExplorationFailed({
      target: nameOf(target),
      violation,
      trace,
      seed,
      test: Report.printTest(trace, target, {
        server: options.serverName ?? "server",
        title: `${nameOf(target)}: ${violation.property} (explored, seed ${seed})`
      }),
      coverage: Report.formatCoverage(coverage),
      conversation: Report.formatTrace(trace)
    })
  }))

/**
 * The coverage as text: per ask key, its outcomes, and the outcomes never
 * reached (`never declined` is a path no test took).
 *
 * @category formatting
 * @since 0.1.0
 */
export const formatCoverage: (coverage: Coverage) => string = Report.formatCoverage

/**
 * The options of {@link replay}: the server and target as in {@link check},
 * the `arguments`, the `protocol` to replay on, and the `user` (usually
 * `ScriptedUser.layer`, as {@link check} prints it).
 *
 * @category models
 * @since 0.1.0
 */
export interface ReplayOptions<E, EU> {
  readonly server: Layer.Layer<McpHandler, E, never> | Layer.Layer<any, E, never>
  readonly tool?: string | undefined
  readonly prompt?: string | undefined
  readonly resource?: string | undefined
  /** The arguments. @default {} */
  readonly arguments?: unknown
  /** The era to replay on ("task": a 2026-07-28 client with the Tasks extension). @default "2026-07-28" */
  readonly protocol?: Mode | undefined
  /** The user: input handler Layers (e.g. `ScriptedUser.layer`). */
  readonly user: Layer.Layer<any, EU, never>
  /** Rounds a conversation may take. @default 16 */
  readonly maxRounds?: number | undefined
  /** The determinism check. @default true */
  readonly determinism?: boolean | undefined
  /** A decline the handler does not catch: a violation (`"fail"`) or not (`"allow"`). @default "fail" */
  readonly uncaughtDeclines?: "fail" | "allow" | undefined
  /** The wire validator; `false` turns it off. @default wireValidator */
  readonly validate?: Validate | false | undefined
  /** The test's own property. @default undefined */
  readonly property?: Options["property"]
}

/**
 * Replays one conversation with a scripted user and the explorer's checks:
 * succeeds with its trace, or fails with `ExplorationFailed`. The test
 * {@link check} prints on a failure calls it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const replay = <E, EU>(options: ReplayOptions<E, EU>): Effect.Effect<Trace, ExplorationFailed | E | EU> =>
  Effect.scoped(Effect.gen(function*() {
    const target = targetOf(options)
    const handler = yield* handlerOf(options.server)
    const mode = options.protocol ?? "2026-07-28"
    const args = options.arguments ?? ("resource" in target ? undefined : {})
    const run: Run = {
      handler,
      target,
      maxRounds: options.maxRounds ?? 16,
      uncaughtDeclines: options.uncaughtDeclines,
      determinism: options.determinism ?? true,
      validate: validatorOf(options.validate),
      property: options.property
    }
    const user = yield* Effect.provide(Users.scripted, yield* Layer.build(options.user))
    const trace = yield* checkProperty(yield* conversation(run, mode, args, user), options.property)
    const violation = trace.violations[0]
    if (violation === undefined) return trace
    return yield* new ExplorationFailed({
      target: nameOf(target),
      violation,
      trace,
      seed: "replay",
      test: "",
      coverage: "",
      conversation: Report.formatTrace(trace)
    })
  })) as Effect.Effect<Trace, ExplorationFailed | E | EU>
