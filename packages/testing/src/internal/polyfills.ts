/**
 * Polyfills for the vitest 5 main process on Node 20 (vitest 5 declares
 * Node `^22.12.0 || ^24 || >=26`; Node 20 reached its end of life in April
 * 2026). Installed, each only where missing, by importing
 * `@mrtr/testing/vitest` in a vitest config file, which vitest evaluates in its
 * main process: that is where the reporter and the snapshot writer run.
 *
 * What vitest 5.1 calls there that Node 20 lacks:
 * - `Map.groupBy`: the reporter, when it prints a failed test
 *   (`formatErrorAttempts`); without it every failure is reported as
 *   `TypeError: Map.groupBy is not a function` and its own message is lost.
 * - `Object.groupBy`: saving snapshot updates.
 * - `Promise.withResolvers`: watch mode.
 *
 * Gotcha: importing this in a test file or a `setupFiles` entry does not
 * help, those run in vitest's workers, not in the process that reports.
 * Written by hand (a dozen lines each, to the ES2024 / ES2025 definitions)
 * rather than taking a polyfill library as a dependency of a test kit.
 */

type GroupBy = <K, V>(items: Iterable<V>, key: (item: V, index: number) => K) => Map<K, Array<V>>
type ObjectGroupBy = <V>(
  items: Iterable<V>,
  key: (item: V, index: number) => PropertyKey
) => Record<PropertyKey, Array<V>>
type WithResolvers = <T>() => {
  promise: Promise<T>
  resolve: (value: T | PromiseLike<T>) => void
  reject: (reason?: unknown) => void
}

const define = (target: object, name: string, value: unknown): void => {
  if (typeof (target as Record<string, unknown>)[name] === "function") return
  Object.defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false })
}

const mapGroupBy: GroupBy = (items, key) => {
  const groups = new Map()
  let index = 0
  for (const item of items) {
    const k = key(item, index++)
    const group = groups.get(k)
    if (group === undefined) groups.set(k, [item])
    else group.push(item)
  }
  return groups
}

const objectGroupBy: ObjectGroupBy = (items, key) => {
  const groups = Object.create(null) as Record<PropertyKey, Array<any>>
  let index = 0
  for (const item of items) {
    const raw = key(item, index++)
    const k = typeof raw === "symbol" ? raw : String(raw)
    const group = groups[k]
    if (group === undefined) groups[k] = [item]
    else group.push(item)
  }
  return groups
}

const withResolvers: WithResolvers = <T>() => {
  let resolve!: (value: T | PromiseLike<T>) => void
  let reject!: (reason?: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** Installs the polyfills that are missing; idempotent. */
export const install = (): void => {
  define(Map, "groupBy", mapGroupBy)
  define(Object, "groupBy", objectGroupBy)
  define(Promise, "withResolvers", withResolvers)
}
