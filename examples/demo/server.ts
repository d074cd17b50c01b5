/**
 * The demo server: a trip planner whose tools, prompt and resource template
 * ask the user, a model and the client's roots in direct style.
 *
 * - `plan_trip` (tool): a form with several field types, a `Mrtr.step` doing
 *   the real work (routing over a small rail network with Dijkstra's
 *   algorithm, run once per conversation), a sampling request for a tagline
 *   and a roots request for where to file the plan, then a confirmation.
 * - `link_rail_account` (tool): asks for a secret (an API key) with
 *   `Elicitation.secure`: the user types it on the server's own page, the
 *   client only consents and retries.
 * - `book_tickets` (tool, Tasks extension): asks who travels (an MRTR round of
 *   the `tools/call`), then goes asynchronous at `Task.detach`: a client that
 *   declares the extension gets a task, whose reservation runs as a
 *   `Mrtr.step` and whose final confirmation is asked as the task's
 *   `input_required` status. A client without the extension gets the same
 *   questions as plain MRTR rounds.
 * - `check_timetables` (tool, Tasks extension): a task from the start whose
 *   one `Mrtr.step` (the operators' timetables) takes `seconds`.
 *
 * The task steps log when their body really runs (`step reserve ran for
 * task:<id>`, `step timetables started/finished for task:<id>`), which the
 * fleet tests read to tell a replayed step from a re-run one.
 * - `packing_list` (prompt): asks for the traveller's style before writing
 *   the prompt.
 * - `weather://{city}/{date}` (resource template): asks which unit to use.
 *
 * Every "no" (a form declined or cancelled) is caught: a tool answers what it did
 * not do, the prompt and the resource fall back to a default.
 *
 * `layer` is the server; `main` (when run directly) serves it over
 * Streamable HTTP on 127.0.0.1 and prints `listening <url>`.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Elicitation, Mrtr, Roots, Sampling, Task } from "@mrtr/core"
import {
  Authorization,
  HttpTransport,
  InteractionPage,
  McpServer,
  Prompt,
  RequestContext,
  Resource,
  Tool
} from "@mrtr/server"
import { Console, Effect, Layer, References, Schema } from "effect"
import type { HttpRouter } from "effect/http"
import * as WebSignIn from "./signIn.ts"

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

// #region prompt
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
// #endregion prompt

// -- The resource template -----------------------------------------------------

// #region resource
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
// #endregion resource

/** The demo's tools, prompt and resource template, registered with the `McpServer` they require. */
export const items = Layer.mergeAll(
  McpServer.tools(planTrip, linkRailAccount, bookTickets, checkTimetables),
  McpServer.prompts(packingList),
  McpServer.resources(weather)
)

/** The demo server's identity. */
export const serverOptions: McpServer.Options = {
  name: "trip-planner",
  version: "1.0.0",
  title: "Trip planner (MRTR demo)",
  instructions: "Plans rail trips; tools ask the traveller for details."
}

/**
 * The interaction page of the demo without authorization: the demo runs on this machine for the person at it, so
 * it acknowledges a single user (`singleUser`), and anyone who opens a page's link may complete it. A server that
 * other people reach turns authorization on and says who the page's user is (`principal`) instead.
 */
export const singleUserPage: InteractionPage.Options = { singleUser: true }

/**
 * The demo server, as a Layer: everything in this process (`McpServer.layer`: a random per-process key ring,
 * in-memory stores), with the interaction page's services (`link_rail_account` needs the page served: mounted, as
 * `serve` does, or on a port of its own with `InteractionPage.serve`, as `stdio.ts` does; without either it answers an
 * internal error). The fleet's instances (`examples/fleet/instance.ts`) run the same `items` on Redis.
 */
export const makeLayer = (pageOptions: InteractionPage.Options = singleUserPage) =>
  items.pipe(
    // The interaction page's services (in-memory store; the page's URL is the bound address).
    Layer.provideMerge(InteractionPage.layer(pageOptions)),
    Layer.provideMerge(McpServer.layer(serverOptions))
  )

/** {@link makeLayer} with the default interaction page. */
export const layer = makeLayer()

/**
 * Serves the demo over Streamable HTTP on 127.0.0.1 (`port` 0 = any free port), with CORS on for web apps served
 * from localhost (the default `allowedOrigins`), so a page in a browser can call it directly, and the interaction
 * page of secure elicitations under `/mrtr/interactions/`; `mount`: more routes beside them (the web sign-in of
 * `--auth`, `./signIn.ts`).
 */
export const serve = (
  port = 0,
  authorization?: Layer.Layer<Authorization.ResourceServer>,
  pageOptions?: InteractionPage.Options,
  mount?: Layer.Layer<never, never, HttpRouter.HttpRouter | HttpTransport.HttpEndpoint>
) =>
  HttpTransport.layer({
    port,
    cors: true,
    mount: mount === undefined ? InteractionPage.routes : Layer.merge(InteractionPage.routes, mount)
  }).pipe(
    Layer.provide(pageOptions === undefined ? layer : makeLayer(pageOptions)),
    authorization === undefined ? (self) => self : Layer.provide(authorization)
  )

/**
 * {@link serve} behind `Authorization.layer` (JWT access tokens of the authorization server `issuer`, scope
 * `trips`), with the trip planner's web sign-in at the same authorization server (./signIn.ts): the interaction
 * page's user is the one whose session cookie the browser sends.
 */
export const serveAuthorized = (issuer: string, jwksUri: string, port = 0) => {
  const web = WebSignIn.make(issuer)
  return serve(
    port,
    Authorization.layer({
      verifier: Authorization.jwt({ issuer, jwksUri }),
      requiredScopes: ["trips"],
      scopesSupported: ["trips"]
    }),
    { principal: web.principal },
    web.routes
  )
}

/** What `server.ts --help` prints. */
export const USAGE = `Usage: server.ts [--port <port>]

The trip-planner demo server over Streamable HTTP on 127.0.0.1, with the interaction page of its secure
elicitation under /mrtr/interactions/. Prints "listening <url>" once it serves.

Options:
  --port <port>  the port to listen on (default 0: any free port)
  -h, --help     print this help and exit
`

/** The command line of `server.ts`: the port to listen on, or what to print and the exit code. */
export const parseArgs = (
  args: ReadonlyArray<string>
): { readonly port: number } | { readonly print: string; readonly exitCode: number } => {
  let port = 0
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--help" || arg === "-h") return { print: USAGE, exitCode: 0 }
    if (arg === "--port" || arg.startsWith("--port=")) {
      const value = arg === "--port" ? args[++i] : arg.slice("--port=".length)
      const parsed = Number(value)
      if (value === undefined || value === "" || !Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) {
        return {
          print: `--port needs a port number (0-65535), got ${JSON.stringify(value ?? "")}\n\n${USAGE}`,
          exitCode: 2
        }
      }
      port = parsed
      continue
    }
    return { print: `Unknown option ${JSON.stringify(arg)}\n\n${USAGE}`, exitCode: 2 }
  }
  return { port }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const parsed = parseArgs(process.argv.slice(2))
  if ("print" in parsed) {
    ;(parsed.exitCode === 0 ? process.stdout : process.stderr).write(parsed.print)
    process.exit(parsed.exitCode)
  }
  const port = parsed.port
  Effect.gen(function*() {
    yield* Console.log(`listening ${yield* HttpTransport.url}`)
    return yield* Effect.never
  }).pipe(
    Effect.provide(serve(port)),
    Effect.provideService(References.LogToStderr, true),
    NodeRuntime.runMain
  )
}
