/**
 * Test helper: how a test starts a child Node process that runs this repository's TypeScript (a stdio server, a
 * fixture). `tsx` compiles the sources on the fly and the `@mrtr/source` export condition makes `@mrtr/*` resolve to
 * their `src/` (as vitest does), never to a possibly stale `dist/`.
 *
 * @since 0.1.0
 */

/** Node arguments placed before the script: `node ...sourceNodeArgs script.ts`. */
export const sourceNodeArgs: ReadonlyArray<string> = ["--conditions=@mrtr/source", "--import", "tsx"]
