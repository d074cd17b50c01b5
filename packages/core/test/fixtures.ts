import { Layer } from "effect"
import { RequestState } from "../src/index.ts"

/** Fixed key bytes: every "server instance" built from them shares a key ring and nothing else. */
export const fixedKeys: ReadonlyArray<Uint8Array> = [new Uint8Array(32).fill(7)]

/** A brand-new codec instance (own Aead, own SecureRandom pool) over the given key bytes. */
export const codecLayer = (keys: ReadonlyArray<Uint8Array>) =>
  RequestState.RequestStateCodec.layer({
    keyRing: RequestState.KeyRing.fromBytes(keys.map((bytes) => ({ bytes })))
  }).pipe(Layer.orDie)

/** A binding of a sealed state, with a principal: what a `tools/call` of `book_meeting` by Alice binds to. */
export const aliceBinding: RequestState.Binding = {
  method: "tools/call",
  target: "book_meeting",
  argumentsDigest: "Zx3sQk1YbqM0T7rWcVd2aA",
  audience: "https://mcp.example.com/mcp",
  principal: "user:alice"
}
