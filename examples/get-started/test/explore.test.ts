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

/** The content of the last accepted answer to the form that asks for `field` (each era keys its asks its own way). */
const accepted = (asked: ReadonlyArray<Explore.Asked>, field: string): Record<string, any> => {
  const answers = asked.filter((a) =>
    a.choice === "accept" && field in ((a.request.params as any).requestedSchema?.properties ?? {})
  )
  return (answers.at(-1)?.answer as { content: Record<string, any> }).content
}
// #endregion explore
