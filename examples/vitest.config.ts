import { fileURLToPath } from "node:url"
import { defineProject } from "vitest/config"
import { sourceResolution } from "../vitest.shared.ts"

export default defineProject({
  ...sourceResolution,
  resolve: {
    ...sourceResolution.resolve,
    // @effect/ai-openai 4.0.0-beta.106 (examples/agent) on effect 4.1: see examples/agent/compat/hooks.mjs.
    alias: [
      { find: /^effect\/unstable\/(.*)$/, replacement: "effect/$1" },
      {
        find: /^effect\/Encoding$/,
        replacement: fileURLToPath(new URL("./agent/compat/Encoding.mjs", import.meta.url))
      }
    ]
  },
  test: {
    server: { deps: { inline: ["@effect/ai-openai"] } },
    name: "examples",
    include: ["*.test.ts", "*/**/*.test.ts"],
    // examples/fleet (it starts redis-server and haproxy) and examples/demo are projects of their own
    exclude: ["fleet/**", "demo/**", "**/node_modules/**"],
    testTimeout: 60_000
  }
})
