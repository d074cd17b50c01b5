/**
 * Every story of `examples/`: its server on a free port of 127.0.0.1, driven over real HTTP by its own self-verifying
 * client (which fails on any unexpected result). One story also runs as a reader runs it, each file its own process.
 */
import { assert, describe, it } from "@effect/vitest"
import { HttpTransport } from "@mrtr/server"
import { freePort, spawnReady } from "@mrtr/test-support/infra"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { Effect, type Layer } from "effect"
import { fileURLToPath } from "node:url"
import * as AgentClient from "./agent/client.ts"
import * as Agent from "./agent/server.ts"
import * as AiToolsClient from "./ai-tools/client.ts"
import * as AiTools from "./ai-tools/server.ts"
import * as AskingClient from "./asking/client.ts"
import * as Asking from "./asking/server.ts"
import * as AuthorizationClient from "./authorization/client.ts"
import * as Authorization from "./authorization/server.ts"
import * as DualEraClient from "./dual-era/client.ts"
import * as DualEra from "./dual-era/server.ts"
import * as GetStartedClient from "./get-started/src/client.ts"
import * as GetStarted from "./get-started/src/server.ts"
import * as TasksClient from "./tasks/client.ts"
import * as Tasks from "./tasks/server.ts"
import * as UrlModeClient from "./url-mode/client.ts"
import * as UrlMode from "./url-mode/server.ts"

const stories: ReadonlyArray<
  readonly [
    string,
    (port: number) => Layer.Layer<HttpTransport.HttpEndpoint, unknown>,
    (url: string) => Effect.Effect<unknown, unknown>
  ]
> = [
  ["get-started", GetStarted.serve, GetStartedClient.verify],
  ["asking", Asking.serve, AskingClient.verify],
  ["url-mode", UrlMode.serve, UrlModeClient.verify],
  ["tasks", Tasks.serve, TasksClient.verify],
  ["dual-era", DualEra.serve, DualEraClient.verify],
  ["authorization", Authorization.serve, AuthorizationClient.verify],
  ["ai-tools", AiTools.serve, AiToolsClient.verify],
  // the real @effect/ai-openai provider against a local OpenAI-compatible stub
  ["agent", Agent.serve, AgentClient.verify]
]

describe("examples", () => {
  for (const [name, serve, verify] of stories) {
    it.live(`${name}: client.ts verifies server.ts`, () =>
      Effect.gen(function*() {
        const url = yield* HttpTransport.url
        yield* verify(url)
      }).pipe(Effect.provide(serve(0))))
  }

  it("get-started runs as two processes, as the README runs it", async () => {
    const port = await freePort()
    const file = (name: string) => fileURLToPath(new URL(`./get-started/src/${name}`, import.meta.url))
    const server = await spawnReady(process.execPath, [...sourceNodeArgs, file("server.ts"), String(port)], {
      ready: /listening http:\/\/127\.0\.0\.1:\d+\/mcp/,
      label: "get-started server",
      timeoutMs: 120_000 // tsx compiles the sources first: slow on a busy machine
    })
    try {
      const client = await spawnReady(process.execPath, [
        ...sourceNodeArgs,
        file("client.ts"),
        `http://127.0.0.1:${port}/mcp`
      ], {
        label: "get-started client",
        timeoutMs: 120_000
      })
      assert.strictEqual(await client.exited, 0, client.output())
      assert.include(client.output(), "Hello, Ada from London!")
    } finally {
      await server.stop()
    }
  }, 300_000)
})
