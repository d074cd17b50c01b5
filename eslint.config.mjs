// The lint and format rules live in tooling/eslint.config.mjs (beside the TypeScript 6 that typescript-eslint needs).
export { default } from "./tooling/eslint.config.mjs"
