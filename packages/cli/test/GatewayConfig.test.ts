/**
 * `mrtr gateway --config` settings beyond the servers, as a user runs them
 * (the built binary in child processes): the key ring of
 * `gateway.requestState` (a state sealed by one process is accepted by
 * another of the same file), the downstream's `gateway.authorization` (a real
 * authorization server, oidc-provider), and an upstream's `oauth` (the
 * gateway's own client credentials; the caller's token never goes upstream).
 * `gateway.redis` is the fleet test's (GatewayFleet.test.ts).
 */
import { HttpTransport as ClientHttp, McpClient } from "@mrtr/client"
import { Authorization, Tool } from "@mrtr/server"
import { type Proc, spawnReady } from "@mrtr/test-support/infra"
import { type AuthorizationServer, issueToken, startAuthorizationServer } from "@mrtr/test-support/oauth"
import { Context, Effect, Layer, Option } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serve, trip, upstreamServer } from "../../gateway/test/fixtures.ts"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const BIN = fileURLToPath(new URL("../bin/mrtr.js", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "mrtr-gateway-config-"))
const GATEWAY_CLIENT = { clientId: "the-gateway", clientSecret: "the-gateway-secret" }

const whoami = Tool.make("whoami", {
  handler: () =>
    Effect.map(Authorization.authInfo, (auth) => {
      const info = Option.getOrThrow(auth)
      return `subject=${info.subject} client=${info.clientId ?? "?"}`
    })
})

let as: AuthorizationServer
let plain: Awaited<ReturnType<typeof serve>>
let secured: Awaited<ReturnType<typeof serve>>
const procs: Array<Proc> = []

beforeAll(async () => {
  as = await startAuthorizationServer({
    scopes: ["mcp:basic"],
    clientCredentials: true,
    clients: [{
      client_id: GATEWAY_CLIENT.clientId,
      client_secret: GATEWAY_CLIENT.clientSecret,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: "client_secret_basic",
      scope: "mcp:basic"
    }]
  })
  plain = await serve(upstreamServer("hotels", [trip]))
  secured = await serve(
    upstreamServer("secured", [whoami]).pipe(Layer.provideMerge(Authorization.layer({
      verifier: Authorization.jwt({ issuer: as.issuer, jwksUri: as.jwksUri }),
      requiredScopes: ["mcp:basic"]
    })))
  )
}, 60_000)

afterAll(async () => {
  await Promise.all(procs.map((proc) => proc.stop()))
  await plain?.close()
  await secured?.close()
  await as?.close()
}, 30_000)

const startGateway = async (name: string, config: unknown): Promise<string> => {
  const file = join(dir, name)
  writeFileSync(file, JSON.stringify(config))
  const proc = await spawnReady(process.execPath, [BIN, "gateway", "--config", file, "--port", "0"], {
    cwd: ROOT,
    ready: /^listening \S+/m,
    label: "mrtr gateway",
    timeoutMs: 60_000,
    env: { MRTR_REQUEST_STATE_KEYS: undefined }
  })
  procs.push(proc)
  return /^listening (\S+)/m.exec(proc.output())![1]!
}

const withClient = <A, E>(
  url: string,
  use: (client: McpClient.McpClient["Service"]) => Effect.Effect<A, E>,
  headers: Record<string, string> = {}
) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(
      McpClient.layer({ protocol: "2026-07-28", capabilities: { elicitation: { form: {} } } }).pipe(
        Layer.provide(ClientHttp.layerNode({ url, headers }))
      )
    )
    return yield* use(Context.get(context, McpClient.McpClient))
  })))

const KEYS = `k1:${Buffer.alloc(32, 5).toString("base64url")}`

describe("mrtr gateway --config: gateway settings", () => {
  it(
    "gateway.requestState.keys: a state sealed by one process is accepted by another of the same file; other keys refuse it",
    async () => {
      const config = {
        mcpServers: { hotels: { url: plain.url } },
        gateway: { requestState: { keys: KEYS, ttl: "2 minutes" } }
      }
      const a = await startGateway("keys-a.json", config)
      const b = await startGateway("keys-b.json", config)
      const other = await startGateway("keys-other.json", {
        ...config,
        gateway: { requestState: { keys: `k2:${Buffer.alloc(32, 6).toString("base64url")}` } }
      })
      const first: any = await withClient(
        a,
        (client) => Effect.flip(client.callTool({ name: "trip", arguments: { to: "Faro" } }, { maxRounds: 1 }))
      )
      const retry = {
        name: "trip",
        arguments: { to: "Faro" },
        requestState: first.lastResult.requestState as string,
        inputResponses: { "hotels/who": { action: "accept" as const, content: { name: "Ana" } } }
      }
      const done: any = await withClient(b, (client) => client.callTool(retry))
      expect(done.content[0].text).toBe("Ana goes to Faro")
      const refused: any = await withClient(other, (client) => Effect.flip(client.callTool(retry, { maxRounds: 1 })))
      expect(refused.code ?? refused.error?.code).toBe(-32602)
    },
    120_000
  )

  it(
    "gateway.authorization guards the endpoint; an upstream's oauth gets the gateway's own token, never the caller's",
    async () => {
      const url = await startGateway("auth.json", {
        mcpServers: { secured: { url: secured.url, oauth: { ...GATEWAY_CLIENT, issuer: as.issuer } } },
        gateway: { authorization: { issuer: as.issuer, jwksUri: as.jwksUri, requiredScopes: ["mcp:basic"] } }
      })
      const anonymous = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })
      })
      expect(anonymous.status).toBe(401)
      expect(anonymous.headers.get("www-authenticate")).toContain("resource_metadata=")
      const token = await issueToken(as, { user: "alice", resource: url, scope: "mcp:basic" })
      const text = await withClient(
        url,
        (client) => Effect.map(client.callTool({ name: "whoami" }), (r: any) => r.content[0].text as string),
        { authorization: `Bearer ${token}` }
      )
      // the upstream saw the gateway's client credentials token, not alice's
      expect(text).toContain(`client=${GATEWAY_CLIENT.clientId}`)
      expect(text).not.toContain("alice")
    },
    120_000
  )

  it("bad gateway settings are usage errors (exit 2) saying where", async () => {
    const bad = async (gateway: unknown) => {
      const file = join(dir, `bad-${Math.random()}.json`)
      writeFileSync(file, JSON.stringify({ mcpServers: {}, gateway }))
      const proc = await spawnReady(process.execPath, [BIN, "gateway", "--config", file, "--port", "0"], { cwd: ROOT })
      const code = await proc.exited
      return { code, output: proc.output() }
    }
    const redis = await bad({ redis: { url: "http://127.0.0.1:6379" } })
    expect(redis.code).toBe(2)
    expect(redis.output).toContain("gateway.redis.url")
    const auth = await bad({ authorization: { issuer: as.issuer } })
    expect(auth.code).toBe(2)
    expect(auth.output).toContain("exactly one of jwksUri and introspection")
    const keys = await bad({ requestState: { keys: "k1:tooshort" } })
    expect(keys.code).toBe(2)
    expect(keys.output).toContain("MRTR_REQUEST_STATE_KEYS")
    // an upstream's oauth on a stdio server would be dropped: refused, naming the server
    const file = join(dir, "stdio-oauth.json")
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          files: { command: "npx", oauth: { issuer: as.issuer, clientId: "gw", clientSecret: "s" } }
        }
      })
    )
    const proc = await spawnReady(process.execPath, [BIN, "gateway", "--config", file, "--port", "0"], { cwd: ROOT })
    expect(await proc.exited).toBe(2)
    expect(proc.output()).toContain("mcpServers.files: \"oauth\" is for a \"url\" server only")
  }, 120_000)
})
