/**
 * Bearer access-token verification for the protected resource: JWT access
 * tokens (RFC 9068) checked with `jose` against the issuer's JWKS, and opaque
 * tokens checked by token introspection (RFC 7662) with `oauth4webapi`.
 *
 * Gotchas:
 * - the algorithm list is pinned (asymmetric algorithms only): `alg: none`
 *   and HMAC tokens never verify;
 * - `iat` more than the clock tolerance in the future is refused (jose
 *   itself checks `iat` only with `maxTokenAge`);
 * - `sub` must be a non-empty string (jose checks only that it is present):
 *   it names the principal states and tasks are bound to;
 * - `jose`'s remote key set caches the keys (`cacheMaxAge`), refetches at
 *   most once per `cooldownDuration` for an unknown `kid`, and bounds each
 *   fetch with `timeoutDuration`; a key set that cannot be fetched is
 *   `Unavailable` (HTTP 503), never a crash;
 * - the audience is the server's canonical resource URI (RFC 8707); one
 *   trailing slash is tolerated, as the reference SDK's `sameResource` does;
 * - no error message carries the token or key material.
 *
 * Source: MCP 2026-07-28 basic/authorization (Token Handling),
 * security-considerations; RFC 9068, RFC 7662.
 */
import { Clock, Effect } from "effect"
import type * as JoseModule from "jose"
import * as oauth from "oauth4webapi"

/** A token that verified: who it speaks for and what it allows. */
export interface VerifiedToken {
  readonly issuer: string
  readonly subject: string
  readonly clientId: string | undefined
  readonly scopes: ReadonlyArray<string>
  /** Expiry, seconds since the epoch, when the token says. */
  readonly expiresAt: number | undefined
  readonly claims: Readonly<Record<string, unknown>>
}

/** Why a token was refused (HTTP 401 `invalid_token`): a short, token-free description. */
export class Rejected {
  readonly _tag = "Rejected"
  constructor(readonly description: string) {}
}

/** The authorization server (its keys or its introspection endpoint) could not be reached in time (HTTP 503). */
export class Unavailable {
  readonly _tag = "Unavailable"
  constructor(readonly description: string, readonly cause: unknown) {}
}

/** Checks one token for one resource. */
export interface Verifier {
  readonly issuer: string
  readonly verify: (token: string, resource: string) => Effect.Effect<VerifiedToken, Rejected | Unavailable>
}

const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"]

const withoutSlash = (uri: string) => uri.endsWith("/") ? uri.slice(0, -1) : uri

const audiences = (aud: unknown): ReadonlyArray<string> =>
  typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === "string") : []

const audienceMatches = (aud: unknown, resource: string) =>
  audiences(aud).some((a) => a === resource || withoutSlash(a) === withoutSlash(resource))

/**
 * An `iat` later than `now` by more than the allowed skew: a token "issued in the future" (a clock far off, or
 * a token minted ahead to outlive a revocation) is refused. jose checks `iat` only with `maxTokenAge`.
 */
/** A subject a principal can be bound to: a non-empty string (RFC 7519 4.1.2, "StringOrURI"). */
const isSubject = (sub: unknown): sub is string => typeof sub === "string" && sub !== ""

const issuedInFuture = (iat: unknown, nowMillis: number, toleranceSeconds: number): boolean =>
  typeof iat === "number" && iat > nowMillis / 1000 + toleranceSeconds

const scopesOf = (claims: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const scope = claims["scope"] ?? claims["scp"]
  if (typeof scope === "string") return scope.split(" ").filter((s) => s !== "")
  if (Array.isArray(scope)) return scope.filter((s): s is string => typeof s === "string")
  return []
}

class KeysUnavailable extends Error {
  constructor(readonly reason: unknown) {
    super("the JSON Web Key Set could not be fetched")
  }
}

/** Options of {@link jwt}. */
export interface JwtOptions {
  /** The authorization server's issuer; a token's `iss` must be identical. */
  readonly issuer: string
  /** Its JSON Web Key Set (`jwks_uri` of its metadata). */
  readonly jwksUri: string | URL
  /**
   * The signature algorithms accepted; `none` and `HS*` are always removed.
   *
   * @default the asymmetric JOSE algorithms (RS*, PS*, ES*, EdDSA, Ed25519)
   */
  readonly algorithms?: ReadonlyArray<string> | undefined
  /**
   * The clock skew allowed between this server and the issuer, in seconds, on `exp`, `nbf` and `iat` (a token issued
   * more than this in the future is refused: `The access token's iat claim is not acceptable`).
   *
   * @default 30
   */
  readonly clockToleranceSeconds?: number | undefined
  /**
   * How long a fetch of the key set may take, in milliseconds.
   *
   * @default 5_000
   */
  readonly jwksTimeoutMillis?: number | undefined
  /**
   * The least time between two fetches of the key set for an unknown `kid`, in milliseconds.
   *
   * @default 30_000
   */
  readonly jwksCooldownMillis?: number | undefined
  /**
   * How long a fetched key set is used before it is fetched again, in milliseconds.
   *
   * @default 600_000
   */
  readonly jwksCacheMaxAgeMillis?: number | undefined
  /**
   * Requires the `typ: at+jwt` header (RFC 9068).
   *
   * @default true
   */
  readonly requireAtJwtType?: boolean | undefined
}

// jose (about 45 modules) is imported on the first token to verify: a server without JWT verification (stdio,
// no authorization) never loads it, which keeps its start-up short.
let jose: typeof JoseModule | undefined
let loading: Promise<typeof JoseModule> | undefined
const loadJose = (): Promise<typeof JoseModule> => loading ??= import("jose").then((module) => (jose = module))

export const jwt = (options: JwtOptions): Verifier => {
  const jwksUri = new URL(options.jwksUri)
  let keysOnce: Promise<JoseModule.JWTVerifyGetKey> | undefined
  const keysOf = (Jose: typeof JoseModule): Promise<JoseModule.JWTVerifyGetKey> =>
    keysOnce ??= Promise.resolve().then(() => {
      const remote = Jose.createRemoteJWKSet(jwksUri, {
        timeoutDuration: options.jwksTimeoutMillis ?? 5_000,
        cooldownDuration: options.jwksCooldownMillis ?? 30_000,
        cacheMaxAge: options.jwksCacheMaxAgeMillis ?? 600_000
      })
      // Separates "the keys could not be had" (503) from "no key fits this token" (401).
      const keys: JoseModule.JWTVerifyGetKey = async (header, token) => {
        try {
          return await remote(header, token)
        } catch (error) {
          if (
            error instanceof Jose.errors.JWKSNoMatchingKey || error instanceof Jose.errors.JWKSMultipleMatchingKeys ||
            error instanceof Jose.errors.JOSENotSupported
          ) throw error
          throw new KeysUnavailable(error)
        }
      }
      return keys
    })
  const algorithms = (options.algorithms ?? ASYMMETRIC).filter((alg) => alg !== "none" && !alg.startsWith("HS"))
  const tolerance = options.clockToleranceSeconds ?? 30
  return {
    issuer: options.issuer,
    verify: (token, resource) =>
      // The time is the Clock's, for jose's checks (exp, nbf) and ours (iat) alike.
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.tryPromise({
          try: async () => {
            const Jose = await loadJose()
            return Jose.jwtVerify(token, await keysOf(Jose), {
              currentDate: new Date(now),
              issuer: options.issuer,
              algorithms: [...algorithms],
              clockTolerance: tolerance,
              requiredClaims: ["sub", "exp"],
              ...(options.requireAtJwtType === false ? {} : { typ: "at+jwt" })
            })
          },
          catch: (error): Rejected | Unavailable =>
            jose === undefined
              ? new Unavailable("the JWT library could not be loaded", error)
              : error instanceof KeysUnavailable
              ? new Unavailable("the authorization server's keys are unavailable", error.reason)
              : error instanceof jose.errors.JWTExpired
              ? new Rejected("The access token expired")
              : error instanceof jose.errors.JWTClaimValidationFailed
              ? new Rejected(`The access token's ${error.claim} claim is not acceptable`)
              : error instanceof jose.errors.JWKSNoMatchingKey
              ? new Rejected("The access token is signed with an unknown key")
              : error instanceof jose.errors.JOSEAlgNotAllowed
              ? new Rejected("The access token's signing algorithm is not allowed")
              : new Rejected("The access token is invalid")
        }).pipe(
          Effect.flatMap(({ payload }) =>
            issuedInFuture(payload.iat, now, tolerance)
              ? Effect.fail(new Rejected("The access token's iat claim is not acceptable"))
              // jose checks only that `sub` is present: the principal needs a non-empty string (RFC 7519 4.1.2).
              : !isSubject(payload.sub)
              ? Effect.fail(new Rejected("The access token's sub claim is not acceptable"))
              : audienceMatches(payload.aud, resource)
              ? Effect.succeed<VerifiedToken>({
                issuer: options.issuer,
                subject: payload.sub,
                clientId: typeof payload["client_id"] === "string" ? payload["client_id"] : undefined,
                scopes: scopesOf(payload),
                expiresAt: payload.exp,
                claims: payload
              })
              : Effect.fail(new Rejected("The access token was not issued for this resource"))
          )
        ))
  }
}

/** Options of {@link introspection}. */
export interface IntrospectionOptions {
  /** The authorization server's issuer; an introspected token's `iss`, when given, must be identical. */
  readonly issuer: string
  /** The authorization server's introspection endpoint (RFC 7662). */
  readonly introspectionEndpoint: string | URL
  /** This server's client id at the authorization server (`client_secret_basic`). */
  readonly clientId: string
  /** This server's client secret at the authorization server. */
  readonly clientSecret: string
  /**
   * How long one introspection call may take, in milliseconds.
   *
   * @default 5_000
   */
  readonly timeoutMillis?: number | undefined
  /**
   * The clock skew allowed on `exp` and `iat`, in seconds.
   *
   * @default 30
   */
  readonly clockToleranceSeconds?: number | undefined
}

export const introspection = (options: IntrospectionOptions): Verifier => {
  const endpoint = new URL(options.introspectionEndpoint)
  const as: oauth.AuthorizationServer = { issuer: options.issuer, introspection_endpoint: endpoint.href }
  const client: oauth.Client = { client_id: options.clientId }
  const auth = oauth.ClientSecretBasic(options.clientSecret)
  const insecure = endpoint.protocol === "http:"
  const tolerance = options.clockToleranceSeconds ?? 30
  return {
    issuer: options.issuer,
    verify: (token, resource) =>
      Effect.tryPromise({
        try: async (signal) => {
          const response = await oauth.introspectionRequest(as, client, auth, token, {
            signal,
            additionalParameters: { token_type_hint: "access_token" },
            ...(insecure ? { [oauth.allowInsecureRequests]: true } : {})
          })
          return await oauth.processIntrospectionResponse(as, client, response)
        },
        catch: (error) => new Unavailable("the token introspection endpoint is unavailable", error)
      }).pipe(
        Effect.timeoutOrElse({
          duration: options.timeoutMillis ?? 5_000,
          orElse: () =>
            Effect.fail(new Unavailable("the token introspection endpoint did not answer in time", undefined))
        }),
        Effect.flatMap((result) => Effect.map(Clock.currentTimeMillis, (now) => ({ result, now }))),
        Effect.flatMap(({ now, result }): Effect.Effect<VerifiedToken, Rejected> => {
          const claims = result as unknown as Record<string, unknown>
          if (result.active !== true) return Effect.fail(new Rejected("The access token is not active"))
          if (result.iss !== undefined && result.iss !== options.issuer) {
            return Effect.fail(new Rejected("The access token's iss claim is not acceptable"))
          }
          if (typeof result.exp === "number" && result.exp * 1000 < now - tolerance * 1000) {
            return Effect.fail(new Rejected("The access token expired"))
          }
          if (issuedInFuture(result.iat, now, tolerance)) {
            return Effect.fail(new Rejected("The access token's iat claim is not acceptable"))
          }
          if (!audienceMatches(result.aud, resource)) {
            return Effect.fail(new Rejected("The access token was not issued for this resource"))
          }
          if (!isSubject(result.sub)) {
            return Effect.fail(new Rejected("The access token names no subject"))
          }
          return Effect.succeed({
            issuer: options.issuer,
            subject: result.sub,
            clientId: result.client_id,
            scopes: scopesOf(claims),
            expiresAt: result.exp,
            claims
          })
        })
      )
  }
}
