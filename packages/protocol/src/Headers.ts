/**
 * Streamable HTTP request headers of MCP 2026-07-28: the standard headers
 * that mirror the JSON-RPC body (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`), the custom `Mcp-Param-{Name}` headers that mirror tool
 * arguments annotated with `x-mcp-header`, the `=?base64?…?=` value encoding,
 * and the server-side check that headers match the body (-32020
 * HeaderMismatch, HTTP 400).
 *
 * Header names are case-insensitive; header values are case-sensitive.
 *
 * MCP 2026-07-28, basic/transports/streamable-http (request metadata, value
 * encoding, server validation); server/tools (`x-mcp-header`).
 *
 * @since 0.1.0
 */
import { McpError } from "./ErrorCode.ts"
import { MetaKey } from "./Meta.ts"

/**
 * `MCP-Protocol-Version`: on every POST; must equal
 * `params._meta["io.modelcontextprotocol/protocolVersion"]`.
 *
 * @category constants
 * @since 0.1.0
 */
export const PROTOCOL_VERSION_HEADER = "MCP-Protocol-Version" as const

/**
 * `Mcp-Method`: on every request; must equal the JSON-RPC `method`.
 *
 * @category constants
 * @since 0.1.0
 */
export const METHOD_HEADER = "Mcp-Method" as const

/**
 * `Mcp-Name`: on `tools/call` and `prompts/get` (= `params.name`) and
 * `resources/read` (= `params.uri`); value-encoded (see `encodeHeaderValue`).
 *
 * @category constants
 * @since 0.1.0
 */
export const NAME_HEADER = "Mcp-Name" as const

/**
 * Prefix of the custom headers mirroring `x-mcp-header` tool arguments:
 * `Mcp-Param-{Name}`.
 *
 * @category constants
 * @since 0.1.0
 */
export const PARAM_HEADER_PREFIX = "Mcp-Param-" as const

/**
 * All header names of this module in one object.
 *
 * MCP 2026-07-28, basic/transports/streamable-http (request metadata).
 *
 * @category constants
 * @since 0.1.0
 */
export const HeaderName = {
  protocolVersion: PROTOCOL_VERSION_HEADER,
  method: METHOD_HEADER,
  name: NAME_HEADER,
  paramPrefix: PARAM_HEADER_PREFIX
} as const

/**
 * The methods that require `Mcp-Name`, with the params member it mirrors:
 * `name` for `tools/call` and `prompts/get`, `uri` for `resources/read`, and
 * `taskId` for the Tasks extension's `tasks/get`, `tasks/update` and
 * `tasks/cancel` (SEP-2663 §Streamable HTTP: Routing Headers; never on the
 * removed `tasks/result` / `tasks/list`).
 *
 * @category constants
 * @since 0.1.0
 */
export const NAME_SOURCE: Readonly<Record<string, "name" | "uri" | "taskId">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId"
}

const SENTINEL = /^=\?base64\?(.*)\?=$/s
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const isSafeChar = (code: number): boolean => code >= 0x20 && code <= 0x7e

/**
 * True when `value` can be sent as a plain header value: only printable
 * ASCII (0x20–0x7E; tab and other controls excluded), no leading or trailing
 * space, and not itself of the form `=?base64?…?=`. The empty string is safe.
 *
 * MCP 2026-07-28, basic/transports/streamable-http (value encoding).
 *
 * @category guards
 * @since 0.1.0
 */
export const isPlainHeaderValue = (value: string): boolean => {
  for (let i = 0; i < value.length; i++) {
    if (!isSafeChar(value.charCodeAt(i))) return false
  }
  if (value.length > 0 && (value[0] === " " || value[value.length - 1] === " ")) return false
  return !SENTINEL.test(value)
}

const utf8ToBase64 = (value: string): string => {
  const bytes = new TextEncoder().encode(value)
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

const base64ToUtf8 = (base64: string): string | undefined => {
  if (!CANONICAL_BASE64.test(base64)) return undefined
  try {
    const binary = atob(base64)
    const bytes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}

/**
 * Encodes a value for `Mcp-Name` / `Mcp-Param-*`: returned unchanged when it
 * is a plain header value (`isPlainHeaderValue`), otherwise as
 * `=?base64?<base64 of the UTF-8 bytes>?=` (standard alphabet, padded).
 * Values that look like the sentinel are always encoded.
 *
 * Examples: `"us-west1"` → `us-west1`; `"Hello, 世界"` →
 * `=?base64?SGVsbG8sIOS4lueVjA==?=`; `" padded "` → `=?base64?IHBhZGRlZCA=?=`.
 *
 * MCP 2026-07-28, basic/transports/streamable-http (value encoding).
 *
 * @category encoding
 * @since 0.1.0
 */
export const encodeHeaderValue = (value: string): string =>
  isPlainHeaderValue(value) ? value : `=?base64?${utf8ToBase64(value)}?=`

/**
 * Decodes a received `Mcp-Name` / `Mcp-Param-*` value.
 *
 * - `=?base64?<b64>?=` (markers case-sensitive): the base64 payload must be
 *   canonical (standard alphabet, padded, length a multiple of 4) and decode
 *   to valid UTF-8; otherwise `undefined`.
 * - any other value: returned as is if every character is printable ASCII or
 *   tab (surrounding whitespace is tolerated, HTTP strips it); `undefined`
 *   when it contains control or non-ASCII characters, which a conforming
 *   client would have base64-encoded.
 *
 * MCP 2026-07-28, basic/transports/streamable-http (value encoding, server validation).
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeHeaderValue = (raw: string): string | undefined => {
  const match = SENTINEL.exec(raw)
  if (match !== null) return base64ToUtf8(match[1] ?? "")
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i)
    if (!isSafeChar(code) && code !== 0x09) return undefined
  }
  return raw
}

type Params = { readonly [x: string]: unknown } | undefined

const isRecord = (u: unknown): u is { readonly [x: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The body value `Mcp-Name` mirrors: `params.name` for `tools/call` and
 * `prompts/get`, `params.uri` for `resources/read`, `params.taskId` for
 * `tasks/get` / `tasks/update` / `tasks/cancel`; `undefined` for other
 * methods or when the member is not a string. (Not value-encoded.)
 *
 * MCP 2026-07-28, basic/transports/streamable-http (standard request headers).
 *
 * @category headers
 * @since 0.1.0
 */
export const nameFor = (method: string, params: Params): string | undefined => {
  const source = NAME_SOURCE[method]
  if (source === undefined || params === undefined) return undefined
  const value = params[source]
  return typeof value === "string" ? value : undefined
}

/**
 * One `x-mcp-header` annotation of a tool's `inputSchema`: the header suffix
 * (`Mcp-Param-{header}`) and the chain of `properties` keys leading to the
 * annotated argument.
 *
 * @category models
 * @since 0.1.0
 */
export interface HeaderAnnotation {
  readonly header: string
  readonly path: ReadonlyArray<string>
}

/**
 * Something with a tool `inputSchema` (a `Tool`, or just `{ inputSchema }`).
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolLike {
  readonly name?: string | undefined
  readonly inputSchema: { readonly [x: string]: unknown }
}

/**
 * The `x-mcp-header` annotations reachable from the `inputSchema` root
 * through `properties` keys only (the only valid placement), in schema order.
 * Annotations whose value is not a string are skipped; use
 * `headerAnnotationError` to validate a tool definition.
 *
 * MCP 2026-07-28, basic/transports/streamable-http (custom headers from tool parameters).
 *
 * @category headers
 * @since 0.1.0
 */
export const headerAnnotations = (tool: ToolLike): ReadonlyArray<HeaderAnnotation> => {
  const out: Array<HeaderAnnotation> = []
  const visit = (schema: { readonly [x: string]: unknown }, path: ReadonlyArray<string>): void => {
    const properties = schema.properties
    if (!isRecord(properties)) return
    for (const [key, sub] of Object.entries(properties)) {
      if (!isRecord(sub)) continue
      const header = sub["x-mcp-header"]
      if (typeof header === "string") out.push({ header, path: [...path, key] })
      visit(sub, [...path, key])
    }
  }
  visit(tool.inputSchema, [])
  return out
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const PRIMITIVE_TYPES = new Set(["string", "integer", "boolean", "number"])
const DATA_KEYWORDS = new Set(["const", "default", "enum", "examples"])

/**
 * Checks the `x-mcp-header` annotations of a tool definition and returns the
 * first violation as a human-readable reason, or `undefined` when the tool is
 * valid. A client on Streamable HTTP MUST drop tools for which this returns a
 * reason (and SHOULD log it). Rules:
 *
 * - the value is a non-empty string of HTTP token characters (RFC 9110
 *   `1*tchar`: no spaces, colons, controls or non-ASCII);
 * - values are unique, compared case-insensitively;
 * - the annotated property declares a primitive `type`: `string`, `integer`,
 *   `boolean`, or `number` (the spec forbids `number`, but the official
 *   conformance suite annotates `number` properties, so it is tolerated);
 * - the annotation sits on a property reachable from the root through
 *   `properties` keys only (not under `items`, `oneOf`/`anyOf`/`allOf`/`not`,
 *   `if`/`then`/`else`, `$defs`/`$ref`, …) and not on the root itself.
 *
 * MCP 2026-07-28, basic/transports/streamable-http (schema extension); server/tools.
 *
 * @category validation
 * @since 0.1.0
 */
export const headerAnnotationError = (tool: ToolLike): string | undefined => {
  const seen = new Map<string, string>()
  let error: string | undefined
  const fail = (reason: string) => {
    if (error === undefined) error = reason
  }
  const where = (path: ReadonlyArray<string>) => path.length === 0 ? "the inputSchema root" : `'${path.join(".")}'`
  const check = (header: unknown, schema: { readonly [x: string]: unknown }, path: ReadonlyArray<string>) => {
    if (typeof header !== "string" || header.length === 0) {
      return fail(`x-mcp-header on ${where(path)} must be a non-empty string`)
    }
    if (!TOKEN.test(header)) {
      return fail(`x-mcp-header '${header}' on ${where(path)} is not a valid HTTP header name token`)
    }
    const lower = header.toLowerCase()
    const previous = seen.get(lower)
    if (previous !== undefined) {
      return fail(`x-mcp-header '${header}' on ${where(path)} duplicates '${previous}' (case-insensitive)`)
    }
    seen.set(lower, header)
    const type = schema.type
    if (typeof type !== "string" || !PRIMITIVE_TYPES.has(type)) {
      return fail(`x-mcp-header '${header}' on ${where(path)} must annotate a string, integer or boolean property`)
    }
  }
  // `reachable`: the node is reached from the root through `properties` keys only.
  const visitSchema = (node: unknown, path: ReadonlyArray<string>, reachable: boolean, isRoot: boolean): void => {
    if (Array.isArray(node)) {
      for (const item of node) visitSchema(item, path, false, false)
      return
    }
    if (!isRecord(node)) return
    if ("x-mcp-header" in node) {
      if (!reachable || isRoot) {
        fail(`x-mcp-header on ${where(path)} is not statically reachable through 'properties'`)
      } else {
        check(node["x-mcp-header"], node, path)
      }
    }
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === "x-mcp-header" || DATA_KEYWORDS.has(keyword)) continue
      if (keyword === "properties" && isRecord(value)) {
        for (const [name, sub] of Object.entries(value)) visitSchema(sub, [...path, name], reachable, false)
      } else {
        visitSchema(value, [...path, keyword], false, false)
      }
    }
  }
  visitSchema(tool.inputSchema, [], true, true)
  return error
}

const valueAt = (args: unknown, path: ReadonlyArray<string>): unknown => {
  let current: unknown = args
  for (const key of path) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined
    current = current[key]
  }
  return current
}

/** String form of a primitive argument, or `undefined` for null / absent / non-primitive. */
const headerStringOf = (value: unknown): string | undefined => {
  switch (typeof value) {
    case "string":
      return value
    case "number":
      return Number.isFinite(value) ? String(value) : undefined
    case "boolean":
      return value ? "true" : "false"
    default:
      return undefined
  }
}

/**
 * The `Mcp-Param-{Name}` headers a client sends with a `tools/call` of
 * `tool`: for each `x-mcp-header: "Name"` annotation (see
 * `headerAnnotations`), the argument at that property path converted to a
 * string (strings as is, numbers in decimal via `String`, booleans as
 * `"true"`/`"false"`) and then `encodeHeaderValue`d. Arguments that are
 * absent, `null` or not primitive produce no header. Keys are
 * `Mcp-Param-{Name}` with `Name` as written in the schema.
 *
 * MCP 2026-07-28, basic/transports/streamable-http (client behavior).
 *
 * @category headers
 * @since 0.1.0
 */
export const paramHeaders = (tool: ToolLike, args: unknown): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const { header, path } of headerAnnotations(tool)) {
    const value = headerStringOf(valueAt(args, path))
    if (value !== undefined) out[`${PARAM_HEADER_PREFIX}${header}`] = encodeHeaderValue(value)
  }
  return out
}

/**
 * A request as far as header checks care: `method` and `params`.
 *
 * @category models
 * @since 0.1.0
 */
export interface HeaderCheckedMessage {
  readonly method: string
  readonly params?: Params
}

const protocolVersionOf = (params: Params): string | undefined => {
  const meta = params?._meta
  if (!isRecord(meta)) return undefined
  const version = meta[MetaKey.protocolVersion]
  return typeof version === "string" ? version : undefined
}

/**
 * The standard headers a client sends with a request, plus the
 * `Mcp-Param-*` headers when `tool` is given and the method is `tools/call`:
 * `MCP-Protocol-Version` (from `params._meta`, when present), `Mcp-Method`
 * and, for the methods of {@link NAME_SOURCE}, `Mcp-Name` (value-encoded).
 *
 * MCP 2026-07-28, basic/transports/streamable-http (request metadata).
 *
 * @category headers
 * @since 0.1.0
 */
export const requestHeaders = (message: HeaderCheckedMessage, tool?: ToolLike): Record<string, string> => {
  const out: Record<string, string> = {}
  const version = protocolVersionOf(message.params)
  if (version !== undefined) out[PROTOCOL_VERSION_HEADER] = version
  out[METHOD_HEADER] = message.method
  const name = nameFor(message.method, message.params)
  if (name !== undefined) out[NAME_HEADER] = encodeHeaderValue(name)
  if (tool !== undefined && message.method === "tools/call") {
    Object.assign(out, paramHeaders(tool, message.params?.arguments))
  }
  return out
}

const mismatch = (message: string): McpError => McpError.headerMismatch(`Header mismatch: ${message}`)

const sameParam = (decoded: string, body: string | number | boolean): boolean => {
  if (typeof body === "number") {
    if (decoded.trim() === "") return false
    const n = Number(decoded)
    return Number.isFinite(n) && n === body
  }
  return decoded === String(body)
}

/**
 * Server-side check that the HTTP headers of a request match its JSON-RPC
 * body. Returns a -32020 `McpError` (HTTP 400) describing the first problem,
 * or `undefined` when the headers are consistent.
 *
 * `headers(name)` returns a header's value or `undefined`; it is called with
 * the canonical names (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
 * `Mcp-Param-{Name}`) and must look them up case-insensitively (the Fetch
 * `Headers.get` does; for Node's `IncomingMessage` use
 * `(n) => req.headers[n.toLowerCase()]`).
 *
 * What is checked, in order:
 *
 * 1. `MCP-Protocol-Version` is present, and equals
 *    `params._meta["io.modelcontextprotocol/protocolVersion"]` when the body
 *    carries one (a missing `_meta` key is a -32602 matter for the caller).
 * 2. `Mcp-Method` is present and equals `method` (case-sensitive).
 * 3. For `tools/call`, `prompts/get`, `resources/read` and the three live
 *    task methods whose body has the mirrored member (`name` / `uri` / `taskId`): `Mcp-Name` is present, decodes
 *    (`decodeHeaderValue`), and equals it. For other methods `Mcp-Name` is
 *    ignored.
 * 4. When `tool` is given and the method is `tools/call`, for every
 *    `x-mcp-header` annotation: if the argument is a string, number or boolean,
 *    `Mcp-Param-{Name}` must be present, decode, and match (numbers compared
 *    numerically, so `42.0` matches `42`; booleans as `true`/`false`); if the
 *    argument is absent, `null` or not primitive, the header must be absent.
 *    `Mcp-Param-*` headers without an annotation are not inspected.
 *
 * Not checked here: whether the version is supported (-32022) and whether
 * `_meta` is complete (-32602).
 *
 * MCP 2026-07-28, basic/transports/streamable-http (server validation,
 * server behavior for custom headers).
 *
 * @category validation
 * @since 0.1.0
 */
export const validateRequestHeaders = (
  headers: (name: string) => string | undefined,
  message: HeaderCheckedMessage,
  tool?: ToolLike
): McpError | undefined => {
  const version = headers(PROTOCOL_VERSION_HEADER)
  if (version === undefined) return mismatch(`missing ${PROTOCOL_VERSION_HEADER} header`)
  const bodyVersion = protocolVersionOf(message.params)
  if (bodyVersion !== undefined && version.trim() !== bodyVersion) {
    return mismatch(
      `${PROTOCOL_VERSION_HEADER} header value '${version}' does not match body _meta["${MetaKey.protocolVersion}"] '${bodyVersion}'`
    )
  }

  const method = headers(METHOD_HEADER)
  if (method === undefined) return mismatch(`missing ${METHOD_HEADER} header`)
  if (method.trim() !== message.method) {
    return mismatch(`${METHOD_HEADER} header value '${method}' does not match body method '${message.method}'`)
  }

  const source = NAME_SOURCE[message.method]
  const bodyName = nameFor(message.method, message.params)
  if (source !== undefined && bodyName !== undefined) {
    const raw = headers(NAME_HEADER)
    if (raw === undefined) return mismatch(`missing ${NAME_HEADER} header (required for ${message.method})`)
    const decoded = decodeHeaderValue(raw.trim())
    if (decoded === undefined) return mismatch(`${NAME_HEADER} header value '${raw}' is malformed`)
    if (decoded !== bodyName) {
      return mismatch(`${NAME_HEADER} header value '${decoded}' does not match body params.${source} '${bodyName}'`)
    }
  }

  if (tool !== undefined && message.method === "tools/call") {
    const args = message.params?.arguments
    for (const { header, path } of headerAnnotations(tool)) {
      const name = `${PARAM_HEADER_PREFIX}${header}`
      const body = valueAt(args, path)
      const raw = headers(name)
      const primitive = typeof body === "string" || typeof body === "boolean" ||
          (typeof body === "number" && Number.isFinite(body)) ?
        body :
        undefined
      if (primitive === undefined) {
        if (raw !== undefined) {
          return mismatch(`${name} header is present but arguments.${path.join(".")} has no primitive value`)
        }
        continue
      }
      if (raw === undefined) return mismatch(`missing ${name} header for arguments.${path.join(".")}`)
      const decoded = decodeHeaderValue(raw.trim())
      if (decoded === undefined) return mismatch(`${name} header value '${raw}' is malformed`)
      if (!sameParam(decoded, primitive)) {
        return mismatch(
          `${name} header value '${decoded}' does not match body value '${String(primitive)}' (arguments.${
            path.join(".")
          })`
        )
      }
    }
  }
  return undefined
}
