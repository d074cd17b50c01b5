/**
 * Who the authenticated caller of a request is, in a module of its own so
 * `Authorization.ts` (which re-exports it), `RequestContext.ts` and
 * `Transport.ts` share it without importing each other.
 */

/**
 * The authenticated caller of one request, from a verified access token.
 *
 * - `issuer`, `subject`: the token's `iss` and `sub`;
 * - `clientId`: the OAuth client it was issued to (`client_id`), when known;
 * - `scopes`: the granted scopes (`scope`, space-separated in the token);
 * - `expiresAt`: the token's `exp`, seconds since the epoch, when known;
 * - `principal`: `JSON.stringify([issuer, subject])`, the string every
 *   `requestState` is bound to;
 * - `claims`: every claim of the token (or of the introspection response).
 *
 * Source: MCP 2026-07-28 basic/patterns/mrtr (state bound to the principal); RFC 9068 §2.2.
 *
 * @since 0.1.0
 */
export interface AuthInfo {
  readonly issuer: string
  readonly subject: string
  readonly clientId: string | undefined
  readonly scopes: ReadonlyArray<string>
  readonly expiresAt: number | undefined
  readonly principal: string
  readonly claims: Readonly<Record<string, unknown>>
}
