/**
 * Seals the value a user submits on a secure (URL-mode) elicitation's page,
 * so that the `InteractionStore` (Redis, in a fleet) only ever holds a
 * ciphertext that nothing but the conversation can open.
 *
 * `Elicitation.secure` draws an X25519 key pair for each interaction: the
 * public key goes into the store with the page's form (`sealingKey`), the
 * private key into the conversation's journal (so it travels sealed by the
 * key ring in `requestState`, or in a task's sealed journal, and any instance
 * of a fleet that takes the retry holds it). The page seals the submitted
 * value to the public key ({@link seal}); the retry opens it ({@link open}).
 * A Redis reader (a dump, a replica, `MONITOR`) sees the public key and the
 * ciphertext, never the value, and no key ring needs to reach the page or
 * the store. The construction is ECIES: an ephemeral X25519 key, HKDF-SHA256
 * over the shared secret (salt: both public keys; info: the interaction id)
 * and AES-256-GCM with the interaction id as associated data, so a sealed
 * value opens only for the interaction it was sealed for.
 *
 * Gotcha: whoever can write to the store can still change what the page
 * shows or replace its public key; the store is trusted with integrity (as
 * the replay guard is), the sealing protects the secret from its readers.
 *
 * Source: MCP 2026-07-28, client/elicitation (URL mode, security
 * considerations: sensitive data must not pass through the client).
 *
 * @since 0.4.0
 */
import { Effect, Layer, Result } from "effect"
import { Aead, Kdf, KeyAgreement, SecureRandom } from "effect/crypto"

/**
 * An interaction's key pair, each key as 43 base64url characters (32 bytes).
 *
 * @category models
 * @since 0.4.0
 */
export interface KeyPair {
  readonly privateKey: string
  readonly publicKey: string
}

const version = "i1"
const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { fatal: true })
const nonceLength = 12
const keyLength = 32
const infoPrefix = encoder.encode("mrtr/interaction/v1\u0000")
const keyPattern = /^[A-Za-z0-9_-]{43}$/

const crypto = Layer.mergeAll(KeyAgreement.layerWebCrypto, Aead.layerWebCrypto, Kdf.layerWebCrypto).pipe(
  Layer.provideMerge(SecureRandom.layerWebCrypto)
)

const toBase64Url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")
const fromKey = (text: string): Uint8Array | undefined =>
  keyPattern.test(text) ? new Uint8Array(Buffer.from(text, "base64url")) : undefined

const concat = (...parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

// The AES-256-GCM key of one sealed value: HKDF-SHA256 over the shared secret.
const contentKey = Effect.fnUntraced(function*(
  shared: Uint8Array,
  ephemeral: Uint8Array,
  recipient: Uint8Array,
  id: string
) {
  const kdf = yield* Kdf.Kdf
  const bytes = yield* kdf.derive(Kdf.hkdfSha256, shared, {
    salt: concat(ephemeral, recipient),
    info: concat(infoPrefix, encoder.encode(id)),
    length: keyLength
  })
  return yield* Aead.key(Aead.aes256Gcm, bytes)
})

/**
 * A fresh key pair for one interaction, from WebCrypto's randomness.
 *
 * @category constructors
 * @since 0.4.0
 */
export const generate: Effect.Effect<KeyPair> = Effect.gen(function*() {
  const agreement = yield* KeyAgreement.KeyAgreement
  const pair = yield* agreement.generateKeyPair(KeyAgreement.x25519)
  return {
    privateKey: toBase64Url(yield* KeyAgreement.toBytes(pair.privateKey)),
    publicKey: toBase64Url(yield* KeyAgreement.toBytes(pair.publicKey))
  }
}).pipe(Effect.provide(crypto), Effect.orDie)

/**
 * The public key of a private key (both base64url), `undefined` for a string
 * that is not a key.
 *
 * @category constructors
 * @since 0.4.0
 */
export const publicKeyOf = (privateKey: string): Effect.Effect<string | undefined> => {
  const bytes = fromKey(privateKey)
  if (bytes === undefined) return Effect.succeed(undefined)
  return Effect.gen(function*() {
    const agreement = yield* KeyAgreement.KeyAgreement
    const key = yield* KeyAgreement.privateKey(KeyAgreement.x25519, bytes)
    return toBase64Url(yield* KeyAgreement.toBytes(yield* agreement.publicKeyOf(key)))
  }).pipe(
    Effect.provide(crypto),
    Effect.catch(() => Effect.succeed(undefined))
  )
}

/**
 * Seals `content` (a JSON object) to the interaction `id`'s public key:
 * `i1.<base64url(ephemeral public key ‖ nonce ‖ ciphertext ‖ tag)>`. Dies
 * when `publicKey` is not an X25519 public key (the store's record was
 * altered: nothing is sealed to a key nobody chose).
 *
 * @category sealing
 * @since 0.4.0
 */
export const seal = (
  publicKey: string,
  id: string,
  content: Readonly<Record<string, unknown>>
): Effect.Effect<string> => {
  const recipient = fromKey(publicKey)
  if (recipient === undefined) return Effect.die(new Error("The interaction's sealing key is not an X25519 key"))
  return Effect.gen(function*() {
    const agreement = yield* KeyAgreement.KeyAgreement
    const aead = yield* Aead.Aead
    const random = yield* SecureRandom.SecureRandom
    const ephemeral = yield* agreement.generateKeyPair(KeyAgreement.x25519)
    const ephemeralBytes = yield* KeyAgreement.toBytes(ephemeral.publicKey)
    const shared = yield* agreement.deriveSharedSecret(
      ephemeral.privateKey,
      yield* KeyAgreement.publicKey(KeyAgreement.x25519, recipient)
    )
    const key = yield* contentKey(shared, ephemeralBytes, recipient, id)
    const nonce = yield* random.randomBytes(nonceLength)
    const ciphertext = yield* aead.encrypt(key, encoder.encode(JSON.stringify(content)), {
      nonce,
      aad: encoder.encode(id)
    })
    return `${version}.${toBase64Url(concat(ephemeralBytes, nonce, ciphertext))}`
  }).pipe(Effect.provide(crypto), Effect.orDie)
}

/**
 * Opens a value {@link seal}ed for the interaction `id` with its private key:
 * the JSON object, or `undefined` when `sealed` was not sealed to this key
 * for this id (or was altered).
 *
 * @category sealing
 * @since 0.4.0
 */
export const open = (
  privateKey: string,
  id: string,
  sealed: string
): Effect.Effect<Readonly<Record<string, unknown>> | undefined> => {
  const ownBytes = fromKey(privateKey)
  const [tag, body, ...rest] = sealed.split(".")
  if (ownBytes === undefined || tag !== version || body === undefined || rest.length > 0) {
    return Effect.succeed(undefined)
  }
  const bytes = new Uint8Array(Buffer.from(body, "base64url"))
  if (bytes.length < keyLength + nonceLength + 16) return Effect.succeed(undefined)
  const ephemeralBytes = bytes.subarray(0, keyLength)
  const nonce = bytes.subarray(keyLength, keyLength + nonceLength)
  return Effect.gen(function*() {
    const agreement = yield* KeyAgreement.KeyAgreement
    const aead = yield* Aead.Aead
    const own = yield* KeyAgreement.privateKey(KeyAgreement.x25519, ownBytes)
    const recipient = yield* KeyAgreement.toBytes(yield* agreement.publicKeyOf(own))
    const shared = yield* agreement.deriveSharedSecret(
      own,
      yield* KeyAgreement.publicKey(KeyAgreement.x25519, ephemeralBytes)
    )
    const key = yield* contentKey(shared, ephemeralBytes, recipient, id)
    const plaintext = yield* aead.decrypt(key, bytes.subarray(keyLength + nonceLength), {
      nonce,
      aad: encoder.encode(id)
    })
    const parsed = Result.try(() => JSON.parse(decoder.decode(plaintext)) as unknown)
    return Result.isSuccess(parsed) && typeof parsed.success === "object" && parsed.success !== null &&
        !Array.isArray(parsed.success)
      ? parsed.success as Readonly<Record<string, unknown>>
      : undefined
  }).pipe(
    Effect.provide(crypto),
    Effect.catch(() => Effect.succeed(undefined))
  )
}
