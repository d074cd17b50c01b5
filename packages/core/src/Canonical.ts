/**
 * Canonical JSON (RFC 8785, JCS) and the SHA-256 digests the engine pins
 * answers and bindings to.
 *
 * A question digest identifies an ask by `method` + canonical `params`, so an
 * answer recorded for one question is never reused for a changed one. An
 * arguments digest binds a sealed `requestState` to the exact arguments of
 * the request that produced it.
 * Source: MCP 2026-07-28, basic/patterns/mrtr ("bind ... a digest of its key params").
 *
 * @since 0.1.0
 */
import canonicalize from "canonicalize"
import { Effect } from "effect"
import { Digest } from "effect/crypto"
import { Base64Url } from "effect/encoding"

const encoder = new TextEncoder()

/**
 * The RFC 8785 canonical form of a JSON value: object keys sorted, no
 * whitespace, numbers in their shortest form. `undefined` members are dropped.
 *
 * @since 0.1.0
 */
export const canonicalJson = (value: unknown): string => canonicalize(value) ?? "null"

/**
 * SHA-256 of the canonical JSON of `value`, base64url without padding.
 *
 * `bytes` truncates the digest (default 32 bytes = 43 characters; 16 bytes =
 * 22 characters is what the journal stores per question).
 * Requires the `Digest` service from `effect/crypto`.
 *
 * @since 0.1.0
 */
export const digestOf = (value: unknown, bytes = 32): Effect.Effect<string, never, Digest.Digest> =>
  Digest.Digest.use((digest) =>
    Effect.map(
      digest.digest(Digest.sha256, encoder.encode(canonicalJson(value))),
      (hash) => Base64Url.encode(hash.subarray(0, bytes))
    )
  )
