import { describe, expect, it } from "@effect/vitest"
import { Aead } from "effect/crypto"
import { nativeXChaCha20Poly1305, scratchIsClear } from "../src/internal/nativeXChaCha.ts"

const hex = (text: string) => Uint8Array.from(text.match(/../g)!.map((byte) => parseInt(byte, 16)))
const toHex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")

/** A seeded PRNG (mulberry32), so every case is reproducible. */
const bytesFrom = (seed: number) => {
  let a = seed >>> 0
  return (length: number) =>
    Uint8Array.from({ length }, () => {
      a = (a + 0x6d2b79f5) >>> 0
      let t = Math.imul(a ^ (a >>> 15), a | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      return ((t ^ (t >>> 14)) >>> 0) & 0xff
    })
}

/** A copy of `data` with one bit of byte `index` flipped. */
const flipped = (data: Uint8Array, index: number) => {
  const copy = data.slice()
  copy[index]! ^= 0x01
  return copy
}

const pure = Aead.xchacha20Poly1305.implementation!
const native = nativeXChaCha20Poly1305!

describe("XChaCha20-Poly1305 on node:crypto", () => {
  it("is available on this Node.js (20.16 and later have process.getBuiltinModule)", () => {
    expect(nativeXChaCha20Poly1305).toBeDefined()
  })

  it("gives the test vector of draft-irtf-cfrg-xchacha-03, appendix A.3.1", () => {
    const plaintext = new TextEncoder().encode(
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
    )
    const aad = hex("50515253c0c1c2c3c4c5c6c7")
    const key = hex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
    const nonce = hex("404142434445464748494a4b4c4d4e4f5051525354555657")
    const expected = "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb" +
      "731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452" +
      "2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9" +
      "21f9664c97637da9768812f615c68b13b52e" + "c0875924c1c7987947deafd8780acf49"
    expect(toHex(native.encrypt(key, nonce, plaintext, aad))).toBe(expected)
    expect(toHex(pure.encrypt(key, nonce, plaintext, aad))).toBe(expected)
    expect(native.decrypt(key, nonce, hex(expected), aad)).toEqual(plaintext)
  })

  it("gives the same bytes as effect's pure TypeScript implementation, both ways", () => {
    const bytes = bytesFrom(0x5eed)
    for (const length of [0, 1, 15, 16, 63, 64, 65, 127, 128, 129, 1000, 4097]) {
      for (const aadLength of [0, 1, 17, 120]) {
        const key = bytes(32)
        const nonce = bytes(24)
        const plaintext = bytes(length)
        const aad = bytes(aadLength)
        const sealed = native.encrypt(key, nonce, plaintext, aad)
        expect(toHex(sealed)).toBe(toHex(pure.encrypt(key, nonce, plaintext, aad)))
        expect(pure.decrypt(key, nonce, sealed, aad)).toEqual(plaintext)
        expect(native.decrypt(key, nonce, sealed, aad)).toEqual(plaintext)
      }
    }
  })

  it("rejects a changed tag, ciphertext, nonce, key or aad, and a ciphertext shorter than the tag", () => {
    const bytes = bytesFrom(7)
    const key = bytes(32)
    const nonce = bytes(24)
    const aad = bytes(40)
    const sealed = native.encrypt(key, nonce, bytes(200), aad)
    expect(native.decrypt(key, nonce, flipped(sealed, sealed.length - 1), aad)).toBeUndefined()
    expect(native.decrypt(key, nonce, flipped(sealed, 0), aad)).toBeUndefined()
    // the first 16 nonce bytes go through HChaCha20, the last 8 into ChaCha20-Poly1305
    expect(native.decrypt(key, flipped(nonce, 3), sealed, aad)).toBeUndefined()
    expect(native.decrypt(key, flipped(nonce, 20), sealed, aad)).toBeUndefined()
    expect(native.decrypt(flipped(key, 31), nonce, sealed, aad)).toBeUndefined()
    expect(native.decrypt(key, nonce, sealed, flipped(aad, 39))).toBeUndefined()
    expect(native.decrypt(key, nonce, sealed, aad.subarray(1))).toBeUndefined()
    expect(native.decrypt(key, nonce, sealed.subarray(0, sealed.length - 1), aad)).toBeUndefined()
    expect(native.decrypt(key, nonce, sealed.subarray(0, 15), aad)).toBeUndefined()
    expect(native.decrypt(key, nonce, new Uint8Array(0), aad)).toBeUndefined()
  })

  it("refuses keys and nonces of the wrong length, as the pure implementation does", () => {
    const bytes = bytesFrom(3)
    const plaintext = bytes(10)
    const sealed = native.encrypt(bytes(32), bytes(24), plaintext, new Uint8Array(0))
    for (
      const [key, nonce] of [[bytes(31), bytes(24)], [bytes(0), bytes(24)], [bytes(32), bytes(23)], [
        bytes(32),
        bytes(12)
      ], [bytes(32), bytes(25)]] as const
    ) {
      expect(() => native.encrypt(key, nonce, plaintext, new Uint8Array(0))).toThrow(RangeError)
      expect(() => native.decrypt(key, nonce, sealed, new Uint8Array(0))).toThrow(RangeError)
      expect(() => pure.encrypt(key, nonce, plaintext, new Uint8Array(0))).toThrow()
    }
  })

  it("leaves its inputs unchanged (the key is the caller's, not a copy)", () => {
    const bytes = bytesFrom(11)
    const key = bytes(32)
    const nonce = bytes(24)
    const plaintext = bytes(100)
    const aad = bytes(12)
    const before = [key, nonce, plaintext, aad].map(toHex)
    const sealed = native.encrypt(key, nonce, plaintext, aad)
    const sealedBefore = toHex(sealed)
    native.decrypt(key, nonce, sealed, aad)
    expect([key, nonce, plaintext, aad].map(toHex)).toEqual(before)
    expect(toHex(sealed)).toBe(sealedBefore)
  })

  it("leaves no key material in its shared scratch space, after a success, a refused tag or a throw midway", () => {
    const bytes = bytesFrom(21)
    const key = bytes(32)
    const nonce = bytes(24)
    const aad = bytes(9)
    const plaintext = bytes(50)
    const sealed = native.encrypt(key, nonce, plaintext, aad)
    expect(scratchIsClear()).toBe(true)
    expect(native.decrypt(key, nonce, sealed, aad)).toEqual(plaintext)
    expect(scratchIsClear()).toBe(true)
    expect(native.decrypt(key, nonce, flipped(sealed, 0), aad)).toBeUndefined()
    expect(scratchIsClear()).toBe(true)
    // a nonce of the right length that fails after the key was copied in
    const failing = {
      length: 24,
      subarray: () => {
        throw new TypeError("not bytes")
      }
    } as unknown as Uint8Array
    expect(() => native.encrypt(key, failing, plaintext, aad)).toThrow(TypeError)
    expect(scratchIsClear()).toBe(true)
    expect(() => native.decrypt(key, failing, sealed, aad)).toThrow(TypeError)
    expect(scratchIsClear()).toBe(true)
    // and the next call is unaffected
    expect(toHex(native.encrypt(key, nonce, plaintext, aad))).toBe(toHex(sealed))
  })
})
