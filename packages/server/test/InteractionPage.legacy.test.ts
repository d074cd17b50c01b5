/**
 * `Elicitation.secure` on a 2025-11-25 session over real HTTP: the same ask
 * goes out as a server-to-client `elicitation/create` in URL mode with an
 * `elicitationId`; after the client's consent the call waits for the page;
 * submitting the page sends `notifications/elicitation/complete` with the
 * same id, and the call completes with the value. Messages are checked
 * against the official 2025-11-25 JSON Schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { LEGACY_SCHEMA_ID, validateWire } from "@mrtr/test-support/wire"
import { Effect } from "effect"
import { startServer } from "./interactionFixtures.ts"
import { CAPS, initialize, post, rpc, sseReader } from "./legacy-helpers.ts"

const legacy = (def: string, value: unknown) => validateWire(def, value, LEGACY_SCHEMA_ID)

/** Opens the page, then submits `values` with its CSRF token and cookie; returns the submit's status. */
const completePage = async (url: string, values: Record<string, string>) => {
  const page = await fetch(url)
  const html = await page.text()
  const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""
  const cookie = page.headers.get("set-cookie")?.split(";")[0] ?? ""
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ csrf: token, ...values }).toString()
  })
  return response.status
}

describe("Elicitation.secure on a 2025-11-25 session", () => {
  it.live(
    "elicitation/create in URL mode with an elicitationId; elicitation/complete when the page is submitted",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const url = yield* startServer()
        yield* Effect.promise(async () => {
          const { headers } = await initialize(url, CAPS)
          const response = await post(url, rpc("tools/call", { name: "connect", arguments: {} }), headers)
          assert.strictEqual(response.status, 200)
          const events = sseReader(response)
          const ask = await events.message()
          legacy("ElicitRequest", ask)
          assert.strictEqual(ask.params.mode, "url")
          assert.strictEqual(ask.params.message, "Paste your Acme API key")
          assert.match(ask.params.url, /\/mrtr\/interactions\/[A-Za-z0-9_-]{43}$/)
          assert.isString(ask.params.elicitationId)
          // consent: the call now waits for the page (nothing else arrives meanwhile)
          assert.strictEqual(
            (await post(url, { jsonrpc: "2.0", id: ask.id, result: { action: "accept" } }, headers)).status,
            202
          )
          const next = events.message(10_000)
          await new Promise((resolve) => setTimeout(resolve, 400))
          assert.strictEqual(await completePage(ask.params.url, { api_key: "sk-legacy-123", region: "eu" }), 200)
          const complete = await next
          legacy("ElicitationCompleteNotification", complete)
          assert.strictEqual(complete.params.elicitationId, ask.params.elicitationId)
          const done = await events.message()
          legacy("JSONRPCResultResponse", done)
          legacy("CallToolResult", done.result)
          assert.deepStrictEqual(done.result.content, [{
            type: "text",
            text: "connected to eu with a key of 13 characters"
          }])
        })
      })),
    { timeout: 30_000 }
  )
})
