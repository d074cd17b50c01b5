/**
 * Who registered each name of a server: the server's own registration Layers
 * (`McpServer.tools`, ...) or a mount (`McpServer.mount`). Two different
 * sources claiming one tool name, prompt name or resource URI is a collision
 * (`Mount.NameCollision`), reported by whichever Layer is built second.
 *
 * Gotcha: claims are kept per root server service (a mount's own service
 * view is mapped to its root), in a WeakMap, so a server that is released
 * takes its claims with it. Names added at run time through the service
 * (`addTool`, ...) are not claimed: replacing an item at run time is allowed.
 */

/** The kinds of name a server registers; resources and templates share one key space. */
export type Kind = "tool" | "prompt" | "resource"

/** A registering source: compared by identity, named by `label` in errors. */
export interface Source {
  readonly label: string
}

const claims = new WeakMap<object, Map<string, Source>>()
const roots = new WeakMap<object, object>()

/** Records that `view` is a mount's view of `parent` (so both share the root's claims). */
export const link = (view: object, parent: object): void => {
  roots.set(view, roots.get(parent) ?? parent)
}

const table = (server: object): Map<string, Source> => {
  const root = roots.get(server) ?? server
  let found = claims.get(root)
  if (found === undefined) {
    found = new Map()
    claims.set(root, found)
  }
  return found
}

/**
 * Claims `name` for `source`; returns the other source holding it, if any
 * (then nothing is claimed).
 */
export const claim = (server: object, kind: Kind, name: string, source: Source): Source | undefined => {
  const owners = table(server)
  const key = `${kind}:${name}`
  const owner = owners.get(key)
  if (owner !== undefined && owner !== source) return owner
  owners.set(key, source)
  return undefined
}

/** Releases `name` when `source` holds it. */
export const release = (server: object, kind: Kind, name: string, source: Source): void => {
  const owners = table(server)
  const key = `${kind}:${name}`
  if (owners.get(key) === source) owners.delete(key)
}

/** The server's own registration Layers (one source: a later one may replace an item of an earlier one). */
export const SERVER: Source = { label: "the server's own registrations" }
