/**
 * `@mrtr/testing/vitest` from a consumer's side: a project in a temporary
 * folder outside the repository whose `vitest.config.ts` uses the kit's
 * `defineConfig`, run by the real vitest CLI in a child process. A failing
 * test must be reported with its own message (on Node 20, vitest 5's
 * reporter otherwise dies on `Map.groupBy` and hides it), and the polyfills
 * must behave as the built-ins they stand in for.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { install } from "../src/internal/polyfills.ts"

const repoNodeModules = fileURLToPath(new URL("../../../node_modules", import.meta.url))
const kitConfig = pathToFileURL(fileURLToPath(new URL("../src/vitest.ts", import.meta.url))).href
const vitestBin = Path.join(repoNodeModules, "vitest", "vitest.mjs")

/** A throwaway project: `config` is the text of its vitest.config.ts; one failing test. */
const project = (config: string): string => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mrtr-vitest-consumer-"))
  Fs.symlinkSync(repoNodeModules, Path.join(dir, "node_modules"), "dir")
  Fs.writeFileSync(Path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
  Fs.writeFileSync(Path.join(dir, "vitest.config.ts"), config)
  Fs.writeFileSync(
    Path.join(dir, "failing.test.ts"),
    `import { expect, it } from "vitest"\nit("fails", () => { expect("the real reason").toBe("something else") })\n`
  )
  return dir
}

/** Runs `vitest run` in `dir`; its exit code and all it printed. */
const runVitest = (dir: string): Effect.Effect<{ readonly code: number | null; readonly output: string }> =>
  Effect.callback((resume) => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST") && name !== "NODE_OPTIONS")
    )
    const child = spawn(process.execPath, [vitestBin, "run", "--root", dir], {
      cwd: dir,
      env: { ...env, NO_COLOR: "1", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("close", (code) => resume(Effect.succeed({ code, output })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const withProject = <A>(config: string, f: (dir: string) => Effect.Effect<A>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => project(config)),
    f,
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )

describe("@mrtr/testing/vitest", () => {
  it.live(
    "a consumer's config with the kit's defineConfig reports a failing test with its own message",
    () =>
      Effect.gen(function*() {
        const kit = yield* withProject(
          `import { defineConfig } from ${
            JSON.stringify(kitConfig)
          }\nexport default defineConfig({ test: { include: ["*.test.ts"] } })\n`,
          runVitest
        )
        assert.strictEqual(kit.code, 1, kit.output)
        assert.include(kit.output, "the real reason", kit.output)
        assert.include(kit.output, "1 failed", kit.output)
        assert.notInclude(kit.output, "groupBy", kit.output)
        assert.notInclude(kit.output, "Unhandled Error", kit.output)

        // What the kit spares the consumer: on a Node without Map.groupBy, vitest's own defineConfig hides the failure.
        if (typeof (Map as { groupBy?: unknown }).groupBy !== "function") {
          const plain = yield* withProject(
            `import { defineConfig } from "vitest/config"\nexport default defineConfig({ test: { include: ["*.test.ts"] } })\n`,
            runVitest
          )
          assert.include(plain.output, "Map.groupBy is not a function", plain.output)
        }
      }),
    { timeout: 60_000 }
  )

  it("the polyfills behave as the built-ins (only installed where missing)", () => {
    const saved = {
      map: (Map as any).groupBy,
      object: (Object as any).groupBy,
      withResolvers: (Promise as any).withResolvers
    }
    try {
      delete (Map as any).groupBy
      delete (Object as any).groupBy
      delete (Promise as any).withResolvers
      install()
      const items = [1, 2, 3, 4, 5]
      const byParity: Map<string, Array<number>> = (Map as any).groupBy(items, (n: number) => (n % 2 ? "odd" : "even"))
      assert.deepStrictEqual([...byParity], [["odd", [1, 3, 5]], ["even", [2, 4]]])
      const indices: Array<number> = []
      ;(Map as any).groupBy(new Set(["a", "b"]), (_: string, i: number) => indices.push(i))
      assert.deepStrictEqual(indices, [0, 1])
      const grouped = (Object as any).groupBy(items, (n: number) => (n > 2 ? "big" : "small"))
      assert.isNull(Object.getPrototypeOf(grouped))
      assert.deepStrictEqual({ ...grouped }, { small: [1, 2], big: [3, 4, 5] })
      const { promise, resolve } = (Promise as any).withResolvers()
      resolve(7)
      return promise.then((value: number) => assert.strictEqual(value, 7))
    } finally {
      const restore = (target: object, name: string, value: unknown) =>
        value === undefined
          ? delete (target as any)[name]
          : Object.defineProperty(target, name, { value, writable: true, configurable: true })
      restore(Map, "groupBy", saved.map)
      restore(Object, "groupBy", saved.object)
      restore(Promise, "withResolvers", saved.withResolvers)
    }
  })
})
