/**
 * A downstream client's cancellation of a forwarded call reaches the
 * upstream, in every cell of the two eras, over real HTTP on both sides: a
 * 2025-11-25 client's `notifications/cancelled` and a 2026-07-28 client's
 * closed request become the upstream's own cancellation (its
 * `notifications/cancelled` on 2025-11-25, the closed request on 2026-07-28),
 * and the upstream handler sees it interrupted. A call held for a 2026-07-28
 * client (2025-11-25 upstream) is cancelled upstream when its round is
 * cancelled and when its conversation is abandoned (the store's timeout),
 * against this runtime's server and the official v1 SDK server.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { HttpTransport as ClientHttp, McpClient } from "@mrtr/client"
import { Elicitation } from "@mrtr/core"
import { McpServer, Tool } from "@mrtr/server"
import { Context, Effect, Fiber, Layer, Schema } from "effect"
import { Upstream } from "../src/index.ts"
import { gatewayKeys, serve, upstreamServer } from "./fixtures.ts"
import { aborted, listenV1, started as v1Started } from "./official-v1-upstream.ts"

const started: Array<string> = []
const cancelled: Array<string> = []

/** Blocks until cancelled; the interruption is what the upstream handler observes. */
const blockAs = (tag: string) =>
  Effect.sync(() => void started.push(tag)).pipe(
    Effect.andThen(Effect.never),
    Effect.onInterrupt(() => Effect.sync(() => void cancelled.push(tag)))
  )

const block = Tool.make("block", {
  parameters: Schema.Struct({ tag: Schema.String }),
  handler: ({ tag }) => blockAs(tag)
})

/** Asks a name, then blocks until cancelled. */
const askBlock = Tool.make("ask_block", {
  parameters: Schema.Struct({ tag: Schema.String }),
  handler: ({ tag }) =>
    Effect.gen(function*() {
      yield* Elicitation.form({ key: "who", message: "Who waits?", schema: Schema.Struct({ name: Schema.String }) })
      return yield* blockAs(tag)
    })
})

let upstream: Awaited<ReturnType<typeof serve>>
let v1: Awaited<ReturnType<typeof listenV1>>
let gateway: Awaited<ReturnType<typeof serve>>

beforeAll(async () => {
  upstream = await serve(upstreamServer("blocking", [block, askBlock]))
  v1 = await listenV1()
  gateway = await serve(
    Layer.mergeAll(
      McpServer.mount(
        "m26",
        Upstream.layer(Upstream.http({ name: "m26", url: upstream.url }), { protocol: "2026-07-28" })
      ),
      McpServer.mount(
        "m25",
        Upstream.layer(Upstream.http({ name: "m25", url: upstream.url }), { protocol: "2025-11-25" })
      ),
      McpServer.mount("v1", Upstream.layer(Upstream.http({ name: "v1", url: v1.url }))),
      // a held call no retry reaches within a second is ended (and cancelled upstream); the others wait 10 minutes
      McpServer.mount("v1a", Upstream.layer(Upstream.http({ name: "v1a", url: v1.url }), { holdTimeout: "1 second" }))
    ).pipe(
      Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
      Layer.orDie
    )
  )
}, 30_000)
afterAll(async () => {
  await gateway?.close()
  await upstream?.close()
  await v1?.close()
})

/**
 * A client of the gateway over HTTP speaking `protocol`, answering forms;
 * `streaming`: asking for log messages (so each reply may become a stream).
 */
const client = (protocol: "2026-07-28" | "2025-11-25", streaming = false) =>
  Effect.map(
    Layer.build(
      McpClient.layer({
        protocol,
        capabilities: { elicitation: { form: {} } },
        ...(streaming ? { logLevel: "info" as const } : {})
      }).pipe(
        Layer.provide(ClientHttp.layerNode({ url: gateway.url }))
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

/** Waits (at most 10 s) until `done()`. */
const eventually = (done: () => boolean) =>
  Effect.gen(function*() {
    for (let n = 0; n < 200 && !done(); n++) yield* Effect.sleep("50 millis")
    expect(done()).toBe(true)
  })

/** Calls `name` through the gateway, waits until the upstream works on it, then cancels the call. */
const callAndCancel = (
  mcp: McpClient.McpClient["Service"],
  params: Parameters<McpClient.McpClient["Service"]["callTool"]>[0],
  working: () => boolean
) =>
  Effect.gen(function*() {
    const call = yield* Effect.forkChild(mcp.callTool(params))
    yield* eventually(working)
    yield* Fiber.interrupt(call)
  })

const cells = [
  ["2026-07-28", "2026-07-28", "m26"],
  ["2025-11-25", "2025-11-25", "m25"],
  ["2025-11-25", "2026-07-28", "m26"],
  ["2026-07-28", "2025-11-25", "m25"]
] as const

describe("a downstream cancellation reaches the upstream", () => {
  for (const [downstream, upstreamEra, mount] of cells) {
    for (const streaming of [false, true]) {
      it.live(
        `${downstream} client${
          streaming ? " (with a log level)" : ""
        }, ${upstreamEra} upstream: the upstream handler is interrupted`,
        () =>
          Effect.gen(function*() {
            const tag = `${downstream}->${upstreamEra}${streaming ? " streaming" : ""}`
            const mcp = yield* client(downstream, streaming)
            yield* callAndCancel(mcp, { name: `${mount}_block`, arguments: { tag } }, () => started.includes(tag))
            yield* eventually(() => cancelled.includes(tag))
          }).pipe(Effect.scoped),
        30_000
      )
    }
  }

  for (const streaming of [false, true]) {
    it.live(
      `2026-07-28 client${
        streaming ? " (with a log level)" : ""
      }, 2025-11-25 upstream: a held call cancelled in a later round is cancelled upstream`,
      () =>
        Effect.gen(function*() {
          const tag = `held-round-2${streaming ? " streaming" : ""}`
          const mcp = yield* client("2026-07-28", streaming)
          const params = { name: "m25_ask_block", arguments: { tag } }
          const first: any = yield* Effect.flip(mcp.callTool(params, { maxRounds: 1 }))
          expect(Object.keys(first.lastResult.inputRequests)).toEqual(["m25/elicitation-1"])
          yield* callAndCancel(mcp, {
            ...params,
            requestState: first.lastResult.requestState,
            inputResponses: { "m25/elicitation-1": { action: "accept", content: { name: "Kim" } } }
          }, () => started.includes(tag))
          yield* eventually(() => cancelled.includes(tag))
        }).pipe(Effect.scoped),
      30_000
    )
  }

  for (const downstream of ["2025-11-25", "2026-07-28"] as const) {
    it.live(
      `official v1 upstream: a ${downstream} client's cancellation aborts the upstream request`,
      () =>
        Effect.gen(function*() {
          const count = (list: ReadonlyArray<string>) => list.filter((tool) => tool === "wait").length
          const mcp = yield* client(downstream)
          const before = { started: count(v1Started), aborted: count(aborted) }
          yield* callAndCancel(mcp, { name: "v1_wait" }, () => count(v1Started) > before.started)
          yield* eventually(() => count(aborted) > before.aborted)
        }).pipe(Effect.scoped),
      30_000
    )
  }

  it.live(
    "official v1 upstream: a held call abandoned by its 2026-07-28 client is cancelled upstream",
    () =>
      Effect.gen(function*() {
        const mcp = yield* client("2026-07-28")
        const first: any = yield* Effect.flip(mcp.callTool({ name: "v1a_ask_wait" }, { maxRounds: 1 }))
        expect(Object.keys(first.lastResult.inputRequests)).toEqual(["v1a/elicitation-1"])
        // no retry: past the store's timeout the held call ends, and its upstream request is cancelled
        yield* eventually(() => aborted.includes("ask_wait"))
        expect(
          v1.received.some((message: any) => message?.method === "notifications/cancelled")
        ).toBe(true)
      }).pipe(Effect.scoped),
    30_000
  )
})
