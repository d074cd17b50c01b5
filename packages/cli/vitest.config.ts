import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "cli",
    include: ["test/**/*.test.ts"],
    // the end-to-end tests spawn `mrtr` (and servers) as child processes
    testTimeout: 240_000,
    hookTimeout: 120_000
  }
})
