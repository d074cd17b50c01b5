/**
 * Concurrent callers of one 2025-11-25 stdio upstream whose tool asks: over
 * stdio the server's `elicitation/create` names no request, so a session
 * serves one asking call at a time. Each caller gets its own question and its
 * own answer reaches its own call, whether the caller speaks 2026-07-28 (the
 * call held between rounds) or 2025-11-25 (asked in flight, the upstream
 * called again once answered); a caller past its share of sessions while two
 * calls are held is refused with the busy error, not given another's session.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ElicitationHandler, HttpTransport, McpClient } from "@mrtr/client"
import { McpServer } from "@mrtr/server"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { Context, Deferred, Effect, Exit, Fiber, Layer } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Upstream } from "../src/index.ts"
import { gatewayKeys, serve } from "./fixtures.ts"

const script = fileURLToPath(new URL("./asking-stdio.ts", import.meta.url))
const log = join(mkdtempSync(join(tmpdir(), "mrtr-shared-session-")), "spawned.log")
const spawned = () => readFileSync(log, "utf8").split("\n").filter((line) => line !== "").length

let gateway: Awaited<ReturnType<typeof serve>>
beforeAll(async () => {
  writeFileSync(log, "")
  gateway = await serve(
    McpServer.mount(
      "",
      Upstream.layer(
        Upstream.stdio({
          name: "asking",
          command: process.execPath,
          args: [...sourceNodeArgs, script],
          env: { SPAWN_LOG: log }
        }),
        { startTimeout: "60 seconds", protocol: "2025-11-25" }
      )
    ).pipe(
      Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
      Layer.orDie
    )
  )
}, 120_000)
afterAll(async () => {
  await gateway?.close()
})

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

/**
 * A caller `who`: its handler records the question it got, tells `asked`, and
 * answers `Name-of-<who>` once `go` is done (so every caller's call is in
 * flight, held or asking, before any is answered).
 */
const caller = (
  protocol: "2026-07-28" | "2025-11-25",
  who: string,
  asked: Deferred.Deferred<void>,
  go: Deferred.Deferred<void>,
  questions: Array<string>
) =>
  Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(
      McpClient.layer({ protocol, capabilities: { elicitation: { form: {} } } }).pipe(
        Layer.provide(HttpTransport.layerNode({ url: gateway.url })),
        Layer.provide(ElicitationHandler.layer({
          form: (params) =>
            Effect.gen(function*() {
              questions.push(`${who}: ${params.message}`)
              yield* Deferred.succeed(asked, undefined)
              yield* Deferred.await(go)
              return ElicitationHandler.accept({ name: `Name-of-${who}` })
            })
        }))
      )
    )
    const client = Context.get(context, McpClient.McpClient)
    return textOf(yield* client.callTool({ name: "ask", arguments: { who } }))
  }))

const twoCallers = (protocol: "2026-07-28" | "2025-11-25") =>
  Effect.gen(function*() {
    const go = yield* Deferred.make<void>()
    const questions: Array<string> = []
    const askedA = yield* Deferred.make<void>()
    const askedB = yield* Deferred.make<void>()
    const a = yield* caller(protocol, "ann", askedA, go, questions).pipe(Effect.forkChild)
    const b = yield* caller(protocol, "bob", askedB, go, questions).pipe(Effect.forkChild)
    // both calls asked and wait for their answer
    yield* Deferred.await(askedA).pipe(Effect.timeout("60 seconds"))
    yield* Deferred.await(askedB).pipe(Effect.timeout("60 seconds"))
    // a held call keeps its session: a third caller of the same share (all on 127.0.0.1) finds both taken
    const third = protocol === "2026-07-28"
      ? yield* caller(protocol, "cy", yield* Deferred.make<void>(), go, questions).pipe(Effect.exit)
      : undefined
    yield* Deferred.succeed(go, undefined)
    return { a: yield* Fiber.join(a), b: yield* Fiber.join(b), third, questions }
  })

describe("a 2025-11-25 stdio upstream shared by concurrent callers whose calls ask", () => {
  it.live(
    "2026-07-28 callers (held calls): each gets its own question, and its answer reaches its own call",
    () =>
      Effect.gen(function*() {
        const { a, b, questions, third } = yield* twoCallers("2026-07-28")
        expect(a).toBe("ann is Name-of-ann")
        expect(b).toBe("bob is Name-of-bob")
        expect(questions.sort()).toEqual(["ann: Name for ann?", "bob: Name for bob?"])
        expect(third !== undefined && Exit.isFailure(third)).toBe(true)
        expect(JSON.stringify(third)).toContain("Upstream asking has no free client")
        expect(JSON.stringify(third)).toContain("-32603")
        // the mirror's session and one per asking call
        expect(spawned()).toBe(3)
      }),
    120_000
  )

  it.live(
    "2025-11-25 callers (asked in flight): each gets its own question, and its answer reaches its own call",
    () =>
      Effect.gen(function*() {
        // each call is made again once answered (the engine's replay), the two at once: each on a session of its own
        const { a, b, questions } = yield* twoCallers("2025-11-25")
        expect(a).toBe("ann is Name-of-ann")
        expect(b).toBe("bob is Name-of-bob")
        expect(questions.sort()).toEqual(["ann: Name for ann?", "bob: Name for bob?"])
        // the mirror's, and two per caller: a round that suspended its upstream call abandoned that session (closed,
        // never reused), so each replay ran on a new one
        expect(spawned()).toBe(5)
      }),
    120_000
  )
})
