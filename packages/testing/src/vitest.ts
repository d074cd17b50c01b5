/**
 * `@mrtr/testing/vitest`: the vitest configuration entry of the test kit.
 * Use its `defineConfig` / `defineProject` (vitest's own) in your
 * `vitest.config.ts` instead of those of `vitest/config`:
 *
 * ```ts
 * // vitest.config.ts
 * import { defineConfig } from "@mrtr/testing/vitest"
 *
 * export default defineConfig({ test: { include: ["test/**\/*.test.ts"] } })
 * ```
 *
 * Importing this module also makes vitest 5 report failures correctly on
 * Node 20 (which vitest 5 no longer supports): it installs, where missing,
 * the few newer built-ins vitest's main process calls (`Map.groupBy` when it
 * prints a failure, `Object.groupBy`, `Promise.withResolvers`). On Node 22 and
 * later it changes nothing.
 *
 * Gotcha: it must be imported by the config file (vitest's main process);
 * test files and `setupFiles` run in workers and cannot fix the reporter.
 * Requires `vitest` (a peer of this entry).
 *
 * @since 0.1.0
 */
import * as VitestConfig from "vitest/config"
import { install } from "./internal/polyfills.ts"

install()

/**
 * vitest's `defineConfig` (from `vitest/config`), re-exported after the
 * Node 20 polyfills of this module are installed. Same arguments, same result.
 *
 * @category config
 * @since 0.1.0
 */
export const defineConfig: typeof VitestConfig.defineConfig = VitestConfig.defineConfig

/**
 * vitest's `defineProject` (from `vitest/config`), for a project of a
 * multi-project config, re-exported likewise.
 *
 * @category config
 * @since 0.1.0
 */
export const defineProject: typeof VitestConfig.defineProject = VitestConfig.defineProject

/**
 * Installs the polyfills again (idempotent; importing the module already
 * did): for a config that keeps `vitest/config`'s own `defineConfig` and only
 * imports this module for its effect (`import "@mrtr/testing/vitest"`).
 *
 * @category config
 * @since 0.1.0
 */
export const installPolyfills: () => void = install
