/**
 * 2025-11-25 sessions are bounded by shares: one client address (or
 * principal) at its cap ends its own oldest session, also one holding an open
 * GET stream, and never ends or locks out the sessions of another; with the
 * store full, the largest share gives one up. Over real HTTP on loopback,
 * the addresses forwarded by a trusted proxy.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { LEGACY_HEADERS, post, rpc, withServer } from "./legacy-helpers.ts"

const from = (address: string) => ({ "x-forwarded-for": address })

/** `initialize` + `notifications/initialized` from `address`: the session's headers, or the HTTP status of a refusal. */
const initializeFrom = async (url: string, address: string): Promise<Record<string, string> | number> => {
  const response = await post(
    url,
    rpc("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" }
    }),
    from(address)
  )
  await response.text()
  const session = response.headers.get("mcp-session-id")
  if (response.status !== 200 || session === null) return response.status
  const headers = { "mcp-session-id": session, ...from(address) }
  const initialized = await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)
  expect(initialized.status).toBe(202)
  return headers
}

/** Opens the session's GET stream and keeps it open (until `abort`). */
const openGet = async (url: string, headers: Record<string, string>, abort: AbortController) => {
  const response = await fetch(url, {
    method: "GET",
    headers: {
      accept: "text/event-stream",
      "mcp-protocol-version": LEGACY_HEADERS["mcp-protocol-version"],
      ...headers
    },
    signal: abort.signal
  })
  expect(response.status).toBe(200)
  return response
}

const ping = async (url: string, headers: Record<string, string>) => {
  const response = await post(url, rpc("ping"), headers)
  await response.text()
  return response.status
}

describe("2025-11-25 session shares", () => {
  it(
    "one address holding GET streams ends only its own sessions; another's idle session and newcomers are served",
    async () => {
      const abort = new AbortController()
      try {
        await withServer({ legacy: { maxSessions: 6, maxSessionsPerPrincipal: 3 } }, async (url, server) => {
          const other = await initializeFrom(url, "203.0.113.2")
          if (typeof other === "number") throw new Error(`initialize: HTTP ${other}`)
          const flood: Array<Record<string, string>> = []
          for (let i = 0; i < 10; i++) {
            const headers = await initializeFrom(url, "203.0.113.1")
            if (typeof headers === "number") throw new Error(`flood initialize ${i}: HTTP ${headers}`)
            await openGet(url, headers, abort)
            flood.push(headers)
          }
          // The other address's idle session survives the flood.
          expect(await ping(url, other)).toBe(200)
          // The flooding address keeps its newest three (its share), its older ones are ended.
          const alive = []
          for (const headers of flood) alive.push(await ping(url, headers))
          expect(alive).toEqual([404, 404, 404, 404, 404, 404, 404, 200, 200, 200])
          // Newcomers from other addresses are served.
          for (const address of ["198.51.100.1", "198.51.100.2"]) {
            expect(typeof (await initializeFrom(url, address))).toBe("object")
          }
          expect(await Effect.runPromise(server.legacySessions)).toBe(6)
          abort.abort()
        }, { trustedProxies: ["127.0.0.1"] })
      } finally {
        abort.abort()
      }
    },
    30_000
  )

  it(
    "sessions of a principal count in its share, whatever the address: twenty of one user leave another's idle session",
    async () => {
      await withServer({ legacy: { maxSessions: 6, maxSessionsPerPrincipal: 3 } }, async (url) => {
        const as = (user: string) => async () => {
          const response = await post(
            url,
            rpc("initialize", {
              protocolVersion: "2025-11-25",
              capabilities: {},
              clientInfo: { name: "raw", version: "1" }
            }),
            { "x-user": user }
          )
          await response.text()
          expect(response.status).toBe(200)
          return { "mcp-session-id": response.headers.get("mcp-session-id")!, "x-user": user }
        }
        const alice = await as("alice")()
        const bob: Array<Record<string, string>> = []
        for (let i = 0; i < 20; i++) bob.push(await as("bob")())
        expect(await ping(url, alice)).toBe(200)
        const alive = []
        for (const headers of bob) alive.push(await ping(url, headers))
        expect(alive.filter((status) => status === 200)).toHaveLength(3)
        expect(alive.slice(17)).toEqual([200, 200, 200])
      }, { principal: (request) => Effect.succeed(request.headers["x-user"]) })
    },
    30_000
  )

  it("with the store full, the largest share gives up a session, never a smaller share", async () => {
    await withServer({ legacy: { maxSessions: 4, maxSessionsPerPrincipal: 3 } }, async (url) => {
      const small = await initializeFrom(url, "203.0.113.2")
      if (typeof small === "number") throw new Error(`initialize: HTTP ${small}`)
      const large: Array<Record<string, string>> = []
      for (let i = 0; i < 3; i++) {
        const headers = await initializeFrom(url, "203.0.113.1")
        if (typeof headers === "number") throw new Error(`initialize: HTTP ${headers}`)
        large.push(headers)
      }
      // Full (4): a newcomer takes the place of the largest share's oldest session.
      expect(typeof (await initializeFrom(url, "198.51.100.1"))).toBe("object")
      expect(await ping(url, small)).toBe(200)
      const alive = []
      for (const headers of large) alive.push(await ping(url, headers))
      expect(alive).toEqual([404, 200, 200])
    }, { trustedProxies: ["127.0.0.1"] })
  }, 30_000)
  it("IPv6 addresses count by their /48, and an IPv4-mapped address as its IPv4 address", async () => {
    await withServer({ legacy: { maxSessions: 100, maxSessionsPerPrincipal: 2 } }, async (url) => {
      const neighbour = await initializeFrom(url, "2001:db8:2::1")
      if (typeof neighbour === "number") throw new Error(`initialize: HTTP ${neighbour}`)
      // Three /64s of one /48: one site taking a fresh address, in a fresh /64, for each session.
      const rotating: Array<Record<string, string>> = []
      for (const address of ["2001:db8:1:2::1", "2001:db8:1:aaaa::2", "2001:DB8:1:ffff:ffff:ffff:ffff:ffff"]) {
        const headers = await initializeFrom(url, address)
        if (typeof headers === "number") throw new Error(`initialize from ${address}: HTTP ${headers}`)
        rotating.push(headers)
      }
      const alive = []
      for (const headers of rotating) alive.push(await ping(url, headers))
      expect(alive).toEqual([404, 200, 200])
      // The next /48 is another client.
      expect(await ping(url, neighbour)).toBe(200)
      const mapped: Array<Record<string, string>> = []
      for (const address of ["203.0.113.7", "::ffff:203.0.113.7", "::ffff:cb00:7107"]) {
        const headers = await initializeFrom(url, address)
        if (typeof headers === "number") throw new Error(`initialize from ${address}: HTTP ${headers}`)
        mapped.push(headers)
      }
      const mappedAlive = []
      for (const headers of mapped) mappedAlive.push(await ping(url, headers))
      expect(mappedAlive).toEqual([404, 200, 200])
    }, { trustedProxies: ["127.0.0.1"] })
  }, 30_000)
})
