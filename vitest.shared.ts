/**
 * What every vitest project of this repository shares: the packages resolve each other through the `@mrtr/source`
 * export condition (their TypeScript sources), so tests need no build and never test a stale `dist/`.
 * A consumer of the published packages resolves `dist/` (the `types` and `default` conditions).
 */
import { defaultServerConditions } from "vite"

/** Export conditions for the test runner: the sources first, then vite's defaults for Node. */
export const conditions = ["@mrtr/source", ...defaultServerConditions]

/** The `resolve` and `ssr.resolve` settings every project config spreads in. */
export const sourceResolution = {
  resolve: { conditions },
  ssr: { resolve: { conditions } }
} as const
