/**
 * A consumer's exploration of its tool (`@mrtr/testing/explore`): every conversation of a few drawn users, in both
 * eras, every message the server sends checked against the official schemas the installed package ships.
 */
import * as Explore from "@mrtr/testing/explore"
import { server } from "../src/trips.js"

// The tool lets a "no" end the call with its error: allowed.
Explore.it("book_trip", { server, arguments: { city: "Lisbon" }, runs: 10, seed: 1, uncaughtDeclines: "allow" })
