/**
 * vitest global setup for projects whose tests run a compiled entry point (the `mrtr` bin runs `dist/` with plain
 * `node`, as installed): brings every package's `dist/` up to date first (`tsc -b`, incremental: well under a second
 * when nothing changed), so such a test never runs stale JavaScript.
 *
 * @since 0.1.0
 */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** Runs the build once before the project's tests. */
export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url)), "-b", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit"
  })
}
