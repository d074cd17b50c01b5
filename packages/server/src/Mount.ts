/**
 * Mounting: one server's tools, prompts, resources and resource templates
 * served by another under a namespace (`McpServer.mount`).
 *
 * A mounted server is its registration Layers (what would be merged into
 * `McpServer.layer`): they register through a view of the parent server that
 * renames, filters and guards what they add, so their handlers run as they
 * always do (they ask, step, report progress) in the parent's requests.
 *
 * - Names: tools and prompts `<namespace><separator><name>` (separator `_`
 *   by default); resource URIs and templates `<scheme>://<namespace>/<rest>`
 *   (`<scheme>:<namespace>/<rest>` for URIs without an authority), which
 *   {@link stripUri} reverses. The handlers see their own URIs; the contents
 *   they return are namespaced back. The empty namespace renames nothing
 *   (filters and visibility still apply).
 * - Filters: `include` / `exclude` select by name or glob (`*`, `?`) and by
 *   tool annotations; an item left out is never registered, so it is absent
 *   from the lists and unknown to calls alike.
 * - `visible`: a per-principal predicate, checked on every list (the item is
 *   left out) and every call (answered as an unknown tool or prompt, or a
 *   missing resource: -32602, as if it did not exist).
 * - Collisions: a name registered by two sources (two mounts, or a mount and
 *   the server's own Layers) fails the Layer built second with
 *   {@link NameCollision}, naming both.
 *
 * Gotcha: the mounted Layer must require `McpServer` (registration Layers);
 * a Layer that builds its own server (`McpServer.layer`) is not mounted.
 * Source: MCP 2026-07-28, server/tools, server/prompts, server/resources.
 *
 * @since 0.3.0
 */
import { McpError } from "@mrtr/protocol/ErrorCode"
import type { ToolAnnotations } from "@mrtr/protocol/Schema"
import { Effect, Option, Schema } from "effect"
import * as Glob from "./internal/glob.ts"
import * as Owners from "./internal/owners.ts"
import type { Prompt } from "./Prompt.ts"
import { McpRequest } from "./RequestContext.ts"
import type { Resource } from "./Resource.ts"
import type { Tool } from "./Tool.ts"

/**
 * What a selector of `include` / `exclude` is matched against: the item's
 * own (un-namespaced) name, for resources also its URI or template, and for
 * tools their annotations.
 *
 * @since 0.3.0
 * @category models
 */
export interface MountedItem {
  readonly kind: "tool" | "prompt" | "resource" | "resourceTemplate"
  /** The name in the mounted server (a tool's or prompt's name, a resource's `name`). */
  readonly name: string
  /** The name (tools, prompts) or URI (resources) the parent serves it under. */
  readonly mountedName: string
  /** A resource's URI or template, as the mounted server declares it. */
  readonly uri?: string | undefined
  readonly annotations?: ToolAnnotations | undefined
}

/**
 * A filter entry: a name or glob (`*` any run of characters, `?` one
 * character), or `{ annotations }`, matching tools whose annotations hold
 * every given value (e.g. `{ annotations: { readOnlyHint: true } }`).
 *
 * @since 0.3.0
 * @category models
 */
export type Selector = string | { readonly annotations: Partial<ToolAnnotations> }

/**
 * Options of a mount.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  /**
   * Between the namespace and a tool's or prompt's name.
   * @default "_"
   */
  readonly separator?: string | undefined
  /**
   * Only the items matching one of these are mounted.
   * @default every item
   */
  readonly include?: ReadonlyArray<Selector> | undefined
  /**
   * Items matching one of these are not mounted (applied after `include`).
   * @default none
   */
  readonly exclude?: ReadonlyArray<Selector> | undefined
  /**
   * Whether `principal` (the authenticated user of the request, `undefined`
   * without authorization) may see and call `item`: checked on every list
   * and every call.
   * @default everyone sees everything mounted
   */
  readonly visible?: ((principal: string | undefined, item: MountedItem) => boolean) | undefined
}

/**
 * Two sources registered the same tool name, prompt name or resource URI:
 * the Layer built second fails with this, naming both (`sources`).
 *
 * @since 0.3.0
 * @category errors
 */
export class NameCollision extends Schema.TaggedError<NameCollision>()("NameCollision", {
  kind: Schema.Literals(["tool", "prompt", "resource"]),
  name: Schema.String,
  sources: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `The ${this.kind} "${this.name}" is registered twice: by ${this.sources.join(" and by ")}`
  }
}

/**
 * The name a mount serves a tool or prompt under.
 *
 * @since 0.3.0
 * @category namespacing
 */
export const namespaceName = (namespace: string, name: string, separator = "_"): string =>
  namespace === "" ? name : `${namespace}${separator}${name}`

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):(\/\/)?/

/**
 * The URI (or URI template) a mount serves a resource under:
 * `scheme://rest` becomes `scheme://<namespace>/rest`, `scheme:rest`
 * becomes `scheme:<namespace>/rest`, anything else `<namespace>/<uri>`.
 *
 * @since 0.3.0
 * @category namespacing
 */
export const namespaceUri = (namespace: string, uri: string): string => {
  if (namespace === "") return uri
  const scheme = SCHEME.exec(uri)
  if (scheme === null) return `${namespace}/${uri}`
  return `${scheme[0]}${namespace}/${uri.slice(scheme[0].length)}`
}

/**
 * Reverses {@link namespaceUri}: the mounted server's own URI, or
 * `undefined` when `uri` is not under `namespace`.
 *
 * @since 0.3.0
 * @category namespacing
 */
export const stripUri = (namespace: string, uri: string): string | undefined => {
  if (namespace === "") return uri
  const scheme = SCHEME.exec(uri)
  const head = scheme === null ? "" : scheme[0]
  const rest = uri.slice(head.length)
  return rest.startsWith(`${namespace}/`) ? head + rest.slice(namespace.length + 1) : undefined
}

const compileSelector = (selector: Selector): (item: MountedItem) => boolean => {
  if (typeof selector === "string") {
    const matches = Glob.matcher(selector)
    return (item) => matches(item.name) || (item.uri !== undefined && matches(item.uri))
  }
  const wanted = Object.entries(selector.annotations)
  return (item) => {
    const annotations = item.annotations as Record<string, unknown> | undefined
    return annotations !== undefined && wanted.every(([key, value]) => annotations[key] === value)
  }
}

/**
 * Whether a mount with these options serves `item` (its `include` and
 * `exclude`).
 *
 * @since 0.3.0
 * @category filtering
 */
export const selects = (options: Pick<Options, "include" | "exclude">): (item: MountedItem) => boolean => {
  const include = options.include?.map(compileSelector)
  const exclude = (options.exclude ?? []).map(compileSelector)
  return (item) => (include === undefined || include.some((m) => m(item))) && !exclude.some((m) => m(item))
}

type AnyTool = Tool<any, never>
type AnyPrompt = Prompt<any, never>
type AnyResource = Resource<any, never>

/**
 * The registration methods of a server: what `McpServer` offers to add and
 * remove tools, prompts and resources at run time (each change is announced
 * to `subscriptions/listen` streams), and what a mount's view wraps.
 *
 * @since 0.3.0
 * @category models
 */
export interface Registrar {
  readonly addTool: (tool: AnyTool) => Effect.Effect<void>
  readonly removeTool: (name: string) => Effect.Effect<void>
  readonly addPrompt: (prompt: AnyPrompt) => Effect.Effect<void>
  readonly removePrompt: (name: string) => Effect.Effect<void>
  readonly addResource: (resource: AnyResource) => Effect.Effect<void>
  readonly removeResource: (uriOrTemplate: string) => Effect.Effect<void>
  /**
   * Announces that the resource `uri` changed: `notifications/resources/updated`
   * to every 2025-11-25 session subscribed to it (`resources/subscribe`), on
   * this instance and, through the `NotificationBus` (Redis pub/sub with
   * `Redis.layerFleet`), on every other instance of the fleet.
   * @since 0.2.0
   */
  readonly resourceUpdated: (uri: string) => Effect.Effect<void>
}

const both = (
  outer: ((principal: string | undefined) => boolean) | undefined,
  inner: ((principal: string | undefined) => boolean) | undefined
) => outer === undefined ? inner : inner === undefined ? outer : (p: string | undefined) => outer(p) && inner(p)

const principal = Effect.map(Effect.serviceOption(McpRequest), (r) => Option.isSome(r) ? r.value.principal : undefined)

/**
 * A view of `server` for a mount: what is added through it is filtered,
 * renamed and guarded, then added to `server`. `collisions` collects the
 * names another source already held (the mount's Layer fails with them once
 * built). Used by `McpServer.mount`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const view = <S extends Registrar>(
  server: S,
  namespace: string,
  options: Options,
  collisions: Array<NameCollision>
): S => {
  const separator = options.separator ?? "_"
  const source: Owners.Source = { label: `mount "${namespace}"` }
  const selected = selects(options)
  const visibleFor = (item: MountedItem) => {
    const visible = options.visible
    return visible === undefined ? undefined : (p: string | undefined) => visible(p, item)
  }
  const claimed = (kind: Owners.Kind, name: string) => {
    const other = Owners.claim(server, kind, name, source)
    if (other === undefined) return true
    collisions.push(new NameCollision({ kind, name, sources: [other.label, source.label] }))
    return false
  }
  const guard = <A, E, R>(
    visible: ((p: string | undefined) => boolean) | undefined,
    hidden: () => McpError,
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | McpError, R> =>
    visible === undefined
      ? effect
      : Effect.flatMap(principal, (p): Effect.Effect<A, E | McpError, R> => visible(p) ? effect : Effect.fail(hidden()))

  const addTool = (tool: AnyTool) =>
    Effect.suspend(() => {
      const name = namespaceName(namespace, tool.name, separator)
      const item: MountedItem = {
        kind: "tool",
        name: tool.name,
        mountedName: name,
        annotations: tool.definition.annotations
      }
      if (!selected(item) || !claimed("tool", name)) return Effect.void
      const mine = visibleFor(item)
      const visible = both(mine, tool.visible)
      return server.addTool({
        ...tool,
        name,
        definition: { ...tool.definition, name },
        visible,
        call: (args) => guard(visible, () => McpError.invalidParams(`Unknown tool: ${name}`), tool.call(args))
      })
    })

  const addPrompt = (prompt: AnyPrompt) =>
    Effect.suspend(() => {
      const name = namespaceName(namespace, prompt.name, separator)
      const item: MountedItem = { kind: "prompt", name: prompt.name, mountedName: name }
      if (!selected(item) || !claimed("prompt", name)) return Effect.void
      const visible = both(visibleFor(item), prompt.visible)
      return server.addPrompt({
        ...prompt,
        name,
        definition: { ...prompt.definition, name },
        visible,
        get: (args) => guard(visible, () => McpError.invalidParams(`Unknown prompt: ${name}`), prompt.get(args))
      })
    })

  const addResource = (resource: AnyResource) =>
    Effect.suspend(() => {
      const key = namespaceUri(namespace, resource.key)
      const item: MountedItem = {
        kind: resource._tag === "Resource" ? "resource" : "resourceTemplate",
        name: resource.definition.name,
        mountedName: key,
        uri: resource.key
      }
      if (!selected(item) || !claimed("resource", key)) return Effect.void
      const visible = both(visibleFor(item), resource.visible)
      const definition = "uriTemplate" in resource.definition
        ? { ...resource.definition, uriTemplate: key }
        : { ...resource.definition, uri: key }
      return server.addResource({
        ...resource,
        key,
        definition,
        visible,
        match: (uri) => {
          const own = stripUri(namespace, uri)
          return own === undefined ? undefined : resource.match(own)
        },
        read: (uri, variables) =>
          guard(
            visible,
            () => McpError.invalidParams(`Resource not found: ${uri}`, { uri }),
            Effect.map(resource.read(stripUri(namespace, uri) ?? uri, variables), (result) => ({
              ...result,
              contents: result.contents.map((content) =>
                typeof content.uri === "string" ? { ...content, uri: namespaceUri(namespace, content.uri) } : content
              ) as typeof result.contents
            }))
          )
      })
    })

  const removed = (kind: Owners.Kind, name: string, remove: (name: string) => Effect.Effect<void>) =>
    Effect.suspend(() => {
      Owners.release(server, kind, name, source)
      return remove(name)
    })

  const result: S = {
    ...server,
    addTool,
    addPrompt,
    addResource,
    removeTool: (name) => removed("tool", namespaceName(namespace, name, separator), server.removeTool),
    removePrompt: (name) => removed("prompt", namespaceName(namespace, name, separator), server.removePrompt),
    removeResource: (uri) => removed("resource", namespaceUri(namespace, uri), server.removeResource),
    resourceUpdated: (uri) => server.resourceUpdated(namespaceUri(namespace, uri))
  }
  Owners.link(result, server)
  return result
}
