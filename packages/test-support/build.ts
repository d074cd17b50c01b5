/**
 * vitest global setup for projects whose tests run a compiled entry point (the `mrtr` bin runs `dist/` with plain
 * `node`, as installed): brings every package's `dist/` up to date first (`npm run build`: `tsc -b`, incremental,
 * then the bin's one-module bundle), so such a test never runs stale JavaScript.
 *
 * @since 0.1.0
 */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** Runs the build (`npm run build`: `tsc -b`, then the `mrtr` bin's bundle) once before the project's tests. */
export default function setup(): void {
  execFileSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "inherit" })
}
