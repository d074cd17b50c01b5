/**
 * The keys that seal `requestState`: an ordered, non-empty {@link KeyRing}
 * whose first key seals and all of whose keys unseal, so a fleet rotates by
 * prepending a key, deploying, and dropping the old one a TTL later. Built
 * from ready keys, raw bytes, one random key (the single-instance default,
 * with a warning), or `MRTR_REQUEST_STATE_KEYS`. Re-exported by
 * `RequestState`, whose codec uses it.
 *
 * Gotchas: key ids travel in clear in every state (`[A-Za-z0-9_-]{1,64}`; a
 * missing id is derived from the key, the same on every instance); a
 * configuration error names the entry by position and never echoes the key.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr (requestState integrity);
 * `docs/architecture.md`, "The engine: journal and replay" (sealing).
 *
 * @since 0.2.0
 */
import { Config, Effect, Logger, Option, Redacted, Result, Schema, SchemaIssue } from "effect"
import { Aead, Digest, SecureRandom } from "effect/crypto"
import { Base64Url } from "effect/encoding"

/**
 * A key ring that cannot be built: no keys, a key that is not 32 bytes, a key
 * id outside `[A-Za-z0-9_-]{1,64}`, or a duplicate key id. The message names
 * the offending entry by position and never contains key material.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidKeyRing extends Schema.TaggedError<InvalidKeyRing>()("InvalidKeyRing", {
  message: Schema.String
}) {}

/**
 * One key of a {@link KeyRing}: its id, written in clear in the envelope, and
 * an XChaCha20-Poly1305 key (32 bytes).
 *
 * @category models
 * @since 0.1.0
 */
export interface KeyRingEntry {
  readonly id: string
  readonly key: Aead.Key
}

/**
 * An ordered, non-empty list of keys. The first is current: it seals every
 * new `requestState`. All of them unseal, so a fleet rotates by prepending a
 * new key, deploying, and dropping the old key once states sealed with it
 * have expired (one TTL later).
 *
 * Build one with {@link KeyRing.make}, {@link KeyRing.fromBytes},
 * {@link KeyRing.generate} or {@link KeyRing.fromConfig}.
 *
 * @category models
 * @since 0.1.0
 */
export interface KeyRing {
  readonly keys: readonly [KeyRingEntry, ...Array<KeyRingEntry>]
}

/**
 * Name of the environment variable read by {@link KeyRing.fromConfig}.
 *
 * @category config
 * @since 0.1.0
 */
export const keysConfigName = "MRTR_REQUEST_STATE_KEYS"

const keyIdPattern = /^[A-Za-z0-9_-]{1,64}$/
const keyLength = 32
const algorithm = Aead.xchacha20Poly1305
const encoder = new TextEncoder()
const keyIdDomain = encoder.encode("mrtr/requestState/keyId\u0000")

const makeKeyRing = (entries: ReadonlyArray<KeyRingEntry>): Effect.Effect<KeyRing, InvalidKeyRing> =>
  Effect.suspend(() => {
    if (entries.length === 0) {
      return Effect.fail(new InvalidKeyRing({ message: "A key ring needs at least one key" }))
    }
    const seen = new Set<string>()
    for (let i = 0; i < entries.length; i++) {
      const { id, key } = entries[i]!
      if (!keyIdPattern.test(id)) {
        return Effect.fail(
          new InvalidKeyRing({ message: `Key ${i + 1}: the key id must match [A-Za-z0-9_-]{1,64}` })
        )
      }
      if (seen.has(id)) {
        return Effect.fail(new InvalidKeyRing({ message: `Key ${i + 1}: duplicate key id "${id}"` }))
      }
      if (key.algorithm.name !== algorithm.name) {
        return Effect.fail(
          new InvalidKeyRing({ message: `Key ${i + 1}: expected an XChaCha20-Poly1305 key, got ${key.algorithm.name}` })
        )
      }
      seen.add(id)
    }
    const keys = entries.map(({ id, key }) => ({ id, key }))
    return Effect.succeed({ keys: keys as unknown as KeyRing["keys"] })
  })

// Default key id: the first 6 bytes (8 base64url characters) of
// SHA-256("mrtr/requestState/keyId\0" ‖ key). Deterministic, so every instance
// of a fleet derives the same id from the same key; the domain prefix keeps the
// key's plain SHA-256 out of the envelope, and a prefix of a hash of 256 random
// bits reveals nothing usable. Runs once per key, off the hot path.
const deriveKeyId = (bytes: Uint8Array): Effect.Effect<string, never, Digest.Digest> =>
  Effect.gen(function*() {
    const digest = yield* Digest.Digest
    const input = new Uint8Array(keyIdDomain.length + bytes.length)
    input.set(keyIdDomain, 0)
    input.set(bytes, keyIdDomain.length)
    const hash = yield* digest.digest(Digest.sha256, input)
    return Base64Url.encode(hash.subarray(0, 6))
  })

const fromBytes = (
  keys: ReadonlyArray<{ readonly id?: string | undefined; readonly bytes: Uint8Array }>
): Effect.Effect<KeyRing, InvalidKeyRing> =>
  Effect.gen(function*() {
    const entries: Array<KeyRingEntry> = []
    for (let i = 0; i < keys.length; i++) {
      const { bytes, id } = keys[i]!
      if (bytes.length !== keyLength) {
        return yield* new InvalidKeyRing({
          message: `Key ${i + 1}: must be ${keyLength} bytes, got ${bytes.length}`
        })
      }
      const key = yield* Aead.key(algorithm, bytes).pipe(
        Effect.mapError(() => new InvalidKeyRing({ message: `Key ${i + 1}: not a valid XChaCha20-Poly1305 key` }))
      )
      entries.push({ id: id ?? (yield* deriveKeyId(bytes)), key })
    }
    return yield* makeKeyRing(entries)
  }).pipe(Effect.provide(Digest.layerWebCrypto))

const generate: Effect.Effect<KeyRing> = Effect.gen(function*() {
  const random = yield* SecureRandom.SecureRandom
  const bytes = yield* random.randomBytes(keyLength)
  const ring = yield* Effect.orDie(fromBytes([{ bytes }]))
  yield* warnRandomKey
  return ring
}).pipe(Effect.provide(SecureRandom.layerWebCrypto))

// Once per process (even with two copies of this module loaded), and on
// stderr: a stdio server's stdout carries the protocol.
const warnedKey = Symbol.for("@mrtr/core/RequestState/randomKeyWarned")
const warnRandomKey: Effect.Effect<void> = Effect.suspend(() => {
  const registry = globalThis as { [warnedKey]?: true }
  if (registry[warnedKey] === true) return Effect.void
  registry[warnedKey] = true
  return Effect.logWarning(
    `requestState is sealed with a random per-process key: it will not survive a restart and will not be ` +
      `accepted by other instances. Set ${keysConfigName} for a fleet or for restarts.`
  ).pipe(Effect.provideService(Logger.LogToStderr, true))
})

const configError = (message: string): Config.ConfigError =>
  new Config.ConfigError(
    new Schema.SchemaError(new SchemaIssue.Pointer([keysConfigName], new SchemaIssue.InvalidValue({ message })))
  )

// Parses `[id:]base64url(,[id:]base64url)*`. Messages name entries by position
// and never echo the value, which is secret.
const parseKeyList = (
  raw: string
): Result.Result<Array<{ readonly id?: string | undefined; readonly bytes: Uint8Array }>, string> => {
  const parts = raw.split(",")
  const keys: Array<{ readonly id?: string | undefined; readonly bytes: Uint8Array }> = []
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!.trim()
    const where = `entry ${i + 1}`
    if (entry === "") {
      return Result.fail(`${where} is empty (expected [id:]base64url-key, comma-separated)`)
    }
    const colon = entry.indexOf(":")
    const id = colon === -1 ? undefined : entry.slice(0, colon).trim()
    const encoded = colon === -1 ? entry : entry.slice(colon + 1).trim()
    if (id !== undefined && !keyIdPattern.test(id)) {
      return Result.fail(`${where}: the key id must match [A-Za-z0-9_-]{1,64}`)
    }
    const decoded = Base64Url.decode(encoded)
    if (Result.isFailure(decoded)) {
      return Result.fail(`${where}: the key is not valid base64url`)
    }
    if (decoded.success.length !== keyLength) {
      return Result.fail(`${where}: the key must decode to ${keyLength} bytes, got ${decoded.success.length}`)
    }
    keys.push(id === undefined ? { bytes: decoded.success } : { id, bytes: decoded.success })
  }
  return Result.succeed(keys)
}

const fromConfig: Effect.Effect<KeyRing, Config.ConfigError> = Effect.gen(function*() {
  const raw = yield* Config.option(Config.Redacted(keysConfigName))
  if (Option.isNone(raw)) {
    return yield* generate
  }
  const parsed = parseKeyList(Redacted.value(raw.value))
  if (Result.isFailure(parsed)) {
    return yield* Effect.fail(configError(parsed.failure))
  }
  return yield* fromBytes(parsed.success).pipe(Effect.mapError((error) => configError(error.message)))
})

/**
 * Constructors of {@link KeyRing}.
 *
 * - `make(entries)`: from ready keys; checks that there is at least one, that
 *   ids match `[A-Za-z0-9_-]{1,64}` and are unique, and that every key is an
 *   XChaCha20-Poly1305 key. Fails with {@link InvalidKeyRing}.
 * - `fromBytes(keys)`: from raw 32-byte keys. A missing `id` defaults to the
 *   first 6 bytes of SHA-256(`"mrtr/requestState/keyId\0"` ‖ key) in base64url
 *   (8 characters): deterministic, so every instance derives the same id.
 *   Fails with {@link InvalidKeyRing}.
 * - `generate`: one random key. The single-instance default: it logs a
 *   warning (once per process, on stderr with the default logger) that
 *   states will not survive a restart nor be accepted by other instances.
 * - `fromConfig`: reads `Config.Redacted("MRTR_REQUEST_STATE_KEYS")`, a
 *   comma-separated list of base64url-encoded 32-byte keys, each optionally
 *   prefixed `id:` (e.g. `k2:…,k1:…`); the first is current. An absent (or,
 *   with the default env provider, empty) variable falls back to `generate`.
 *   An invalid entry fails with a `ConfigError` naming the entry by position
 *   (never its value).
 *
 * Every constructor runs on `effect/crypto` with its own `SecureRandom` and
 * `Digest` layers, so none has requirements.
 *
 * @category constructors
 * @since 0.1.0
 */
export const KeyRing: {
  readonly make: (entries: ReadonlyArray<KeyRingEntry>) => Effect.Effect<KeyRing, InvalidKeyRing>
  readonly fromBytes: (
    keys: ReadonlyArray<{ readonly id?: string | undefined; readonly bytes: Uint8Array }>
  ) => Effect.Effect<KeyRing, InvalidKeyRing>
  readonly generate: Effect.Effect<KeyRing>
  readonly fromConfig: Effect.Effect<KeyRing, Config.ConfigError>
} = {
  make: makeKeyRing,
  fromBytes,
  generate,
  fromConfig
}
