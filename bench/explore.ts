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
 * (two forms in two rounds), the demo's `plan_trip` (a form, a step, a
 * sampling and a roots request together, a confirmation) and its
 * `book_tickets` (a task). Every suspended round runs twice in the server (the
 * determinism replay) and every message is validated against the official
 * schemas: the rows without them show what each check costs.
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

const trip = { from: "Paris", to: "Berlin" }

type Mode = "2026-07-28" | "2025-11-25" | "task"
type Row = readonly [label: string, modes: ReadonlyArray<Mode>, determinism: boolean, validate: boolean]

const eras: ReadonlyArray<Row> = [
  ["2026-07-28", ["2026-07-28"], true, true],
  ["2026-07-28, no determinism replay", ["2026-07-28"], false, true],
  ["2026-07-28, no wire validation", ["2026-07-28"], true, false],
  ["2025-11-25", ["2025-11-25"], true, true]
]

const cases: ReadonlyArray<
  { name: string; server: Layer.Layer<any, unknown>; tool: string; arguments: unknown; rows: ReadonlyArray<Row> }
> = [
  { name: "greet", server: greetServer, tool: "greet", arguments: {}, rows: eras },
  { name: "plan_trip", server: demo, tool: "plan_trip", arguments: trip, rows: eras },
  { name: "book_tickets", server: demo, tool: "book_tickets", arguments: trip, rows: [["task", ["task"], true, true]] }
]

const rows: Array<string> = []
for (const c of cases) {
  for (const [label, modes, determinism, validate] of c.rows) {
    const options = {
      server: c.server,
      tool: c.tool,
      arguments: c.arguments,
      modes,
      determinism,
      seed: 1,
      uncaughtDeclines: "allow" as const,
      ...(validate ? {} : { validate: false as const })
    }
    await Effect.runPromise(Explore.check({ ...options, runs: 50 }))
    const wall = performance.now()
    const before = cpu()
    const result = await Effect.runPromise(Explore.check({ ...options, runs }))
    const ms = (performance.now() - wall) / result.runs
    const cpuMs = (cpu() - before) / 1000 / result.runs
    rows.push(
      `${c.name.padEnd(12)} ${label.padEnd(36)} ${ms.toFixed(2).padStart(7)} ms  ${cpuMs.toFixed(2).padStart(7)} ms CPU`
    )
  }
}
console.log(`explored conversations, ${runs} each: wall-clock and CPU per conversation`)
for (const row of rows) console.log(row)
