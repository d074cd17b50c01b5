/**
 * Canonical JSON (RFC 8785, JCS) and the SHA-256 digests the engine pins
 * answers and bindings to.
 *
 * A question digest identifies an ask by `method` + canonical `params`, so an
 * answer recorded for one question is never reused for a changed one. An
 * arguments digest binds a sealed `requestState` to the exact arguments of
 * the request that produced it.
 * Source: MCP 2026-07-28, basic/patterns/mrtr ("bind ... a digest of its key params").
 *
 * @since 0.1.0
 */
import canonicalize from "canonicalize"
import { Effect } from "effect"
import { Digest } from "effect/crypto"
import { Base64Url } from "effect/encoding"
import { NotCanonicalJson } from "./Errors.ts"

const encoder = new TextEncoder()

/**
 * The RFC 8785 canonical form of a JSON value: object keys sorted, no
 * whitespace, numbers in their shortest form. `undefined` members are dropped.
 *
 * @category encoding
 * @since 0.1.0
 */
export const canonicalJson = (value: unknown): string => canonicalize(value) ?? "null"

// A lone UTF-16 surrogate: UTF-8 cannot encode it (TextEncoder would write
// U+FFFD, so "\ud800" and "\ufffd" would share a digest) and RFC 8785 rejects it.
// `String.prototype.isWellFormed` (ES2024, native) where the runtime has it.
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const wellFormed: (text: string) => boolean =
  typeof (String.prototype as { readonly isWellFormed?: unknown }).isWellFormed === "function"
    ? (text) => (text as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (text) => !loneSurrogate.test(text)

const describeNumber = (n: number): string =>
  Number.isNaN(n)
    ? "NaN is not a JSON number"
    : `${n > 0 ? "" : "-"}Infinity is not a JSON number (a number out of range, such as 1e400)`

/**
 * One node of the walk: its value, how to name it (its parent's entry and its
 * key or index, so a path is only built when a problem is found), and, for
 * the entry that closes an object, the object.
 */
interface Entry {
  readonly node: unknown
  readonly parent: Entry | undefined
  readonly segment: string
  readonly inArray: boolean
  readonly close?: object
}

const pathOf = (entry: Entry): string => {
  const segments: Array<string> = []
  for (let at: Entry | undefined = entry; at !== undefined; at = at.parent) segments.push(at.segment)
  return segments.reverse().join("/")
}

/**
 * The walk behind {@link canonicalProblem}: the first problem, or a lower
 * bound of the value's JSON length in characters (what decides whether its
 * JSON text is worth caching, without serializing it). One pass; paths are
 * built only for the problem found.
 */
const inspect = (value: unknown, root: string): { readonly problem: NotCanonicalJson } | { readonly size: number } => {
  const stack: Array<Entry> = [{ node: value, parent: undefined, segment: root, inArray: true }]
  const open = new Set<object>()
  let size = 0
  while (stack.length > 0) {
    const entry = stack.pop()!
    const { close, node } = entry
    if (close !== undefined) {
      open.delete(close)
      continue
    }
    size += 1
    switch (typeof node) {
      case "number":
        if (!Number.isFinite(node)) {
          return { problem: new NotCanonicalJson({ path: pathOf(entry), reason: describeNumber(node) }) }
        }
        continue
      case "string":
        if (!wellFormed(node)) {
          return {
            problem: new NotCanonicalJson({
              path: pathOf(entry),
              reason: "the text holds a lone surrogate (not valid Unicode)"
            })
          }
        }
        size += node.length
        continue
      case "bigint":
        return { problem: new NotCanonicalJson({ path: pathOf(entry), reason: "a bigint is not a JSON number" }) }
      case "symbol":
      case "function":
        if (entry.inArray) {
          return {
            problem: new NotCanonicalJson({ path: pathOf(entry), reason: `a ${typeof node} is not a JSON value` })
          }
        }
        continue
      case "object": {
        if (node === null || typeof (node as { readonly toJSON?: unknown }).toJSON === "function") continue
        if (open.has(node)) {
          return {
            problem: new NotCanonicalJson({ path: pathOf(entry), reason: "the value contains itself (a cycle)" })
          }
        }
        open.add(node)
        stack.push({ node: undefined, parent: undefined, segment: "", inArray: false, close: node })
        if (Array.isArray(node)) {
          for (let i = node.length - 1; i >= 0; i--) {
            stack.push({ node: node[i], parent: entry, segment: String(i), inArray: true })
          }
        } else {
          const keys = Object.keys(node)
          for (let i = keys.length - 1; i >= 0; i--) {
            const key = keys[i]!
            if (!wellFormed(key)) {
              return {
                problem: new NotCanonicalJson({
                  path: pathOf(entry),
                  reason: "an object key holds a lone surrogate (not valid Unicode)"
                })
              }
            }
            size += key.length
            stack.push({ node: (node as Record<string, unknown>)[key], parent: entry, segment: key, inArray: false })
          }
        }
        continue
      }
      default:
        continue
    }
  }
  return { size }
}

/**
 * The first part of `value` that canonical JSON (RFC 8785) cannot represent,
 * as a {@link NotCanonicalJson} whose `path` starts at `root` (segments joined
 * by `/`); `undefined` when the whole value is representable. Refused: numbers
 * that are not finite (`JSON.parse` turns `1e400` into `Infinity`), strings
 * and object keys with a lone surrogate, `bigint`s, symbols and functions
 * (where JSON would not drop them) and cycles. Objects with a `toJSON` method
 * are leaves (canonicalization calls it). Iterative: any depth is safe; one
 * pass over the value.
 *
 * @category validation
 * @since 0.1.0
 */
export const canonicalProblem = (value: unknown, root = "$"): NotCanonicalJson | undefined => {
  const result = inspect(value, root)
  return "problem" in result ? result.problem : undefined
}

// Base64url of the digest: the runtime's native `Buffer` codec when there is
// one (Node.js, Bun, Deno), `effect/encoding` elsewhere; same unpadded output.
interface NativeBuffer {
  readonly from: (
    bytes: ArrayBufferLike,
    byteOffset: number,
    length: number
  ) => { toString(encoding: "base64url"): string }
}
const nativeBuffer = (globalThis as { readonly Buffer?: NativeBuffer }).Buffer
const encodeBase64Url: (bytes: Uint8Array) => string = nativeBuffer === undefined
  ? Base64Url.encode
  : (bytes) => nativeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url")

// Digests of small values by their `JSON.stringify` text. The engine digests
// the same questions (one per ask, every round) and often the same arguments
// over and over; canonicalizing and hashing them each time was a visible share
// of a round on the benchmark. Equal `JSON.stringify` texts are the same JSON
// value, so they have the same canonical form and digest. That holds only for
// values canonical JSON represents: `JSON.stringify` writes `NaN`/`±Infinity`
// as `null` and escapes lone surrogates that UTF-8 cannot carry, so a value is
// checked (`canonicalProblem`) before any key is made of it, and a value that
// fails is never digested. Bounded: only texts up to `cacheableLength`
// characters, and the cache is emptied when full.
const cacheableLength = 2048
const cacheEntries = 1024
const cache = new Map<string, string>()

// Digests of deep-frozen values by identity (see `freezeJson`): a value that
// cannot change needs neither serializing nor canonicalizing again. One entry
// per registered object, holding its digests by length.
const frozenDigests = new WeakMap<object, Record<number, string>>()

/**
 * Plain JSON containers: arrays of `Array.prototype` without holes, and
 * objects of `Object.prototype` (or none) without a `toJSON` method; neither
 * with accessors, so what `JSON.stringify` sees is what was checked.
 */
const plainContainer = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value)
  if (Array.isArray(value)) {
    if (prototype !== Array.prototype) return false
    for (let i = 0; i < value.length; i++) if (!Object.hasOwn(value, i)) return false
  } else if (prototype !== Object.prototype && prototype !== null) {
    return false
  } else if (typeof (value as { readonly toJSON?: unknown }).toJSON === "function") {
    return false
  }
  for (const descriptor of Object.values(Object.getOwnPropertyDescriptors(value))) {
    if (descriptor.get !== undefined || descriptor.set !== undefined) return false
  }
  return true
}

/**
 * Deep-freezes a JSON value (every object and array in it, recursively) and
 * returns it. Its digests are then remembered with the value itself, so
 * {@link digestWith}, {@link digestOf} and {@link knownDigest} find them by
 * identity, without serializing it again: for values built once and asked
 * about on every request (the runtime freezes the questions of its asks this
 * way). The digests are those of an equal unfrozen value. Throws a
 * `TypeError`, leaving the value as it was, when it holds anything but plain
 * JSON: objects of another prototype (a `Date`, a typed array, a class
 * instance, an `Array` subclass), accessors, `toJSON` methods, arrays with
 * holes, a cycle, or a leaf canonical JSON cannot represent (a non-finite
 * number, a lone surrogate; see {@link canonicalProblem}).
 *
 * @category combinators
 * @since 0.1.0
 */
export const freezeJson = <A>(value: A): A => {
  // Check everything first, then freeze and register: a value that is not
  // plain JSON is left as it was.
  const containers: Array<object> = []
  const seen = new Set<object>()
  const path = new Set<object>()
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null || frozenDigests.has(node)) return
    if (path.has(node)) throw new TypeError("Canonical.freezeJson: not plain JSON (a cycle)")
    if (seen.has(node)) return // shared, not cyclic: JSON writes it twice
    if (!plainContainer(node)) {
      throw new TypeError(`Canonical.freezeJson: not plain JSON (${Object.prototype.toString.call(node)})`)
    }
    seen.add(node)
    path.add(node)
    containers.push(node)
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) visit(node[i])
    } else {
      for (const key of Object.keys(node)) visit((node as Record<string, unknown>)[key])
    }
    path.delete(node)
  }
  visit(value)
  const problem = canonicalProblem(value)
  if (problem !== undefined) throw new TypeError(`Canonical.freezeJson: ${problem.message}`)
  for (const container of containers) Object.freeze(container)
  for (const container of containers) frozenDigests.set(container, {})
  return value
}

/**
 * True when `value` was deep-frozen by {@link freezeJson} (so it, and
 * everything in it, can never change).
 *
 * @category guards
 * @since 0.1.0
 */
export const isFrozenJson = (value: unknown): boolean =>
  typeof value === "object" && value !== null && frozenDigests.has(value)

/** The digests remembered with `value` when {@link freezeJson} registered it. */
const frozenEntry = (value: unknown): Record<number, string> | undefined =>
  typeof value === "object" && value !== null ? frozenDigests.get(value) : undefined

/**
 * The cache key of `value`'s digest: its JSON text and the length; `undefined` when not cacheable. `size` is a lower
 * bound of the JSON length (from `inspect`): a value known to be too long is not serialized at all.
 */
const cacheKey = (value: unknown, bytes: number, size: number): string | undefined => {
  if (size > cacheableLength) return undefined
  let json: string | undefined
  try {
    json = JSON.stringify(value)
  } catch {
    return undefined // not plain JSON (a cycle, a bigint): canonicalize reports it
  }
  return json !== undefined && json.length <= cacheableLength ? `${bytes}:${json}` : undefined
}

const remember = (key: string, digest: string): string => {
  if (cache.size >= cacheEntries) cache.clear()
  cache.set(key, digest)
  return digest
}

/**
 * `digestOf` with an explicit `Digest` service (the engine resolves it once
 * per request instead of once per ask). Dies with {@link NotCanonicalJson}
 * when `value` is not representable (see {@link canonicalProblem}): check
 * values that come from outside first, and fail with that error instead.
 *
 * @category digests
 * @since 0.1.0
 */
export const digestWith = (digest: Digest.Digest["Service"], value: unknown, bytes = 32): Effect.Effect<string> =>
  Effect.suspend(() => {
    const digested = digestOrProblem(digest, value, "$", bytes)
    return Effect.isEffect(digested) ? digested : Effect.die(digested)
  })

/**
 * The digest of a value that comes from outside (a request's arguments), or
 * the {@link NotCanonicalJson} (path from `root`) that makes it undigestible,
 * with one walk over the value: `digestWith` for values not known to be
 * canonical.
 *
 * @category digests
 * @since 0.1.0
 */
export const checkedDigestWith = (
  digest: Digest.Digest["Service"],
  value: unknown,
  root = "$",
  bytes = 32
): Effect.Effect<string, NotCanonicalJson> =>
  Effect.suspend(() => {
    const digested = digestOrProblem(digest, value, root, bytes)
    return Effect.isEffect(digested) ? digested : Effect.fail(digested)
  })

const digestOrProblem = (
  digest: Digest.Digest["Service"],
  value: unknown,
  root: string,
  bytes: number
): Effect.Effect<string> | NotCanonicalJson => {
  const frozen = frozenEntry(value)
  const remembered = frozen?.[bytes]
  if (remembered !== undefined) return Effect.succeed(remembered)
  // A frozen value was checked when it was frozen.
  const inspected = frozen === undefined ? inspect(value, root) : { size: 0 }
  if ("problem" in inspected) return inspected.problem
  const key = frozen === undefined ? cacheKey(value, bytes, inspected.size) : cacheKey(value, bytes, 0)
  const known = key === undefined ? undefined : cache.get(key)
  if (known !== undefined) {
    if (frozen !== undefined) frozen[bytes] = known
    return Effect.succeed(known)
  }
  const finish = (hash: Uint8Array) => {
    const encoded = encodeBase64Url(hash.subarray(0, bytes))
    if (frozen !== undefined) frozen[bytes] = encoded
    return key === undefined ? encoded : remember(key, encoded)
  }
  if (inspected.size <= largeValue) {
    return Effect.map(digest.digest(Digest.sha256, encoder.encode(canonicalJson(value))), finish)
  }
  // A large value (a request's arguments of megabytes): the walk above, the canonical text and the hash each run in
  // their own turn of the event loop, so other requests are not held up for all three at once.
  return Effect.yieldNow.pipe(
    Effect.map(() => canonicalJson(value)),
    Effect.tap(() => Effect.yieldNow),
    Effect.flatMap((text) => digest.digest(Digest.sha256, encoder.encode(text))),
    Effect.map(finish)
  )
}

/** Values whose JSON is longer than this (characters, a lower bound from `inspect`) are digested in steps. */
const largeValue = 256 * 1024

/**
 * The digest {@link digestWith} would give for `value` (same `bytes`) when it
 * is already known, without computing it; `undefined` otherwise. Lets the
 * engine take the synchronous path for a question it has digested before.
 *
 * @category digests
 * @since 0.1.0
 */
export const knownDigest = (value: unknown, bytes = 32): string | undefined => {
  const frozen = frozenEntry(value)
  const remembered = frozen?.[bytes]
  if (remembered !== undefined) return remembered
  const inspected = frozen === undefined ? inspect(value, "$") : { size: 0 }
  if ("problem" in inspected) return undefined
  const key = cacheKey(value, bytes, inspected.size)
  const known = key === undefined ? undefined : cache.get(key)
  if (known !== undefined && frozen !== undefined) frozen[bytes] = known
  return known
}

/**
 * SHA-256 of the canonical JSON of `value`, base64url without padding.
 *
 * `bytes` truncates the digest (default 32 bytes = 43 characters; 16 bytes =
 * 22 characters is what the journal stores per question).
 * Requires the `Digest` service from `effect/crypto`.
 *
 * @category digests
 * @since 0.1.0
 */
export const digestOf = (value: unknown, bytes = 32): Effect.Effect<string, never, Digest.Digest> =>
  Digest.Digest.use((digest) => digestWith(digest, value, bytes))
