/**
 * Get started: the vitest configuration of an app's test project (shown on docs/get-started.md). This directory's
 * test runs in the repository's `examples` project instead; this file is typechecked with the rest.
 */
// #region config
import { defineConfig } from "@mrtr/testing/vitest"

// vitest's own defineConfig; on Node 20 it also lets vitest print a failing test's message
export default defineConfig({ test: { include: ["test/**/*.test.ts"] } })
// #endregion config
