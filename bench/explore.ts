/**
 * The cost of one explored conversation (`@mrtr/testing`'s `Explore.check`):
 * what an exploration adds to `npm test`. Run on its own:
 *
 *   node --conditions=@mrtr/source --import tsx bench/explore.ts [runs]
 *
 * For each handler and each way a conversation is carried, `runs` conversations
 * (default 200, fixed seed, no failure to shrink) after a warm-up of 50; the
 * wall-clock time and this process's CPU per conversation (client, server and
 * checks are all in this process). Handlers: `greet` of the get-started example
 * (two forms in two rounds) and the demo's `plan_trip` (a form, a step, a
 * sampling and a roots request together, a confirmation). On 2026-07-28 each
 * round is sent twice (the determinism replay), so the row without it shows
 * what that check costs.
 */
import { InteractionPage, McpServer } from "@mrtr/server"
import { Explore } from "@mrtr/testing"
import { Effect, Layer } from "effect"
import { items, serverOptions, singleUserPage } from "../examples/demo/server.ts"
import { server as greetServer } from "../examples/get-started/src/server.ts"

const runs = Number(process.argv[2] ?? 200)

const demo = items.pipe(
  Layer.provideMerge(InteractionPage.layer(singleUserPage)),
  Layer.provideMerge(McpServer.layer(serverOptions))
)

const cpu = () => {
  const usage = process.cpuUsage()
  return usage.user + usage.system
}

const cases = [
  { name: "greet", server: greetServer, tool: "greet", arguments: {} },
  { name: "plan_trip", server: demo, tool: "plan_trip", arguments: { from: "Paris", to: "Berlin" } }
] as const

const rows: Array<string> = []
for (const c of cases) {
  for (
    const [label, modes, determinism] of [
      ["2026-07-28", ["2026-07-28"], true],
      ["2026-07-28, no determinism replay", ["2026-07-28"], false],
      ["2025-11-25", ["2025-11-25"], true]
    ] as const
  ) {
    const options = { server: c.server, tool: c.tool, arguments: c.arguments, modes, determinism, seed: 1 }
    await Effect.runPromise(Explore.check({ ...options, runs: 50 }))
    const wall = performance.now()
    const before = cpu()
    const result = await Effect.runPromise(Explore.check({ ...options, runs }))
    const ms = (performance.now() - wall) / result.runs
    const cpuMs = (cpu() - before) / 1000 / result.runs
    rows.push(
      `${c.name.padEnd(10)} ${label.padEnd(36)} ${ms.toFixed(2).padStart(7)} ms  ${cpuMs.toFixed(2).padStart(7)} ms CPU`
    )
  }
}
console.log(`explored conversations, ${runs} each: wall-clock and CPU per conversation`)
for (const row of rows) console.log(row)
