/** `effect/Encoding` of the effect 4 betas, as far as `@effect/ai-openai` uses it, on effect 4.1's modules. */
export { decode as decodeBase64, encode as encodeBase64 } from "effect/encoding/Base64"
