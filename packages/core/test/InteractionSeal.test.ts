/**
 * `InteractionSeal`: a value sealed to an interaction's public key opens with
 * its private key for the same interaction id, and for nothing else (another
 * key, another id, one changed byte); the ciphertext does not contain it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { InteractionSeal } from "../src/engine/index.ts"

const id = "a".repeat(43)
const value = { api_key: "sk-live-0123456789" }

describe("InteractionSeal", () => {
  it.effect("opens for the interaction's private key and id only", () =>
    Effect.gen(function*() {
      const pair = yield* InteractionSeal.generate
      assert.strictEqual(yield* InteractionSeal.publicKeyOf(pair.privateKey), pair.publicKey)
      const sealed = yield* InteractionSeal.seal(pair.publicKey, id, value)
      assert.match(sealed, /^i1\.[A-Za-z0-9_-]+$/)
      assert.notInclude(Buffer.from(sealed.slice(3), "base64url").toString("latin1"), value.api_key)
      assert.notStrictEqual(yield* InteractionSeal.seal(pair.publicKey, id, value), sealed, "a fresh ephemeral key")
      assert.deepStrictEqual(yield* InteractionSeal.open(pair.privateKey, id, sealed), value)

      const other = yield* InteractionSeal.generate
      assert.isUndefined(yield* InteractionSeal.open(other.privateKey, id, sealed), "another interaction's key")
      assert.isUndefined(yield* InteractionSeal.open(pair.privateKey, "b".repeat(43), sealed), "another id")
      const bytes = Buffer.from(sealed.slice(3), "base64url")
      bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1
      assert.isUndefined(yield* InteractionSeal.open(pair.privateKey, id, `i1.${bytes.toString("base64url")}`))
      assert.isUndefined(yield* InteractionSeal.open(pair.privateKey, id, JSON.stringify(value)), "a value in clear")
      assert.isUndefined(yield* InteractionSeal.open("not a key", id, sealed))
      assert.isUndefined(yield* InteractionSeal.publicKeyOf("not a key"))
    }))
})
