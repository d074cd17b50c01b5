// `@mrtr/testing/vitest`'s defineConfig is vitest's own, after the Node 20 polyfills vitest 5's main process needs.
import { defineConfig } from "@mrtr/testing/vitest"
import projects from "./vitest.workspace.ts"

export default defineConfig({
  test: {
    projects
  }
})
