/**
 * `npm run bench -- --profile`: where the server's CPU goes. Reads a V8 CPU
 * profile (`.cpuprofile`, taken in the compiled `ours` server over the load
 * window only, `bench/servers.ts`' `profile-start` / `profile-stop`) and sums
 * the self time of its samples by where the code lives, mapping each frame of
 * the esbuild bundle back to its source file through the bundle's source map
 * (`node:module`'s `SourceMap`):
 *
 * - a package under `node_modules/` (`effect`, `@effect/platform-node`, ...);
 * - a workspace package under `packages/<name>/` (`@mrtr/server`, `@mrtr/core`, ...);
 * - `node internals` (`node:*` modules: http parser glue, streams, sockets);
 * - `(garbage collector)`, `(program)` (V8 and native work outside JavaScript);
 * - the bench's own server file, and `other`.
 *
 * Frames without a script (V8 builtins: JSON, RegExp, Map, typed arrays...)
 * are charged to the nearest caller that has one, so `effect` includes the
 * builtins effect's code calls; their total is printed apart. Idle samples
 * are left out. Also listed: the functions with the most self time.
 */
import { readFileSync } from "node:fs"
import { SourceMap } from "node:module"
import { fileURLToPath } from "node:url"

interface ProfileNode {
  readonly id: number
  readonly callFrame: {
    readonly functionName: string
    readonly url: string
    readonly lineNumber: number
    readonly columnNumber: number
  }
  readonly children?: ReadonlyArray<number>
}

interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const bucketOfPath = (path: string): string => {
  if (path.startsWith("node:")) return "node internals"
  const modules = path.lastIndexOf("node_modules/")
  if (modules >= 0) {
    const rest = path.slice(modules + "node_modules/".length).split("/")
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!
  }
  const workspace = /(?:^|\/)packages\/([^/]+)\//.exec(path)
  if (workspace !== null) return `@mrtr/${workspace[1]}`
  if (path.includes("bench/")) return "bench servers.ts"
  return "other"
}

export interface Bucket {
  readonly name: string
  readonly ms: number
  readonly share: number
}

export interface ProfileSummary {
  readonly buckets: ReadonlyArray<Bucket>
  /** The functions with the most self time (builtins under their own name), with their bucket. */
  readonly frames: ReadonlyArray<Bucket>
  /** Share of the samples in script-less frames (V8 builtins), charged to their callers. */
  readonly builtinsShare: number
  readonly totalMs: number
}

/** The self time by bucket of the profile at `file`, taken in the bundle `bundle` (with `bundle.map` beside it). */
export const summarize = (file: string, bundle: string): ProfileSummary => {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile
  const map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, "utf8")))
  const parent = new Map<number, ProfileNode>()
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node)
  const shortPath = (path: string) => {
    const modules = path.lastIndexOf("node_modules/")
    if (modules >= 0) return path.slice(modules + "node_modules/".length)
    const workspace = /(?:^|\/)((?:packages|bench|examples)\/.*)$/.exec(path)
    return workspace === null ? path : workspace[1]!
  }
  /** Where a frame's code lives: its bucket and `file:line` (undefined for builtins). */
  const locate = (node: ProfileNode): { readonly bucket: string; readonly where: string } | undefined => {
    const { columnNumber, functionName, lineNumber, url } = node.callFrame
    if (url === "") {
      if (functionName === "(idle)" || functionName === "(garbage collector)" || functionName === "(program)") {
        return { bucket: functionName, where: "" }
      }
      return undefined
    }
    if (url.startsWith("file:") && fileURLToPath(url) === bundle) {
      const entry = map.findEntry(lineNumber, columnNumber) as { originalSource?: string; originalLine?: number }
      if (entry.originalSource === undefined) return { bucket: "other", where: "" }
      return {
        bucket: bucketOfPath(entry.originalSource),
        where: `${shortPath(entry.originalSource)}:${(entry.originalLine ?? 0) + 1}`
      }
    }
    const path = url.startsWith("file:") ? fileURLToPath(url) : url
    return { bucket: bucketOfPath(path), where: `${shortPath(path)}:${lineNumber + 1}` }
  }
  const own = (node: ProfileNode): string | undefined => locate(node)?.bucket
  const cache = new Map<number, { bucket: string; builtin: boolean }>()
  const bucketOf = (node: ProfileNode): { bucket: string; builtin: boolean } => {
    const cached = cache.get(node.id)
    if (cached !== undefined) return cached
    const mine = own(node)
    let result: { bucket: string; builtin: boolean }
    if (mine !== undefined) result = { bucket: mine, builtin: false }
    else {
      const up = parent.get(node.id)
      result = { bucket: up === undefined ? "(native)" : bucketOf(up).bucket, builtin: true }
    }
    cache.set(node.id, result)
    return result
  }
  const totals = new Map<string, number>()
  const frames = new Map<string, number>()
  let builtins = 0
  let all = 0
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)
    if (node === undefined) return
    const { bucket, builtin } = bucketOf(node)
    if (bucket === "(idle)") return
    const micros = profile.timeDeltas[i] ?? 0
    totals.set(bucket, (totals.get(bucket) ?? 0) + micros)
    const name = node.callFrame.functionName || "(anonymous)"
    const frame = builtin
      ? `${name} (builtin, called from ${bucket})`
      : `${name} ${locate(node)?.where ?? ""}`.trimEnd()
    frames.set(frame, (frames.get(frame) ?? 0) + micros)
    all += micros
    if (builtin) builtins += micros
  })
  return {
    buckets: [...totals.entries()]
      .map(([name, micros]) => ({ name, ms: micros / 1000, share: micros / all }))
      .sort((a, b) => b.ms - a.ms),
    frames: [...frames.entries()]
      .map(([name, micros]) => ({ name, ms: micros / 1000, share: micros / all }))
      .sort((a, b) => b.ms - a.ms),
    builtinsShare: builtins / all,
    totalMs: all / 1000
  }
}
