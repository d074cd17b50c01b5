/**
 * URL-mode elicitation on the fleet (./fleet.ts: three demo instances sharing
 * the Redis `InteractionStore`, each sending pages on the balancer's origin
 * through `MRTR_PUBLIC_BASE_URL`, haproxy round-robin without affinity): the
 * page of `link_rail_account` asked on one instance is opened and submitted
 * through the balancer (the page served by another instance than the one that
 * asked), and the client's retry completes with the value, which never passes
 * through the client.
 */
import { mcpHeaders } from "@mrtr/test-support/http"
import { validateWire } from "@mrtr/test-support/wire"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { type Fleet, request, startFleet } from "./fleet.ts"

let fleet: Fleet
beforeAll(async () => {
  fleet = await startFleet()
}, 120_000)
afterAll(() => fleet?.stop())

let ids = 1
const linkRailAccount = async (extra: Record<string, unknown> = {}) => {
  const message = request(
    ids++,
    "tools/call",
    { name: "link_rail_account", arguments: { operator: "SBB" }, ...extra },
    {
      elicitation: { form: {}, url: {} }
    }
  )
  const response = await fetch(fleet.url, {
    method: "POST",
    headers: mcpHeaders(message),
    body: JSON.stringify(message)
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
      assert.strictEqual(url.origin, new URL(fleet.url).origin)

      const page = await fetch(url)
      assert.strictEqual(page.status, 200)
      const html = await page.text()
      const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1]
      const cookie = page.headers.get("set-cookie")?.split(";")[0]
      assert.isDefined(csrf)
      const submitted = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie!, origin: url.origin },
        body: new URLSearchParams({ csrf: csrf!, accountId: "ada-77", apiKey: "rk_live_0123456789" }).toString()
      })
      assert.strictEqual(submitted.status, 200)

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
      assert.isAbove(new Set(served).size, 1, served.join(" "))
      assert.notStrictEqual(page.headers.get("x-mrtr-instance"), first.instance)
      assert.include(final.json.result.content[0].text, "Linked SBB account ada-77 (key rk_…89)")
      assert.notInclude(JSON.stringify(final.json), "rk_live_0123456789")
    },
    60_000
  )
})
