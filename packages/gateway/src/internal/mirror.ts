/**
 * The upstream's lists, mirrored into the gateway's registries: each upstream
 * tool, prompt, resource and template becomes an item whose handler forwards
 * (`forward.ts`). A refresh lists everything again (every page) and applies
 * the difference: removed items are removed, new or changed ones added, so
 * the gateway's own `list_changed` announces it.
 *
 * A mirrored prompt's arguments and a template's variables complete by
 * `completion/complete` forwarded to the upstream, with its own name or
 * template in `ref`.
 *
 * Gotchas: a list method the upstream does not serve (-32601, or a capability
 * it does not declare) mirrors as empty; a completion the upstream fails (or
 * does not serve) offers no value.
 */
import type { McpClient } from "@mrtr/client"
import type {
  Prompt as WirePrompt,
  Resource as WireResource,
  ResourceTemplate as WireTemplate,
  Tool as WireTool
} from "@mrtr/protocol/Schema"
import { type McpServer, type Prompt, Resource, type TaskSource, type Tool } from "@mrtr/server"
import { Effect } from "effect"
import { forward, type Held, toMcpError } from "./forward.ts"
import type { Pool } from "./pool.ts"

const MAX_PAGES = 100

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Every page of one list (at most `MAX_PAGES`); an unsupported method lists nothing. */
const listAll = <A>(
  page: (cursor: string | undefined) => Effect.Effect<Record<string, unknown>, unknown>,
  key: string
): Effect.Effect<ReadonlyArray<A>, unknown> =>
  Effect.gen(function*() {
    const all: Array<A> = []
    let cursor: string | undefined
    for (let n = 0; n < MAX_PAGES; n++) {
      const result = yield* page(cursor)
      const items = result[key]
      if (Array.isArray(items)) { for (const item of items as Array<A>) all.push(item) }
      cursor = typeof result.nextCursor === "string" ? result.nextCursor : undefined
      if (cursor === undefined) break
    }
    return all
  }).pipe(
    Effect.catch((error: unknown) =>
      isRecord(error) && (error.code === -32601 || (isRecord(error.error) && error.error.code === -32601))
        ? Effect.succeed([])
        : Effect.fail(error)
    )
  )

export interface Lists {
  readonly tools: ReadonlyArray<WireTool>
  readonly prompts: ReadonlyArray<WirePrompt>
  readonly resources: ReadonlyArray<WireResource>
  readonly templates: ReadonlyArray<WireTemplate>
}

/** Lists everything the upstream serves. */
export const list = (client: McpClient.McpClient["Service"]): Effect.Effect<Lists, unknown> =>
  Effect.all({
    tools: listAll<WireTool>((cursor) => client.listTools(cursor === undefined ? {} : { cursor }) as any, "tools"),
    prompts: listAll<WirePrompt>(
      (cursor) => client.listPrompts(cursor === undefined ? {} : { cursor }) as any,
      "prompts"
    ),
    resources: listAll<WireResource>(
      (cursor) => client.listResources(cursor === undefined ? {} : { cursor }) as any,
      "resources"
    ),
    templates: listAll<WireTemplate>(
      (cursor) => client.listResourceTemplates(cursor === undefined ? {} : { cursor }) as any,
      "resourceTemplates"
    )
  })

/** The variables of an RFC 6570 template (`{a}`, `{+a}`, `{?a,b*}`, `{/a:3}`, ...). */
export const templateVariables = (template: string): ReadonlyArray<string> => {
  const names = new Set<string>()
  for (const [, expression] of template.matchAll(/\{([^}]*)\}/g)) {
    for (const spec of expression!.replace(/^[+#./;?&]/, "").split(",")) {
      const name = spec.replace(/\*$|:\d+$/, "").trim()
      if (name !== "") names.add(name)
    }
  }
  return Array.from(names)
}

/**
 * A completer forwarding `completion/complete` to the upstream for the
 * argument `argument` of `ref` (the upstream's own name or template). An
 * upstream that fails or does not complete offers nothing.
 */
const completer = (pool: Pool, ref: Record<string, unknown>, argument: string) =>
(
  value: string,
  context: Readonly<Record<string, string>>
): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function*() {
    const client = yield* pool.lease({}, undefined)
    const result = yield* client.complete({
      ref: ref as any,
      argument: { name: argument, value },
      ...(Object.keys(context).length === 0 ? {} : { context: { arguments: { ...context } } })
    })
    return result.completion.values
  }).pipe(Effect.scoped, Effect.orElseSucceed((): ReadonlyArray<string> => []))

const completionsOf = (pool: Pool, ref: Record<string, unknown>, names: ReadonlyArray<string>) =>
  Object.fromEntries(names.map((name) => [name, completer(pool, ref, name)] as const))

/**
 * The upstream's tasks, as the gateway's server routes them (`TaskSource`):
 * `tasks/get`, `tasks/update` and `tasks/cancel` with the upstream's own
 * task id, on the mirror's client (a 2026-07-28 upstream has one client for
 * every caller; the server already checked the caller against the sealed id).
 */
export const taskSource = (pool: Pool, name: string): TaskSource.TaskSource => {
  const via = <A>(request: (client: McpClient.McpClient["Service"]) => Effect.Effect<A, unknown>) =>
    pool.lease({}, undefined).pipe(
      Effect.flatMap(request),
      Effect.scoped,
      Effect.mapError((error) => toMcpError(name, error))
    )
  return {
    get: (taskId) => via((client) => client.getTask(taskId)),
    update: (taskId, inputResponses) =>
      Effect.asVoid(via((client) => client.updateTask(taskId, inputResponses as any))),
    cancel: (taskId) => Effect.asVoid(via((client) => client.cancelTask(taskId)))
  }
}

type AnyTool = Tool.Tool<any, never>
type AnyPrompt = Prompt.Prompt<any, never>
type AnyResource = Resource.Resource<any, never>

/** The mirror of one upstream in one server: `apply` makes the server's items match `lists`. */
export const make = (
  server: McpServer.McpServer["Service"],
  pool: Pool,
  name: string,
  maxExchanges: number,
  held?: Held | undefined
) => {
  const shown = {
    tools: new Map<string, string>(),
    prompts: new Map<string, string>(),
    resources: new Map<string, string>()
  }

  const toolOf = (wire: WireTool): AnyTool => ({
    name: wire.name,
    definition: wire,
    call: (args: unknown) =>
      forward(pool, name, "tools/call", { name: wire.name, arguments: args ?? {} }, maxExchanges, held, name) as any
  })
  const promptOf = (wire: WirePrompt): AnyPrompt => ({
    name: wire.name,
    definition: wire,
    get: (args: unknown) =>
      forward(pool, name, "prompts/get", { name: wire.name, arguments: args ?? {} }, maxExchanges, held) as any,
    completions: completionsOf(
      pool,
      { type: "ref/prompt", name: wire.name },
      (wire.arguments ?? []).map((argument) => argument.name).filter((n) => typeof n === "string")
    )
  })
  const resourceOf = (wire: WireResource): AnyResource => ({
    _tag: "Resource",
    key: wire.uri,
    definition: wire,
    match: (uri) => uri === wire.uri ? {} : undefined,
    read: (uri) => forward(pool, name, "resources/read", { uri }, maxExchanges, held) as any,
    completions: {}
  })
  const templateOf = (wire: WireTemplate): AnyResource => ({
    _tag: "ResourceTemplate",
    key: wire.uriTemplate,
    definition: wire,
    match: Resource.compileTemplate(wire.uriTemplate),
    read: (uri) => forward(pool, name, "resources/read", { uri }, maxExchanges, held) as any,
    completions: completionsOf(
      pool,
      { type: "ref/resource", uri: wire.uriTemplate },
      templateVariables(wire.uriTemplate)
    )
  })

  const sync = <W>(
    shownNow: Map<string, string>,
    items: ReadonlyArray<readonly [string, W]>,
    add: (key: string, wire: W) => Effect.Effect<void>,
    remove: (key: string) => Effect.Effect<void>
  ) =>
    Effect.gen(function*() {
      const next = new Map(items.map(([key, wire]) => [key, JSON.stringify(wire)] as const))
      for (const key of Array.from(shownNow.keys())) {
        if (!next.has(key)) {
          shownNow.delete(key)
          yield* remove(key)
        }
      }
      for (const [key, wire] of items) {
        const text = next.get(key)!
        if (shownNow.get(key) === text) continue
        shownNow.set(key, text)
        yield* add(key, wire)
      }
    })

  const apply = (lists: Lists) =>
    Effect.all([
      sync(
        shown.tools,
        lists.tools.filter((t) => isRecord(t) && typeof t.name === "string").map((t) => [t.name, t] as const),
        (_key, wire) => server.addTool(toolOf(wire)),
        server.removeTool
      ),
      sync(
        shown.prompts,
        lists.prompts.filter((p) => isRecord(p) && typeof p.name === "string").map((p) => [p.name, p] as const),
        (_key, wire) => server.addPrompt(promptOf(wire)),
        server.removePrompt
      ),
      sync(
        shown.resources,
        [
          ...lists.resources.filter((r) => isRecord(r) && typeof r.uri === "string").map((r) =>
            [r.uri, { resource: r }] as const
          ),
          ...lists.templates.filter((r) => isRecord(r) && typeof r.uriTemplate === "string").map((r) =>
            [r.uriTemplate, { template: r }] as const
          )
        ] as ReadonlyArray<readonly [string, { resource?: WireResource; template?: WireTemplate }]>,
        (_key, wire) =>
          server.addResource(wire.resource !== undefined ? resourceOf(wire.resource) : templateOf(wire.template!)),
        server.removeResource
      )
    ], { discard: true })

  return { apply }
}
