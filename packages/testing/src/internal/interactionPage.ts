/**
 * Completing a server's interaction page (the page of `Elicitation.secure`)
 * the way a browser does, without one: `GET` the page, read its CSRF token
 * and cookie, `POST` the form with the given values.
 *
 * Values are encoded as the page's inputs would send them: text and numbers
 * as typed, booleans as `"true"` / `"false"`, a multi-select as one entry
 * per choice. Gotcha: the page is found by its URL only, so the values reach
 * whatever server the URL names; tests point it at their own server.
 */
import { Effect } from "effect"

/** A value of a page's field, as in an elicitation answer's `content`. */
export type PageValue = string | number | boolean | ReadonlyArray<string>

/** What the page answered the submit with: its HTTP status and text (an alert's text when it refused). */
export interface Submitted {
  readonly status: number
  readonly text: string
}

const textOf = (html: string): string => {
  const alert = /role="alert">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? /<h1>([\s\S]*?)<\/h1>/.exec(html)?.[1] ?? ""
  return alert.replace(/<[^>]*>/g, "").replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">").replace(/&amp;/g, "&").trim()
}

/** Opens the page at `url` and submits `values`; never fails (a network error is status 0). */
export const complete = (
  url: string,
  values: Readonly<Record<string, PageValue>>,
  fetcher: typeof fetch
): Effect.Effect<Submitted> =>
  Effect.promise(async () => {
    try {
      const page = await fetcher(url)
      const html = await page.text()
      if (page.status !== 200) return { status: page.status, text: textOf(html) }
      const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""
      const cookie = page.headers.get("set-cookie")?.split(";")[0] ?? ""
      const body = new URLSearchParams({ csrf: token })
      for (const [name, value] of Object.entries(values)) {
        if (Array.isArray(value)) { for (const choice of value) body.append(name, choice) }
        else body.append(name, String(value))
      }
      const submitted = await fetcher(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: new URL(url).origin },
        body: body.toString()
      })
      return { status: submitted.status, text: textOf(await submitted.text()) }
    } catch (error) {
      return { status: 0, text: String(error) }
    }
  })
