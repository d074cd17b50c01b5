import { defineProject } from "vitest/config"
import { sourceResolution } from "../vitest.shared.ts"

export default defineProject({
  ...sourceResolution,
  test: {
    name: "examples",
    include: ["*.test.ts", "*/**/*.test.ts"],
    // examples/fleet is a project of its own (it starts redis-server and haproxy)
    exclude: ["fleet/**", "**/node_modules/**"],
    testTimeout: 60_000
  }
})
