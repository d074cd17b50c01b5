/**
 * The era of a stdio upstream without a `protocol`: its `server/discover`
 * probe waits `probeTimeout` from the process's start, so a 2026-07-28
 * server slow to start (longer than a client's default 10 seconds) is still
 * taken as 2026-07-28 (one process for every capability set), while a
 * `probeTimeout` shorter than its start-up takes it as 2025-11-25 (a session,
 * so a process, per capability set).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { HttpTransport, McpClient } from "@mrtr/client"
import { McpServer } from "@mrtr/server"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { Context, Effect, Layer } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Upstream } from "../src/index.ts"
import { gatewayKeys, serve } from "./fixtures.ts"

const script = fileURLToPath(new URL("./counting-stdio.ts", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "mrtr-probe-"))
const spawned = (log: string) => readFileSync(log, "utf8").split("\n").filter((line) => line !== "").length

/** A gateway over the example's 2026-07-28 stdio server, started `delayMs` late, its era probed. */
const gatewayOver = (log: string, delayMs: number, options: Upstream.Options) => {
  writeFileSync(log, "")
  return serve(
    McpServer.mount(
      "",
      Upstream.layer(
        Upstream.stdio({
          name: "slow",
          command: process.execPath,
          args: [...sourceNodeArgs, script],
          env: { SPAWN_LOG: log, START_DELAY_MS: String(delayMs) }
        }),
        { startTimeout: "90 seconds", ...options }
      )
    ).pipe(
      Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
      Layer.orDie
    )
  )
}

/** One call declaring form elicitation: `book_hotel` asks, and the client stops after that round. */
const callOnce = (url: string) =>
  Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(
      McpClient.layer({ protocol: "2026-07-28", capabilities: { elicitation: { form: {} } } }).pipe(
        Layer.provide(HttpTransport.layerNode({ url }))
      )
    )
    const client = Context.get(context, McpClient.McpClient)
    return yield* client.callTool({ name: "book_hotel", arguments: { city: "Oslo" } }, { maxRounds: 1 }).pipe(
      Effect.flip,
      Effect.map((error) => (error as { _tag: string })._tag)
    )
  }))

describe("the era probe of a stdio upstream slow to start", () => {
  const slowLog = join(dir, "slow.log")
  const shortLog = join(dir, "short.log")
  let slow: Awaited<ReturnType<typeof gatewayOver>>
  let short: Awaited<ReturnType<typeof gatewayOver>>
  beforeAll(async () => {
    ;[slow, short] = await Promise.all([
      // longer than the client's own default probe timeout (10 seconds), within the gateway's for stdio
      gatewayOver(slowLog, 11_000, {}),
      gatewayOver(shortLog, 3_000, { probeTimeout: "1 second" })
    ])
  }, 120_000)
  afterAll(async () => {
    await slow?.close()
    await short?.close()
  })

  it.live(
    "the default probe timeout outlasts a slow start: the server is taken as 2026-07-28",
    () =>
      Effect.gen(function*() {
        expect(yield* callOnce(slow.url)).toBe("MaxRoundsExceeded")
        // one process for every capability set: a 2026-07-28 upstream
        expect(spawned(slowLog)).toBe(1)
      }),
    60_000
  )

  it.live("a probe timeout shorter than the start takes the server as 2025-11-25", () =>
    Effect.gen(function*() {
      expect(yield* callOnce(short.url)).toBe("MaxRoundsExceeded")
      // the mirror's session and one declaring form elicitation: a 2025-11-25 upstream
      expect(spawned(shortLog)).toBe(2)
    }), 60_000)
})
