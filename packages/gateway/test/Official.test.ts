/**
 * The gateway in front of servers no one here wrote: the official SDK v1
 * server (`@modelcontextprotocol/sdk` 1.x, 2025-11-25, asking in flight) over
 * Streamable HTTP and stdio, and the official SDK v2 server
 * (`@modelcontextprotocol/server` 2.x, 2026-07-28, asking with
 * `input_required`), with `@mrtr/client` downstream on both eras.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { McpClient } from "@mrtr/client"
import { McpServer } from "@mrtr/server"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { Harness, ScriptedUser } from "@mrtr/testing"
import { Effect, Layer } from "effect"
import { fileURLToPath } from "node:url"
import { listen } from "../../client/test/v1-server.ts"
import { Upstream } from "../src/index.ts"
import { gatewayKeys } from "./fixtures.ts"
import { calls, listenV2 } from "./official-v2-server.ts"

let v1: Awaited<ReturnType<typeof listen>>
let v2: Awaited<ReturnType<typeof listenV2>>

beforeAll(async () => {
  v1 = await listen()
  v2 = await listenV2()
})
afterAll(async () => {
  await v1?.close()
  await v2?.close()
})

const v1Script = fileURLToPath(new URL("../../client/test/v1-server.ts", import.meta.url))

const gateway = () =>
  Layer.mergeAll(
    McpServer.mount("v1", Upstream.layer(Upstream.http({ name: "v1", url: v1.url }))),
    McpServer.mount(
      "v1s",
      Upstream.layer(
        Upstream.stdio({ name: "v1s", command: process.execPath, args: [...sourceNodeArgs, v1Script, "--stdio"] })
      )
    ),
    McpServer.mount("v2", Upstream.layer(Upstream.http({ name: "v2", url: v2.url })))
  ).pipe(
    Layer.provideMerge(McpServer.layer({ name: "gateway", version: "1.0.0", requestState: gatewayKeys })),
    Layer.orDie
  )

const user = ScriptedUser.layer({
  elicitation: {
    otherwise: (params: any) =>
      String(params.message).includes("name") || String(params.message).includes("Name")
        ? ScriptedUser.accept({ name: String(params.message).startsWith("Second") ? "Lee" : "Kim" })
        : ScriptedUser.accept({ answer: "yes" })
  },
  sampling: { otherwise: ScriptedUser.text("Paris") },
  roots: [{ uri: "file:///srv" }]
})

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

const scenario = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const names = (yield* client.listTools()).tools.map((t) => t.name)
  expect(names).toEqual(expect.arrayContaining(["v1_greet", "v1_everything", "v1s_two_names", "v2_greet", "v2_ask_n"]))
  return {
    v1Greet: textOf(yield* client.callTool({ name: "v1_greet" })),
    v1Everything: textOf(yield* client.callTool({ name: "v1_everything" })),
    v1Capital: textOf(yield* client.callTool({ name: "v1_capital" })),
    v1StdioTwoNames: textOf(yield* client.callTool({ name: "v1s_two_names" })),
    v2Greet: textOf(yield* client.callTool({ name: "v2_greet" })),
    v2AskN: textOf(yield* client.callTool({ name: "v2_ask_n", arguments: { n: 3 } }))
  }
})

const EXPECTED = {
  v1Greet: "Hello, Kim!",
  v1Everything: "Kim|Paris|1",
  v1Capital: "scripted-model said: Paris",
  v1StdioTwoNames: "Kim and Lee",
  v2Greet: "Hello, Kim!",
  v2AskN: "yes yes yes"
}

describe("Upstream in front of the official SDKs' servers", () => {
  it.effect(
    "a 2026-07-28 @mrtr/client through the gateway: every upstream's asks become input_required rounds",
    () =>
      Effect.gen(function*() {
        expect(yield* scenario).toEqual(EXPECTED)
      }).pipe(Effect.provide(Harness.layer({ server: gateway(), user }))),
    60_000
  )

  it.effect(
    "a 2025-11-25 @mrtr/client through the gateway: every upstream's asks arrive in flight",
    () =>
      Effect.gen(function*() {
        expect(yield* scenario).toEqual(EXPECTED)
      }).pipe(Effect.provide(Harness.layer({ server: gateway(), user, protocol: "2025-11-25" }))),
    60_000
  )

  it.effect(
    "a v2 upstream's state never reaches the client; a tampered gateway state never reaches the upstream",
    () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const first: any = yield* client.callTool({ name: "v2_greet" }, { maxRounds: 1 }).pipe(Effect.flip)
        const state = first.lastResult.requestState as string
        expect(Object.keys(first.lastResult.inputRequests)).toEqual(["v2/name"])
        const before = calls.count
        const tampered = state.slice(0, -4) + (state.endsWith("AAAA") ? "BBBB" : "AAAA")
        const refused: any = yield* client.callTool({
          name: "v2_greet",
          inputResponses: { "v2/name": { action: "accept", content: { name: "Eve" } } },
          requestState: tampered
        }, { maxRounds: 1 }).pipe(Effect.flip)
        expect(refused.code).toBe(-32602)
        expect(calls.count).toBe(before)
      }).pipe(Effect.provide(Harness.layer({ server: gateway(), user }))),
    60_000
  )
})
