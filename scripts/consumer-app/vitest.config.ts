import { defineConfig } from "@mrtr/testing/vitest"

export default defineConfig({ test: { include: ["test/**/*.test.ts"] } })
