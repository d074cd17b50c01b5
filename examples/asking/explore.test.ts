/**
 * The asking example's tools (docs/testing.md's `book_trip` and `subscribe`),
 * explored in both eras: each "no" caught, each step once, the questions the
 * same on every replay, every message valid against the official schemas. The exploration found that `subscribe` caught a
 * decline but not a cancel; with its fixed seed it is the regression test.
 */
import * as Explore from "@mrtr/testing/explore"
import { server } from "./server.ts"

Explore.it("book_trip", { server, arguments: { city: "Lisbon" }, runs: 40, seed: 1 })
Explore.it("subscribe", { server, runs: 30, seed: 2 })
