/**
 * The project list: one vitest project per workspace package, and the examples.
 * vitest 5 reads `test.projects` from `vitest.config.ts`, which imports this list.
 */
export default [
  "packages/protocol",
  "packages/core",
  "packages/server",
  "packages/client",
  "packages/testing",
  "packages/gateway",
  "packages/cli",
  "examples",
  "examples/demo",
  "examples/fleet"
]
