import { defineProject } from "vitest/config"
import { sourceResolution } from "../../vitest.shared.ts"

export default defineProject({
  ...sourceResolution,
  test: {
    name: "cli",
    include: ["test/**/*.test.ts"],
    // the `mrtr` bin runs the compiled dist/: build it first
    globalSetup: ["../test-support/build.ts"],
    // the end-to-end tests spawn `mrtr` (and servers) as child processes
    testTimeout: 240_000,
    hookTimeout: 120_000
  }
})
