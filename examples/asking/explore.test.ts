/**
 * The asking example's tools (docs/testing.md's `book_trip` and `subscribe`),
 * explored in both eras: each "no" caught, each step once, the questions the
 * same on every replay. The exploration found that `subscribe` caught a
 * decline but not a cancel; with its fixed seed it is the regression test.
 */
import { LEGACY_SCHEMA_ID, SCHEMA_ID, wireErrors } from "@mrtr/test-support/wire"
import * as Explore from "@mrtr/testing/explore"
import { server } from "./server.ts"

const validate: Explore.Validate = (defName, value, era) =>
  wireErrors(defName, value, era === "2026-07-28" ? SCHEMA_ID : LEGACY_SCHEMA_ID)

Explore.it("book_trip", { server, arguments: { city: "Lisbon" }, runs: 40, seed: 1, validate })
Explore.it("subscribe", { server, runs: 30, seed: 2, validate })
