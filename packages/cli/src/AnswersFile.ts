/**
 * `AnswersFile`: answers to a server's input requests given in advance, by
 * input-request key, instead of asking a person (for scripts, CI, and the
 * demo). Layers providing the client's `ElicitationHandler`,
 * `SamplingHandler` and `RootsHandler` from such answers, with an optional
 * fallback for keys that have none.
 *
 * The file is one JSON object, `{ "<key>": <answer> }`. Each answer is the
 * full MCP result for its question, or a shorthand; which shorthand applies
 * depends on the method of the question asked under that key:
 *
 * | question | full answer | shorthands |
 * |---|---|---|
 * | `elicitation/create`, form | `ElicitResult` `{ "action": "accept", "content": {…} }` | any other object = the accepted form's `content`; `"decline"`; `"cancel"` |
 * | `elicitation/create`, URL | `ElicitResult` `{ "action": "accept" }` | `"accept"` or `true`; `"decline"` or `false`; `"cancel"` |
 * | `sampling/createMessage` | `CreateMessageResult` `{ "role", "content", "model", "stopReason"? }` | a string = the model's text reply |
 * | `roots/list` | `ListRootsResult` `{ "roots": [{ "uri", "name"? }] }` | an array of roots, or of URIs (strings) |
 *
 * An object with an `action` member is read as a full `ElicitResult` (a form
 * whose fields include `action` must be answered in full). Answers are
 * checked against the 2026-07-28 result schemas when they are used; an
 * answer of the wrong shape fails the call. An answer the server refuses
 * (it asks the same key again) is never sent twice: the fallback answers the
 * question again (at a terminal, the person, shown the server's reason), or,
 * without one, the call fails with `InputHandlerError` whose reason quotes
 * the server's (`"Seats" must be at most 4.`).
 *
 * ```json
 * {
 *   "details": { "traveller": "Ada Lovelace", "email": "ada@example.com", "passengers": 2 },
 *   "tagline": "Rails, lakes and a late espresso.",
 *   "roots": ["file:///home/ada/trips"],
 *   "confirm": { "action": "accept", "content": { "book": true } }
 * }
 * ```
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr (InputRequests / InputResponses
 * keys), schema `ElicitResult`, `CreateMessageResult`, `ListRootsResult`.
 *
 * @since 0.1.0
 */
import { ElicitationHandler, Errors, type InputContext, Refusal, RootsHandler, SamplingHandler } from "@mrtr/client"
import {
  type CreateMessageRequestParams,
  CreateMessageResult,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  ElicitResult,
  type InputRequest,
  ListRootsResult,
  type Root
} from "@mrtr/protocol/Schema"
import { Effect, FileSystem, Layer, Predicate, Schema } from "effect"

type Context = InputContext.InputContext

/**
 * The answers, by input-request key (values as in the file, interpreted
 * when their question is asked).
 *
 * @category models
 * @since 0.1.0
 */
export type Answers = Readonly<Record<string, unknown>>

/**
 * The answers file cannot be used: unreadable, not JSON, not an object, or
 * an answer of the wrong shape for its question (`key`).
 *
 * @category errors
 * @since 0.1.0
 */
export class AnswersFileError extends Schema.TaggedError<AnswersFileError>()("AnswersFileError", {
  reason: Schema.String,
  key: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    return this.key === undefined ? this.reason : `answer '${this.key}': ${this.reason}`
  }
}

/**
 * The server asked a question that has no answer and nobody can be asked
 * (no fallback): `key` and the `request` itself, to help write the answer.
 *
 * @category errors
 * @since 0.1.0
 */
export class Unanswered extends Schema.TaggedError<Unanswered>()("Unanswered", {
  key: Schema.String,
  request: Schema.Unknown
}) {
  override get message(): string {
    return `no answer for input request '${this.key}'`
  }
}

/**
 * Parses the text of an answers file: a JSON object.
 *
 * @category parsing
 * @since 0.1.0
 */
export const parse = (text: string): Effect.Effect<Answers, AnswersFileError> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) => new AnswersFileError({ reason: `not JSON: ${(error as Error).message}` })
  }).pipe(
    Effect.filterOrFail(
      (value): value is Answers => Predicate.isObject(value) && !Array.isArray(value),
      () => new AnswersFileError({ reason: "expected a JSON object of answers by key, e.g. { \"<key>\": <answer> }" })
    )
  )

/** Why a file cannot be read, in a few words: "does not exist", "permission denied", ... */
const unreadable = (
  path: string,
  reason: { readonly _tag: string; readonly description?: string | undefined }
): string => {
  switch (reason._tag) {
    case "NotFound":
      return `${path} does not exist`
    case "PermissionDenied":
      return `${path} cannot be read (permission denied)`
    case "BadResource":
      return `${path} cannot be read (not a file)`
    default:
      return `${path} cannot be read${reason.description === undefined ? "" : `: ${reason.description}`}`
  }
}

/**
 * Reads and parses an answers file. Fails with `AnswersFileError` whose
 * reason is one line: `<path> does not exist`, `<path> cannot be read
 * (permission denied)`, `<path>: not JSON: ...`, ...
 *
 * @category parsing
 * @since 0.1.0
 */
export const load = (path: string): Effect.Effect<Answers, AnswersFileError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    return yield* fs.readFileString(path)
  }).pipe(
    Effect.mapError((error) => new AnswersFileError({ reason: unreadable(path, error.reason) })),
    Effect.flatMap((text) =>
      parse(text).pipe(Effect.mapError((error) => new AnswersFileError({ reason: `${path}: ${error.reason}` })))
    )
  )

const decodeWith = <A>(schema: Schema.Codec<A, any>, what: string) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (key: string, value: unknown): Effect.Effect<A, AnswersFileError> =>
    (decode(value) as Effect.Effect<A, Schema.SchemaError>).pipe(
      Effect.mapError((issue) => new AnswersFileError({ key, reason: `not a valid ${what}: ${issue.message}` }))
    )
}

const decodeElicitResult = decodeWith(ElicitResult, "ElicitResult")
const decodeCreateMessageResult = decodeWith(CreateMessageResult, "CreateMessageResult")
const decodeListRootsResult = decodeWith(ListRootsResult, "ListRootsResult")

/**
 * The `ElicitResult` an answer stands for (form or URL mode, see the table
 * above).
 *
 * @category answers
 * @since 0.1.0
 */
export const toElicitResult = (
  key: string,
  value: unknown,
  mode: "form" | "url"
): Effect.Effect<ElicitResult, AnswersFileError> => {
  if (value === "decline" || value === "cancel") return Effect.succeed({ action: value })
  if (mode === "url") {
    if (value === "accept" || value === true) return Effect.succeed({ action: "accept" })
    if (value === false) return Effect.succeed({ action: "decline" })
  }
  if (Predicate.isObject(value) && !Array.isArray(value)) {
    if ("action" in value) return decodeElicitResult(key, value)
    if (mode === "form") return decodeElicitResult(key, { action: "accept", content: value })
  }
  return Effect.fail(
    new AnswersFileError({
      key,
      reason: mode === "form"
        ? "a form answer is an object of field values, \"decline\", \"cancel\", or a full ElicitResult"
        : "a URL answer is \"accept\" (or true), \"decline\" (or false), \"cancel\", or a full ElicitResult"
    })
  )
}

/**
 * The `CreateMessageResult` an answer stands for: a string is the model's
 * text reply (model `"scripted"`), an object a full result.
 *
 * @category answers
 * @since 0.1.0
 */
export const toCreateMessageResult = (
  key: string,
  value: unknown
): Effect.Effect<CreateMessageResult, AnswersFileError> =>
  typeof value === "string"
    ? Effect.succeed({
      role: "assistant",
      content: { type: "text", text: value },
      model: "scripted",
      stopReason: "endTurn"
    })
    : decodeCreateMessageResult(key, value)

/**
 * The roots an answer stands for: an array of URIs or of `{ uri, name? }`,
 * or a full `{ roots }`.
 *
 * @category answers
 * @since 0.1.0
 */
export const toRoots = (key: string, value: unknown): Effect.Effect<ReadonlyArray<Root>, AnswersFileError> =>
  decodeListRootsResult(
    key,
    Array.isArray(value) ? { roots: value.map((root) => typeof root === "string" ? { uri: root } : root) } : value
  ).pipe(Effect.map((result) => result.roots))

/**
 * Handlers for the questions without an answer (all optional). Those left
 * out fail the call with `InputHandlerError` whose `cause` is `Unanswered`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Fallback<R = never> {
  readonly form?: ElicitationHandler.FormHandler<R> | undefined
  readonly url?: ElicitationHandler.UrlHandler<R> | undefined
  readonly createMessage?: SamplingHandler.CreateMessage<R> | undefined
  readonly listRoots?:
    | ((context: Context) => Effect.Effect<ReadonlyArray<Root>, Errors.InputHandlerError, R>)
    | undefined
}

const kindOf = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots"
} as const

const unanswered = (request: InputRequest, context: Context) =>
  new Errors.InputHandlerError({
    kind: kindOf[request.method],
    key: context.key,
    reason: "no answer for it (and nobody to ask)",
    cause: new Unanswered({ key: context.key, request })
  })

const invalid = (request: InputRequest, context: Context) => (error: AnswersFileError) =>
  new Errors.InputHandlerError({ kind: kindOf[request.method], key: context.key, reason: error.message, cause: error })

/**
 * Looks up the answer for a question: the file's answer under its key,
 * interpreted for the question's method; otherwise `orElse`.
 */
const answer = <A, R>(
  answers: Answers,
  answered: Map<string, number>,
  request: InputRequest,
  context: Context,
  interpret: (key: string, value: unknown) => Effect.Effect<A, AnswersFileError>,
  orElse: (() => Effect.Effect<A, Errors.InputHandlerError, R>) | undefined
): Effect.Effect<A, Errors.InputHandlerError, R> => {
  if (!Object.hasOwn(answers, context.key)) {
    return orElse === undefined ? Effect.fail(unanswered(request, context)) : orElse()
  }
  // The same question again, later in the same conversation: the server did not
  // accept the file's answer (wrong shape, out of bounds). Sending it again
  // would only loop until the round cap: ask the person when there is one
  // (a terminal form shows the server's reason), otherwise fail with the reason.
  const id = `${context.method} ${context.target} ${context.key}`
  const before = answered.get(id)
  if (before !== undefined && context.round > before) {
    if (orElse !== undefined) return orElse()
    const reason = request.method === "elicitation/create" ? Refusal.reasonOf(request.params.message) : undefined
    return Effect.fail(
      new Errors.InputHandlerError({
        kind: kindOf[request.method],
        key: context.key,
        reason:
          `the server asked '${context.key}' again after round ${before}: it did not accept the answer from the answers file` +
          (reason === undefined ? "" : `: ${reason}`)
      })
    )
  }
  answered.set(id, context.round)
  return Effect.mapError(interpret(context.key, answers[context.key]), invalid(request, context))
}

/**
 * Handlers answering from `answers` by key, and from `fallback` for the
 * keys without an answer. Provides all three handlers (so the client
 * declares `elicitation` with form and URL modes, `sampling` and `roots`):
 * a question is never refused for lack of a capability, only for lack of an
 * answer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <R = never>(
  answers: Answers,
  fallback: Fallback<R> = {}
): Layer.Layer<
  ElicitationHandler.ElicitationHandler | SamplingHandler.SamplingHandler | RootsHandler.RootsHandler,
  never,
  R
> => {
  // question (method, target, key) -> the round the file answered it in
  const answered = new Map<string, number>()
  return Layer.mergeAll(
    ElicitationHandler.layer<R>({
      form: (params: ElicitRequestFormParams, context) =>
        answer(
          answers,
          answered,
          { method: "elicitation/create", params },
          context,
          (key, value) => toElicitResult(key, value, "form"),
          fallback.form === undefined ? undefined : () => fallback.form!(params, context)
        ),
      url: (params: ElicitRequestURLParams, context) =>
        answer(
          answers,
          answered,
          { method: "elicitation/create", params },
          context,
          (key, value) => toElicitResult(key, value, "url"),
          fallback.url === undefined ? undefined : () => fallback.url!(params, context)
        )
    }),
    SamplingHandler.layer<R>({
      createMessage: (params: CreateMessageRequestParams, context) =>
        answer(
          answers,
          answered,
          { method: "sampling/createMessage", params },
          context,
          toCreateMessageResult,
          fallback.createMessage === undefined ? undefined : () => fallback.createMessage!(params, context)
        )
    }),
    RootsHandler.layer<R>((context) =>
      answer(
        answers,
        answered,
        { method: "roots/list", params: {} },
        context,
        toRoots,
        fallback.listRoots === undefined ? undefined : () => fallback.listRoots!(context)
      )
    )
  )
}

/**
 * A skeleton answer for a question, to show someone writing an answers
 * file: the form's fields with their types (`"<string, email>"`, …), a
 * sampling reply placeholder, or a root list.
 *
 * @category answers
 * @since 0.1.0
 */
export const template = (request: InputRequest): unknown => {
  switch (request.method) {
    case "elicitation/create": {
      const params = request.params
      if (params.mode === "url") return "accept"
      const required = new Set(params.requestedSchema.required ?? [])
      return Object.fromEntries(
        Object.entries(params.requestedSchema.properties).map(([name, field]) => {
          const type = field.type === "array"
            ? `array of ${
              ("anyOf" in field.items ? field.items.anyOf.map((o) => o.const) : field.items.enum).join(" | ")
            }`
            : "enum" in field
            ? field.enum.join(" | ")
            : "oneOf" in field
            ? field.oneOf.map((o) => o.const).join(" | ")
            : "format" in field && field.format !== undefined
            ? `${field.type}, ${field.format}`
            : field.type
          return [name, `<${type}${required.has(name) ? "" : ", optional"}>`]
        })
      )
    }
    case "sampling/createMessage":
      return "<the model's reply>"
    case "roots/list":
      return ["file:///path/to/root"]
  }
}
