/**
 * The interaction page of `Elicitation.secure` in a real headless browser:
 * Debian's Chromium (at /usr/bin/chromium or `$CHROMIUM_PATH`) driven by
 * `playwright-core` (which never downloads a browser). The conversation
 * starts over HTTP, the browser opens the page, fills and submits the form
 * (first with invalid input: the error is shown and the form kept), and the
 * retry completes with the value; a second submit of the same page is
 * refused; an expired page says so; a tampered id is refused. The browser
 * runs with JavaScript disabled: the page needs none. A screenshot of the
 * form is written to `$MRTR_SCREENSHOT` when set (the picture of docs/url-mode.md).
 * A missing Chromium fails the test with a message naming the apt package;
 * it is never skipped.
 */
import { assert, describe, it } from "@effect/vitest"
import { validateWire } from "@mrtr/test-support/wire"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { type Browser, chromium } from "playwright-core"
import { ACCEPT, callConnect, startServer } from "./interactionFixtures.ts"

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** Chromium for the length of the scope; fails (never skips) when it is missing, naming what to install. */
const browser = Effect.acquireRelease(
  Effect.promise(async (): Promise<Browser> => {
    if (!Fs.existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium not found at ${CHROMIUM}: install the Debian package "chromium" (apt-get install -y chromium) ` +
          "or set CHROMIUM_PATH to a Chromium binary"
      )
    }
    return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true })
  }),
  (b) => Effect.promise(() => b.close())
)

const start = (mcp: string, args: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const first = yield* callConnect(mcp, { arguments: args })
    validateWire("InputRequiredResult", first.message.result)
    return {
      url: first.message.result.inputRequests.api_key.params.url as string,
      requestState: first.message.result.requestState as string
    }
  })

describe("InteractionPage in Chromium", () => {
  it.live(
    "the browser completes the page, the retry completes with the value; resubmit, expiry and tampering are refused",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const mcp = yield* startServer()
        const b = yield* browser
        const context = yield* Effect.promise(() =>
          b.newContext({ javaScriptEnabled: false, viewport: { width: 640, height: 620 } })
        )
        const page = yield* Effect.promise(() => context.newPage())
        const { requestState, url } = yield* start(mcp)

        const opened = yield* Effect.promise(() => page.goto(url))
        assert.strictEqual(opened?.status(), 200)
        assert.include(yield* Effect.promise(() => page.locator("header").innerText()), "Acme Connector")
        assert.include(yield* Effect.promise(() => page.locator(".message").innerText()), "Paste your Acme API key")

        // invalid input: the reason is shown, the form kept (the region chosen stays chosen)
        yield* Effect.promise(async () => {
          await page.getByLabel("API key").fill("short")
          await page.getByLabel("Region").selectOption("us")
          await page.getByRole("button", { name: "Submit" }).click()
          await page.waitForLoadState()
        })
        const alert = yield* Effect.promise(() => page.getByRole("alert").innerText())
        assert.include(alert, "\"API key\" must be at least 8 characters")
        assert.strictEqual(yield* Effect.promise(() => page.getByLabel("Region").inputValue()), "us")
        assert.strictEqual(yield* Effect.promise(() => page.getByLabel("API key").inputValue()), "")

        // a second tab on the same page, opened before the first one is submitted
        const second = yield* Effect.promise(() => context.newPage())
        yield* Effect.promise(() => second.goto(url))

        yield* Effect.promise(async () => {
          await page.getByLabel("API key").fill("sk-live-1234567890")
          await page.getByLabel("Send alerts").check()
          const screenshot = process.env["MRTR_SCREENSHOT"]
          if (screenshot !== undefined && screenshot !== "") await page.screenshot({ path: screenshot })
          await page.getByRole("button", { name: "Submit" }).click()
          await page.waitForLoadState()
        })
        assert.include(yield* Effect.promise(() => page.getByRole("status").innerText()), "go back to your app")

        // the client retries after consenting: the handler resumes with the value
        const done = yield* callConnect(mcp, { inputResponses: ACCEPT, requestState })
        validateWire("CallToolResult", done.message.result)
        assert.deepStrictEqual(done.message.result.content, [
          { type: "text", text: "connected to us with a key of 18 characters, alerts on" }
        ])

        // the same page submitted again (from the second tab) is refused
        const again = yield* Effect.promise(async () => {
          await second.getByLabel("API key").fill("sk-other-1234567890")
          await second.getByLabel("Region").selectOption("eu")
          const response = second.waitForResponse((r) => r.request().method() === "POST")
          await second.getByRole("button", { name: "Submit" }).click()
          return (await response).status()
        })
        assert.strictEqual(again, 409)
        assert.include(yield* Effect.promise(() => second.locator("body").innerText()), "already submitted")

        // a tampered id
        const id = url.slice(url.lastIndexOf("/") + 1)
        const tampered = yield* Effect.promise(() => page.goto(url.slice(0, -id.length) + [...id].reverse().join("")))
        assert.strictEqual(tampered?.status(), 404)
        assert.include(yield* Effect.promise(() => page.locator("h1").innerText()), "not valid")

        // an expired page
        const short = yield* start(mcp, { ttlMs: 150 })
        yield* Effect.sleep("250 millis")
        const expired = yield* Effect.promise(() => page.goto(short.url))
        assert.strictEqual(expired?.status(), 410)
        assert.include(yield* Effect.promise(() => page.locator("h1").innerText()), "expired")
      })),
    { timeout: 90_000 }
  )
})
