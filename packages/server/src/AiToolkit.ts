/**
 * Serving an `effect/ai` Toolkit: the tools an app defined for its own model (`Tool.make` from `effect/ai`, handlers
 * from `toolkit.toLayer`) become tools of this server, unchanged in shape, and their handlers may ask like any handler
 * here: `yield*` `Elicitation`, `Sampling`, `Roots` and `Mrtr.step`, suspended and resumed by the engine (sealed
 * `requestState` on 2026-07-28, the legacy shim on 2025-11-25, tasks).
 *
 * Mapping (effect/ai -> MCP):
 * - `parameters` -> `inputSchema` (closed like every tool here: a key the struct does not declare is refused with
 *   -32602; `Tool.Strict` `false` opens it), decoded with the same Schema; a `Tool.dynamic` JSON Schema is sent as is
 *   and its arguments handed over undecoded.
 * - `success` -> `outputSchema` and `structuredContent` when it encodes to an object; otherwise the content: a string
 *   as text, anything else as JSON text, nothing for `Schema.Void`. A tool's `toModelOutput` gives the content instead
 *   (text parts as text, image and audio files as image and audio blocks, other files as embedded resources, URLs as
 *   resource links).
 * - `failure` (and any other failure of the handler) -> `isError: true`: a declared failure with a `message` as that
 *   text, else its JSON encoding; anything else as `ToolError.describe`. Both `failureMode`s give the same result.
 * - annotations: `Title` -> `title`; `Readonly`, `Destructive`, `Idempotent`, `OpenWorld` -> the `*Hint`s, each only
 *   when set on the tool; `Meta` -> `_meta`.
 * - `needsApproval` -> a confirmation form asked before the handler runs (key `tool-approval`): the handler runs only
 *   when the person allows it, and a client that cannot show forms gets -32021 rather than an unconfirmed run.
 *
 * Gotchas: a handler that asks needs the engine's `Conversation` in its requirements: declare
 * `dependencies: [AiToolkit.Asks]` on the tool, and its ask failures in `failure` (`AiToolkit.AskFailure`), for
 * `toolkit.toLayer` to accept it. A missing client capability still ends the request with -32021 (never the tool's
 * error). Preliminary results (`context.preliminary`) are not sent. The determinism rule of any asking handler holds
 * (I/O between asks inside `Mrtr.step`). Provider-defined tools cannot be served (the provider runs them).
 *
 * Source: MCP 2026-07-28, server/tools; basic/patterns/mrtr.
 *
 * @since 0.5.0
 */
import { Elicitation, ElicitationCancelled, ElicitationDeclined, MissingClientCapability, Mrtr } from "@mrtr/core"
import { Conversation as ConversationModule } from "@mrtr/core/engine"
import type { CallToolResult, ContentBlock, Tool as WireTool, ToolAnnotations } from "@mrtr/protocol/Schema"
import { Context, Effect, Layer, Schema } from "effect"
import * as AiError from "effect/ai/AiError"
import type * as Prompt from "effect/ai/Prompt"
import * as AiTool from "effect/ai/Tool"
import type * as Toolkit from "effect/ai/Toolkit"
import { isEmptyStruct, objectSchema, onExcessProperty } from "./internal/toolSchema.ts"
import * as McpServer from "./McpServer.ts"
import type * as Mount from "./Mount.ts"
import type { McpRequest } from "./RequestContext.ts"
import { InvalidToolArguments, type TaskPolicy, type Tool } from "./Tool.ts"
import * as ToolError from "./ToolError.ts"

type Conversation = ConversationModule.Conversation

/**
 * The engine's service an asking handler needs: put it in the tool's `dependencies` (`Tool.make(name, {
 * dependencies: [AiToolkit.Asks] })`) so that its handler may `yield*` `Elicitation`, `Sampling`, `Roots` and
 * `Mrtr.step`. The server provides it on every call; it is the `Conversation` of `@mrtr/core/engine`.
 *
 * @category services
 * @since 0.5.0
 */
export const Asks: typeof ConversationModule.Conversation = ConversationModule.Conversation

/**
 * The failures an ask may end with, as one Schema for a tool's `failure` (alone, or in a `Schema.Union` with the
 * tool's own): `ElicitationDeclined`, `ElicitationCancelled` (the tool's error result, or caught by the handler) and
 * `MissingClientCapability` (the request's -32021, or caught to fall back).
 *
 * @category schemas
 * @since 0.5.0
 */
export const AskFailure = Schema.Union([ElicitationDeclined, ElicitationCancelled, MissingClientCapability])

/**
 * What the server adds to one served tool, by the tool's name in {@link Options}.
 *
 * @category models
 * @since 0.5.0
 */
export interface ToolOptions {
  /**
   * The task policy (Tasks extension, SEP-2663), as `Tool.make`'s `task`.
   * @default "forbidden"
   */
  readonly task?: TaskPolicy["support"] | {
    readonly support: TaskPolicy["support"]
    readonly start?: TaskPolicy["start"] | undefined
  } | undefined
  /**
   * OAuth scopes a caller's token must hold (HTTP with `Authorization.layer`).
   * @default none
   */
  readonly scopes?: ReadonlyArray<string> | undefined
}

/**
 * The options of {@link layer}.
 *
 * @category models
 * @since 0.5.0
 */
export interface Options<Tools extends Record<string, AiTool.Any>> {
  /**
   * Per-tool additions (task policy, scopes), by tool name.
   * @default {}
   */
  readonly tools?: { readonly [Name in keyof Tools]?: ToolOptions } | undefined
  /**
   * The message of the confirmation form asked before a tool with `needsApproval` runs.
   * @default (name, args) => `Allow the tool ${name} to run with ${JSON.stringify(args)}?`
   */
  readonly approvalMessage?: ((name: string, args: unknown) => string) | undefined
}

/**
 * The requirements of {@link layer}: the server, the toolkit's handlers (`toolkit.toLayer(...)`), and the
 * request-level `dependencies` of its tools besides the ones the server provides (`Asks`, `RequestContext.McpRequest`).
 *
 * @category models
 * @since 0.5.0
 */
export type Requirements<Tools extends Record<string, AiTool.Any>> =
  | McpServer.McpServer
  | AiTool.HandlersFor<Tools>
  | Exclude<AiTool.Requirements<Tools[keyof Tools]>, Conversation | McpRequest>

const Approval = Schema.Struct({ allow: Schema.Boolean.annotate({ title: "Allow" }) })

const defaultApprovalMessage = (name: string, args: unknown) =>
  `Allow the tool ${name} to run with ${JSON.stringify(args)}?`

const hints = [
  ["readOnlyHint", AiTool.Readonly],
  ["destructiveHint", AiTool.Destructive],
  ["idempotentHint", AiTool.Idempotent],
  ["openWorldHint", AiTool.OpenWorld]
] as const

const annotationsOf = (tool: AiTool.Any): ToolAnnotations | undefined => {
  const set = tool.annotations.mapUnsafe
  const annotations: Record<string, unknown> = {}
  const title = Context.getOrUndefined(tool.annotations, AiTool.Title)
  if (title !== undefined) annotations.title = title
  for (const [hint, key] of hints) {
    if (set.has(key.key)) annotations[hint] = Context.get(tool.annotations, key)
  }
  return Object.keys(annotations).length === 0 ? undefined : annotations as ToolAnnotations
}

const base64 = (data: string | Uint8Array): string =>
  typeof data === "string" ? data : Buffer.from(data).toString("base64")

/** A `toModelOutput` part as MCP content. */
const contentOf = (part: Prompt.ToolModelOutputPart): ContentBlock => {
  if (part.type === "text") return { type: "text", text: part.text }
  if (part.data instanceof URL) {
    return {
      type: "resource_link",
      uri: part.data.href,
      name: part.fileName ?? part.data.href,
      mimeType: part.mediaType
    }
  }
  const data = base64(part.data)
  if (part.mediaType.startsWith("image/")) return { type: "image", data, mimeType: part.mediaType }
  if (part.mediaType.startsWith("audio/")) return { type: "audio", data, mimeType: part.mediaType }
  return {
    type: "resource",
    resource: { uri: `file:///${part.fileName ?? "file"}`, mimeType: part.mediaType, blob: data }
  }
}

const isObjectSchema = (schema: Schema.Top): boolean =>
  !isEmptyStruct(schema) && Schema.toJsonSchemaDocument(schema).schema.type === "object"

type Result = Omit<CallToolResult, "resultType">

/** One effect/ai tool and its handler as a tool of this server. */
const serve = (
  tool: AiTool.Any,
  handler: AiTool.Handler<string>,
  options: ToolOptions | undefined,
  approvalMessage: (name: string, args: unknown) => string
): Tool<unknown, never> => {
  const name = tool.name
  const dynamicSchema = AiTool.isDynamic(tool) ? tool.jsonSchema : undefined
  const strict = AiTool.getStrictMode(tool) !== false
  const parameters = tool.parametersSchema as Schema.Codec<unknown, unknown>
  const parametersJson = Schema.toCodecJson(parameters)
  const decodeParameters = dynamicSchema !== undefined
    ? (args: unknown) => Effect.succeed(args)
    : Schema.decodeUnknownEffect(parametersJson, strict ? { onExcessProperty } : {})
  const encodeParameters = dynamicSchema !== undefined
    ? (params: unknown) => Effect.succeed(params)
    : Schema.encodeEffect(parametersJson)
  const decode = (args: unknown) =>
    (decodeParameters(args ?? {}) as Effect.Effect<unknown, { readonly message: string }>).pipe(
      Effect.mapError((issue) => new InvalidToolArguments({ tool: name, issue: issue.message }))
    )
  const success = tool.successSchema as Schema.Codec<unknown, unknown>
  const structured = isObjectSchema(success)
  const encodeSuccess = Schema.encodeEffect(Schema.toCodecJson(success))
  const failure = tool.failureSchema as Schema.Codec<unknown, unknown>
  const isDeclaredFailure = Schema.is(failure)
  const encodeFailure = Schema.encodeUnknownResult(Schema.toCodecJson(failure))
  let inputSchema: unknown
  if (dynamicSchema !== undefined) {
    if (dynamicSchema.type !== "object") throw new Error(`The parameters of tool ${name} must be an object schema`)
    inputSchema = dynamicSchema
  } else {
    inputSchema = parameters === AiTool.EmptyParams
      ? { type: "object", properties: {}, ...(strict ? { additionalProperties: false } : {}) }
      : objectSchema(parameters, "parameters", strict)
  }
  const annotations = annotationsOf(tool)
  const title = Context.getOrUndefined(tool.annotations, AiTool.Title)
  const meta = Context.getOrUndefined(tool.annotations, AiTool.Meta)
  const description = AiTool.getDescription(tool)
  const definition = {
    name,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    inputSchema,
    ...(structured ? { outputSchema: objectSchema(success, "success", false) } : {}),
    ...(annotations === undefined ? {} : { annotations }),
    ...(meta === undefined ? {} : { _meta: meta })
  } as WireTool

  const toResult = (value: unknown): Effect.Effect<Result> => {
    if (tool.toModelOutput !== undefined) {
      const content = tool.toModelOutput(value).map(contentOf)
      return structured
        ? Effect.map(
          Effect.orDie(encodeSuccess(value)),
          (encoded) => ({ content, structuredContent: encoded as Record<string, unknown> })
        )
        : Effect.succeed({ content })
    }
    return Effect.map(Effect.orDie(encodeSuccess(value)), (encoded): Result =>
      structured
        ? {
          content: [{ type: "text", text: JSON.stringify(encoded) }],
          structuredContent: encoded as Record<string, unknown>
        }
        : encoded === undefined
        ? { content: [] }
        : { content: [{ type: "text", text: typeof encoded === "string" ? encoded : JSON.stringify(encoded) }] })
  }

  const needsApproval = tool.needsApproval
  const approve = (params: unknown, args: unknown): Effect.Effect<boolean, unknown, Conversation> => {
    if (needsApproval === undefined || needsApproval === false) return Effect.succeed(true)
    const needed = needsApproval === true
      ? Effect.succeed(true)
      : Mrtr.step(
        "tool-approval-needed",
        Effect.suspend(() => {
          const answer = needsApproval(params, { toolCallId: "", messages: [] })
          return typeof answer === "boolean" ? Effect.succeed(answer) : answer
        }),
        Schema.Boolean
      )
    return Effect.flatMap(needed, (ask) =>
      ask
        ? Elicitation.form({ key: "tool-approval", message: approvalMessage(name, args), schema: Approval }).pipe(
          Effect.map(({ allow }) => allow),
          Effect.catchTags({
            ElicitationDeclined: () => Effect.succeed(false),
            ElicitationCancelled: () => Effect.succeed(false)
          })
        )
        : Effect.succeed(true))
  }

  const run = (params: unknown) =>
    (handler.handler(params, { toolCallId: undefined, preliminary: () => Effect.void }) as Effect.Effect<
      unknown,
      unknown
    >).pipe(
      Effect.updateContext((input: Context.Context<never>) => Context.merge(handler.context, input))
    )

  const task = options?.task
  const policy: TaskPolicy | undefined = task === undefined || task === "forbidden"
    ? undefined
    : typeof task === "string"
    ? { support: task, start: "call" }
    : task.support === "forbidden"
    ? undefined
    : { support: task.support, start: task.start ?? "call" }

  return {
    name,
    definition,
    scopes: options?.scopes,
    ...(policy === undefined ? {} : { task: policy }),
    onError: (error: unknown): Result => {
      if (isDeclaredFailure(error) && !(error instanceof Error && error.message !== "")) {
        const encoded = encodeFailure(error)
        if (encoded._tag === "Success") {
          return { isError: true, content: [{ type: "text", text: JSON.stringify(encoded.success) }] }
        }
      }
      const described = AiError.isAiErrorReason(error) ? error.message : ToolError.describe(error)
      return { isError: true, content: [{ type: "text", text: described }] }
    },
    decodeArguments: (args) =>
      decode(args).pipe(
        Effect.flatMap((params) =>
          (encodeParameters(params) as Effect.Effect<unknown, { readonly message: string }>).pipe(
            Effect.mapError((issue) => new InvalidToolArguments({ tool: name, issue: issue.message }))
          )
        ),
        Effect.map((encoded) => encoded as Record<string, unknown>)
      ),
    call: (args) =>
      Effect.gen(function*() {
        const params = yield* decode(args)
        if (!(yield* approve(params, args ?? {}))) {
          return {
            isError: true,
            content: [{ type: "text", text: `The person did not allow the tool ${name} to run.` }]
          }
        }
        return yield* toResult(yield* run(params))
      }) as Effect.Effect<Result, unknown, Conversation | McpRequest>
  }
}

/**
 * Serves an `effect/ai` Toolkit: registers each of its tools with the server, run by the handlers the toolkit's
 * `toLayer` provides. Merge it into the server's Layers as `McpServer.tools` (it composes with `McpServer.mount`).
 * A tool whose name another source holds fails the Layer with `Mount.NameCollision`.
 *
 * Throws when the Layer is built for a provider-defined tool (the provider runs those) or a parameters Schema that is
 * not an object.
 *
 * **Example** (A Toolkit whose tool asks the user)
 *
 * ```ts
 * import { Elicitation } from "@mrtr/core"
 * import { AiToolkit, McpServer } from "@mrtr/server"
 * import { Effect, Layer, Schema } from "effect"
 * import { Tool, Toolkit } from "effect/ai"
 *
 * const Greet = Tool.make("greet", {
 *   parameters: Schema.Struct({ greeting: Schema.String }),
 *   success: Schema.String,
 *   failure: AiToolkit.AskFailure,
 *   dependencies: [AiToolkit.Asks]
 * })
 * const Greeter = Toolkit.make(Greet)
 *
 * const server = AiToolkit.layer(Greeter).pipe(
 *   Layer.provide(Greeter.toLayer({
 *     greet: Effect.fn(function*({ greeting }) {
 *       const { name } = yield* Elicitation.form({ message: "Your name?", schema: Schema.Struct({ name: Schema.String }) })
 *       return `${greeting}, ${name}!`
 *     })
 *   })),
 *   Layer.provideMerge(McpServer.layer({ name: "greeter", version: "1.0.0" }))
 * )
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layer = <Tools extends Record<string, AiTool.Any>>(
  toolkit: Toolkit.Toolkit<Tools>,
  options: Options<Tools> = {}
): Layer.Layer<never, Mount.NameCollision, Requirements<Tools>> =>
  Layer.unwrap(Effect.gen(function*() {
    const context = yield* Effect.context<AiTool.HandlersFor<Tools>>()
    const approvalMessage = options.approvalMessage ?? defaultApprovalMessage
    const tools = Object.values(toolkit.tools).map((tool) => {
      if (AiTool.isProviderDefined(tool)) {
        throw new Error(`The tool ${tool.name} is provider-defined: its provider runs it, a server cannot serve it`)
      }
      const handler = context.mapUnsafe.get(tool.id) as AiTool.Handler<string> | undefined
      if (handler === undefined) throw new Error(`The toolkit's layer has no handler for the tool ${tool.name}`)
      return serve(tool, handler, options.tools?.[tool.name as keyof Tools], approvalMessage)
    })
    return McpServer.tools(...tools)
  })) as Layer.Layer<never, Mount.NameCollision, Requirements<Tools>>
