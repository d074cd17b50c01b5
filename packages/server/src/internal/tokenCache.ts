/**
 * A cache of verified access tokens in front of a `Verifier`, so that a
 * client presenting the same bearer token on every request pays for its
 * signature check (or its introspection call) once, not on every request.
 * Built on effect's `Cache` (bounded, least recently used out first).
 *
 * Only tokens that verified are kept: a refused token is checked again each
 * time (nothing learned from a bad token is reused), and so is one whose
 * keys were unavailable. An entry lives for `ttl` (default 1 minute) and
 * never past the token's own `exp`; the audience is part of the key (a token
 * verified for one resource is not taken for another).
 *
 * Gotchas: entries are keyed by the SHA-256 of the resource and the token,
 * so no token is kept in memory; a key removed from the issuer's JWKS, or a
 * token revoked at the introspection endpoint, is still honoured for at most
 * `ttl` (set `tokenCache: false` where revocation must take effect at once).
 * Source: RFC 7662 §4 (caching introspection responses); RFC 9068 §4.
 */
import { Cache, Duration, Effect, Exit, Option } from "effect"
import { createHash } from "node:crypto"
import type { VerifiedToken, Verifier } from "./tokenVerifier.ts"

/** Options of {@link cached}. */
export interface TokenCacheOptions {
  /**
   * How long a verified token is remembered (never past its `exp`): a revoked token is honoured for at most this.
   *
   * @default "1 minute"
   */
  readonly ttl?: Duration.Input | undefined
  /**
   * The most tokens remembered.
   *
   * @default 10_000
   */
  readonly capacity?: number | undefined
}

const keyOf = (token: string, resource: string) =>
  createHash("sha256").update(resource).update("\n").update(token).digest("base64url")

/** `verifier` with its successful verifications remembered (see the module header). */
export const cached = (verifier: Verifier, options: TokenCacheOptions = {}): Verifier => {
  const ttlMillis = Duration.toMillis(Duration.fromInputUnsafe(options.ttl ?? "1 minute"))
  const capacity = options.capacity ?? 10_000
  if (!Number.isSafeInteger(capacity) || capacity < 1) {
    throw new RangeError(`Authorization: tokenCache.capacity must be a positive integer, got ${capacity}`)
  }
  const cache = Effect.runSync(Cache.makeWith<string, VerifiedToken>(
    // Entries are only ever set after a verification; a lookup never happens.
    () => Effect.die("tokenCache: no lookup"),
    {
      capacity,
      timeToLive: (exit) => {
        if (Exit.isFailure(exit)) return Duration.zero
        const expiresAt = exit.value.expiresAt
        const untilExpiry = expiresAt === undefined ? ttlMillis : expiresAt * 1000 - Date.now()
        return Duration.millis(Math.max(0, Math.min(ttlMillis, untilExpiry)))
      }
    }
  ))
  return {
    issuer: verifier.issuer,
    verify: (token, resource) => {
      const key = keyOf(token, resource)
      return Effect.flatMap(Cache.getOption(cache, key), (found) =>
        Option.isSome(found)
          ? Effect.succeed(found.value)
          : Effect.tap(verifier.verify(token, resource), (verified) => Cache.set(cache, key, verified)))
    }
  }
}
