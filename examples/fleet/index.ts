/**
 * `npm run fleet`: the demo on a fleet. Starts redis-server, three instances
 * of the demo server (shared key ring, single use on Redis) and haproxy
 * (round-robin, no affinity) on 127.0.0.1 with free ports (./fleet.ts),
 * drives the demo's tool, prompt and resource through the balancer with
 * scripted answers, prints which instance served each request of each
 * conversation, and stops everything it started.
 *
 * Exits 0 when every conversation completes, non-zero otherwise (or after
 * 120 seconds). Needs the Debian packages redis-server and haproxy.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { AnswersFile, Report } from "@mrtr/cli"
import { HttpTransport as HttpClientTransport, McpClient } from "@mrtr/client"
import { Console, Effect, Layer } from "effect"
import { HttpClient } from "effect/http"
import { startFleet } from "./fleet.ts"

const s = Report.style(Report.colorsFor(process.stdout))

const answers: AnswersFile.Answers = {
  details: {
    traveller: "Ada Lovelace",
    email: "ada@example.com",
    date: "2026-08-01",
    passengers: 2,
    firstClass: false,
    seat: "window"
  },
  tagline: "Three instances, one journey.",
  roots: ["file:///home/ada/trips"],
  confirm: { book: true },
  style: { style: "light" },
  unit: { unit: "celsius" }
}

/**
 * Which instance answered each HTTP request (haproxy's `X-Mrtr-Instance` header), in order, with the request's
 * method (its `Mcp-Method` header): the client's own requests (`server/discover`, `tools/list` before the first call)
 * are not rounds of a conversation.
 */
const served: Array<{ readonly instance: string; readonly method: string }> = []

const recordingHttpClient = Layer.effect(
  HttpClient.HttpClient,
  Effect.map(
    Effect.service(HttpClient.HttpClient),
    HttpClient.tap((response) =>
      Effect.sync(() =>
        served.push({
          instance: response.headers["x-mrtr-instance"] ?? "?",
          method: response.request.headers["mcp-method"] ?? "?"
        })
      )
    )
  )
).pipe(Layer.provide(NodeHttpClient.layerNodeHttpOptions({ keepAlive: true })))

const drive = (url: string) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    let failed = 0
    const conversation = <A>(title: string, run: Effect.Effect<A, unknown>, show: (a: A) => string) =>
      Effect.gen(function*() {
        const from = served.length
        const outcome = yield* Effect.result(run)
        const method = title.split(" ")[0]!
        const before = served.slice(from).filter((hop) => hop.method !== method)
        const hops = served.slice(from).filter((hop) => hop.method === method).map((hop) => hop.instance)
        yield* Console.log(`\n${s.bold(title)}`)
        if (before.length > 0) {
          yield* Console.log(
            `  (first the client's ${before.map((hop) => `${hop.method} on ${hop.instance}`).join(", ")})`
          )
        }
        hops.forEach((instance, i) =>
          Effect.runSync(
            Console.log(
              `  request ${i + 1}${i === 0 ? " (first)" : ` (retry ${i})`}: served by instance ${s.cyan(instance)}`
            )
          )
        )
        if (outcome._tag === "Failure") {
          failed++
          return yield* Console.log(`  ${s.red("✗ failed")}: ${String(outcome.failure)}`)
        }
        yield* Console.log(
          `  ${s.green("✓ complete")} across ${new Set(hops).size} instance(s): ${show(outcome.success)}`
        )
      })
    yield* Console.log(`Balancer ${s.cyan(url)} (haproxy, round-robin, no affinity) in front of instances a, b, c.`)
    yield* conversation(
      "tools/call plan_trip {from: Paris, to: Milan}",
      client.callTool({ name: "plan_trip", arguments: { from: "Paris", to: "Milan" } }),
      (result) => Report.textOf(result.content)
    )
    yield* conversation(
      "prompts/get packing_list {city: Rome}",
      client.getPrompt({ name: "packing_list", arguments: { city: "Rome" } }),
      (result) => result.messages.map((m) => Report.textOf(m.content)).join(" ")
    )
    yield* conversation(
      "resources/read weather://Zurich/2026-08-01",
      client.readResource({ uri: "weather://Zurich/2026-08-01" }),
      (result) => result.contents.map((c) => "text" in c ? c.text : "").join(" ")
    )
    return failed
  }).pipe(
    Effect.provide(
      McpClient.layer({ clientInfo: { name: "mrtr-fleet-demo", version: "0.1.0" } }).pipe(
        Layer.provide(HttpClientTransport.layer({ url })),
        Layer.provide(recordingHttpClient),
        Layer.provide(AnswersFile.layer(answers))
      )
    )
  )

const main = async () => {
  console.log(s.bold("MRTR fleet: redis-server, three demo instances and haproxy on 127.0.0.1"))
  const fleet = await startFleet({ env: { MRTR_SINGLE_USE: "true" } })
  let failed = 1
  try {
    console.log(
      `redis-server ${fleet.redis.url}; instances a :${fleet.ports.a}, b :${fleet.ports.b}, c :${fleet.ports.c}` +
        " (shared key ring, single use on Redis)"
    )
    failed = await Effect.runPromise(drive(fleet.url).pipe(Effect.timeout("120 seconds")))
  } finally {
    await fleet.stop()
    console.log(s.dim("\nStopped haproxy, the three instances and redis-server."))
  }
  if (failed > 0) {
    console.error(s.red(`${failed} conversation(s) did not complete`))
    process.exit(1)
  }
  console.log(s.green("✓ every conversation completed, its rounds served by whichever instance haproxy chose."))
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
