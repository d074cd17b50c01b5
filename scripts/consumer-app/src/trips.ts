/**
 * A consumer's server module, written as an app outside this repository writes it (NodeNext, `.js` specifiers): one
 * tool that asks a form, then a model and the client's roots in one round.
 */
import { Elicitation, Mrtr, Roots, Sampling } from "@mrtr/core"
import { McpServer, Tool } from "@mrtr/server"
import { Effect, Layer, Schema } from "effect"

const Dates = Schema.Struct({
  departure: Schema.String.annotate({ title: "Departure", format: "date" }),
  nights: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 30 }))
})

const Offers = Schema.Array(Schema.Struct({ flight: Schema.String, price: Schema.Number }))

export const bookTrip = Tool.make("book_trip", {
  description: "Books a trip, asking the traveller, a model and the client's roots",
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) =>
    Effect.gen(function*() {
      const dates = yield* Elicitation.form({ key: "dates", message: `When do you travel to ${city}?`, schema: Dates })
      const offers = yield* Mrtr.step(
        "search",
        Effect.sync(() => [{ flight: `MR107 to ${city} on ${dates.departure}`, price: 99 }]),
        Offers
      )
      const [pick, roots] = yield* Mrtr.all([
        Sampling.createMessage({
          key: "pick",
          maxTokens: 200,
          messages: [{
            role: "user",
            content: { type: "text", text: `Pick one: ${offers.map((o) => o.flight).join(", ")}` }
          }]
        }),
        Roots.list({ key: "roots" })
      ])
      return `Booked ${Sampling.textOf(pick)} for ${dates.nights} nights; receipt filed under ${
        roots[0]?.uri ?? "(no root)"
      }`
    })
})

export const server = McpServer.tools(bookTrip).pipe(
  Layer.provideMerge(McpServer.layer({ name: "trips", version: "1.0.0" }))
)
