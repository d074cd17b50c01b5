import { defineProject } from "vitest/config"
import { sourceResolution } from "../../vitest.shared.ts"

export default defineProject({
  ...sourceResolution,
  test: {
    name: "fleet",
    include: ["**/*.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 120_000
  }
})
