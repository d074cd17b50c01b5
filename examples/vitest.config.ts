import { defineProject } from "vitest/config"
import { sourceResolution } from "../vitest.shared.ts"

export default defineProject({
  ...sourceResolution,
  test: {
    name: "examples",
    include: ["*.test.ts", "*/**/*.test.ts"],
    // examples/fleet (it starts redis-server and haproxy) and examples/demo are projects of their own
    exclude: ["fleet/**", "demo/**", "**/node_modules/**"],
    testTimeout: 60_000
  }
})
