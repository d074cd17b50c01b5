/**
 * The README's server: one tool that asks in direct style (a form, then a
 * model and the client's roots in one round), as a Layer.
 */
import { Effect, Layer, Schema } from "effect"
import { Elicitation, Mrtr, Roots, Sampling } from "@mrtr/core"
import { McpServer, Tool } from "@mrtr/server"

const Dates = Schema.Struct({
  departure: Schema.String.annotate({ title: "Departure", format: "date" }),
  nights: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 30 }))
})

const Offers = Schema.Array(Schema.Struct({ flight: Schema.String, price: Schema.Number }))

// Anything with I/O, time or randomness goes inside a step (here it stands in for a flight search).
const searchFlights = (city: string, departure: string) =>
  Effect.sync(() => [
    { flight: `MR101 to ${city} on ${departure}`, price: 129 },
    { flight: `MR107 to ${city} on ${departure}`, price: 99 }
  ])

export const bookTrip = Tool.make("book_trip", {
  description: "Books a trip, asking the traveller, a model and the client's roots",
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) =>
    Effect.gen(function*() {
      // Round 1: a form. The requestedSchema is generated from `Dates`, the answer decoded with it.
      const dates = yield* Elicitation.form({ key: "dates", message: `When do you travel to ${city}?`, schema: Dates })
      // Runs once per conversation; its result travels in the journal and is replayed, never re-run.
      const offers = yield* Mrtr.step("search", searchFlights(city, dates.departure), Offers)
      // Round 2: two asks at once are one round with two input requests.
      const [pick, roots] = yield* Mrtr.all([
        Sampling.createMessage({
          key: "pick",
          maxTokens: 200,
          messages: [{
            role: "user",
            content: { type: "text", text: `Pick one: ${offers.map((o) => `${o.flight} (${o.price} EUR)`).join(", ")}` }
          }]
        }),
        Roots.list({ key: "roots" })
      ])
      return `Booked ${Sampling.textOf(pick)} for ${dates.nights} nights; receipt filed under ${roots[0]?.uri ?? "(no root)"}`
    })
})

export const server = McpServer.tools(bookTrip).pipe(
  Layer.provideMerge(McpServer.layer({ name: "trips", version: "1.0.0" }))
)
