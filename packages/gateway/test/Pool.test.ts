/**
 * The gateway's upstream clients under one caller declaring many capability
 * sets: a client with another caller's call in flight is never closed, the
 * clients (stdio processes) one share can cause are bounded, and a
 * 2026-07-28 stdio upstream runs as one process whatever the sets.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ElicitationHandler, HttpTransport, McpClient } from "@mrtr/client"
import type { ClientCapabilities } from "@mrtr/protocol/Schema"
import { McpServer } from "@mrtr/server"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { Context, Deferred, Effect, Exit, Fiber, Layer } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Upstream } from "../src/index.ts"
import { gatewayKeys, serve } from "./fixtures.ts"

const script = fileURLToPath(new URL("./counting-stdio.ts", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "mrtr-pool-"))

/** Nine capability sets that differ in what a gateway can carry upstream. */
const SETS: ReadonlyArray<ClientCapabilities> = [
  { elicitation: { form: {} } },
  { elicitation: { url: {} } },
  { elicitation: { form: {}, url: {} } },
  { sampling: {} },
  { sampling: { tools: {} } },
  { roots: {} },
  { elicitation: { form: {} }, roots: {} },
  { sampling: { context: {} } },
  { elicitation: { url: {} }, sampling: {} }
] as any

const spawned = (log: string) => readFileSync(log, "utf8").split("\n").filter((line) => line !== "").length

/** A gateway over HTTP in front of one counting stdio upstream (`v1s` or `modern`). */
const gatewayOver = (name: "v1s" | "modern", log: string) => {
  writeFileSync(log, "")
  const upstream = Upstream.stdio({
    name,
    command: process.execPath,
    args: [...sourceNodeArgs, script, ...(name === "v1s" ? ["--v1", "--stdio"] : [])],
    env: { SPAWN_LOG: log }
  })
  return serve(
    // the era told, not probed: a stdio probe that times out on a loaded machine would take the upstream for 2025-11-25
    McpServer.mount(
      name,
      Upstream.layer(upstream, { startTimeout: "60 seconds", protocol: name === "v1s" ? "2025-11-25" : "2026-07-28" })
    ).pipe(
      Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
      Layer.orDie
    ),
    // callers tell their address (x-forwarded-for): the victim and the attacker are two shares
    { trustedProxies: ["127.0.0.1"] }
  )
}

/** A downstream client of the gateway at `url`, declaring `capabilities`. */
const clientOf = (url: string, options: McpClient.Options, from: string) =>
  McpClient.layer(options).pipe(Layer.provide(HttpTransport.layerNode({ url, headers: { "x-forwarded-for": from } })))

const withClient = <A, E>(
  url: string,
  options: McpClient.Options,
  f: (client: McpClient.McpClient["Service"]) => Effect.Effect<A, E>,
  extra: Layer.Layer<never> = Layer.empty,
  from = "203.0.113.66"
) =>
  Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(clientOf(url, options, from).pipe(Layer.provide(extra)))
    return yield* f(Context.get(context, McpClient.McpClient))
  }))

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

describe("the gateway's upstream clients under many capability sets", () => {
  let v1: Awaited<ReturnType<typeof gatewayOver>>
  let modern: Awaited<ReturnType<typeof gatewayOver>>
  const v1Log = join(dir, "v1.log")
  const modernLog = join(dir, "modern.log")
  beforeAll(async () => {
    v1 = await gatewayOver("v1s", v1Log)
    modern = await gatewayOver("modern", modernLog)
  }, 120_000)
  afterAll(async () => {
    await v1?.close()
    await modern?.close()
  })

  it.live(
    "a 2025-11-25 stdio upstream: a victim's call in flight survives nine capability sets, which spawn a bounded number of processes",
    () =>
      Effect.gen(function*() {
        const answer = yield* Deferred.make<void>()
        const asked = yield* Deferred.make<void>()
        // The victim: a 2025-11-25 client whose call waits on its user's answer, in flight upstream.
        const victim = yield* withClient(
          v1.url,
          // a set none of the attacker's is: its session is not shared
          { protocol: "2025-11-25", capabilities: { sampling: {} } },
          (client) => client.callTool({ name: "v1s_greet" }),
          ElicitationHandler.layer({
            form: () =>
              Deferred.succeed(asked, undefined).pipe(
                Effect.andThen(Deferred.await(answer)),
                Effect.as(ElicitationHandler.accept({ name: "Kim" }))
              )
          }),
          "198.51.100.1"
        ).pipe(Effect.forkChild)
        yield* Deferred.await(asked)
        // The attacker: one client per capability set, each needing a 2025-11-25 session of its own.
        const outcomes = yield* Effect.forEach(SETS, (capabilities) =>
          withClient(
            v1.url,
            { protocol: "2026-07-28", capabilities },
            (client) => client.callTool({ name: "v1s_cancellations" })
          ).pipe(Effect.exit))
        yield* Deferred.succeed(answer, undefined)
        const result = yield* Fiber.join(victim)
        expect(textOf(result)).toBe("Hello, Kim!")
        // the mirror's process, the victim's (one per round: a round that suspends the upstream call abandons its
        // session) and at most 2 for the attacker's share (all on one address)
        expect(spawned(v1Log)).toBeLessThanOrEqual(5)
        const refused = outcomes.filter(Exit.isFailure).map((exit) => JSON.stringify(exit.cause))
        expect(refused.length).toBeGreaterThanOrEqual(SETS.length - 2)
        for (const failure of refused) {
          expect(failure).toContain("-32603")
          expect(failure).toContain("Upstream v1s has no free client")
        }
      }),
    120_000
  )

  it.live("a 2026-07-28 stdio upstream: one process serves every capability set", () =>
    Effect.gen(function*() {
      for (const capabilities of SETS) {
        const outcome = yield* withClient(
          modern.url,
          { protocol: "2026-07-28", capabilities },
          (client) => client.callTool({ name: "modern_book_hotel", arguments: { city: "Oslo" } }, { maxRounds: 1 })
        ).pipe(Effect.match({ onFailure: (failed: any) => ({ failed }), onSuccess: (result) => ({ result }) }))
        // Each request declared its own set upstream: the upstream asked (one round, then the client's bound); the
        // gateway carried the question when the set has form elicitation and refused it with -32021 when not.
        const form = (capabilities.elicitation as Record<string, unknown> | undefined)?.form !== undefined
        expect("failed" in outcome ? outcome.failed._tag === "MaxRoundsExceeded" || outcome.failed.code : outcome)
          .toBe(form ? true : -32021)
      }
      expect(spawned(modernLog)).toBe(1)
    }), 120_000)
})
