/**
 * The client's overhead per round, for `bench/index.ts`: what `@mrtr/client`'s
 * `McpClient` spends outside the network to drive one `input_required` round
 * (build the request and its `_meta` and headers, classify the result,
 * validate the input requests, call the `ElicitationHandler` Layer, build the
 * retry, decode the final result), next to a minimal raw driver doing only the
 * unavoidable part (serialize the request, parse the reply, echo the state).
 *
 * - In process: both drive the two-round `greet` conversation against a stub
 *   transport that answers canned replies at once (JSON encoding of the request
 *   and parsing of the reply included, as a real transport does), so all of the
 *   measured time is the client's own processing.
 * - Over HTTP: both drive the real `ours` server at concurrency 1; the
 *   difference of their latencies and of their CPU time per conversation is
 *   the client's overhead including its HTTP stack (effect's `HttpClient` on
 *   `node:http` versus the driver's bare `node:http`).
 */
import { NodeHttpClient } from "@effect/platform-node"
import { ClientTransport, ElicitationHandler, HttpTransport, McpClient } from "@mrtr/client"
import { Effect, Layer, Stream } from "effect"
import { replyText } from "./cannedReplies.ts"
import { conversation, roundBodies, runPool, type Target } from "./driver.ts"

/** Answers every elicitation with `{ name: "Alice" }`. */
const user = ElicitationHandler.layer({
  form: () => Effect.succeed(ElicitationHandler.accept({ name: "Alice" }))
})

/** A transport that answers at once: encodes the request and parses the canned reply, as a real one would. */
const stubTransport = Layer.succeed(
  ClientTransport.ClientTransport,
  ClientTransport.ClientTransport.of({
    kind: "memory",
    usesHeaders: true,
    request: (message) =>
      Stream.fromEffect(Effect.sync(() => {
        JSON.stringify(message)
        return JSON.parse(replyText(message)) as unknown
      })),
    notify: () => Effect.void,
    notifications: Stream.never
  })
)

const callGreet = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const result = yield* client.callTool({ name: "greet", arguments: {} })
  const first = result.content[0]
  if (first?.type !== "text" || first.text !== "Hello, Alice!") {
    throw new Error(`unexpected result ${JSON.stringify(result)}`)
  }
})

const cpuMicros = () => {
  const usage = process.cpuUsage()
  return usage.user + usage.system
}

export interface InProcess {
  /** µs of CPU per round (a conversation is two rounds). */
  readonly clientPerRound: number
  readonly rawPerRound: number
}

/** Both clients against the stub, `n` conversations each after as many of warm-up. */
export const measureInProcess = (n = 3000): Promise<InProcess> =>
  Effect.runPromise(
    Effect.gen(function*() {
      for (let i = 0; i < n; i++) yield* callGreet
      const c0 = cpuMicros()
      for (let i = 0; i < n; i++) yield* callGreet
      const clientPerRound = (cpuMicros() - c0) / n / 2

      const raw = () => {
        const one = JSON.parse(replyText(JSON.parse(roundBodies.one()))) as { result: { requestState?: string } }
        const two = JSON.parse(replyText(JSON.parse(roundBodies.two(one.result.requestState))))
        if (two.result.content[0].text !== "Hello, Alice!") throw new Error("unexpected")
      }
      for (let i = 0; i < n; i++) raw()
      const r0 = cpuMicros()
      for (let i = 0; i < n; i++) raw()
      const rawPerRound = (cpuMicros() - r0) / n / 2
      return { clientPerRound, rawPerRound }
    }).pipe(
      Effect.provide(
        McpClient.layer({ clientInfo: { name: "bench", version: "1.0.0" } }).pipe(
          Layer.provide(Layer.merge(stubTransport, user))
        )
      )
    )
  )

export interface OverHttp {
  readonly clientP50: number
  readonly rawP50: number
  /** µs of client-process CPU per conversation. */
  readonly clientCpu: number
  readonly rawCpu: number
  readonly conversations: number
}

const median = (values: Array<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? NaN
}

/**
 * Both clients against the server at `url`, one conversation at a time,
 * after a warm-up of each (3 s of the client's calls, 1.5 s of the raw
 * driver's, with `ms` = 1.5 s), alternating `trials` times for `ms` each;
 * keeps the best (lowest) p50 and CPU per conversation of each.
 *
 * `"shipped"` uses `HttpTransport.layerNode` as shipped (`node:http` driven
 * directly, with the keep-alive agents it configures;
 * {@link shippedConnections} tells whether it keeps connections alive);
 * `"httpClient"` is `HttpTransport.layer` on effect's `NodeHttpClient` with a
 * `keepAlive: true` agent, like the raw driver's (what a custom `HttpClient`
 * costs).
 */
export const measureOverHttp = (
  url: string,
  raw: Target,
  variant: "shipped" | "httpClient",
  ms = 1500,
  trials = 4
): Promise<OverHttp> =>
  Effect.runPromise(
    Effect.gen(function*() {
      let clientP50 = Infinity, rawP50 = Infinity, clientCpu = Infinity, rawCpu = Infinity, conversations = 0
      const timedCall = Effect.gen(function*() {
        const t0 = performance.now()
        yield* callGreet
        return performance.now() - t0
      })
      // Warm-up by time, both alike: V8 takes a few seconds of calls to compile the client's code
      // (its first 1.5 s ran 2-3x slower than its later ones), much longer than the raw driver's.
      const warm = Math.max(ms, 1000)
      for (const t0 = performance.now(); performance.now() - t0 < 2 * warm;) yield* callGreet
      yield* Effect.promise(() => runPool(Infinity, 1, () => conversation(raw), warm))
      for (let trial = 0; trial < trials; trial++) {
        const latencies: Array<number> = []
        const c0 = cpuMicros()
        const t0 = performance.now()
        while (performance.now() - t0 < ms) latencies.push(yield* timedCall)
        clientCpu = Math.min(clientCpu, (cpuMicros() - c0) / latencies.length)
        clientP50 = Math.min(clientP50, median(latencies))
        conversations += latencies.length
        const r0 = cpuMicros()
        const { results } = yield* Effect.promise(() => runPool(Infinity, 1, () => conversation(raw), ms))
        rawCpu = Math.min(rawCpu, (cpuMicros() - r0) / results.length)
        rawP50 = Math.min(rawP50, median(results))
        conversations += results.length
      }
      return { clientP50, rawP50, clientCpu, rawCpu, conversations }
    }).pipe(
      Effect.provide(
        McpClient.layer({ clientInfo: { name: "bench", version: "1.0.0" } }).pipe(
          Layer.provide(Layer.merge(
            variant === "httpClient"
              ? HttpTransport.layer({ url }).pipe(
                Layer.provide(NodeHttpClient.layerNodeHttpNoAgent),
                Layer.provide(NodeHttpClient.layerAgentOptions({ keepAlive: true }))
              )
              : HttpTransport.layerNode({ url }),
            user
          ))
        )
      )
    )
  )

/**
 * Whether `HttpTransport.layerNode({ url })` as shipped keeps connections
 * alive: `conversations` greet conversations (2 rounds each) against an
 * in-process `node:http` stub answering the canned replies, counting the TCP
 * connections the stub accepted. One (or a few) connections means keep-alive;
 * one per request means none.
 */
export const shippedConnections = async (
  conversations = 20
): Promise<{ readonly requests: number; readonly connections: number }> => {
  const { createServer } = await import("node:http")
  let connections = 0
  let requests = 0
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      requests++
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      const body = message.id === undefined ? "" : replyText(message)
      response.writeHead(body === "" ? 202 : 200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body)
      })
      response.end(body)
    })
  })
  server.on("connection", () => connections++)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as import("node:net").AddressInfo).port}/mcp`
  try {
    await Effect.runPromise(
      Effect.gen(function*() {
        for (let i = 0; i < conversations; i++) yield* callGreet
      }).pipe(
        Effect.provide(
          McpClient.layer({ clientInfo: { name: "bench", version: "1.0.0" } }).pipe(
            Layer.provide(Layer.merge(HttpTransport.layerNode({ url }), user))
          )
        ),
        Effect.scoped
      )
    )
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  return { requests, connections }
}
