/**
 * What a sealed `requestState` is bound to, in a module of its own so the
 * codec (`RequestState.ts`, which re-exports it) and the states it keeps
 * (`issuedStates.ts`) share it without importing each other.
 */

/**
 * Everything a sealed `requestState` is bound to. It is authenticated as the
 * AEAD's associated data: unsealing with any field different fails.
 *
 * - `method`: the JSON-RPC method of the original request (`tools/call`,
 *   `prompts/get` or `resources/read`).
 * - `target`: the tool or prompt name, or the resource URI.
 * - `argumentsDigest`: a digest of the request's arguments (see
 *   `Canonical.digestOf`), so the state cannot be replayed with other arguments.
 * - `audience`: the identity of this server (e.g. its canonical URL or name),
 *   so a state from one server is refused by another sharing keys.
 * - `principal`: the authenticated principal, when there is one. Absent and
 *   `undefined` mean "no principal", which differs from every string, `""` included.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr ("bind ... the authenticated
 * principal ... the originating method plus a digest of its key params").
 *
 * @since 0.1.0
 */
export interface Binding {
  readonly method: string
  readonly target: string
  readonly argumentsDigest: string
  readonly audience: string
  readonly principal?: string | undefined
}
