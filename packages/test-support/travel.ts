/**
 * Test helper: a trip planner whose tools, prompt and resource template ask the user, a model and the client's roots,
 * for the tests of a client that needs a rich server (the command line's). It is a fixture of its own, kept apart from
 * the demo in `examples/` so that a change to an example never changes what a package's tests check.
 *
 * - `plan_trip`: a form of several field types, a `Mrtr.step` (a route over a small rail network), sampling and roots
 *   in one round, then a confirmation.
 * - `link_rail_account`: a secret asked with `Elicitation.secure` on the server's own page.
 * - `book_tickets` (Tasks extension, `start: "detach"`) and `check_timetables` (a task from the start).
 * - `packing_list` (prompt) asks a style; `weather://{city}/{date}` (resource template) asks a unit.
 *
 * `serve(port)` serves them over Streamable HTTP on 127.0.0.1, CORS on, the interaction page mounted.
 *
 * @since 0.1.0
 */
import { Elicitation, Mrtr, Roots, Sampling, Task } from "@mrtr/core"
import { HttpTransport, InteractionPage, McpServer, Prompt, RequestContext, Resource, Tool } from "@mrtr/server"
import { Effect, Layer, Schema } from "effect"

// -- A small rail network: the "real work" of the demo --------------------------

const RAIL: ReadonlyArray<readonly [string, string, number]> = [
  ["Paris", "Lyon", 117],
  ["Paris", "Brussels", 82],
  ["Brussels", "Amsterdam", 110],
  ["Paris", "Strasbourg", 106],
  ["Strasbourg", "Zurich", 140],
  ["Lyon", "Geneva", 110],
  ["Geneva", "Zurich", 165],
  ["Zurich", "Milan", 197],
  ["Lyon", "Marseille", 100],
  ["Marseille", "Nice", 155],
  ["Nice", "Milan", 290],
  ["Milan", "Rome", 175],
  ["Amsterdam", "Berlin", 380],
  ["Berlin", "Prague", 260],
  ["Prague", "Vienna", 240],
  ["Vienna", "Zurich", 470]
]

export const CITIES = Array.from(new Set(RAIL.flatMap(([a, b]) => [a, b]))).sort()

/** Fastest route between two cities (Dijkstra over minutes of travel). */
export const route = (
  from: string,
  to: string
): { readonly stops: ReadonlyArray<string>; readonly minutes: number } => {
  const distance = new Map<string, number>(CITIES.map((c) => [c, Infinity]))
  const previous = new Map<string, string>()
  distance.set(from, 0)
  const open = new Set(CITIES)
  while (open.size > 0) {
    let current: string | undefined
    for (const city of open) if (current === undefined || distance.get(city)! < distance.get(current)!) current = city
    if (current === undefined || distance.get(current) === Infinity) break
    open.delete(current)
    if (current === to) break
    for (const [a, b, minutes] of RAIL) {
      const next = a === current ? b : b === current ? a : undefined
      if (next === undefined || !open.has(next)) continue
      const candidate = distance.get(current)! + minutes
      if (candidate < distance.get(next)!) {
        distance.set(next, candidate)
        previous.set(next, current)
      }
    }
  }
  const stops = [to]
  while (stops[0] !== from && previous.has(stops[0]!)) stops.unshift(previous.get(stops[0]!)!)
  return { stops: stops[0] === from ? stops : [], minutes: distance.get(to) ?? Infinity }
}

// -- The tool ------------------------------------------------------------------

const City = Schema.Literals(CITIES as [string, ...Array<string>])

/** The traveller's details: one form, several field types. */
export const TripDetails = Elicitation.formSchema(Schema.Struct({
  traveller: Schema.String.check(Schema.isMinLength(1)).annotate({ title: "Your name" }),
  email: Schema.String.annotate({ title: "Email for the tickets", format: "email" }),
  date: Schema.String.annotate({ title: "Departure date", format: "date" }),
  passengers: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 8 })).annotate({ title: "Passengers" }),
  firstClass: Schema.Boolean.annotate({ title: "First class?", default: false }),
  seat: Schema.Literals(["window", "aisle", "any"]).annotate({ title: "Seat", default: "any" }),
  extras: Schema.optionalKey(
    Schema.Array(Schema.Literals(["bike", "pet", "wifi", "meal"])).annotate({ title: "Extras" })
  )
}))

const Confirm = Schema.Struct({ book: Schema.Boolean.annotate({ title: "Book it?" }) })

const Route = Schema.Struct({ stops: Schema.Array(Schema.String), minutes: Schema.Number })

export const planTrip = Tool.make("plan_trip", {
  title: "Plan a train trip",
  description: "Plans a rail trip between two European cities, asking the traveller, a model and the client's roots",
  parameters: Schema.Struct({ from: City, to: City }),
  handler: ({ from, to }) =>
    Effect.gen(function*() {
      const details = yield* Elicitation.form({
        key: "details",
        message: `Planning ${from} → ${to}. Who is travelling, and when?`,
        schema: TripDetails
      }).pipe(Effect.catchTags({
        ElicitationDeclined: () => Effect.succeed("declined"),
        ElicitationCancelled: () => Effect.succeed("cancelled")
      }))
      if (typeof details === "string") {
        return {
          content: [{ type: "text" as const, text: `Not planned: the traveller ${details} the details.` }],
          isError: true
        }
      }
      // Real work, run once per conversation: its result travels in the journal.
      const trip = yield* Mrtr.step(
        "route",
        Effect.sync(() => route(from, to)),
        Route
      )
      if (trip.stops.length === 0) return `No rail route from ${from} to ${to}.`
      // Two asks at once: one round.
      const [tagline, roots] = yield* Mrtr.all([
        Sampling.createMessage({
          key: "tagline",
          messages: [{
            role: "user",
            content: { type: "text", text: `Write a one-line tagline for a train trip via ${trip.stops.join(", ")}.` }
          }],
          maxTokens: 60
        }),
        Roots.list({ key: "roots" })
      ])
      const folder = roots[0]?.uri ?? "(no root)"
      const hours = `${Math.floor(trip.minutes / 60)}h${String(trip.minutes % 60).padStart(2, "0")}`
      const { book } = yield* Elicitation.form({
        key: "confirm",
        message: `${
          trip.stops.join(" → ")
        } (${hours}), ${details.passengers} passenger(s) on ${details.date}. Book it?`,
        schema: Confirm
      }).pipe(
        Effect.catchTags({
          ElicitationDeclined: () => Effect.succeed({ book: false }),
          ElicitationCancelled: () => Effect.succeed({ book: false })
        })
      )
      const text = Sampling.textOf(tagline) || "(no tagline)"
      return book
        ? `Booked for ${details.traveller} <${details.email}>: ${
          trip.stops.join(" → ")
        }, ${hours}, ${details.seat} seat` +
          `${details.firstClass ? ", first class" : ""}${
            details.extras?.length ? `, extras: ${details.extras.join(", ")}` : ""
          }.` +
          ` "${text}" Plan filed under ${folder}.`
        : `Not booked. The plan (${trip.stops.join(" → ")}) was not filed.`
    })
})

// -- A secret, asked on the server's own page -----------------------------------

/** The rail operator's account key: never shown to the MCP client, typed on the server's interaction page. */
export const RailAccount = Schema.Struct({
  accountId: Schema.String.check(Schema.isMinLength(3)).annotate({ title: "Account id" }),
  apiKey: Schema.String.check(Schema.isMinLength(12), Schema.isMaxLength(128)).annotate({
    title: "API key",
    description: "From your rail operator's developer settings (starts with rk_)"
  })
})

export const linkRailAccount = Tool.make("link_rail_account", {
  title: "Link your rail account",
  description: "Links the traveller's rail operator account; its API key is typed on the server's own page (URL mode)",
  parameters: Schema.Struct({ operator: Schema.String.annotate({ description: "The rail operator" }) }),
  handler: ({ operator }) =>
    Effect.gen(function*() {
      const { accountId, apiKey } = yield* Elicitation.secure({
        key: "rail_api_key",
        message: `Paste your ${operator} API key to link your account.`,
        schema: RailAccount
      })
      // Work with the secret, once: only its fingerprint is kept in the journal.
      const fingerprint = yield* Mrtr.step(
        "fingerprint",
        Effect.sync(() => `${apiKey.slice(0, 3)}…${apiKey.slice(-2)}`),
        Schema.String
      )
      return `Linked ${operator} account ${accountId} (key ${fingerprint}); the key never passed through the client.`
    })
})

// -- A tool that runs as a task ------------------------------------------------------

const Passenger = Schema.Struct({ name: Schema.String.annotate({ title: "Passenger name" }) })

export const bookTickets = Tool.make("book_tickets", {
  title: "Book train tickets",
  description: "Reserves seats between two cities; runs as a task (Tasks extension) for clients that support it",
  parameters: Schema.Struct({ from: City, to: City }),
  task: { support: "optional", start: "detach" },
  handler: ({ from, to }) =>
    Effect.gen(function*() {
      const passenger = yield* Elicitation.form({
        key: "passenger",
        message: `Who travels ${from} → ${to}?`,
        schema: Passenger
      }).pipe(
        Effect.catchTags({
          ElicitationDeclined: () => Effect.succeed(undefined),
          ElicitationCancelled: () => Effect.succeed(undefined)
        })
      )
      if (passenger === undefined) {
        return { content: [{ type: "text" as const, text: "Not booked: no passenger." }], isError: true }
      }
      const { name } = passenger
      // From here on the call is a task (when the client declared the extension).
      yield* Task.detach
      const trip = yield* Mrtr.step(
        "route",
        Effect.sync(() => route(from, to)),
        Route
      )
      if (trip.stops.length === 0) return `No rail route from ${from} to ${to}.`
      // The "long" reservation: run once, journaled with the task.
      const { id } = yield* RequestContext.McpRequest
      const seat = yield* Mrtr.step(
        "reserve",
        Effect.logInfo(`step reserve ran for ${String(id)}`).pipe(
          Effect.andThen(Effect.sleep("300 millis")),
          Effect.as(`${trip.stops.length}${String.fromCharCode(65 + (name.length % 6))}`)
        ),
        Schema.String
      )
      const { book } = yield* Elicitation.form({
        key: "confirm_booking",
        message: `Seat ${seat} held for ${name} (${trip.stops.join(" → ")}). Pay and book?`,
        schema: Confirm
      }).pipe(
        Effect.catchTags({
          ElicitationDeclined: () => Effect.succeed({ book: false }),
          ElicitationCancelled: () => Effect.succeed({ book: false })
        })
      )
      return book ? `Booked seat ${seat} for ${name}: ${trip.stops.join(" → ")}.` : `Released seat ${seat}.`
    })
})

export const checkTimetables = Tool.make("check_timetables", {
  title: "Check the timetables",
  description:
    "Checks the rail operators' timetables for a route (a slow step); runs as a task for clients that support it",
  parameters: Schema.Struct({
    from: City,
    to: City,
    seconds: Schema.optionalKey(
      Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 60 })).annotate({
        description: "How long the timetables take to check (default 1)"
      })
    )
  }),
  task: "optional",
  handler: ({ from, seconds, to }) =>
    Effect.gen(function*() {
      const { id } = yield* RequestContext.McpRequest
      const trip = yield* Mrtr.step(
        "timetables",
        Effect.logInfo(`step timetables started for ${String(id)}`).pipe(
          Effect.andThen(Effect.sleep(`${Math.round((seconds ?? 1) * 1000)} millis`)),
          Effect.andThen(Effect.logInfo(`step timetables finished for ${String(id)}`)),
          Effect.as(route(from, to))
        ),
        Route
      )
      return trip.stops.length === 0
        ? `No rail route from ${from} to ${to}.`
        : `Timetables checked: ${trip.stops.join(" → ")}, ${trip.minutes} minutes.`
    })
})

// -- The prompt ----------------------------------------------------------------

export const packingList = Prompt.make("packing_list", {
  title: "Packing list",
  description: "A prompt asking a model for a packing list, tailored to the traveller's style",
  arguments: Schema.Struct({ city: Schema.String.annotate({ description: "Destination" }) }),
  completions: {
    city: (value) => Effect.succeed(CITIES.filter((c) => c.toLowerCase().startsWith(value.toLowerCase())))
  },
  handler: ({ city }) =>
    Effect.gen(function*() {
      const { style } = yield* Elicitation.form({
        key: "style",
        message: `How do you travel to ${city}?`,
        schema: Schema.Struct({
          style: Schema.Union([
            Schema.Literal("light").annotate({ title: "Carry-on only" }),
            Schema.Literal("comfort").annotate({ title: "Comfort first" })
          ])
        })
      }).pipe(Effect.catchTags({ // a "no": the default style
        ElicitationDeclined: () => Effect.succeed({ style: "comfort" as const }),
        ElicitationCancelled: () => Effect.succeed({ style: "comfort" as const })
      }))
      return `Write a ${style === "light" ? "minimal carry-on" : "comfortable"} packing list for a trip to ${city}.`
    })
})

// -- The resource template -----------------------------------------------------

export const weather = Resource.template({
  uriTemplate: "weather://{city}/{date}",
  name: "weather",
  title: "Weather forecast",
  mimeType: "text/plain",
  completions: { city: (value) => Effect.succeed(CITIES.filter((c) => c.startsWith(value))) },
  handler: ({ city, date }) =>
    Effect.gen(function*() {
      const { unit } = yield* Elicitation.form({
        key: "unit",
        message: "Which temperature unit?",
        schema: Schema.Struct({ unit: Schema.Literals(["celsius", "fahrenheit"]) })
      }).pipe(Effect.catchTags({ // a "no": celsius
        ElicitationDeclined: () => Effect.succeed({ unit: "celsius" as const }),
        ElicitationCancelled: () => Effect.succeed({ unit: "celsius" as const })
      }))
      // A deterministic "forecast" from the city and date.
      const seed = Array.from(`${city}${date}`).reduce((n, c) => (n * 31 + c.charCodeAt(0)) % 9973, 7)
      const celsius = 8 + (seed % 18)
      const value = unit === "celsius" ? `${celsius}°C` : `${Math.round(celsius * 9 / 5 + 32)}°F`
      return `${city} on ${date}: ${["sunny", "cloudy", "light rain"][seed % 3]}, ${value}`
    })
})

/** The tools, prompt and resource template, registered with the `McpServer` they require. */
export const items = Layer.mergeAll(
  McpServer.tools(planTrip, linkRailAccount, bookTickets, checkTimetables),
  McpServer.prompts(packingList),
  McpServer.resources(weather)
)

/**
 * The server as a Layer: a random per-process key ring, in-memory stores, and the interaction page's services for a
 * single user (anyone who opens a page's link may complete it).
 */
export const layer = items.pipe(
  Layer.provideMerge(InteractionPage.layer({ singleUser: true })),
  Layer.provideMerge(McpServer.layer({
    name: "trip-planner",
    version: "1.0.0",
    title: "Trip planner (test fixture)",
    instructions: "Plans rail trips; tools ask the traveller for details."
  }))
)

/** Serves {@link layer} over Streamable HTTP on 127.0.0.1 (`port` 0: any free port), CORS on, the page mounted. */
export const serve = (port = 0) =>
  HttpTransport.layer({ port, cors: true, mount: InteractionPage.routes }).pipe(Layer.provide(layer))
