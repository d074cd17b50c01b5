/**
 * Asking: a trip-booking tool that asks the traveller (a form), a model (sampling) and the client's roots, does its
 * real work in a journaled step, batches two asks into one round, and catches a decline and a missing capability.
 * Run it: `npx tsx examples/asking/server.ts [port]` (prints `listening <url>`), or over stdio with `--stdio`;
 * `client.ts` drives it.
 */
// #region imports
import { NodeRuntime } from "@effect/platform-node"
import { Elicitation, Mrtr, Roots, Sampling } from "@mrtr/core"
import { HttpTransport, McpServer, StdioTransport, Tool } from "@mrtr/server"
import { Console, Effect, Layer, Schema } from "effect"
// #endregion imports

// #region form
const Dates = Schema.Struct({
  departure: Schema.String.annotate({ title: "Departure", format: "date" }),
  nights: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 30 })).annotate({ title: "Nights" })
})
// #endregion form

const Offers = Schema.Array(Schema.Struct({ flight: Schema.String, price: Schema.Number }))

// #region step-body
// Anything with I/O, time or randomness goes inside a step (here it stands in for a flight search).
const searchFlights = (city: string, departure: string) =>
  Effect.sync(() => [
    { flight: `MR101 to ${city} on ${departure}`, price: 129 },
    { flight: `MR107 to ${city} on ${departure}`, price: 99 }
  ])
// #endregion step-body

// #region tool
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
      return `Booked ${Sampling.textOf(pick)} for ${dates.nights} nights; receipt filed under ${
        roots[0]?.uri ?? "(no root)"
      }`
    })
})
// #endregion tool

// #region catch
const Newsletter = Schema.Struct({ email: Schema.String.annotate({ title: "Email", format: "email" }) })

export const subscribe = Tool.make("subscribe", {
  description: "Subscribes to the newsletter, if the user wants to",
  handler: () =>
    Effect.gen(function*() {
      const { email } = yield* Elicitation.form({
        key: "email",
        message: "Your email, for the newsletter?",
        schema: Newsletter
      })
      return `Subscribed ${email}.`
    }).pipe(
      Effect.catchTags({
        // A decline or a cancel is a typed failure; uncaught, it would be the tool's error result.
        ElicitationDeclined: () => Effect.succeed("Not subscribed."),
        ElicitationCancelled: () => Effect.succeed("Not subscribed."),
        // A client that cannot elicit: fall back, instead of the request failing with -32021.
        MissingClientCapability: () => Effect.succeed("Not subscribed: this client cannot ask you.")
      })
    )
})
// #endregion catch

// #region server
export const server = McpServer.tools(bookTrip, subscribe).pipe(
  Layer.provideMerge(McpServer.layer({
    name: "trips",
    version: "1.0.0",
    maxRounds: 16, // input rounds per request (the default)
    maxJournalBytes: 32 * 1024 // answers and step results a requestState may carry (the default)
  }))
)
// #endregion server

/** Streamable HTTP on 127.0.0.1 (`port` 0: any free port). */
export const serve = (port: number) => HttpTransport.layer({ port }).pipe(Layer.provide(server))

if (import.meta.url === `file://${process.argv[1]}`) {
  // #region main
  if (process.argv.includes("--stdio")) {
    StdioTransport.main(server) // stdout carries only JSON-RPC; logs go to stderr
  } else {
    Effect.gen(function*() {
      yield* Console.log(`listening ${yield* HttpTransport.url}`)
      return yield* Effect.never
    }).pipe(Effect.provide(serve(Number(process.argv[2] ?? 3000))), NodeRuntime.runMain)
  }
  // #endregion main
}
