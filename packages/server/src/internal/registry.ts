/**
 * The registries both eras share: tools, prompts, resources and templates,
 * and the era-neutral steps of the methods that read them (find the target
 * of a `tools/call` / `prompts/get` / `resources/read` and build its
 * handler, list, complete). The 2026-07-28 dispatcher (`McpServer.ts`) and
 * the 2025-11-25 session dispatcher (`internal/v2025_11_25/dispatch.ts`) call
 * these and then encode the outcome in their era's way.
 *
 * Gotcha: a registry may change at run time; every change is published on
 * `changes` (the 2026-07-28 `subscriptions/listen` streams and the
 * 2025-11-25 sessions' list_changed notifications read it).
 * Source: MCP 2026-07-28 / 2025-11-25, server/tools, server/prompts,
 * server/resources, server/utilities/completion.
 */
import { McpError } from "@mrtr/protocol/ErrorCode"
import { Cause, Effect, ErrorReporter, PubSub } from "effect"
import type { Completer, Prompt } from "../Prompt.ts"
import type { Resource } from "../Resource.ts"
import type { Tool } from "../Tool.ts"
import * as ToolError from "../ToolError.ts"
import { isRecord, toMcpError } from "./errors.ts"

/** Which registry changed. */
export type ListChanged = "tools" | "prompts" | "resources"

type AnyTool = Tool<any, never>
type AnyPrompt = Prompt<any, never>
type AnyResource = Resource<any, never>

/** What an MRTR-capable method runs: the engine's target, the bound arguments and the handler. */
export interface Call {
  readonly method: string
  readonly target: string
  readonly arguments: unknown
  readonly handler: Effect.Effect<Record<string, unknown>, unknown, any>
}

/** Where a resource read failed to find its resource (the eras answer it differently). */
export class ResourceNotFound {
  readonly _tag = "ResourceNotFound"
  constructor(readonly uri: string) {}
}

/** The registries of one server and the era-neutral steps of the methods that read them. */
export interface Registry {
  readonly tools: Map<string, AnyTool>
  readonly prompts: Map<string, AnyPrompt>
  readonly resources: Map<string, AnyResource>
  /** Every change of a registry (the 2026-07-28 `subscriptions/listen` streams read it). */
  readonly changes: PubSub.PubSub<ListChanged>
  /** Synchronous listeners besides `changes`: the 2025-11-25 sessions' list_changed notifications. */
  readonly listeners: Set<(kind: ListChanged) => Effect.Effect<void>>
  /** The resource or template serving `uri`, with a template's variables. */
  readonly findResource: (
    uri: string
  ) => { readonly resource: AnyResource; readonly variables: Readonly<Record<string, string>> } | undefined
  /** The target of a `tools/call` / `prompts/get` / `resources/read` and its handler, or why there is none. */
  readonly call: (method: string, params: Record<string, unknown>) => Call | McpError | ResourceNotFound
  /** `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`: what `principal` may see. */
  readonly listMethod: (
    method: string,
    params: Record<string, unknown>,
    principal?: string | undefined
  ) => Effect.Effect<Record<string, unknown>, McpError>
  /** `completion/complete`. */
  readonly complete: (params: Record<string, unknown>) => Effect.Effect<Record<string, unknown>, McpError>
  readonly addTool: (tool: AnyTool) => Effect.Effect<void>
  readonly removeTool: (name: string) => Effect.Effect<void>
  readonly addPrompt: (prompt: AnyPrompt) => Effect.Effect<void>
  readonly removePrompt: (name: string) => Effect.Effect<void>
  readonly addResource: (resource: AnyResource) => Effect.Effect<void>
  readonly removeResource: (key: string) => Effect.Effect<void>
}

/** Builds empty registries with their change feed. */
export const make = Effect.map(PubSub.unbounded<ListChanged>(), (changes) => makeUnsafe(changes))

const makeUnsafe = (changes: PubSub.PubSub<ListChanged>): Registry => {
  const tools = new Map<string, AnyTool>()
  const prompts = new Map<string, AnyPrompt>()
  const resources = new Map<string, AnyResource>()
  // Synchronous listeners besides the PubSub: the 2025-11-25 sessions' notifications.
  const listeners = new Set<(kind: ListChanged) => Effect.Effect<void>>()
  const changed = (kind: ListChanged) =>
    Effect.andThen(
      PubSub.publish(changes, kind),
      Effect.forEach(listeners, (listener) => listener(kind), { discard: true })
    )

  const findResource = (uri: string) => {
    const exact = resources.get(uri)
    if (exact !== undefined && exact._tag === "Resource") return { resource: exact, variables: {} }
    for (const resource of resources.values()) {
      if (resource._tag !== "ResourceTemplate") continue
      const variables = resource.match(uri)
      if (variables !== undefined) return { resource, variables }
    }
    return undefined
  }

  const callTool = (params: Record<string, unknown>): Call | McpError => {
    const name = params.name
    if (typeof name !== "string") return McpError.invalidParams("tools/call needs a string name")
    const tool = tools.get(name)
    if (tool === undefined) return McpError.invalidParams(`Unknown tool: ${name}`)
    const args = params.arguments
    if (args !== undefined && !isRecord(args)) return McpError.invalidParams("tools/call arguments must be an object")
    const handler = tool.call(args ?? {}).pipe(
      Effect.catch((error: unknown) => {
        if (toMcpError(error) !== undefined) return Effect.fail(error)
        // A tool's own typed failure is a tool execution error, reported in the result (see ToolError).
        const text = ToolError.describe(error)
        // Reported with its cause (the fiber's `ErrorReporter`s, none by default), then logged.
        return ErrorReporter.report(Cause.fail(error)).pipe(
          Effect.andThen(Effect.logWarning(`Tool ${name} failed: ${text}`)),
          Effect.annotateLogs({ tool: name }),
          Effect.andThen(
            Effect.sync(() =>
              tool.onError === undefined
                ? { content: [{ type: "text" as const, text }], isError: true }
                : tool.onError(error)
            )
          )
        )
      })
    )
    return { method: "tools/call", target: name, arguments: args ?? {}, handler: handler as Call["handler"] }
  }

  const getPrompt = (params: Record<string, unknown>): Call | McpError => {
    const name = params.name
    if (typeof name !== "string") return McpError.invalidParams("prompts/get needs a string name")
    const prompt = prompts.get(name)
    if (prompt === undefined) return McpError.invalidParams(`Unknown prompt: ${name}`)
    const args = params.arguments
    if (args !== undefined && !isRecord(args)) return McpError.invalidParams("prompts/get arguments must be an object")
    return {
      method: "prompts/get",
      target: name,
      arguments: args ?? {},
      handler: prompt.get(args ?? {}) as Call["handler"]
    }
  }

  const readResource = (params: Record<string, unknown>): Call | McpError | ResourceNotFound => {
    const uri = params.uri
    if (typeof uri !== "string") return McpError.invalidParams("resources/read needs a string uri")
    const found = findResource(uri)
    if (found === undefined) return new ResourceNotFound(uri)
    return {
      method: "resources/read",
      target: uri,
      arguments: null,
      handler: found.resource.read(uri, found.variables) as Call["handler"]
    }
  }

  /** The target and handler of an MRTR-capable request. */
  const call = (method: string, params: Record<string, unknown>): Call | McpError | ResourceNotFound =>
    method === "tools/call" ? callTool(params) : method === "prompts/get" ? getPrompt(params) : readResource(params)

  const list = <A>(key: string, items: Iterable<A>, cursor: unknown) =>
    cursor !== undefined && cursor !== null
      ? Effect.fail(McpError.invalidParams("Invalid cursor"))
      : Effect.succeed({ [key]: Array.from(items) } as Record<string, unknown>)

  /**
   * `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`: one page, no cursor, only the
   * items `principal` may see (`visible`).
   */
  const listMethod = (method: string, params: Record<string, unknown>, principal?: string | undefined) => {
    const seen = (item: { readonly visible?: ((principal: string | undefined) => boolean) | undefined }) =>
      item.visible === undefined || item.visible(principal)
    switch (method) {
      case "tools/list":
        return list("tools", Array.from(tools.values()).filter(seen).map((t) => t.definition), params.cursor)
      case "prompts/list":
        return list("prompts", Array.from(prompts.values()).filter(seen).map((p) => p.definition), params.cursor)
      case "resources/list":
        return list(
          "resources",
          Array.from(resources.values()).filter((r) => r._tag === "Resource" && seen(r)).map((r) => r.definition),
          params.cursor
        )
      default:
        return list(
          "resourceTemplates",
          Array.from(resources.values()).filter((r) => r._tag === "ResourceTemplate" && seen(r)).map((r) =>
            r.definition
          ),
          params.cursor
        )
    }
  }

  /** `completion/complete`: at most 100 values, with `total` and `hasMore`. */
  const complete = (params: Record<string, unknown>) => {
    const ref = params.ref
    const argument = params.argument
    if (
      !isRecord(ref) || !isRecord(argument) || typeof argument.name !== "string" || typeof argument.value !== "string"
    ) {
      return Effect.fail(McpError.invalidParams("completion/complete needs ref and argument { name, value }"))
    }
    let completer: Completer | undefined
    if (ref.type === "ref/prompt" && typeof ref.name === "string") {
      const prompt = prompts.get(ref.name)
      if (prompt === undefined) return Effect.fail(McpError.invalidParams(`Unknown prompt: ${ref.name}`))
      completer = Object.hasOwn(prompt.completions, argument.name) ? prompt.completions[argument.name] : undefined
    } else if (ref.type === "ref/resource" && typeof ref.uri === "string") {
      const resource = resources.get(ref.uri)
      if (resource === undefined) return Effect.fail(McpError.invalidParams(`Unknown resource template: ${ref.uri}`))
      completer = Object.hasOwn(resource.completions, argument.name) ? resource.completions[argument.name] : undefined
    } else {
      return Effect.fail(McpError.invalidParams("completion/complete ref must be ref/prompt or ref/resource"))
    }
    const context = isRecord(params.context) && isRecord(params.context.arguments)
      ? params.context.arguments as Record<string, string>
      : {}
    const value = argument.value
    const found = completer
    return (found === undefined
      ? Effect.succeed([] as ReadonlyArray<string>)
      : Effect.suspend(() => found(value, context))).pipe(
        Effect.map((values): Record<string, unknown> => ({
          completion: {
            values: values.slice(0, 100),
            total: values.length,
            hasMore: values.length > 100
          }
        }))
      )
  }

  return {
    tools,
    prompts,
    resources,
    changes,
    listeners,
    findResource,
    call,
    listMethod,
    complete,
    addTool: (tool: AnyTool) => Effect.suspend(() => (tools.set(tool.name, tool), changed("tools"))),
    removeTool: (name: string) => Effect.suspend(() => (tools.delete(name) ? changed("tools") : Effect.void)),
    addPrompt: (prompt: AnyPrompt) => Effect.suspend(() => (prompts.set(prompt.name, prompt), changed("prompts"))),
    removePrompt: (name: string) => Effect.suspend(() => (prompts.delete(name) ? changed("prompts") : Effect.void)),
    addResource: (resource: AnyResource) =>
      Effect.suspend(() => (resources.set(resource.key, resource), changed("resources"))),
    removeResource: (key: string) => Effect.suspend(() => (resources.delete(key) ? changed("resources") : Effect.void))
  }
}
