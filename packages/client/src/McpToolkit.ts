/**
 * `McpToolkit`: the tools of a connected MCP server (either era) as an
 * `effect/ai` `Toolkit.WithHandler`, for `LanguageModel.generateText`,
 * `streamText` and `Chat`.
 *
 * Each server tool becomes a `Tool.dynamic` whose parameters are an Effect
 * Schema imported from the tool's `inputSchema` (so a provider builds its own
 * JSON Schema of it, strict mode included, and decodes the model's
 * arguments with it), whose success is the whole `CallToolResult`
 * (`McpToolResult`: every content block, `structuredContent` checked against
 * the tool's `outputSchema` and typed by its import, `_meta`)
 * and whose failure is `McpToolError` (a result with `isError: true`, a
 * JSON-RPC error, an ask nobody answered). The model sees the content
 * through `toModelOutput` (text as text; images, audio and blobs as files;
 * embedded resources and links described; `structuredContent` as JSON).
 * The tool's `title` and hints become `effect/ai`'s `Title`, `Readonly`,
 * `Destructive`, `Idempotent`, `OpenWorld` annotations (`Meta` for `_meta`).
 *
 * When a tool asks (`input_required` on 2026-07-28, in-flight requests on
 * 2025-11-25) there are two modes:
 * - `"inline"` (default): the `ElicitationHandler`, `SamplingHandler` and
 *   `RootsHandler` of the `McpClient` answer every round inside the one
 *   tool call.
 * - `"suspend"`: the tool call ends with `McpToolInputRequired` as its
 *   result, a Schema class holding the questions and the `requestState`
 *   (persist it with the chat's history); `resume` sends the answers and
 *   continues the same conversation, and `replaceResult` puts the outcome in
 *   place of the suspension in a `Prompt` (the chat's history). This needs a
 *   2026-07-28 server and a client that declares the capability without a
 *   handler (`McpClient.layer({ capabilities })`, its manual mode): a
 *   2025-11-25 server's question must be answered while its request is
 *   open, so there it is answered inline or the call fails.
 *
 * Gotchas:
 * - An ask the client cannot answer never counts as accepted: the server
 *   answers `-32021` (the capability was not declared) or the round ends
 *   the call (`McpToolError` with `reason: "unanswered"` in inline mode).
 * - `effect/ai`'s tool-approval parts (`needsApproval`) are asked before a
 *   tool runs and answered with a boolean; an MCP ask comes while the tool
 *   runs and is answered with content (a form, a sampled message, roots),
 *   so a suspension travels as the tool's result instead. Approval is still
 *   available before the call: `needsApproval` here sets it per tool (for
 *   instance for tools with `destructiveHint`).
 * - The tool list is cached: listed again after `notifications/tools/list_changed`
 *   (2025-11-25: on the session; 2026-07-28: on a `subscriptions/listen`
 *   stream the toolkit keeps open from its first listing, when the server
 *   acknowledges it), when the list's `ttlMs` (2026-07-28) has passed, or
 *   on `refresh`. Pass
 *   `toolkit` (an Effect) to `generateText` to use the current list on each
 *   turn. A listing reads at most 100 pages (a server handing out cursors
 *   without end is cut there, logged).
 * - Model names: `prefix + name`, characters outside `[a-zA-Z0-9_-]` as
 *   `_`; a tool whose model name is too long or taken is skipped (logged).
 * - The import of an `inputSchema` (`SchemaRepresentation.fromJsonSchemaDocument`):
 *   an object that declares properties but leaves `additionalProperties`
 *   open is offered closed, a root without properties is a tool without
 *   parameters, `pattern`s are not sent (a server's pattern is not run
 *   here: the server checks it), and keywords the import cannot represent
 *   (`if`/`then`/`else`, `contains`, `dependentSchemas`, `not`, ...) are
 *   left out of what the model is told. A schema that still does not import,
 *   or that OpenAI's structured-output subset cannot express, is given to the
 *   model as it is (`Tool.dynamic` with JSON Schema, not strict; logged): a
 *   provider that decodes calls with an Effect Schema (`@effect/ai-openai`)
 *   then fails the turn that calls that tool with its `AiError`.
 * - Arguments the imported schema refuses are the tool's failure
 *   (`effect/ai`'s `ToolParameterValidationError`, given to the model with
 *   `failureMode: "return"`), without a `tools/call`.
 *
 * Source: MCP 2026-07-28, server/tools, basic/patterns/mrtr; 2025-11-25,
 * server/tools (list changed notification).
 *
 * @since 0.1.0
 */
import {
  ContentBlock,
  InputRequests,
  type InputResponses,
  type Tool as McpToolDefinition,
  type ToolAnnotations
} from "@mrtr/protocol/Schema"
import { Cause, Clock, Context, Effect, Layer, Option, Ref, Schedule, Schema, Semaphore, Stream } from "effect"
import { Prompt, Tool, Toolkit } from "effect/ai"
import type * as JsonSchema from "effect/JsonSchema"
import type { McpClientError } from "./Errors.ts"
import * as Mapping from "./internal/toolkitMapping.ts"
import { McpClient } from "./McpClient.ts"

// =============================================================================
// Models
// =============================================================================

/**
 * A tool's complete result, as the server sent it (less `resultType`,
 * `isError`): the tool's success in `effect/ai`.
 *
 * MCP 2026-07-28, schema `CallToolResult`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const McpToolResult = Schema.Struct({
  content: Schema.Array(ContentBlock),
  structuredContent: Schema.optionalKey(Schema.Unknown),
  _meta: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "McpToolResult" })

/**
 * The decoded side of `McpToolResult`.
 *
 * @category models
 * @since 0.1.0
 */
export type McpToolResult = typeof McpToolResult.Type

/**
 * A suspended tool call (mode `"suspend"`): the server's questions
 * (`inputRequests`) and everything needed to continue the same MCP
 * conversation later, in another process if need be: the server's tool
 * `name`, the `arguments`, the `requestState` to echo, the `toolCallId` of
 * the model's call and the `round` that asked. Encode it with its Schema to
 * persist it.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (`InputRequiredResult`).
 *
 * @category schemas
 * @since 0.1.0
 */
export class McpToolInputRequired extends Schema.TaggedClass<McpToolInputRequired>()("McpToolInputRequired", {
  name: Schema.String,
  arguments: Schema.Record(Schema.String, Schema.Unknown),
  inputRequests: InputRequests,
  requestState: Schema.optionalKey(Schema.String),
  toolCallId: Schema.optionalKey(Schema.String),
  round: Schema.Int
}) {}

/**
 * A tool call's success in `effect/ai`: the complete result, or (mode
 * `"suspend"`) the questions it waits for.
 *
 * @category schemas
 * @since 0.1.0
 */
export const McpToolOutcome = Schema.Union([McpToolInputRequired, McpToolResult])

/**
 * The decoded side of `McpToolOutcome`.
 *
 * @category models
 * @since 0.1.0
 */
export type McpToolOutcome = typeof McpToolOutcome.Type

/**
 * A tool call that did not succeed, as the tool's failure in `effect/ai`:
 * - `reason: "isError"`: the tool's result said `isError: true`; `result`
 *   holds it whole.
 * - `"request"`: the call failed (a JSON-RPC error with its `code`, e.g.
 *   `-32021` for a capability the client did not declare, `-32602`; a
 *   transport failure, a timeout, too many rounds, a handler's failure).
 * - `"unanswered"`: the server asked and nothing could answer (mode
 *   `"inline"` without the handler); `inputRequests` holds the questions.
 * - `"structuredContent"`: the result does not conform to the tool's
 *   `outputSchema`; `result` holds it.
 * - `"arguments"`: the model's arguments are not a JSON object.
 *
 * MCP 2026-07-28, server/tools (error handling), basic/patterns/mrtr.
 *
 * @category errors
 * @since 0.1.0
 */
export class McpToolError extends Schema.TaggedError<McpToolError>()("McpToolError", {
  name: Schema.String,
  reason: Schema.Literals(["isError", "request", "unanswered", "structuredContent", "arguments"]),
  description: Schema.String,
  code: Schema.optionalKey(Schema.Number),
  result: Schema.optionalKey(McpToolResult),
  inputRequests: Schema.optionalKey(InputRequests)
}) {
  override get message(): string {
    return `${this.name}: ${this.description}`
  }
}

/**
 * One MCP tool as an `effect/ai` tool. Its `parametersSchema` is the Effect
 * Schema imported from the tool's `inputSchema` (read the JSON Schema with
 * `Tool.getJsonSchema`); `jsonSchema` is set only for a tool whose schema
 * could not be imported, given to the model as it is.
 *
 * @category models
 * @since 0.1.0
 */
export type McpTool = Tool.Dynamic<string, {
  readonly parameters: Schema.Constraint | JsonSchema.JsonSchema
  readonly success: typeof McpToolOutcome
  readonly failure: typeof McpToolError
  readonly failureMode: Tool.FailureMode
}>

/**
 * Options of `make` / `layer`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Prepended to every tool's name as the model sees it (e.g. `"github_"`). @default "" */
  readonly prefix?: string | undefined
  /** Only these server tools (by the server's name, or a predicate on the definition). @default every tool */
  readonly include?: ReadonlyArray<string> | ((tool: McpToolDefinition) => boolean) | undefined
  /** Leave these server tools out (applied after `include`). @default none */
  readonly exclude?: ReadonlyArray<string> | ((tool: McpToolDefinition) => boolean) | undefined
  /** What a tool that asks does: answered in the call (`"inline"`) or suspended (`"suspend"`). @default "inline" */
  readonly mode?: "inline" | "suspend" | undefined
  /**
   * `effect/ai`'s failure mode of every tool: `"return"` gives the model the failure as the tool's result,
   * `"error"` fails the `generateText` call with it.
   * @default "return"
   */
  readonly failureMode?: Tool.FailureMode | undefined
  /** Which tools need the person's approval before they run (`effect/ai`'s `needsApproval`). @default none */
  readonly needsApproval?: ((tool: McpToolDefinition) => boolean) | undefined
}

/**
 * The service: `toolkit` (the current tools, listed again when stale; pass
 * it as `generateText`'s `toolkit`), `refresh` (list again now),
 * `resume` (continue a suspended call with the answers, by key) and the
 * server definition behind a model tool name (`definition`).
 *
 * @category services
 * @since 0.1.0
 */
export class McpToolkit extends Context.Service<McpToolkit, {
  readonly toolkit: Effect.Effect<Toolkit.WithHandler<Record<string, McpTool>>, McpToolError>
  readonly refresh: Effect.Effect<Toolkit.WithHandler<Record<string, McpTool>>, McpToolError>
  readonly resume: (
    suspended: McpToolInputRequired,
    inputResponses: InputResponses
  ) => Effect.Effect<McpToolOutcome, McpToolError>
  readonly definition: (modelName: string) => Effect.Effect<Option.Option<McpToolDefinition>>
}>()("@mrtr/client/McpToolkit") {}

// =============================================================================
// Helpers
// =============================================================================

/**
 * The MCP `ToolAnnotations` an `effect/ai` tool's annotations stand for
 * (`Title`, `Readonly`, `Destructive`, `Idempotent`, `OpenWorld`): the
 * inverse of the mapping `McpToolkit` applies to a server's tools.
 *
 * MCP 2026-07-28, server/tools (`ToolAnnotations`).
 *
 * @category mapping
 * @since 0.1.0
 */
export const annotationsOf: (tool: Tool.Any) => ToolAnnotations = Mapping.annotationsOf

/**
 * Every suspended tool call among `parts`: a model turn's response content,
 * or the tool-result parts of a chat's history (also one restored from
 * `Chat.exportJson`): the `McpToolInputRequired` results, in order.
 *
 * @category suspension
 * @since 0.1.0
 */
export const suspended = (
  parts: ReadonlyArray<{ readonly type: string; readonly result?: unknown }>
): ReadonlyArray<McpToolInputRequired> =>
  parts.flatMap((part) => {
    if (part.type !== "tool-result") return []
    if (part.result instanceof McpToolInputRequired) return [part.result]
    const decoded = decodeSuspension(part.result)
    return decoded._tag === "Some" ? [decoded.value] : []
  })

/**
 * Every suspended tool call in a `Prompt` (a chat's history): see `suspended`.
 *
 * @category suspension
 * @since 0.1.0
 */
export const suspendedIn = (prompt: Prompt.Prompt): ReadonlyArray<McpToolInputRequired> =>
  suspended(prompt.content.flatMap((message) => message.role === "tool" ? message.content : []))

/** How many `tools/list` pages one listing reads at most (as the gateway's mirror and the CLI). */
const MAX_LIST_PAGES = 100

/** How long after an acknowledged `subscriptions/listen` stream ended or failed it is opened again. */
const RELISTEN_DELAY = "1 second"

/** How many distinct JSON Schemas each compiled-schema cache holds before it starts over. */
const MAX_CACHED_SCHEMAS = 1_000

/** A tool's success when it declares an `outputSchema`: `structuredContent` is of its imported schema. */
const successOf = (structured: Schema.Codec<unknown, unknown>) =>
  Schema.Union([
    McpToolInputRequired,
    Schema.Struct({
      content: Schema.Array(ContentBlock),
      structuredContent: Schema.optionalKey(structured),
      _meta: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
    })
  ])

const decodeSuspension = Schema.decodeUnknownOption(McpToolInputRequired)
const encodeOutcome = Schema.encodeSync(McpToolOutcome)
const encodeError = Schema.encodeSync(McpToolError)

/**
 * A `Prompt` (a chat's history) with the result of the tool call
 * `toolCallId` replaced by `outcome`: a resumed call's result, or its
 * failure. The part keeps its id and name; the model sees the new content.
 *
 * @category suspension
 * @since 0.1.0
 */
export const replaceResult = (
  prompt: Prompt.Prompt,
  toolCallId: string,
  outcome: McpToolOutcome | McpToolError
): Prompt.Prompt =>
  Prompt.fromMessages(prompt.content.map((message) =>
    message.role !== "tool" ? message : Prompt.makeMessage("tool", {
      content: message.content.map((part) => {
        if (part.type !== "tool-result" || part.id !== toolCallId) return part
        const isFailure = outcome instanceof McpToolError
        return Prompt.toolResultPart({
          id: part.id,
          name: part.name,
          isFailure,
          result: isFailure ? encodeError(outcome) : encodeOutcome(outcome),
          ...(isFailure ? {} : { modelOutput: modelOutputOfOutcome(outcome) }),
          providerExecuted: part.providerExecuted
        })
      }),
      options: message.options
    })
  ))

const modelOutputOfOutcome = (outcome: McpToolOutcome): Array<Prompt.ToolModelOutputPart> =>
  outcome instanceof McpToolInputRequired
    ? [Prompt.textPart({
      text: `This call waits for the user's answers (${
        Object.values(outcome.inputRequests).map((request) =>
          request.method === "elicitation/create" ? request.params.message : request.method
        ).join("; ")
      }). Its result will follow.`
    })]
    : Mapping.modelOutputOf(outcome)

const matches = (
  selection: ReadonlyArray<string> | ((tool: McpToolDefinition) => boolean),
  tool: McpToolDefinition
): boolean => typeof selection === "function" ? selection(tool) : selection.includes(tool.name)

const LIST_CHANGED = "notifications/tools/list_changed"
const ACKNOWLEDGED = "notifications/subscriptions/acknowledged"

// =============================================================================
// Constructor
// =============================================================================

/**
 * Builds the toolkit over the `McpClient` in context (requires a `Scope`:
 * it watches the client's notifications for `notifications/tools/list_changed`).
 * Nothing is listed until `toolkit` is first used.
 *
 * MCP 2026-07-28, server/tools, basic/patterns/mrtr.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const client = yield* McpClient
  const prefix = options.prefix ?? ""
  const mode = options.mode ?? "inline"
  const failureMode = options.failureMode ?? "return"
  const current = yield* Ref.make<
    Option.Option<{
      readonly toolkit: Toolkit.WithHandler<Record<string, McpTool>>
      readonly definitions: ReadonlyMap<string, McpToolDefinition>
      readonly expiresAt: number
    }>
  >(Option.none())
  const stale = yield* Ref.make(false)
  const listing = yield* Semaphore.make(1)

  yield* client.notifications.pipe(
    Stream.filter((notification) => notification.method === LIST_CHANGED),
    Stream.runForEach(() => Ref.set(stale, true)),
    Effect.forkScoped
  )

  // 2026-07-28: list changes come on a `subscriptions/listen` stream, opened with the first listing. Its
  // acknowledgement marks the list stale too (a change may have come while nothing listened). A stream that was
  // acknowledged is opened again when it ends or fails; one that never was (a server without subscriptions, an
  // error answer) leaves the list to its `ttlMs`.
  const scope = yield* Effect.scope
  const listening = yield* Ref.make(false)
  const subscribeOnce = Effect.gen(function*() {
    let acknowledged = false
    yield* client.listen({ toolsListChanged: true }).pipe(
      Stream.runForEach((notification) => {
        if (notification.method === ACKNOWLEDGED) acknowledged = true
        return notification.method === ACKNOWLEDGED || notification.method === LIST_CHANGED
          ? Ref.set(stale, true)
          : Effect.void
      }),
      Effect.catch((error) => Effect.logDebug(`McpToolkit: subscriptions/listen ended: ${error.message}`))
    )
    return acknowledged
  })
  const subscription = subscribeOnce.pipe(
    Effect.repeat({ while: (acknowledged) => acknowledged, schedule: Schedule.spaced(RELISTEN_DELAY) })
  )
  const listen = Effect.gen(function*() {
    if (yield* Ref.getAndSet(listening, true)) return
    const era = yield* client.connection.pipe(
      Effect.map((connection) => connection.era),
      Effect.orElseSucceed(() => "")
    )
    if (era === "2026-07-28") yield* Effect.forkIn(subscription, scope)
    else if (era === "") yield* Ref.set(listening, false) // not connected yet: the next listing tries again
  })

  const requestFailure = (name: string) => (error: McpClientError): Effect.Effect<never, McpToolError> =>
    Effect.fail(
      new McpToolError({
        name,
        reason: error._tag === "InputRequiredError" ? "unanswered" : "request",
        description: error.message,
        ...(error._tag === "McpError" ? { code: error.code } : {}),
        ...(error._tag === "InputRequiredError" ? { inputRequests: error.inputRequests } : {})
      })
    )

  /** One `tools/call` (a first call or a resumed one) to its outcome. */
  const callWith = (
    definition: McpToolDefinition,
    check: Mapping.StructuredCheck | undefined,
    args: Readonly<Record<string, unknown>>,
    retry: { readonly inputResponses?: InputResponses; readonly requestState?: string | undefined },
    toolCallId: string | undefined
  ): Effect.Effect<McpToolOutcome, McpToolError> =>
    client.callTool({
      name: definition.name,
      arguments: args,
      ...(retry.inputResponses === undefined ? {} : { inputResponses: retry.inputResponses }),
      ...(retry.requestState === undefined ? {} : { requestState: retry.requestState })
    }).pipe(
      Effect.flatMap((result): Effect.Effect<McpToolOutcome, McpToolError> => {
        const value: McpToolResult = {
          content: result.content,
          ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
          ...(result._meta === undefined ? {} : { _meta: result._meta as Record<string, unknown> })
        }
        if (result.isError === true) {
          return Effect.fail(
            new McpToolError({
              name: definition.name,
              reason: "isError",
              description: Prompt.toolModelOutputToText(Mapping.modelOutputOf(value)),
              result: value
            })
          )
        }
        const problem = check?.(result.structuredContent)
        return problem === undefined ? Effect.succeed(value) : Effect.fail(
          new McpToolError({ name: definition.name, reason: "structuredContent", description: problem, result: value })
        )
      }),
      Effect.catch((error) =>
        error._tag === "McpToolError"
          ? Effect.fail(error)
          : mode === "suspend" && error._tag === "InputRequiredError"
          ? Effect.succeed(
            new McpToolInputRequired({
              name: definition.name,
              arguments: { ...args },
              inputRequests: error.inputRequests,
              ...(error.requestState === undefined ? {} : { requestState: error.requestState }),
              ...(toolCallId === undefined ? {} : { toolCallId }),
              round: error.round
            })
          )
          : requestFailure(definition.name)(error)
      )
    )

  /** Compiled once per distinct schema (a list is built again on every change); bounded. */
  const memo = <A>(compile: (schema: Record<string, unknown>) => A) => {
    const cache = new Map<string, A>()
    return (schema: Record<string, unknown>): A => {
      const key = JSON.stringify(schema)
      let value = cache.get(key)
      if (value === undefined) {
        if (cache.size >= MAX_CACHED_SCHEMAS) cache.clear()
        value = compile(schema)
        cache.set(key, value)
      }
      return value
    }
  }
  const structuredCheck = memo(Mapping.structuredCheckOf)
  const structuredSchema = memo((schema) => {
    const imported = Mapping.structuredOf(schema)
    if (imported._tag === "Raw") return { decode: undefined, success: McpToolOutcome }
    const decode = Schema.decodeUnknownExit(imported.schema)
    return { decode, success: successOf(imported.schema) }
  })
  const parameters = memo(Mapping.parametersOf)
  const warned = new WeakSet<Mapping.Imported>()

  /** The check of a result's `structuredContent`: the `outputSchema` by JSON Schema's rules, then its import. */
  const checkOf = (definition: McpToolDefinition): Mapping.StructuredCheck | undefined => {
    if (definition.outputSchema === undefined) return undefined
    const check = structuredCheck(definition.outputSchema as Record<string, unknown>)
    const { decode } = structuredSchema(definition.outputSchema as Record<string, unknown>)
    if (decode === undefined) return check
    return (structuredContent) => {
      const problem = check(structuredContent)
      if (problem !== undefined) return problem
      const exit = decode(structuredContent)
      return exit._tag === "Success" ?
        undefined :
        `structuredContent does not match the tool's outputSchema: ${Cause.pretty(exit.cause)}`
    }
  }

  const build = Effect.fnUntraced(function*(all: ReadonlyArray<McpToolDefinition>) {
    const tools: Array<McpTool> = []
    const definitions = new Map<string, McpToolDefinition>()
    const handlers: Record<
      string,
      (params: unknown, context: Toolkit.HandlerContext<McpTool>) => Effect.Effect<McpToolOutcome, McpToolError>
    > = {}
    for (const definition of all) {
      if (options.include !== undefined && !matches(options.include, definition)) continue
      if (options.exclude !== undefined && matches(options.exclude, definition)) continue
      const name = Mapping.modelName(prefix, definition.name)
      if (name === undefined || definitions.has(name)) {
        yield* Effect.logWarning(
          `McpToolkit: tool ${JSON.stringify(definition.name)} skipped (model name unusable or taken)`
        )
        continue
      }
      definitions.set(name, definition)
      const check = checkOf(definition)
      const approval = options.needsApproval?.(definition) === true
      const imported = parameters(definition.inputSchema as Record<string, unknown>)
      if (imported._tag === "Raw" && !warned.has(imported)) {
        warned.add(imported) // once per schema, not on every listing
        yield* Effect.logWarning(
          `McpToolkit: the inputSchema of tool ${
            JSON.stringify(definition.name)
          } is given to the model as it is (it cannot be imported as an Effect Schema: ${imported.reason})`
        )
      }
      const tool = Mapping.annotate(
        Tool.dynamic(name, {
          parameters: imported._tag === "Imported"
            ? imported.schema
            : definition.inputSchema as JsonSchema.JsonSchema,
          ...(definition.description === undefined ? {} : { description: definition.description }),
          success: definition.outputSchema === undefined
            ? McpToolOutcome
            : structuredSchema(definition.outputSchema as Record<string, unknown>).success,
          failure: McpToolError,
          failureMode,
          ...(approval ? { needsApproval: true } : {}),
          toModelOutput: modelOutputOfOutcome
        }) as unknown as McpTool,
        definition,
        imported._tag === "Imported"
      )
      tools.push(tool)
      handlers[name] = (params, context) =>
        typeof params !== "object" || params === null || Array.isArray(params)
          ? Effect.fail(
            new McpToolError({
              name: definition.name,
              reason: "arguments",
              description: "the tool's arguments must be a JSON object"
            })
          )
          : callWith(definition, check, params as Record<string, unknown>, {}, context.toolCallId)
    }
    const toolkit = Toolkit.make(...tools) as unknown as Toolkit.Toolkit<Record<string, McpTool>>
    const withHandler = yield* toolkit.pipe(Effect.provideContext(yield* toolkit.toHandlers(handlers as any)))
    return { toolkit: withHandler, definitions }
  })

  const listAll = Effect.fnUntraced(function*() {
    const all: Array<McpToolDefinition> = []
    let cursor: string | undefined
    let ttlMs = Number.POSITIVE_INFINITY
    // A 2025-11-25 list has no ttlMs (it decodes as 0): it holds until notifications/tools/list_changed.
    const legacy = (yield* client.connection).era === "2025-11-25"
    const seen = new Set<string>()
    let pages = 0
    do {
      if (pages++ === MAX_LIST_PAGES) {
        // A server handing out cursors without end would grow the list (and this client) without bound.
        yield* Effect.logWarning(`tools/list: more than ${MAX_LIST_PAGES} pages; the tools of the first ones are kept`)
        break
      }
      const page = yield* client.listTools(cursor === undefined ? {} : { cursor })
      for (const tool of page.tools) all.push(tool)
      const pageTtl = (page as { readonly ttlMs?: unknown }).ttlMs
      if (!legacy && typeof pageTtl === "number") ttlMs = Math.min(ttlMs, Math.max(0, pageTtl))
      cursor = page.nextCursor
      if (cursor !== undefined && seen.has(cursor)) break // a server repeating a cursor would loop forever
      if (cursor !== undefined) seen.add(cursor)
    } while (cursor !== undefined)
    return { all, ttlMs }
  })

  const relist = listing.withPermits(1)(Effect.gen(function*() {
    yield* Ref.set(stale, false)
    const { all, ttlMs } = yield* listAll().pipe(Effect.catch(requestFailure("tools/list")))
    const built = yield* build(all)
    const now = yield* Clock.currentTimeMillis
    yield* Ref.set(current, Option.some({ ...built, expiresAt: now + ttlMs }))
    return built.toolkit
  }))

  const toolkit = Effect.gen(function*() {
    yield* listen
    const cached = yield* Ref.get(current)
    const now = yield* Clock.currentTimeMillis
    if (Option.isSome(cached) && !(yield* Ref.get(stale)) && now < cached.value.expiresAt) {
      return cached.value.toolkit
    }
    return yield* relist
  })

  return McpToolkit.of({
    toolkit,
    refresh: relist,
    resume: (suspendedCall, inputResponses) =>
      Effect.gen(function*() {
        const cached = yield* Ref.get(current)
        const known = Option.flatMap(
          cached,
          (c) => Option.fromUndefinedOr([...c.definitions.values()].find((d) => d.name === suspendedCall.name))
        )
        const definition: McpToolDefinition = Option.getOrElse(known, () => ({
          name: suspendedCall.name,
          inputSchema: { type: "object" as const }
        }))
        return yield* callWith(
          definition,
          checkOf(definition),
          suspendedCall.arguments,
          {
            inputResponses,
            ...(suspendedCall.requestState === undefined ? {} : { requestState: suspendedCall.requestState })
          },
          suspendedCall.toolCallId
        )
      }),
    definition: (name) =>
      Effect.map(Ref.get(current), Option.flatMap((c) => Option.fromUndefinedOr(c.definitions.get(name))))
  })
})

/**
 * Provides `McpToolkit` over the `McpClient` in context.
 *
 * MCP 2026-07-28, server/tools, basic/patterns/mrtr.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<McpToolkit, never, McpClient> =>
  Layer.effect(McpToolkit, make(options))
