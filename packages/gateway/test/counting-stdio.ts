/**
 * Test fixture: a stdio upstream that appends its pid to the file named by
 * `SPAWN_LOG` when it starts (so a test counts the processes a gateway
 * spawned), then runs the official v1 server (`--v1`, 2025-11-25) or the
 * gateway example's 2026-07-28 server, after `START_DELAY_MS` milliseconds
 * when set (a server slow to start: what it is sent meanwhile waits in the
 * pipe).
 */
import { appendFileSync } from "node:fs"

appendFileSync(process.env.SPAWN_LOG!, `${process.pid}\n`)
const delay = Number(process.env.START_DELAY_MS ?? 0)
if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
if (process.argv.includes("--v1")) {
  await import("../../client/test/v1-server.ts")
} else {
  await import("../../../examples/gateway/modern.ts")
}
