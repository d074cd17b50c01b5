/**
 * The tool definitions a client learned from `tools/list`, kept for the
 * `x-mcp-header` annotations a `tools/call` over 2026-07-28 Streamable HTTP
 * mirrors into `Mcp-Param-{Name}` headers, and for `McpClient.tool(name)`.
 *
 * Gotchas:
 * - Over HTTP a listed tool whose annotations are invalid
 *   ({@link toolHeaderError}) is dropped from the listing, logged as a
 *   warning and remembered: calling it fails with `InvalidToolDefinition`
 *   until a later listing gives a valid definition.
 * - A first `tools/call` over 2026-07-28 HTTP before any listing lists every
 *   page first (at most `MAX_LIST_PAGES`, stopping at a cursor seen before),
 *   within the call's `requestTimeout` and `callTimeout` only (not its
 *   progress token or notification hooks); a listing that fails or times out
 *   is skipped and the call sent without annotations.
 * - Without headers (`usesHeaders` false: stdio, in memory unless it
 *   simulates HTTP) or on 2025-11-25 nothing is listed.
 *
 * Source: MCP 2026-07-28, basic/transports/streamable-http (schema extension),
 * server/tools.
 *
 * @internal
 */
import { SafeText } from "@mrtr/protocol"
import { headerAnnotationError, headerAnnotations } from "@mrtr/protocol/Headers"
import { type ListToolsResult, type Tool } from "@mrtr/protocol/Schema"
import { Effect, Option } from "effect"
import { InvalidToolDefinition, type McpClientError, type RequestError, type RequestTimeout } from "../Errors.ts"
import type { CallOptions, ListParams } from "../Models.ts"
import type { Era } from "./era.ts"
import { listParams } from "./plainRequests.ts"

/** Most pages of `tools/list` read before a first call. */
const MAX_LIST_PAGES = 100

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** See `McpClient.toolHeaderError`. */
export const toolHeaderError = (tool: Tool): string | undefined => {
  const error = headerAnnotationError(tool)
  if (error !== undefined) return error
  for (const { header, path } of headerAnnotations(tool)) {
    let schema: unknown = tool.inputSchema
    for (const key of path) {
      schema = isRecord(schema) && isRecord(schema.properties) && Object.hasOwn(schema.properties, key)
        ? schema.properties[key]
        : undefined
    }
    if (isRecord(schema) && schema.type === "number") {
      return `x-mcp-header '${header}' on '${
        path.join(".")
      }' annotates a number property (only string, integer and boolean are allowed)`
    }
  }
  return undefined
}

/** Only the time bounds of `callOptions` (the listing before a first call must not see its progress token or hooks). */
const timeBounds = (callOptions: CallOptions | undefined): CallOptions | undefined =>
  callOptions === undefined ? undefined : {
    ...(callOptions.requestTimeout === undefined ? {} : { requestTimeout: callOptions.requestTimeout }),
    ...(callOptions.callTimeout === undefined ? {} : { callTimeout: callOptions.callTimeout })
  }

/** What the catalog needs of its client. */
export interface CatalogContext {
  /** Its transport: `usesHeaders` says whether annotations are checked and mirrored (HTTP). */
  readonly transport: { readonly usesHeaders: boolean }
  /** The connection's era (selected on first use). */
  readonly era: Effect.Effect<Era, RequestError>
  /** One page of `tools/list` (params: the cursor, if any). */
  readonly listPage: (
    params: Record<string, unknown>,
    callOptions: CallOptions | undefined
  ) => Effect.Effect<ListToolsResult, RequestError>
  /** `effect` bounded by the call's `callTimeout`. */
  readonly withCallTimeout: <A, E>(
    method: string,
    callOptions: CallOptions | undefined,
    effect: Effect.Effect<A, E>
  ) => Effect.Effect<A, E | RequestTimeout>
}

/** The catalog of one client. */
export interface ToolCatalog {
  /** `McpClient.listTools`: one page, cached; over HTTP without the tools whose annotations are invalid. */
  readonly listTools: (params?: ListParams, callOptions?: CallOptions) => Effect.Effect<ListToolsResult, RequestError>
  /**
   * `run` with the definition of the tool `name` when the call needs it
   * (2026-07-28 over HTTP; listed first when nothing was listed yet), else
   * with `undefined`; fails with `InvalidToolDefinition` for a tool refused
   * by a listing.
   */
  readonly withTool: <A>(
    name: string,
    callOptions: CallOptions | undefined,
    run: (tool: Tool | undefined) => Effect.Effect<A, McpClientError>
  ) => Effect.Effect<A, McpClientError>
  /** `McpClient.tool`: the cached definition, if listed. */
  readonly tool: (name: string) => Effect.Effect<Option.Option<Tool>>
}

/** A new, empty catalog. */
export const make = (context: CatalogContext): ToolCatalog => {
  const { transport } = context
  const tools = new Map<string, Tool>()
  const rejected = new Map<string, string>()
  let listedTools = false

  const listTools = (params?: ListParams, callOptions?: CallOptions) =>
    context.listPage(listParams(params), callOptions).pipe(
      Effect.flatMap((result) =>
        Effect.gen(function*() {
          listedTools = true
          const kept: Array<Tool> = []
          for (const tool of result.tools) {
            const reason = transport.usesHeaders ? toolHeaderError(tool) : undefined
            if (reason === undefined) {
              tools.set(tool.name, tool)
              rejected.delete(tool.name)
              kept.push(tool)
            } else {
              tools.delete(tool.name)
              rejected.set(tool.name, reason)
              // The name and the reason quote the server's strings: escaped, so no line break or control forges a log line.
              yield* Effect.logWarning(`Excluding tool "${SafeText.oneLine(tool.name)}": ${SafeText.oneLine(reason)}`)
            }
          }
          return kept.length === result.tools.length ? result : { ...result, tools: kept }
        })
      )
    )

  /** Every page of `tools/list`, each request and the whole within `bounds` (a call's `requestTimeout`, `callTimeout`). */
  const listAllTools = (bounds: CallOptions | undefined) =>
    context.withCallTimeout(
      "tools/list",
      bounds,
      Effect.gen(function*() {
        let cursor: string | undefined
        const seen = new Set<string>()
        for (let page = 0; page < MAX_LIST_PAGES; page++) {
          const result = yield* listTools(cursor === undefined ? undefined : { cursor }, bounds)
          if (result.nextCursor === undefined || seen.has(result.nextCursor)) return
          seen.add(result.nextCursor)
          cursor = result.nextCursor
        }
      })
    )

  const withTool = <A>(
    name: string,
    callOptions: CallOptions | undefined,
    run: (tool: Tool | undefined) => Effect.Effect<A, McpClientError>
  ): Effect.Effect<A, McpClientError> => {
    // x-mcp-header mirroring is 2026-07-28 Streamable HTTP only
    if (!transport.usesHeaders) return run(undefined)
    const annotated = Effect.suspend((): Effect.Effect<A, McpClientError> => {
      const reason = rejected.get(name)
      if (reason !== undefined) return Effect.fail(new InvalidToolDefinition({ tool: name, reason }))
      return run(tools.get(name))
    })
    return Effect.flatMap(context.era, (era) => {
      if (!era.mirrorsToolHeaders) return run(undefined)
      // Learn the tool's x-mcp-header annotations before the first call.
      return !tools.has(name) && !rejected.has(name) && !listedTools
        ? Effect.andThen(Effect.ignore(listAllTools(timeBounds(callOptions))), annotated)
        : annotated
    })
  }

  return {
    listTools,
    withTool,
    tool: (name) => Effect.sync(() => Option.fromNullishOr(tools.get(name)))
  }
}
