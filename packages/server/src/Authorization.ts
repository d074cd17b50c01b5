/**
 * Authorization for the Streamable HTTP transport: the MCP server as an
 * OAuth 2.1 protected resource.
 *
 * Provide `layer(...)` (or `layerConfig`) to `HttpTransport.layer` /
 * `HttpTransport.routes` and the endpoint:
 *
 * - serves its Protected Resource Metadata (RFC 9728) without
 *   authentication at `GET /.well-known/oauth-protected-resource<path>`
 *   (the path-inserted well-known URI of the resource);
 * - checks `Authorization: Bearer <token>` on every request before anything
 *   else of MCP is looked at, answering:
 *
 * | case                                            | status | `WWW-Authenticate`                                                    |
 * |-------------------------------------------------|--------|------------------------------------------------------------------------|
 * | no credentials (or another scheme)              | 401    | `Bearer resource_metadata="…", scope="…"`                             |
 * | invalid, expired, wrong issuer / audience token | 401    | `Bearer error="invalid_token", error_description="…", resource_metadata="…"` |
 * | token lacks the scopes of the operation         | 403    | `Bearer error="insufficient_scope", scope="<all needed>", resource_metadata="…"` |
 * | malformed credentials (bad syntax, too long)    | 400    | `Bearer error="invalid_request", …`                                    |
 * | keys / introspection unreachable or too slow    | 503    | none, `Retry-After: 5`                                                 |
 *
 *   Bodies are OAuth JSON (`{ error, error_description }`), not JSON-RPC.
 * - hands the verified token's principal (`iss` + `sub`) to the dispatcher:
 *   it is what every sealed `requestState` is bound to, so a state issued to
 *   one user is the frozen `-32602` for another, while a refreshed or
 *   stepped-up token of the same user keeps the conversation. Handlers read
 *   it (and the granted scopes) with {@link authInfo}.
 *
 * Tokens are checked by a {@link TokenVerifier}: {@link jwt} (RFC 9068 JWT
 * access tokens against the issuer's JWKS, with `jose`) or
 * {@link introspection} (RFC 7662, for opaque tokens). Tokens are never
 * forwarded, stored or logged; the ones that verified are remembered by a
 * digest for a minute (`tokenCache`), so the signature check is not paid on
 * every request.
 *
 * Required scopes: `requiredScopes` here for every request, plus the
 * `scopes` declared on each tool, prompt or resource (checked before its
 * handler runs).
 *
 * The audience rule: a token is accepted only when its `aud` names this
 * server's canonical resource URI (RFC 8707), which never comes from the
 * request (a `Host` header is the client's to choose). It is `resource`
 * when set; else `HttpTransport.layer` derives it from the address it is
 * bound to (`http://127.0.0.1:3000/mcp`), which needs a bind to one address:
 * bound to all interfaces (`0.0.0.0`, `::`), or served through
 * `HttpTransport.routes` / `handleRequest` / `toWebHandler`, which know no
 * address, the endpoint refuses to start with {@link ResourceRequired}.
 * Behind a proxy or with a public name, set `resource` (`MCP_AUTH_RESOURCE`).
 *
 * Gotchas: stdio and the in-memory transport are not authenticated (the spec:
 * stdio takes credentials from its environment); `iat` may be at most
 * `clockToleranceSeconds` (default 30) in the future.
 *
 * Source: MCP 2026-07-28 basic/authorization (index, Protected Resource
 * Metadata, Token Handling, Error Handling, security-considerations);
 * RFC 6750, RFC 8707, RFC 9068, RFC 9728, RFC 7662.
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option, Redacted, Schema, SchemaIssue } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpServerResponse } from "effect/http"
import { NetAddress } from "effect/net"
import type { AuthInfo } from "./internal/authInfo.ts"
import { challenge, credentials, errorResponse, missingScopes } from "./internal/bearer.ts"
import * as TokenCache from "./internal/tokenCache.ts"
import * as Verifier from "./internal/tokenVerifier.ts"
import { McpRequest } from "./RequestContext.ts"

export type {
  /**
   * The authenticated caller of one request, from a verified access token
   * (see `internal/authInfo.ts`).
   *
   * @category models
   * @since 0.1.0
   */
  AuthInfo
} from "./internal/authInfo.ts"

/**
 * Checks access tokens for one authorization server (`issuer`). Build one
 * with {@link jwt} or {@link introspection}. `verify(token, resource)`
 * fails with `Rejected` (HTTP 401 `invalid_token`) or `Unavailable`
 * (HTTP 503).
 *
 * @category models
 * @since 0.1.0
 */
export type TokenVerifier = Verifier.Verifier

/**
 * Options of {@link jwt}: JWT access tokens (RFC 9068) verified with `jose`.
 * The audience (`aud`) must name the server's canonical resource URI.
 *
 * Source: RFC 9068 §4; RFC 8707; MCP 2026-07-28 basic/authorization (Token Handling).
 *
 * @category models
 * @since 0.1.0
 */
export type JwtOptions = Verifier.JwtOptions

/**
 * A {@link TokenVerifier} for JWT access tokens (RFC 9068), see {@link JwtOptions}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const jwt: (options: JwtOptions) => TokenVerifier = Verifier.jwt

/**
 * Options of {@link introspection}: the authorization server's
 * introspection endpoint and this server's client credentials there.
 * `active: false`, another `iss`, an expired

 * `exp`, an `iat` in the future or an `aud` that does not name this
 * resource are `invalid_token`.
 *
 * Source: RFC 7662 §2; MCP 2026-07-28 basic/authorization (Token Handling).
 *
 * @category models
 * @since 0.1.0
 */
export type IntrospectionOptions = Verifier.IntrospectionOptions

/**
 * A {@link TokenVerifier} by token introspection (RFC 7662), for opaque tokens.
 *
 * @category constructors
 * @since 0.1.0
 */
export const introspection: (options: IntrospectionOptions) => TokenVerifier = Verifier.introspection

/**
 * Options of {@link layer}.
 *
 * Source: RFC 9728 §2; MCP 2026-07-28 basic/authorization.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** How tokens are checked ({@link jwt} or {@link introspection}). */
  readonly verifier: TokenVerifier
  /**
   * The canonical resource URI (RFC 8707), e.g. `"https://mcp.example.com/mcp"`: tokens' audience, PRM `resource`.
   * Never taken from a request's `Host`. Required when the server is bound to all interfaces, behind a proxy, and
   * with `HttpTransport.routes` / `handleRequest` / `toWebHandler` (else {@link ResourceRequired}).
   *
   * @default the URL of the address `HttpTransport.layer` is bound to (`http://127.0.0.1:<port><path>`)
   */
  readonly resource?: string | undefined
  /**
   * PRM `authorization_servers`.
   *
   * @default [verifier.issuer]
   */
  readonly authorizationServers?: ReadonlyArray<string> | undefined
  /**
   * PRM `scopes_supported` (never `offline_access`).
   *
   * @default undefined (not published)
   */
  readonly scopesSupported?: ReadonlyArray<string> | undefined
  /**
   * Scopes every request needs (the 401 challenge's `scope`).
   *
   * @default []
   */
  readonly requiredScopes?: ReadonlyArray<string> | undefined
  /**
   * Scopes that include others, e.g. `{ "mcp:admin": ["mcp:write"], "mcp:write": ["mcp:read"] }`.
   *
   * @default {} (a scope includes only itself)
   */
  readonly scopeHierarchy?: Readonly<Record<string, ReadonlyArray<string>>> | undefined
  /**
   * PRM `resource_name`, a name for people.
   *
   * @default undefined (not published)
   */
  readonly resourceName?: string | undefined
  /**
   * PRM `resource_documentation`, a URL of the server's documentation.
   *
   * @default undefined (not published)
   */
  readonly resourceDocumentation?: string | undefined
  /**
   * Longest accepted token, in characters; a longer one gets 400 `invalid_request`.
   *
   * @default 8192
   */
  readonly maxTokenLength?: number | undefined
  /**
   * Tokens that verified are remembered, so a client sending the same token on every request pays for its signature
   * check (or its introspection) once: `{ ttl, capacity }`, keyed by a SHA-256 of token and resource (no token is
   * kept), never past the token's `exp`; refused tokens are never cached. A key removed from the JWKS or a revoked
   * token is honoured for at most `ttl`; `false` checks every request.
   *
   * @default { ttl: "1 minute", capacity: 10_000 }
   */
  readonly tokenCache?: TokenCacheOptions | false | undefined
}

/**
 * The verified-token cache's options ({@link Options} `tokenCache`): `ttl`
 * (default 1 minute) and `capacity` (default 10,000 tokens).
 *
 * @category models
 * @since 0.2.0
 */
export type TokenCacheOptions = TokenCache.TokenCacheOptions

/**
 * The outcome of authenticating one HTTP request: the caller, or the HTTP
 * answer to send instead (401 / 400 / 503, see the module header).
 *
 * @category models
 * @since 0.1.0
 */
export type Authentication =
  | {
    readonly _tag: "Authenticated"
    readonly auth: AuthInfo
    /** The canonical resource URI the token was checked against. */
    readonly resource: string
    /** The URL of the Protected Resource Metadata, for challenges. */
    readonly resourceMetadata: string
  }
  | { readonly _tag: "Refused"; readonly response: HttpServerResponse.HttpServerResponse }

/**
 * The endpoint could not start: authorization is on and this server's
 * canonical resource URI (the audience its tokens must name) is neither
 * configured (`Authorization.Options.resource`, `MCP_AUTH_RESOURCE`) nor
 * derivable from one bound address (`where` says why). Set `resource`.
 *
 * Source: MCP 2026-07-28 basic/authorization (Token Handling: audience); RFC 8707.
 *
 * @since 0.3.0
 * @category errors
 */
export class ResourceRequired extends Schema.TaggedError<ResourceRequired>()("ResourceRequired", {
  where: Schema.String
}) {
  override get message(): string {
    return `Authorization: set the resource option (MCP_AUTH_RESOURCE with layerConfig), the canonical URI clients ` +
      `reach this server at, e.g. https://mcp.example.com/mcp: ${this.where}`
  }
}

/**
 * The canonical resource URI of an endpoint served at `path` on `address`
 * (what `HttpTransport.layer` uses when `resource` is not set): `http://<address><path>`,
 * or {@link ResourceRequired} for an address that is no single one (all
 * interfaces, a Unix socket) or none at all.
 *
 * Source: MCP 2026-07-28 basic/authorization; RFC 8707 §2.
 *
 * @since 0.3.0
 * @category constructors
 */
export const resourceFromAddress = (
  address: NetAddress.SocketAddress | undefined,
  path: string
): Effect.Effect<string, ResourceRequired> => {
  if (address === undefined) {
    return Effect.fail(
      new ResourceRequired({ where: "the endpoint is not served by HttpTransport.layer, so no bound address is known" })
    )
  }
  if (!NetAddress.isInetAddress(address) || NetAddress.isUnspecified(address.address)) {
    return Effect.fail(
      new ResourceRequired({
        where: NetAddress.isInetAddress(address)
          ? `the endpoint is bound to ${NetAddress.formatIp(address.address)} (every interface), not to one address`
          : "the endpoint is bound to a Unix socket"
      })
    )
  }
  return Effect.succeed(`${NetAddress.formatUrlUnsafe(address)}${path}`)
}

/**
 * The protected resource as the HTTP transport uses it.
 *
 * - `resource`: the configured canonical resource URI, when there is one
 *   (else the transport derives it from the bound address, see
 *   {@link resourceFromAddress});
 * - `metadataPath(resource)`: where the PRM is served, e.g.
 *   `/.well-known/oauth-protected-resource/mcp`;
 * - `metadata(resource)`: the PRM answer (200 JSON);
 * - `authenticate(request, resource)`: reads and verifies the bearer token
 *   (its audience must be `resource`);
 * - `authorize(authentication, needed)`: `undefined` when the token holds
 *   `needed` (after `requiredScopes` and the hierarchy), else the 403
 *   `insufficient_scope` answer naming every scope the operation needs.
 *
 * Source: MCP 2026-07-28 basic/authorization; RFC 9728.
 *
 * @category services
 * @since 0.1.0
 */
export class ResourceServer extends Context.Service<ResourceServer, {
  readonly resource: string | undefined
  readonly metadataPath: (resource: string) => string
  readonly metadata: (resource: string) => HttpServerResponse.HttpServerResponse
  readonly authenticate: (
    request: HttpServerRequest.HttpServerRequest,
    resource: string
  ) => Effect.Effect<Authentication>
  readonly authorize: (
    authentication: Extract<Authentication, { readonly _tag: "Authenticated" }>,
    needed: ReadonlyArray<string>
  ) => HttpServerResponse.HttpServerResponse | undefined
}>()("@mrtr/server/Authorization/ResourceServer") {}

const WELL_KNOWN = "/.well-known/oauth-protected-resource"

/**
 * Builds the {@link ResourceServer} service from {@link Options}.
 *
 * Source: MCP 2026-07-28 basic/authorization.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options): ResourceServer["Service"] => {
  const maxTokenLength = options.maxTokenLength ?? 8192
  const verifier = options.tokenCache === false
    ? options.verifier
    : TokenCache.cached(options.verifier, options.tokenCache)
  const requiredScopes = options.requiredScopes ?? []
  const hierarchy = options.scopeHierarchy ?? {}
  const configured = options.resource === undefined ? undefined : new URL(options.resource)
  if (configured !== undefined && configured.hash !== "") {
    throw new Error("Authorization: the resource URI must not have a fragment")
  }
  const metadataPath = (resource: string) => {
    const path = new URL(resource).pathname
    return path === "/" || path === "" ? WELL_KNOWN : `${WELL_KNOWN}${path}`
  }
  const metadataUrl = (resource: string) => `${new URL(resource).origin}${metadataPath(resource)}`
  const scopeParam = (scopes: ReadonlyArray<string>) => scopes.length === 0 ? undefined : scopes.join(" ")

  const refuse = (resource: string) => (outcome: Verifier.Rejected | Verifier.Unavailable) =>
    outcome._tag === "Unavailable"
      ? Effect.as(
        Effect.logWarning(`Authorization: ${outcome.description}`).pipe(
          Effect.annotateLogs({
            reason: outcome.cause instanceof Error ? outcome.cause.message : String(outcome.cause)
          })
        ),
        errorResponse(
          503,
          undefined,
          "temporarily_unavailable",
          "The authorization server cannot be reached; retry later",
          {
            "retry-after": "5"
          }
        )
      )
      : Effect.succeed(errorResponse(
        401,
        challenge([
          ["error", "invalid_token"],
          ["error_description", outcome.description],
          ["resource_metadata", metadataUrl(resource)]
        ]),
        "invalid_token",
        outcome.description
      ))

  return ResourceServer.of({
    resource: options.resource,
    metadataPath,
    metadata: (resource) => {
      return HttpServerResponse.text(
        JSON.stringify({
          resource,
          authorization_servers: options.authorizationServers ?? [options.verifier.issuer],
          ...(options.scopesSupported === undefined
            ? {}
            : { scopes_supported: options.scopesSupported.filter((s) => s !== "offline_access") }),
          bearer_methods_supported: ["header"],
          ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
          ...(options.resourceDocumentation === undefined
            ? {}
            : { resource_documentation: options.resourceDocumentation })
        }),
        { status: 200, contentType: "application/json", headers: { "cache-control": "max-age=300" } }
      )
    },
    authenticate: (request, resource) => {
      const found = credentials(request.headers["authorization"], maxTokenLength)
      switch (found._tag) {
        case "None":
          return Effect.succeed({
            _tag: "Refused",
            response: errorResponse(
              401,
              challenge([
                ["resource_metadata", metadataUrl(resource)],
                ["scope", scopeParam(requiredScopes)]
              ]),
              "invalid_token",
              "Missing Authorization header"
            )
          })
        case "Malformed":
          return Effect.succeed({
            _tag: "Refused",
            response: errorResponse(
              400,
              challenge([
                ["error", "invalid_request"],
                ["error_description", found.description],
                ["resource_metadata", metadataUrl(resource)]
              ]),
              "invalid_request",
              found.description
            )
          })
        case "Bearer":
          return verifier.verify(found.token, resource).pipe(
            Effect.map((token): Authentication => ({
              _tag: "Authenticated",
              resource,
              resourceMetadata: metadataUrl(resource),
              auth: {
                issuer: token.issuer,
                subject: token.subject,
                clientId: token.clientId,
                scopes: token.scopes,
                expiresAt: token.expiresAt,
                principal: JSON.stringify([token.issuer, token.subject]),
                claims: token.claims
              }
            })),
            Effect.catch((outcome) =>
              Effect.map(refuse(resource)(outcome), (response): Authentication => ({ _tag: "Refused", response }))
            )
          )
      }
    },
    authorize: (authentication, needed) => {
      const all = [...new Set([...requiredScopes, ...needed])]
      if (missingScopes(authentication.auth.scopes, all, hierarchy).length === 0) return undefined
      const description = `This operation needs the scopes: ${all.join(" ")}`
      return errorResponse(
        403,
        challenge([
          ["error", "insufficient_scope"],
          ["scope", all.join(" ")],
          ["resource_metadata", authentication.resourceMetadata],
          ["error_description", description]
        ]),
        "insufficient_scope",
        description
      )
    }
  })
}

/**
 * The {@link ResourceServer} as a Layer. Provide it to the HTTP transport:
 *
 * ```ts
 * import { Authorization, HttpTransport, McpServer } from "@mrtr/server"
 * import { Layer } from "effect"
 *
 * const server = McpServer.layer({ name: "s", version: "1.0.0" })
 *
 * const app = HttpTransport.layer({ port: 3000 }).pipe(
 *   Layer.provide(Authorization.layer({
 *     resource: "https://mcp.example.com/mcp",
 *     verifier: Authorization.jwt({ issuer: "https://auth.example.com", jwksUri: "https://auth.example.com/jwks" }),
 *     requiredScopes: ["mcp:basic"]
 *   })),
 *   Layer.provide(server)
 * )
 * ```
 *
 * Throws when `resource` is not an absolute URI or has a fragment.
 *
 * Source: MCP 2026-07-28 basic/authorization.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<ResourceServer> => Layer.sync(ResourceServer, () => make(options))

/**
 * The {@link ResourceServer} from configuration (`effect/Config`):
 *
 * - `MCP_AUTH_ISSUER` (required): the authorization server's issuer;
 * - `MCP_AUTH_JWKS_URL`: its JWKS (JWT access tokens), or
 * - `MCP_AUTH_INTROSPECTION_URL` with `MCP_AUTH_CLIENT_ID` and
 *   `MCP_AUTH_CLIENT_SECRET` (redacted): introspection (opaque tokens);
 * - `MCP_AUTH_RESOURCE`: the canonical resource URI (see `Options.resource`:
 *   without it the endpoint's bound address, and {@link ResourceRequired}
 *   when that is not one address);
 * - `MCP_AUTH_SCOPES`: space-separated scopes every request needs (also
 *   advertised as `scopes_supported`).
 *
 * Fails with `ConfigError` when the issuer is missing or neither a JWKS nor
 * an introspection endpoint is given.
 *
 * Source: MCP 2026-07-28 basic/authorization.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerConfig: Layer.Layer<ResourceServer, Config.ConfigError> = Layer.effect(
  ResourceServer,
  Effect.gen(function*() {
    const issuer = yield* Config.String("MCP_AUTH_ISSUER")
    const jwksUrl = yield* Config.option(Config.String("MCP_AUTH_JWKS_URL"))
    const introspectionUrl = yield* Config.option(Config.String("MCP_AUTH_INTROSPECTION_URL"))
    const resource = yield* Config.option(Config.String("MCP_AUTH_RESOURCE"))
    const scopes = yield* Config.String("MCP_AUTH_SCOPES").pipe(Config.withDefault(""))
    let verifier: TokenVerifier
    if (Option.isSome(jwksUrl)) {
      verifier = jwt({ issuer, jwksUri: jwksUrl.value })
    } else if (Option.isSome(introspectionUrl)) {
      const clientId = yield* Config.String("MCP_AUTH_CLIENT_ID")
      const clientSecret = yield* Config.Redacted("MCP_AUTH_CLIENT_SECRET")
      verifier = introspection({
        issuer,
        introspectionEndpoint: introspectionUrl.value,
        clientId,
        clientSecret: Redacted.value(clientSecret)
      })
    } else {
      return yield* Effect.fail(
        new Config.ConfigError(
          new Schema.SchemaError(
            new SchemaIssue.Pointer(
              ["MCP_AUTH_JWKS_URL"],
              new SchemaIssue.InvalidValue({ message: "MCP_AUTH_JWKS_URL or MCP_AUTH_INTROSPECTION_URL is required" })
            )
          )
        )
      )
    }
    const required = scopes.split(" ").filter((s) => s !== "")
    return make({
      verifier,
      resource: Option.getOrUndefined(resource),
      requiredScopes: required,
      ...(required.length === 0 ? {} : { scopesSupported: required })
    })
  })
)

/**
 * The caller of the current request, when the transport authenticated one
 * (HTTP with {@link layer}); `None` on stdio, in memory, or without
 * authorization.
 *
 * Source: MCP 2026-07-28 basic/authorization.
 *
 * @category accessors
 * @since 0.1.0
 */
export const authInfo: Effect.Effect<Option.Option<AuthInfo>, never, McpRequest> = McpRequest.useSync((request) =>
  Option.fromNullishOr(request.auth)
)
