/**
 * Every conversation of the demo's asking tools, prompt and resource, explored
 * (`@mrtr/testing/explore`): drawn answers in both eras (and as a task), the
 * determinism replay, the one run of each step, every message against the
 * official JSON Schemas. The exploration found that no "no" was caught (a
 * declined form ended the tool with the engine's own error, the prompt and the
 * resource with -32603); with a fixed seed it is their regression test.
 */
import { InteractionPage, McpServer } from "@mrtr/server"
import * as Explore from "@mrtr/testing/explore"
import { Layer } from "effect"
import { items, serverOptions, singleUserPage } from "./server.ts"

// The demo server (`layer`), with its tasks polled every 20 ms.
const server = items.pipe(
  Layer.provideMerge(InteractionPage.layer(singleUserPage)),
  Layer.provideMerge(McpServer.layer({ ...serverOptions, tasks: { pollIntervalMs: 20 } }))
)

const trip = { from: "Paris", to: "Berlin" }

Explore.it("plan_trip", { server, arguments: trip, runs: 40, seed: 1 }, ({ ending }) =>
  // The property of the tool: a booking is confirmed in its text, anything else says what it did not do.
  ending._tag === "Result" &&
  /^(Booked for|Not booked\.|Not planned: the traveller (declined|cancelled))/.test(ending.result.content[0].text))

Explore.it("book_tickets", {
  server,
  arguments: trip,
  runs: 12,
  seed: 2,
  modes: ["2026-07-28", "2025-11-25", "task"]
})

Explore.it("packing_list", { server, prompt: "packing_list", arguments: { city: "Rome" }, runs: 20, seed: 3 })

Explore.it("weather", { server, resource: "weather://Rome/2026-08-01", runs: 20, seed: 4 })
