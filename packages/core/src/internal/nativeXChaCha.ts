/**
 * XChaCha20-Poly1305 on the runtime's native ChaCha20-Poly1305, as an
 * `effect/crypto` `Aead.Implementation` for `Aead.layerWebCryptoWith`.
 *
 * XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03, section 2.3) is
 * ChaCha20-Poly1305 (RFC 8439) under a subkey: `HChaCha20(key, nonce[0..16])`
 * with the 12-byte nonce `0x00000000 ‖ nonce[16..24]`. The subkey comes from
 * `@noble/ciphers` (`hchacha`, one ChaCha block in TypeScript), the AEAD from
 * `node:crypto` (OpenSSL), about twice as fast per `requestState` as the pure
 * TypeScript XChaCha20-Poly1305 of `effect/crypto`, with the same bytes.
 *
 * {@link nativeXChaCha20Poly1305} is `undefined` where the runtime has no
 * `node:crypto` with `chacha20-poly1305` (browsers, Bun, Node.js before
 * 20.16, which lacks `process.getBuiltinModule`), on big-endian hosts, or
 * when a self-check against the pure TypeScript implementation on a fixed
 * input does not give the same bytes; the caller then keeps the pure one.
 *
 * Gotcha: the subkey and its nonce are derived into scratch arrays shared by
 * every call (allocating them per call cost more than the HChaCha20 block);
 * that is safe only because each call is synchronous from the derivation to
 * the cipher's creation, which copies both into OpenSSL, and the copy of the
 * key and the subkey are zeroed right after, also when either step throws.
 *
 * @internal
 */
import { hchacha } from "@noble/ciphers/chacha.js"
import { Aead } from "effect/crypto"

interface NativeCipher {
  setAAD(aad: Uint8Array): unknown
  update(data: Uint8Array): Uint8Array
  final(): Uint8Array
}

interface NativeCrypto {
  getCiphers(): Array<string>
  createCipheriv(
    algorithm: "chacha20-poly1305",
    key: Uint8Array,
    iv: Uint8Array,
    options: { readonly authTagLength: 16 }
  ): NativeCipher & { getAuthTag(): Uint8Array }
  createDecipheriv(
    algorithm: "chacha20-poly1305",
    key: Uint8Array,
    iv: Uint8Array,
    options: { readonly authTagLength: 16 }
  ): NativeCipher & { setAuthTag(tag: Uint8Array): unknown }
}

const TAG_LENGTH = 16

// "expand 32-byte k" as four little-endian words (RFC 8439, section 2.3).
const SIGMA = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574])

// The words below are views of byte arrays in the host's order; ChaCha's are
// little-endian.
const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1

const loadNativeCrypto = (): NativeCrypto | undefined => {
  const host = (globalThis as { readonly process?: { readonly getBuiltinModule?: (id: string) => unknown } }).process
  try {
    const crypto = host?.getBuiltinModule?.("node:crypto") as NativeCrypto | undefined
    return crypto !== undefined && typeof crypto.getCiphers === "function" &&
        crypto.getCiphers().includes("chacha20-poly1305")
      ? crypto
      : undefined
  } catch {
    return undefined
  }
}

// Scratch space of `derive`, allocated once: a typed array's `.buffer` taken
// per call moves it off V8's heap, which cost more (about 2 µs) than the
// HChaCha20 block itself. Safe to share: `derive` and its one use (creating a
// cipher, which copies the key and the nonce into OpenSSL) are synchronous,
// and `underSubkey` zeroes the key's copy and the subkey whatever happens.
const keyWords = new Uint32Array(8)
const keyBytes = new Uint8Array(keyWords.buffer)
const nonceWords = new Uint32Array(4)
const nonceBytes = new Uint8Array(nonceWords.buffer)
const subkeyWords = new Uint32Array(8)
const subkeyBytes = new Uint8Array(subkeyWords.buffer)
const ietfNonce = new Uint8Array(12)

/**
 * The ChaCha20-Poly1305 key and nonce of an XChaCha20-Poly1305 key and 24-byte
 * nonce, in the shared scratch arrays: valid until the next call; the caller
 * wipes the scratch (`wipe`) whatever happens.
 */
const derive = (key: Uint8Array, nonce: Uint8Array): void => {
  // The Aead layer checks both; this implementation may also be called directly.
  if (key.length !== 32) throw new RangeError("XChaCha20-Poly1305 keys must contain exactly 32 bytes")
  if (nonce.length !== 24) throw new RangeError("XChaCha20-Poly1305 nonces must contain exactly 24 bytes")
  keyBytes.set(key)
  nonceBytes.set(nonce.subarray(0, 16))
  hchacha(SIGMA, keyWords, nonceWords, subkeyWords)
  ietfNonce.set(nonce.subarray(16, 24), 4)
}

/** Zeroes the copy of the key and the subkey in the scratch space. */
const wipe = (): void => {
  keyWords.fill(0)
  subkeyWords.fill(0)
}

/**
 * `create` under the ChaCha20-Poly1305 key and nonce derived from `key` and
 * `nonce`; the scratch space is wiped after, also when the derivation or
 * `create` throws.
 */
const underSubkey = <C>(key: Uint8Array, nonce: Uint8Array, create: (subkey: Uint8Array, iv: Uint8Array) => C): C => {
  try {
    derive(key, nonce)
    return create(subkeyBytes, ietfNonce)
  } finally {
    wipe()
  }
}

const ALGORITHM = "chacha20-poly1305"
const OPTIONS = { authTagLength: TAG_LENGTH } as const

const make = (crypto: NativeCrypto): Aead.Implementation => ({
  encrypt: (key, nonce, plaintext, aad) => {
    const cipher = underSubkey(key, nonce, (subkey, iv) => crypto.createCipheriv(ALGORITHM, subkey, iv, OPTIONS))
    cipher.setAAD(aad)
    const head = cipher.update(plaintext)
    const tail = cipher.final()
    const tag = cipher.getAuthTag()
    const output = new Uint8Array(head.length + tail.length + TAG_LENGTH)
    output.set(head, 0)
    output.set(tail, head.length)
    output.set(tag, head.length + tail.length)
    return output
  },
  decrypt: (key, nonce, ciphertext, aad) => {
    if (ciphertext.length < TAG_LENGTH) return undefined
    const decipher = underSubkey(key, nonce, (subkey, iv) => crypto.createDecipheriv(ALGORITHM, subkey, iv, OPTIONS))
    const end = ciphertext.length - TAG_LENGTH
    decipher.setAAD(aad)
    decipher.setAuthTag(ciphertext.subarray(end))
    const head = decipher.update(ciphertext.subarray(0, end))
    let tail: Uint8Array
    try {
      // `final` throws only when the tag does not match.
      tail = decipher.final()
    } catch {
      head.fill(0)
      return undefined
    }
    if (tail.length === 0) return new Uint8Array(head.buffer, head.byteOffset, head.length)
    const output = new Uint8Array(head.length + tail.length)
    output.set(head, 0)
    output.set(tail, head.length)
    return output
  }
})

/** Same output as the pure TypeScript implementation on a fixed input, both ways, and a forged tag rejected. */
const agrees = (native: Aead.Implementation, reference: Aead.Implementation): boolean => {
  const bytes = (length: number, seed: number) => Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff)
  const key = bytes(32, 1)
  const nonce = bytes(24, 2)
  const plaintext = bytes(100, 3)
  const aad = bytes(20, 4)
  try {
    const sealed = native.encrypt(key, nonce, plaintext, aad)
    const expected = reference.encrypt(key, nonce, plaintext, aad)
    const opened = native.decrypt(key, nonce, expected, aad)
    const forged = expected.slice()
    forged[forged.length - 1]! ^= 1
    return sealed.length === expected.length && sealed.every((byte, i) => byte === expected[i]) &&
      opened !== undefined && opened.length === plaintext.length && opened.every((byte, i) => byte === plaintext[i]) &&
      native.decrypt(key, nonce, forged, aad) === undefined
  } catch {
    return false
  }
}

const load = (): Aead.Implementation | undefined => {
  if (!littleEndian) return undefined
  const crypto = loadNativeCrypto()
  const reference = Aead.xchacha20Poly1305.implementation
  if (crypto === undefined || reference === undefined) return undefined
  const native = make(crypto)
  return agrees(native, reference) ? native : undefined
}

/**
 * XChaCha20-Poly1305 on `node:crypto`, or `undefined` where it is not
 * available (see the module header).
 *
 * @internal
 */
export const nativeXChaCha20Poly1305: Aead.Implementation | undefined = load()

/**
 * Whether the scratch space holds no key material (every word of the key's
 * copy and of the subkey is zero): what each encryption and decryption leaves,
 * whatever happened. For tests.
 *
 * @internal
 */
export const scratchIsClear = (): boolean =>
  keyWords.every((word) => word === 0) && subkeyWords.every((word) => word === 0)
