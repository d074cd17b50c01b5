/**
 * Node module hooks that let `@effect/ai-openai` 4.0.0-beta.106 run on `effect` 4.1: that beta imports
 * `effect/unstable/*` (in 4.1 `effect/*`) and `effect/Encoding` (in 4.1 `effect/encoding/Base64`). Installed by
 * `register.mjs` (`node --import ./examples/agent/compat/register.mjs`); the examples' vitest config maps the same.
 */
const ENCODING = new URL("./Encoding.mjs", import.meta.url).href

export async function resolve(specifier, context, next) {
  if (specifier.startsWith("effect/unstable/")) {
    return next(`effect/${specifier.slice("effect/unstable/".length)}`, context)
  }
  if (specifier === "effect/Encoding") return next(ENCODING, context)
  return next(specifier, context)
}
