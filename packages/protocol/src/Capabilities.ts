/**
 * Which client capabilities an MRTR input request needs, and whether a
 * client's declared capabilities cover them.
 *
 * In 2026-07-28 a client declares its capabilities on every request
 * (`_meta["io.modelcontextprotocol/clientCapabilities"]`). A server MUST only
 * put input requests in `InputRequiredResult.inputRequests` that the client
 * declared support for in that same request; when a request cannot be served
 * without an undeclared capability, the server answers -32021
 * (`MissingRequiredClientCapability`, `data.requiredCapabilities`).
 *
 * Requirement objects use the `ClientCapabilities` shape. For elicitation,
 * `{}` means form mode (as in a declaration), `{ url: {} }` means URL mode
 * only and `{ form: {}, url: {} }` means both.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (server requirements), client/elicitation,
 * client/sampling, client/roots.
 *
 * @since 0.1.0
 */
import type { ClientCapabilities } from "./internal/base.ts"
import * as SafeText from "./SafeText.ts"
import type { InputRequest } from "./Schema.ts"

type JsonObject = { readonly [x: string]: unknown }

interface ElicitationNeeds {
  readonly form: boolean
  readonly url: boolean
  readonly explicitForm: boolean
}

const elicitationNeeds = (
  elicitation: ClientCapabilities["elicitation"]
): ElicitationNeeds | undefined => {
  if (elicitation === undefined) return undefined
  const hasForm = elicitation.form !== undefined
  const hasUrl = elicitation.url !== undefined
  // `{}` (neither member) means form mode only.
  return { form: hasForm || !hasUrl, url: hasUrl, explicitForm: hasForm }
}

const elicitationOf = (needs: ElicitationNeeds): NonNullable<ClientCapabilities["elicitation"]> => {
  if (needs.form && needs.url) return { form: {}, url: {} }
  if (needs.url) return { url: {} }
  return needs.explicitForm ? { form: {} } : {}
}

/**
 * The client capabilities an input request needs:
 *
 * - `elicitation/create` in form mode (or without `mode`) → `{ elicitation: {} }`
 * - `elicitation/create` with `mode: "url"` → `{ elicitation: { url: {} } }`
 * - `sampling/createMessage` → `{ sampling: {} }`, plus `sampling.tools` when
 *   `tools` or `toolChoice` is present, plus `sampling.context` when
 *   `includeContext` is present and not `"none"` (both can combine)
 * - `roots/list` → `{ roots: {} }`
 *
 * MCP 2026-07-28, basic/patterns/mrtr; client/elicitation (modes);
 * client/sampling (tools, context).
 *
 * @category capabilities
 * @since 0.1.0
 */
export const requiredCapabilities = (inputRequest: InputRequest): ClientCapabilities => {
  switch (inputRequest.method) {
    case "elicitation/create":
      return inputRequest.params.mode === "url" ? { elicitation: { url: {} } } : { elicitation: {} }
    case "sampling/createMessage": {
      const params = inputRequest.params
      const needsTools = params.tools !== undefined || params.toolChoice !== undefined
      const needsContext = params.includeContext !== undefined && params.includeContext !== "none"
      return {
        sampling: {
          ...(needsContext ? { context: {} } : {}),
          ...(needsTools ? { tools: {} } : {})
        }
      }
    }
    case "roots/list":
      return { roots: {} }
  }
}

/**
 * The capabilities of `required` as a person reads them, for error
 * messages: each top-level capability, with its sub-capabilities after a
 * dot, and an `elicitation` without any named `form` (the mode an empty
 * `elicitation` declares); keys that are no plain identifiers are quoted as
 * JSON with every control, bidirectional control and line separator escaped.
 * E.g. `{ elicitation: {} }` → `"elicitation.form"`,
 * `{ elicitation: { url: {} }, sampling: { tools: {} } }` →
 * `"elicitation.url, sampling.tools"`, `{ roots: {} }` → `"roots"`.
 *
 * MCP 2026-07-28, basic (capabilities); client/elicitation (modes).
 *
 * @category formatting
 * @since 0.3.0
 */
export const describeCapabilities = (required: ClientCapabilities): string => {
  // A key from a peer is quoted as JSON, with what a terminal or log reader would act on escaped (SafeText).
  const name = (key: string) => /^[A-Za-z0-9_-]+$/.test(key) ? key : SafeText.json(JSON.stringify(key))
  const names: Array<string> = []
  for (const [key, value] of Object.entries(required as Record<string, unknown>)) {
    const subs = typeof value === "object" && value !== null && !Array.isArray(value) ? Object.keys(value) : []
    if (subs.length === 0) names.push(key === "elicitation" ? "elicitation.form" : name(key))
    else for (const sub of subs) names.push(`${name(key)}.${name(sub)}`)
  }
  return names.join(", ")
}

/**
 * The union (see `mergeCapabilities`) of the requirements of every input
 * request in a map (or array); `{}` when there are none.
 *
 * @category capabilities
 * @since 0.1.0
 */
export const requiredCapabilitiesForAll = (
  inputRequests: Readonly<Record<string, InputRequest>> | ReadonlyArray<InputRequest>
): ClientCapabilities =>
  (Array.isArray(inputRequests) ? inputRequests : Object.values(inputRequests)).reduce<ClientCapabilities>(
    (acc, request) => mergeCapabilities(acc, requiredCapabilities(request)),
    {}
  )

const mergeRecords = (
  a: Readonly<Record<string, JsonObject>> | undefined,
  b: Readonly<Record<string, JsonObject>> | undefined
): Record<string, JsonObject> | undefined => {
  if (a === undefined && b === undefined) return undefined
  // Null prototype: extension names are keys like any other (`__proto__`, `constructor`).
  const out: Record<string, JsonObject> = Object.create(null)
  for (const [key, value] of Object.entries(a ?? {})) out[key] = value
  for (const [key, value] of Object.entries(b ?? {})) out[key] = { ...(out[key] ?? {}), ...value }
  return out
}

/**
 * The union of two capability objects (requirement or declaration): a
 * capability is present in the result if it is present in either input.
 * Elicitation modes are combined, so `{ elicitation: {} }` (form) merged with
 * `{ elicitation: { url: {} } }` gives `{ elicitation: { form: {}, url: {} } }`.
 * `experimental` / `extensions` entries are merged key by key.
 *
 * @category combinators
 * @since 0.1.0
 */
export const mergeCapabilities = (a: ClientCapabilities, b: ClientCapabilities): ClientCapabilities => {
  const out: {
    -readonly [K in keyof ClientCapabilities]: ClientCapabilities[K]
  } = {}
  const experimental = mergeRecords(a.experimental, b.experimental)
  if (experimental !== undefined) out.experimental = experimental
  if (a.roots !== undefined || b.roots !== undefined) out.roots = { ...(a.roots ?? {}), ...(b.roots ?? {}) }
  if (a.sampling !== undefined || b.sampling !== undefined) {
    const context = a.sampling?.context ?? b.sampling?.context
    const tools = a.sampling?.tools ?? b.sampling?.tools
    out.sampling = {
      ...(context !== undefined ? { context } : {}),
      ...(tools !== undefined ? { tools } : {})
    }
  }
  const ea = elicitationNeeds(a.elicitation)
  const eb = elicitationNeeds(b.elicitation)
  if (ea !== undefined || eb !== undefined) {
    out.elicitation = elicitationOf({
      form: (ea?.form ?? false) || (eb?.form ?? false),
      url: (ea?.url ?? false) || (eb?.url ?? false),
      explicitForm: (ea?.explicitForm ?? false) || (eb?.explicitForm ?? false)
    })
  }
  const extensions = mergeRecords(a.extensions, b.extensions)
  if (extensions !== undefined) out.extensions = extensions
  return out
}

/**
 * The part of `required` that `declared` does not cover, or `undefined` when
 * every required capability is declared. Rules:
 *
 * - `roots`, `sampling`: present in `declared`.
 * - `sampling.tools` / `sampling.context`: the same member present in `declared.sampling`.
 * - elicitation form mode: `declared.elicitation` present with `form`, or
 *   with neither `form` nor `url` (`{}` = form only).
 * - elicitation URL mode: `declared.elicitation.url` present.
 * - `experimental[k]` / `extensions[k]`: the same key present in `declared`.
 *
 * The result is suitable as `data.requiredCapabilities` of a -32021 error.
 *
 * MCP 2026-07-28, basic (capabilities), basic/patterns/mrtr.
 *
 * @category capabilities
 * @since 0.1.0
 */
export const missingCapabilities = (
  required: ClientCapabilities,
  declared: ClientCapabilities
): ClientCapabilities | undefined => {
  const out: {
    -readonly [K in keyof ClientCapabilities]: ClientCapabilities[K]
  } = {}
  if (required.roots !== undefined && declared.roots === undefined) out.roots = required.roots
  if (required.sampling !== undefined) {
    if (declared.sampling === undefined) {
      out.sampling = required.sampling
    } else {
      const missingContext = required.sampling.context !== undefined && declared.sampling.context === undefined
      const missingTools = required.sampling.tools !== undefined && declared.sampling.tools === undefined
      if (missingContext || missingTools) {
        out.sampling = {
          ...(missingContext ? { context: {} } : {}),
          ...(missingTools ? { tools: {} } : {})
        }
      }
    }
  }
  const needs = elicitationNeeds(required.elicitation)
  if (needs !== undefined) {
    const has = elicitationNeeds(declared.elicitation)
    const missingForm = needs.form && !(has?.form ?? false)
    const missingUrl = needs.url && !(has?.url ?? false)
    if (missingForm || missingUrl) {
      out.elicitation = elicitationOf({ form: missingForm, url: missingUrl, explicitForm: missingForm && needs.url })
    }
  }
  for (const field of ["experimental", "extensions"] as const) {
    const req = required[field]
    if (req === undefined) continue
    const missing: Record<string, JsonObject> = Object.create(null)
    const has = declared[field]
    for (const [key, value] of Object.entries(req)) {
      if (has === undefined || !Object.hasOwn(has, key) || has[key] === undefined) missing[key] = value
    }
    if (Object.keys(missing).length > 0) out[field] = missing
  }
  return Object.keys(out).length === 0 ? undefined : out
}

/**
 * True when `declared` covers every capability in `required` (see
 * `missingCapabilities` for the rules). Note that a declared
 * `elicitation: {}` covers form mode only; URL mode needs `elicitation.url`.
 *
 * MCP 2026-07-28, basic/patterns/mrtr (server requirements).
 *
 * @category guards
 * @since 0.1.0
 */
export const isSatisfiedBy = (required: ClientCapabilities, declared: ClientCapabilities): boolean =>
  missingCapabilities(required, declared) === undefined

/**
 * True when a capability object declares / requires nothing (`{}`).
 *
 * @category guards
 * @since 0.1.0
 */
export const isEmptyCapabilities = (capabilities: ClientCapabilities): boolean =>
  Object.values(capabilities).every((value) => value === undefined)
