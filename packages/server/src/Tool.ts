/**
 * Tools: typed parameters in, a result out, and asks in between.
 *
 * A tool's `inputSchema` is generated from its Effect Schema parameters and
 * its arguments are decoded with the same schema; an optional `output`
 * schema generates `outputSchema` and fills `structuredContent`. The handler
 * is an Effect that may ask (`Elicitation`, `Sampling`, `Roots`) and use
 * `Mrtr.step`; the server runs it with the MRTR engine.
 * Source: MCP 2026-07-28, server/tools; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import { ElicitationSchema, type Task } from "@mrtr/core"
import type { Conversation as ConversationModule } from "@mrtr/core/engine"
import type { CallToolResult, ContentBlock, Tool as WireTool, ToolAnnotations } from "@mrtr/protocol/Schema"
import { Effect, Schema } from "effect"
import { isEmptyStruct, objectSchema, onExcessProperty } from "./internal/toolSchema.ts"
import type { McpRequest } from "./RequestContext.ts"

type Conversation = ConversationModule.Conversation

/**
 * What a tool handler may return:
 * - a string (one text content block),
 * - an array of content blocks,
 * - a `CallToolResult` without `resultType` (`{ content, structuredContent?, isError? }`),
 * - or, when the tool has an `output` schema, a value of that schema's type.
 *
 * @category models
 * @since 0.1.0
 */
export type ToolOutput = string | ReadonlyArray<ContentBlock> | Omit<CallToolResult, "resultType">

/**
 * A tool ready to register: its wire definition (`tools/list` entry) and a
 * `call` that decodes raw arguments and runs the handler.
 *
 * `call` fails with `InvalidToolArguments` when the arguments do not decode;
 * other failures are the handler's (`E`). `R` is what the handler needs
 * besides the engine's `Conversation`. `onError`, when the tool was given
 * one, turns a failure of the handler into the tool's error result (see
 * `ToolError`). `task` is the tool's task policy (Tasks extension,
 * SEP-2663; absent = `forbidden`), never sent on the wire.
 *
 * @category models
 * @since 0.1.0
 */
export interface Tool<E = never, R = never> {
  readonly name: string
  readonly definition: WireTool
  /**
   * OAuth scopes a caller's access token must hold to use this, on HTTP with
   * `Authorization.layer` (checked before the handler runs: HTTP 403
   * `insufficient_scope` otherwise). Default none. MCP 2026-07-28 basic/authorization.
   */
  readonly scopes?: ReadonlyArray<string> | undefined
  readonly task?: TaskPolicy | undefined
  /**
   * Who may see and call it: `false` for a principal hides it from
   * `tools/list` and answers its calls as an unknown tool's (-32602). Set by
   * `McpServer.mount`'s `visible`. Default: everyone.
   */
  readonly visible?: ((principal: string | undefined) => boolean) | undefined
  readonly call: (
    args: unknown
  ) => Effect.Effect<Omit<CallToolResult, "resultType">, E | InvalidToolArguments, R | Conversation | McpRequest>
  /** Called with a failure of the handler (of type `E`; typed `unknown` so tools of any `E` register together). */
  readonly onError?: ((error: unknown) => Omit<CallToolResult, "resultType">) | undefined
  /**
   * The arguments as the parameters decode them, encoded back to JSON: keys
   * the parameters do not declare are gone. What a task keeps of its call
   * (a client cannot park unknown data in the server for the task's TTL).
   * Fails with `InvalidToolArguments` as `call` would.
   */
  readonly decodeArguments?:
    | ((args: unknown) => Effect.Effect<Record<string, unknown>, InvalidToolArguments>)
    | undefined
}

/**
 * The arguments of a `tools/call` do not match the tool's parameters.
 * The server answers JSON-RPC `-32602` (InvalidParams) with `message`.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidToolArguments extends Schema.TaggedError<InvalidToolArguments>()("InvalidToolArguments", {
  tool: Schema.String,
  issue: Schema.String
}) {
  override get message(): string {
    return `Invalid arguments for tool ${this.tool}: ${this.issue}`
  }
}

type Parameters = Schema.Codec<any, any, never, never>

/**
 * A tool's task policy (Tasks extension, SEP-2663): `support` says whether a
 * call may (`optional`) or must (`required`) run as a task, `start` where it
 * goes asynchronous (`"call"`: at once; `"detach"`: at the handler's
 * `Task.detach`, after MRTR rounds). See `Task.TaskSupport`, `Task.TaskStart`.
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskPolicy {
  readonly support: Task.TaskSupport
  readonly start: Task.TaskStart
}

/**
 * The options of {@link make}.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options<P extends Parameters, O, E, R> {
  /**
   * A title for people, shown by clients instead of the name.
   *
   * @default undefined (none sent)
   */
  readonly title?: string | undefined
  /**
   * What the tool does, for the client's model.
   *
   * @default undefined (none sent)
   */
  readonly description?: string | undefined
  /**
   * Hints about the tool's behaviour (`readOnlyHint`, `destructiveHint`, ...), sent as they are.
   *
   * @default undefined (none sent)
   */
  readonly annotations?: ToolAnnotations | undefined
  /**
   * An Effect Schema of the arguments object. Fields annotated `{ "x-mcp-header": "Name" }` are mirrored by clients
   * into an `Mcp-Param-Name` HTTP header. A struct is closed: its `inputSchema` says `additionalProperties: false`
   * (nested structs too), and arguments with a key it does not declare are refused (-32602 naming the key), never
   * silently dropped; a `Schema.Record` or `StructWithRest` admits the keys it models.
   *
   * @default undefined (no parameters)
   */
  readonly parameters?: P | undefined
  /**
   * An Effect Schema of the structured result: the handler returns its type, sent as `structuredContent`, and the
   * schema is the tool's `outputSchema`.

   *
   * @default undefined (the handler returns text, content blocks or a `CallToolResult`)
   */
  readonly output?: Schema.Codec<O, any, never, never> | undefined
  /**
   * OAuth scopes a caller needs, on an HTTP transport with `Authorization.layer` (see `Authorization`); a caller
   * without them gets 403 `insufficient_scope` before the handler runs.
   *
   * @default [] (no scope needed)
   */
  readonly scopes?: ReadonlyArray<string> | undefined
  /** Runs a call: receives the decoded arguments, returns the result (it may ask the user, a model, the roots). */
  readonly handler: (params: P["Type"]) => Effect.Effect<[O] extends [never] ? ToolOutput : O, E, R>
  /**
   * The form schemas the handler asks, by form name (e.g. the ask's key): checked against the elicitation subset when
   * the tool is defined, so a form the spec does not allow (a nested struct) throws `InvalidElicitationSchema` naming
   * the tool, the form and the field instead of failing when called.
   *
   * @default undefined (forms are checked at the ask)
   */
  readonly forms?: ElicitationSchema.DeclaredForms | undefined
  /**
   * The task policy (Tasks extension): `"forbidden"`, `"optional"`, `"required"`, or `{ support, start }` where
   * `start` is `"call"` (the default: the task starts before the handler) or `"detach"` (it starts at the handler's
   * `yield* Task.detach`; asks before it are MRTR rounds of the `tools/call`).
   *
   * @default "forbidden"
   */
  readonly task?:
    | Task.TaskSupport
    | { readonly support: Task.TaskSupport; readonly start?: Task.TaskStart | undefined }
    | undefined
  /**
   * Maps a typed failure of the handler to the tool's result, as a handler's return value (a string, content blocks, or
   * a `CallToolResult`; `isError: true` unless it sets `isError`). Either way the failure is logged (warning).
   * Protocol failures (bad arguments, a missing client capability, an `McpError`) never reach it.
   *
   * @default undefined (`isError: true` with `ToolError.describe(error)`: the error's message, else its tag and fields)
   */
  readonly onError?: ((error: E) => ToolOutput) | undefined
}

const NoParameters = Schema.Struct({})

const toResult = (output: unknown): Omit<CallToolResult, "resultType"> =>
  typeof output === "string"
    ? { content: [{ type: "text", text: output }] }
    : Array.isArray(output)
    ? { content: output as Array<ContentBlock> }
    : output as Omit<CallToolResult, "resultType">

/**
 * Defines a tool.
 *
 * Throws at definition time when `parameters` or `output` is not an object
 * schema (the spec requires `inputSchema.type === "object"`), or when a
 * declared form (`forms`) is outside the elicitation subset
 * (`InvalidElicitationSchema` naming the tool, the form and the field).
 *
 * **Example** (A tool that asks the user's name)
 *
 * ```ts
 * import { Elicitation } from "@mrtr/core"
 * import { Tool } from "@mrtr/server"
 * import { Effect, Schema } from "effect"
 *
 * const greet = Tool.make("greet", {
 *   parameters: Schema.Struct({ greeting: Schema.String }),
 *   handler: Effect.fn(function*({ greeting }) {
 *     const { name } = yield* Elicitation.form({ message: "Your name?", schema: Schema.Struct({ name: Schema.String }) })
 *     return `${greeting}, ${name}!`
 *   })
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <P extends Parameters = typeof NoParameters, O = never, E = never, R = never>(
  name: string,
  options: Options<P, O, E, R>
): Tool<E, Exclude<R, Conversation | McpRequest>> => {
  ElicitationSchema.checkForms(`tool "${name}"`, options.forms)
  const parameters: Parameters = options.parameters ?? NoParameters
  const decodeParameters = Schema.decodeUnknownEffect(Schema.toCodecJson(parameters), { onExcessProperty })
  // No parameters: no argument either, as the inputSchema says (Effect checks nothing of an empty struct's keys).
  const decode: (args: unknown) => Effect.Effect<unknown, { readonly message: string }> = isEmptyStruct(parameters)
    ? (args: unknown) => {
      const excess = Object.keys(args as object)[0]
      return excess === undefined
        ? decodeParameters(args)
        : Effect.fail({ message: `Expected no excess property\n  at [${JSON.stringify(excess)}]` })
    }
    : decodeParameters
  const encodeArguments = Schema.encodeEffect(Schema.toCodecJson(parameters))
  const output = options.output
  const encodeOutput = output === undefined ? undefined : Schema.encodeEffect(Schema.toCodecJson(output))
  const definition: WireTool = {
    name,
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.description === undefined ? {} : { description: options.description }),
    inputSchema: objectSchema(parameters, "parameters", true) as WireTool["inputSchema"],
    ...(output === undefined
      ? {}
      : { outputSchema: objectSchema(output, "output", false) as WireTool["outputSchema"] }),
    ...(options.annotations === undefined ? {} : { annotations: options.annotations })
  } as WireTool
  const task = options.task
  const policy: TaskPolicy | undefined = task === undefined || task === "forbidden"
    ? undefined
    : typeof task === "string"
    ? { support: task, start: "call" }
    : task.support === "forbidden"
    ? undefined
    : { support: task.support, start: task.start ?? "call" }
  const onError = options.onError
  return {
    name,
    definition,
    scopes: options.scopes,
    ...(policy === undefined ? {} : { task: policy }),
    ...(onError === undefined ? {} : {
      onError: (error: unknown) => {
        const result = toResult(onError(error as E))
        return result.isError === undefined ? { ...result, isError: true } : result
      }
    }),
    decodeArguments: (args) =>
      decode(args ?? {}).pipe(
        Effect.flatMap((params) => encodeArguments(params)),
        Effect.map((encoded) => encoded as Record<string, unknown>),
        Effect.mapError((issue) => new InvalidToolArguments({ tool: name, issue: issue.message }))
      ),
    call: (args) =>
      decode(args ?? {}).pipe(
        Effect.mapError((issue) => new InvalidToolArguments({ tool: name, issue: issue.message })),
        Effect.flatMap((params) => options.handler(params)),
        Effect.flatMap((value) =>
          encodeOutput === undefined
            ? Effect.succeed(toResult(value))
            : encodeOutput(value as O).pipe(
              Effect.orDie,
              Effect.map((structured) => ({
                content: [{ type: "text" as const, text: JSON.stringify(structured) }],
                structuredContent: structured as Record<string, unknown>
              }))
            )
        )
      ) as Effect.Effect<
        Omit<CallToolResult, "resultType">,
        E | InvalidToolArguments,
        Exclude<R, Conversation | McpRequest> | Conversation | McpRequest
      >
  }
}
