/**
 * Where the client keeps what its authorization flow obtained: access and
 * refresh tokens per MCP server (resource), and client registrations per
 * authorization server (issuer), so that credentials never carry over from
 * one authorization server to another (SEP-2352).
 *
 * Two Layers: `layerMemory` (the default; gone with the process) and
 * `layerFile(path)` (a JSON file created with mode 0600, rewritten whole on
 * each change; the CLI keeps it under the user's config directory). Tokens
 * and secrets are `Redacted` in memory and never logged; on disk they are
 * plain JSON, readable only by the user.
 *
 * Source: MCP 2026-07-28 basic/authorization (Token storage, SEP-2352
 * authorization-server binding); OAuth 2.1 §7 (security considerations).
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Context, Effect, FileSystem, Layer, Option, Redacted } from "effect"
import { dirname } from "node:path"

/**
 * The tokens of one MCP server (resource):
 * - `issuer`: the authorization server that issued them;
 * - `accessToken`, `refreshToken`: the tokens, `Redacted`;
 * - `expiresAt`: when the access token expires, in epoch milliseconds, when known;
 * - `scope`: the scopes that were requested (space-separated);
 * - `resource`: the resource indicator they were requested for (PRM `resource`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Tokens {
  readonly issuer: string
  readonly accessToken: Redacted.Redacted<string>
  readonly refreshToken?: Redacted.Redacted<string> | undefined
  readonly expiresAt?: number | undefined
  readonly scope?: string | undefined
  readonly resource?: string | undefined
}

/**
 * A client registration at one authorization server: `clientId`, the
 * `clientSecret` when it has one, and the token endpoint authentication
 * method (`client_secret_basic`, `client_secret_post` or `none`).
 *
 * Source: RFC 7591 §3.2.1; MCP 2026-07-28 basic/authorization/client-registration.
 *
 * @category models
 * @since 0.1.0
 */
export interface Registration {
  readonly clientId: string
  readonly clientSecret?: Redacted.Redacted<string> | undefined
  readonly authMethod: "client_secret_basic" | "client_secret_post" | "none"
}

/**
 * The store. Keys: `resource` is the MCP endpoint URL, `issuer` the
 * authorization server's issuer string. `clear()` forgets everything
 * (`mrtr logout`), `clear(resource)` one server's tokens.
 *
 * @category services
 * @since 0.1.0
 */
export class TokenStore extends Context.Service<TokenStore, {
  readonly getTokens: (resource: string) => Effect.Effect<Option.Option<Tokens>>
  readonly setTokens: (resource: string, tokens: Tokens) => Effect.Effect<void>
  readonly deleteTokens: (resource: string) => Effect.Effect<void>
  readonly getRegistration: (issuer: string) => Effect.Effect<Option.Option<Registration>>
  readonly setRegistration: (issuer: string, registration: Registration) => Effect.Effect<void>
  readonly clear: (resource?: string) => Effect.Effect<void>
}>()("@mrtr/client/TokenStore") {}

interface Contents {
  tokens: Record<string, Tokens>
  registrations: Record<string, Registration>
}

const fromContents = (contents: Contents, persist: (contents: Contents) => Effect.Effect<void>) =>
  TokenStore.of({
    getTokens: (resource) =>
      Effect.sync(() =>
        Option.fromNullishOr(Object.hasOwn(contents.tokens, resource) ? contents.tokens[resource] : undefined)
      ),
    setTokens: (resource, tokens) => Effect.suspend(() => (contents.tokens[resource] = tokens, persist(contents))),
    deleteTokens: (resource) => Effect.suspend(() => (delete contents.tokens[resource], persist(contents))),
    getRegistration: (issuer) =>
      Effect.sync(() =>
        Option.fromNullishOr(Object.hasOwn(contents.registrations, issuer) ? contents.registrations[issuer] : undefined)
      ),
    setRegistration: (issuer, registration) =>
      Effect.suspend(() => (contents.registrations[issuer] = registration, persist(contents))),
    clear: (resource) =>
      Effect.suspend(() => {
        if (resource === undefined) {
          contents.tokens = Object.create(null)
          contents.registrations = Object.create(null)
        } else delete contents.tokens[resource]
        return persist(contents)
      })
  })

/**
 * An in-memory store (the default): nothing survives the process.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory: Layer.Layer<TokenStore> = Layer.sync(
  TokenStore,
  () => fromContents({ tokens: Object.create(null), registrations: Object.create(null) }, () => Effect.void)
)

const reveal = (value: Redacted.Redacted<string> | undefined) => value === undefined ? undefined : Redacted.value(value)
const hide = (value: unknown) => typeof value === "string" ? Redacted.make(value) : undefined

const serialize = (contents: Contents): string =>
  JSON.stringify(
    {
      tokens: Object.fromEntries(
        Object.entries(contents.tokens).map(([k, t]) => [k, {
          ...t,
          accessToken: Redacted.value(t.accessToken),
          refreshToken: reveal(t.refreshToken)
        }])
      ),
      registrations: Object.fromEntries(
        Object.entries(contents.registrations).map(([k, r]) => [k, {
          ...r,
          clientSecret: reveal(r.clientSecret)
        }])
      )
    },
    null,
    2
  ) + "\n"

const parse = (text: string): Contents => {
  const contents: Contents = { tokens: Object.create(null), registrations: Object.create(null) }
  let raw: any
  try {
    raw = JSON.parse(text)
  } catch {
    return contents // a damaged file is as good as none: the user signs in again
  }
  for (const [k, t] of Object.entries<any>(raw?.tokens ?? {})) {
    if (typeof t?.issuer !== "string" || typeof t?.accessToken !== "string") continue
    contents.tokens[k] = {
      issuer: t.issuer,
      accessToken: Redacted.make(t.accessToken),
      refreshToken: hide(t.refreshToken),
      expiresAt: typeof t.expiresAt === "number" ? t.expiresAt : undefined,
      scope: typeof t.scope === "string" ? t.scope : undefined,
      resource: typeof t.resource === "string" ? t.resource : undefined
    }
  }
  for (const [k, r] of Object.entries<any>(raw?.registrations ?? {})) {
    if (typeof r?.clientId !== "string") continue
    const authMethod = r.authMethod === "client_secret_basic" || r.authMethod === "client_secret_post"
      ? r.authMethod
      : "none"
    contents.registrations[k] = { clientId: r.clientId, clientSecret: hide(r.clientSecret), authMethod }
  }
  return contents
}

/**
 * A store in the JSON file at `path`, created (with its directory) with mode
 * 0600 (0700 for the directory) and re-chmodded to 0600 on every write. A
 * missing or unreadable file is an empty store; a write that fails is logged
 * (without its contents) and the tokens stay in memory.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFile = (path: string): Layer.Layer<TokenStore> =>
  Layer.effect(
    TokenStore,
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const text = yield* fs.readFileString(path).pipe(Effect.orElseSucceed(() => ""))
      const persist = (contents: Contents) =>
        Effect.gen(function*() {
          yield* fs.makeDirectory(dirname(path), { recursive: true, mode: 0o700 })
          yield* fs.writeFileString(path, serialize(contents), { mode: 0o600 })
          yield* fs.chmod(path, 0o600)
        }).pipe(Effect.catch((error) => Effect.logWarning(`TokenStore: cannot write ${path}: ${error.message}`)))
      return fromContents(parse(text), persist)
    })
  ).pipe(Layer.provide(NodeFileSystem.layer))
