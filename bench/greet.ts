/**
 * `greet`, the two-round tool of the bench as this project's runtime serves
 * it (`bench/servers.ts` kind `ours`, `bench/profileServer.ts`): round 1 asks
 * one form question (`name`, `{ name: string }`), round 2 answers
 * `Hello, <name>!`.
 */
import { Elicitation } from "@mrtr/core"
import { Tool } from "@mrtr/server"
import { Effect, Schema } from "effect"

const Name = Schema.Struct({ name: Schema.String })

// #region greet
export const greet = Tool.make("greet", {
  description: "Asks for a name, then greets",
  handler: () =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "name", message: "Your name?", schema: Name })
      return `Hello, ${name}!`
    })
})
// #endregion greet
