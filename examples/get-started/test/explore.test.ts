/**
 * The get-started tool (the README's example), explored: every conversation
 * `greet` can have, in both eras, with the tool's own property. The example
 * lets a "no" end the call with the tool's error, on purpose (it stays two
 * lines): `uncaughtDeclines: "allow"` says so.
 */
// #region explore
import * as Explore from "@mrtr/testing/explore"
import { server } from "../src/server.js"

// The first argument names the test and the tool explored (give `tool: "..."` to explore another).
Explore.it(
  "greet",
  { server, arguments: { greeting: "Hello" }, runs: 50, seed: 1, uncaughtDeclines: "allow" },
  ({ asked, ending }) =>
    // Whoever answers, a greeting names the name and the city that were accepted.
    ending._tag !== "Result" || ending.result.isError === true ||
    ending.result.content[0].text === `Hello, ${accepted(asked, "name").name} from ${accepted(asked, "city").city}!`
)

/** The content of the last accepted answer to `key` (on 2025-11-25 keys are derived: the n-th form). */
const accepted = (asked: ReadonlyArray<Explore.Asked>, key: string): Record<string, any> => {
  const derived = key === "name" ? "elicitation-1" : "elicitation-2"
  const answers = asked.filter((a) => (a.key === key || a.key === derived) && a.choice === "accept")
  return (answers.at(-1)?.answer as { content: Record<string, any> }).content
}
// #endregion explore
