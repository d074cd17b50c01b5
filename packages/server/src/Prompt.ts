/**
 * Prompts: templated messages with string arguments, optional argument
 * completions, and handlers that may ask.
 *
 * Arguments are an Effect Schema struct of string fields; required fields
 * become required `PromptArgument`s, and field `description`/`title`
 * annotations are carried over. The handler may ask (`prompts/get` supports
 * MRTR) and returns messages.
 * Source: MCP 2026-07-28, server/prompts; server/utilities/completion;
 * basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import { ElicitationSchema } from "@mrtr/core"
import type { Conversation as ConversationModule } from "@mrtr/core/engine"
import type { GetPromptResult, Prompt as WirePrompt, PromptArgument, PromptMessage } from "@mrtr/protocol/Schema"
import { Effect, Schema } from "effect"
import type { McpRequest } from "./RequestContext.ts"

type Conversation = ConversationModule.Conversation

/**
 * What a prompt handler may return: a string (one user text message), an
 * array of `PromptMessage`s, or a `GetPromptResult` without `resultType`.
 *
 * @category models
 * @since 0.1.0
 */
export type PromptOutput = string | ReadonlyArray<PromptMessage> | Omit<GetPromptResult, "resultType">

/**
 * Completes one argument: receives the partial `value` typed so far and the
 * other arguments already filled in, returns candidate values (at most 100
 * are sent, per the spec).
 *
 * @category models
 * @since 0.1.0
 */
export type Completer = (
  value: string,
  context: Readonly<Record<string, string>>
) => Effect.Effect<ReadonlyArray<string>>

/**
 * A prompt ready to register: its wire definition (`prompts/list` entry),
 * `get`, and its argument completers.
 *
 * `get` fails with `InvalidPromptArguments` when the arguments do not decode.
 *
 * @category models
 * @since 0.1.0
 */
export interface Prompt<E = never, R = never> {
  readonly name: string
  readonly definition: WirePrompt
  /**
   * OAuth scopes a caller's access token must hold to use this, on HTTP with
   * `Authorization.layer` (checked before the handler runs: HTTP 403
   * `insufficient_scope` otherwise). Default none. MCP 2026-07-28 basic/authorization.
   */
  readonly scopes?: ReadonlyArray<string> | undefined
  /** Who may see and get it (see `Tool.visible`). Default: everyone. */
  readonly visible?: ((principal: string | undefined) => boolean) | undefined
  readonly get: (
    args: unknown
  ) => Effect.Effect<Omit<GetPromptResult, "resultType">, E | InvalidPromptArguments, R | Conversation | McpRequest>
  readonly completions: Readonly<Record<string, Completer>>
}

/**
 * The arguments of a `prompts/get` do not match the prompt's arguments.
 * The server answers JSON-RPC `-32602` (InvalidParams).
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidPromptArguments extends Schema.TaggedError<InvalidPromptArguments>()("InvalidPromptArguments", {
  prompt: Schema.String,
  issue: Schema.String
}) {
  override get message(): string {
    return `Invalid arguments for prompt ${this.prompt}: ${this.issue}`
  }
}

type Arguments = Schema.Codec<any, any, never, never>

/**
 * The options of {@link make}.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options<A extends Arguments, E, R> {
  /**
   * A title for people, shown by clients instead of the name.
   *
   * @default undefined (none sent)
   */
  readonly title?: string | undefined
  /**
   * What the prompt is for.
   *
   * @default undefined (none sent)
   */
  readonly description?: string | undefined
  /**
   * A struct of string fields: the prompt's arguments, listed with the prompt and decoded before the handler runs.
   *
   * @default undefined (no arguments)
   */
  readonly arguments?: A | undefined
  /**
   * Completers of argument values, by argument name (`completion/complete`).
   *
   * @default {} (no completions)
   */
  readonly completions?: Readonly<Record<string, Completer>> | undefined
  /**
   * OAuth scopes needed to get the prompt on an HTTP transport with `Authorization.layer` (see `Authorization`).
   *
   * @default [] (no scope needed)
   */
  readonly scopes?: ReadonlyArray<string> | undefined
  /** Makes the prompt's messages from the decoded arguments (it may ask the user, a model, the roots). */
  readonly handler: (args: A["Type"]) => Effect.Effect<PromptOutput, E, R>
  /**
   * The form schemas the handler asks, by form name (e.g. the ask's key): checked against the elicitation subset when
   * the prompt is defined, so a form the spec does not allow (a nested struct) throws `InvalidElicitationSchema` naming
   * the prompt, the form and the field instead of failing when called.
   *
   * @default undefined (forms are checked at the ask)
   */
  readonly forms?: ElicitationSchema.DeclaredForms | undefined
}

const NoArguments = Schema.Struct({})

const argumentsOf = (schema: Schema.Top): Array<PromptArgument> => {
  // Effect renders the empty struct (the default: no arguments) as "any non-nullish value", not as an object.
  const ast = schema.ast as {
    readonly _tag: string
    readonly propertySignatures?: ReadonlyArray<unknown>
    readonly indexSignatures?: ReadonlyArray<unknown>
  }
  if (ast._tag === "Objects" && ast.propertySignatures?.length === 0 && (ast.indexSignatures?.length ?? 0) === 0) {
    return []
  }
  const root = Schema.toJsonSchemaDocument(schema).schema as {
    type?: string
    properties?: Record<string, { title?: string; description?: string }>
    required?: Array<string>
  }
  if (root.type !== "object") throw new Error("The arguments of a prompt must be a Schema.Struct of strings")
  const required = new Set(root.required ?? [])
  return Object.entries(root.properties ?? {}).map(([name, js]) => ({
    name,
    ...(js.title === undefined ? {} : { title: js.title }),
    ...(js.description === undefined ? {} : { description: js.description }),
    required: required.has(name)
  }))
}

const toResult = (output: PromptOutput): Omit<GetPromptResult, "resultType"> =>
  typeof output === "string"
    ? { messages: [{ role: "user", content: { type: "text", text: output } }] }
    : Array.isArray(output)
    ? { messages: output as Array<PromptMessage> }
    : output as Omit<GetPromptResult, "resultType">

/**
 * Defines a prompt.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <A extends Arguments = typeof NoArguments, E = never, R = never>(
  name: string,
  options: Options<A, E, R>
): Prompt<E, Exclude<R, Conversation | McpRequest>> => {
  ElicitationSchema.checkForms(`prompt "${name}"`, options.forms)
  const schema: Arguments = options.arguments ?? NoArguments
  const decode = Schema.decodeUnknownEffect(schema)
  return {
    name,
    scopes: options.scopes,
    definition: {
      name,
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(options.description === undefined ? {} : { description: options.description }),
      arguments: argumentsOf(schema)
    },
    completions: options.completions ?? {},
    get: (args) =>
      decode(args ?? {}).pipe(
        Effect.mapError((issue) => new InvalidPromptArguments({ prompt: name, issue: issue.message })),
        Effect.flatMap((decoded) => options.handler(decoded)),
        Effect.map(toResult)
      ) as Effect.Effect<
        Omit<GetPromptResult, "resultType">,
        E | InvalidPromptArguments,
        Exclude<R, Conversation | McpRequest> | Conversation | McpRequest
      >
  }
}
