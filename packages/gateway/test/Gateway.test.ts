import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Gateway } from "../src/index.ts"

const reason = (text: string) => Effect.map(Effect.flip(Gateway.parse(text)), (error) => error.reason)

describe("Gateway configuration", () => {
  it.effect("a Claude Desktop mcpServers file: one server unprefixed, several under their names, settings per server", () =>
    Effect.gen(function*() {
      const single = yield* Gateway.parse(
        JSON.stringify({ mcpServers: { files: { command: "npx", args: ["-y", "pkg"], env: { K: "V" } } } })
      )
      expect(Gateway.upstreams(single).map((u) => [u.namespace, u.upstream._tag])).toEqual([["", "Stdio"]])
      const several = yield* Gateway.parse(JSON.stringify({
        mcpServers: {
          files: { command: "npx", args: ["-y", "pkg"] },
          weather: {
            url: "https://weather.example/mcp",
            headers: { Authorization: "Bearer x" },
            namespace: "wx",
            include: ["forecast*"]
          },
          plain: {
            type: "http",
            url: "http://127.0.0.1:1/mcp",
            namespace: false,
            exclude: [{ annotations: { destructiveHint: true } }]
          },
          off: { command: "nope", disabled: true }
        },
        gateway: { separator: "__", callTimeout: "30 seconds" }
      }))
      const upstreams = Gateway.upstreams(several)
      expect(upstreams.map((u) => [u.upstream.name, u.namespace])).toEqual([["files", "files"], ["weather", "wx"], [
        "plain",
        ""
      ]])
      expect(upstreams[1]!.mount).toEqual({ separator: "__", include: ["forecast*"] })
      expect(upstreams[1]!.upstream).toMatchObject({ _tag: "Http", headers: { Authorization: "Bearer x" } })
    }))

  it.effect("bad files are refused with the place named", () =>
    Effect.gen(function*() {
      expect(yield* reason("{ nope")).toContain("not JSON")
      expect(yield* reason(JSON.stringify({}))).toContain("mcpServers")
      expect(yield* reason(JSON.stringify({ mcpServers: { x: { args: [] } } }))).toContain("x")
      expect(yield* reason(JSON.stringify({ mcpServers: { x: { url: "file:///etc/passwd" } } }))).toContain(
        "mcpServers.x.url"
      )
      expect(yield* reason(JSON.stringify({ mcpServers: { "a b": { url: "http://h/mcp" } } }))).toContain("\"a b\"")
      expect(yield* reason(JSON.stringify({ mcpServers: { x: { type: "stdio", url: "http://h/mcp" } } }))).toContain(
        "does not match"
      )
      expect(yield* reason(JSON.stringify({ mcpServers: {}, gateway: { callTimeout: "soon" } }))).toContain(
        "gateway.callTimeout"
      )
      expect(yield* reason(JSON.stringify({ mcpServers: { x: { command: "c", probeTimeout: "soon" } } }))).toContain(
        "mcpServers.x.probeTimeout"
      )
    }))

  it.effect("a stdio server's HTTP credentials are refused, naming the server, never dropped", () =>
    Effect.gen(function*() {
      const oauth = { issuer: "https://auth.example", clientId: "gw", clientSecret: "s" }
      const error = yield* Effect.flip(
        Gateway.parse(JSON.stringify({ mcpServers: { files: { command: "npx", args: ["pkg"], oauth } } }))
      )
      expect(error._tag).toBe("GatewayConfigError")
      expect(error.reason).toBe(
        "mcpServers.files: \"oauth\" is for a \"url\" server only; a \"command\" server gets its credentials from \"env\""
      )
      // even disabled: the file says something the gateway would not do
      expect(
        yield* reason(JSON.stringify({
          mcpServers: {
            a: { url: "http://h/mcp" },
            b: { command: "c", headers: { A: "1" }, url: "http://h/mcp", disabled: true }
          }
        }))
      ).toContain("mcpServers.b: \"url\", \"headers\" are for a \"url\" server only")
      // the same fields on a url server are its own
      const http = yield* Gateway.parse(
        JSON.stringify({ mcpServers: { crm: { url: "https://crm.example/mcp", oauth } } })
      )
      expect(Gateway.upstreams(http)[0]!.upstream).toMatchObject({ _tag: "Http", oauth })
    }))

  it.effect("a server's probeTimeout reaches its upstream", () =>
    Effect.gen(function*() {
      const config = yield* Gateway.parse(JSON.stringify({
        mcpServers: { slow: { command: "npx", probeTimeout: "2 minutes" }, quick: { command: "c" } }
      }))
      expect(Gateway.upstreams(config).map((u) => u.probeTimeout)).toEqual(["2 minutes", undefined])
    }))

  it.effect("gateway settings: requestState, redis, heldCalls, authorization, an upstream's oauth", () =>
    Effect.gen(function*() {
      const config = yield* Gateway.parse(JSON.stringify({
        mcpServers: {
          crm: {
            url: "https://crm.example/mcp",
            oauth: { issuer: "https://auth.crm.example", clientId: "gw", clientSecret: "s" }
          }
        },
        gateway: {
          requestState: { keys: "k1:x", ttl: "5 minutes", singleUse: true },
          redis: { url: "redis://127.0.0.1:6379" },
          heldCalls: { max: 10, maxPerPrincipal: 2, timeout: "1 minute" },
          authorization: {
            issuer: "https://auth.example",
            introspection: { endpoint: "https://auth.example/introspect", clientId: "gw", clientSecret: "s" }
          }
        }
      }))
      expect(Gateway.upstreams(config)[0]!.upstream).toMatchObject({
        _tag: "Http",
        oauth: { issuer: "https://auth.crm.example", clientId: "gw", clientSecret: "s" }
      })
      expect(Gateway.authorization(config)).toBeDefined()
      expect(Gateway.authorization(yield* Gateway.parse(JSON.stringify({ mcpServers: {} })))).toBeUndefined()
      const gateway = (settings: unknown) => JSON.stringify({ mcpServers: {}, gateway: settings })
      expect(yield* reason(gateway({ requestState: { ttl: "never" } }))).toContain("gateway.requestState.ttl")
      expect(yield* reason(gateway({ heldCalls: { timeout: "0 seconds" } }))).toContain("gateway.heldCalls.timeout")
      expect(yield* reason(gateway({ heldCalls: { max: 0 } }))).toContain("gateway.heldCalls.max")
      expect(yield* reason(gateway({ redis: { url: "http://127.0.0.1:6379" } }))).toContain("gateway.redis.url")
      expect(yield* reason(gateway({ authorization: { issuer: "https://a.example" } }))).toContain(
        "exactly one of jwksUri and introspection"
      )
      expect(yield* reason(gateway({ authorization: { issuer: "https://a.example", jwksUri: "ftp://x" } }))).toContain(
        "gateway.authorization.jwksUri"
      )
    }))
})
