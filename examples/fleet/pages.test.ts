/**
 * URL-mode elicitation on the fleet (./fleet.ts: three demo instances sharing
 * the Redis `InteractionStore`, each sending pages on the balancer's origin
 * through `MRTR_PUBLIC_BASE_URL`, haproxy round-robin without affinity): the
 * page of `link_rail_account` asked on one instance is opened and submitted
 * through the balancer (the page served by another instance than the one that
 * asked), and the client's retry completes with the value, which never passes
 * through the client.
 */
import { validateWire } from "@mrtr/test-support/wire"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Fleet, startFleet } from "./fleet.ts"

let fleet: Fleet
beforeAll(async () => {
  fleet = await startFleet()
}, 120_000)
afterAll(() => fleet?.stop())

let ids = 1
const linkRailAccount = async (extra: Record<string, unknown> = {}) => {
  const response = await fetch(fleet.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "link_rail_account"
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ids++,
      method: "tools/call",
      params: {
        name: "link_rail_account",
        arguments: { operator: "SBB" },
        ...extra,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {}, url: {} } }
        }
      }
    })
  })
  return { json: await response.json() as any, instance: response.headers.get("x-mrtr-instance") }
}

describe("URL-mode elicitation on the fleet", () => {
  it(
    "the page asked on one instance is served and submitted on others through the balancer; the retry completes",
    async () => {
      const first = await linkRailAccount()
      validateWire("InputRequiredResult", first.json.result)
      const url = new URL(first.json.result.inputRequests.rail_api_key.params.url)
      expect(url.origin).toBe(new URL(fleet.url).origin)

      const page = await fetch(url)
      expect(page.status).toBe(200)
      const html = await page.text()
      const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1]
      const cookie = page.headers.get("set-cookie")?.split(";")[0]
      expect(csrf).toBeDefined()
      const submitted = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie!, origin: url.origin },
        body: new URLSearchParams({ csrf: csrf!, accountId: "ada-77", apiKey: "rk_live_0123456789" }).toString()
      })
      expect(submitted.status).toBe(200)

      // Retries through the balancer (each on the next instance): the first completes, wherever it lands.
      const retry = {
        inputResponses: { rail_api_key: { action: "accept" } },
        requestState: first.json.result.requestState
      }
      const final = await linkRailAccount(retry)
      validateWire("CallToolResult", final.json.result)
      const served = [
        first.instance,
        page.headers.get("x-mrtr-instance"),
        submitted.headers.get("x-mrtr-instance"),
        final.instance
      ]
      expect(new Set(served).size, served.join(" ")).toBeGreaterThan(1)
      expect(page.headers.get("x-mrtr-instance")).not.toBe(first.instance)
      expect(final.json.result.content[0].text).toContain("Linked SBB account ada-77 (key rk_…89)")
      expect(JSON.stringify(final.json)).not.toContain("rk_live_0123456789")
    },
    60_000
  )
})
