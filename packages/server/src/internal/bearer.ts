/**
 * The HTTP side of a protected resource: reading `Authorization: Bearer`,
 * and the `401` / `403` / `400` / `503` answers with their
 * `WWW-Authenticate` challenges and OAuth JSON bodies (not JSON-RPC).
 *
 * Gotchas: the credentials are case-insensitive in their scheme only; a
 * header that is not `Bearer` counts as no credentials (401 without
 * `error`, RFC 6750 §3.1); a Bearer token that is not RFC 6750 `b64token`
 * syntax, or longer than the limit, is a malformed request (400). Quoted
 * values are escaped, so a description can never break the header.
 *
 * Source: RFC 6750 §2.1, §3; RFC 9728 §5.1; MCP 2026-07-28
 * basic/authorization (Error Handling).
 */
import { HttpServerResponse } from "effect/http"

/** What the `Authorization` header holds. */
export type Credentials =
  | { readonly _tag: "None" }
  | { readonly _tag: "Malformed"; readonly description: string }
  | { readonly _tag: "Bearer"; readonly token: string }

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/

/** Reads the bearer token of a request (`undefined` header: no credentials). */
export const credentials = (header: string | undefined, maxTokenLength: number): Credentials => {
  if (header === undefined) return { _tag: "None" }
  const value = header.trim()
  const space = value.indexOf(" ")
  const scheme = space < 0 ? value : value.slice(0, space)
  if (scheme.toLowerCase() !== "bearer") return { _tag: "None" }
  const token = space < 0 ? "" : value.slice(space + 1).trim()
  if (token === "") return { _tag: "Malformed", description: "The Bearer credentials are empty" }
  if (token.length > maxTokenLength) {
    return { _tag: "Malformed", description: `The access token is longer than ${maxTokenLength} characters` }
  }
  if (!B64TOKEN.test(token)) return { _tag: "Malformed", description: "The access token is not a valid b64token" }
  return { _tag: "Bearer", token }
}

const quote = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\r\n]/g, " ")}"`

/** `Bearer k="v", ...` in the given order, skipping undefined values. */
export const challenge = (params: ReadonlyArray<readonly [string, string | undefined]>): string => {
  const parts = params.filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${quote(v!)}`)
  return parts.length === 0 ? "Bearer" : `Bearer ${parts.join(", ")}`
}

/** An OAuth error answer: `status`, the challenge, `{ error, error_description }` as JSON. */
export const errorResponse = (
  status: number,
  wwwAuthenticate: string | undefined,
  error: string,
  description: string,
  extraHeaders: Readonly<Record<string, string>> = {}
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(JSON.stringify({ error, error_description: description }), {
    status,
    contentType: "application/json",
    headers: {
      ...(wwwAuthenticate === undefined ? {} : { "www-authenticate": wwwAuthenticate }),
      "cache-control": "no-store",
      ...extraHeaders
    }
  })

/**
 * The scopes of `needed` that `granted` does not cover. `implies` maps a
 * scope to the scopes it includes (hierarchies, e.g. `mcp:admin` implies
 * `mcp:write`), followed transitively.
 */
export const missingScopes = (
  granted: ReadonlyArray<string>,
  needed: ReadonlyArray<string>,
  implies: Readonly<Record<string, ReadonlyArray<string>>>
): ReadonlyArray<string> => {
  const covered = new Set<string>()
  const queue = [...granted]
  while (queue.length > 0) {
    const scope = queue.pop()!
    if (covered.has(scope)) continue
    covered.add(scope)
    if (Object.hasOwn(implies, scope)) { for (const implied of implies[scope]!) queue.push(implied) }
  }
  return needed.filter((scope) => !covered.has(scope))
}
