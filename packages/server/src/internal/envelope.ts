/**
 * The first step of the 2026-07-28 data flow after JSON decoding: the
 * envelope, `_meta` and header checks of one message, before any dispatch.
 * Every refusal is the spec's JSON-RPC error with the HTTP status of the
 * envelope stage (`HttpStatus`): -32600 for the envelope, -32601 for an
 * unknown or removed method, -32602 for params and `_meta`, -32020 for the
 * headers, -32022 for the version.
 * Gotcha: the order of the checks is the order the spec's errors are
 * expected in (the conformance suite checks several).
 * Source: MCP 2026-07-28, basic (request metadata), basic/transports/streamable-http.
 */
import { McpError } from "@mrtr/protocol/ErrorCode"
import { validateRequestHeaders } from "@mrtr/protocol/Headers"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import { LoggingLevel, MetaKey } from "@mrtr/protocol/Meta"
import { ClientCapabilities, type Tool as WireTool } from "@mrtr/protocol/Schema"
import { TaskMethod } from "@mrtr/protocol/Tasks"
import { Exit, Schema } from "effect"
import type { Incoming, Reply } from "../Transport.ts"
import { errorReply, isRecord } from "./errors.ts"
import { isRequestId } from "./jsonRpc.ts"

const METHODS = new Set([
  "server/discover",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "completion/complete",
  "subscriptions/listen",
  // The Tasks extension's live methods (the removed tasks/result and tasks/list answer -32601).
  ...Object.values(TaskMethod)
])

/** How deeply `params` may nest (objects and arrays); see `McpServer.MAX_PARAMS_DEPTH`. */
export const MAX_PARAMS_DEPTH = 64

/** True when `value` nests deeper than `max` (objects and arrays). Recursive, but never deeper than `max` + 1 calls. */
export const nestedDeeperThan = (value: unknown, max: number, depth = 1): boolean => {
  if (typeof value !== "object" || value === null) return false
  if (depth > max) return true
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (nestedDeeperThan(value[i], max, depth + 1)) return true
    }
    return false
  }
  for (const key in value) {
    if (Object.hasOwn(value, key) && nestedDeeperThan((value as Record<string, unknown>)[key], max, depth + 1)) {
      return true
    }
  }
  return false
}

const decodeClientCapabilities = Schema.decodeUnknownExit(ClientCapabilities)
const isLoggingLevel = Schema.is(LoggingLevel)

/** A request that passed every envelope, `_meta` and header check. */
export interface Parsed {
  readonly id: RequestId
  readonly method: string
  readonly params: Record<string, unknown>
  readonly clientCapabilities: ClientCapabilities
}

/**
 * Checks one 2026-07-28 message: the JSON-RPC envelope, the method, `params`,
 * the `_meta` claims (protocolVersion, clientCapabilities, logLevel), the
 * nesting depth, the standard headers (with the tool's `Mcp-Param-*` ones,
 * `toolOf` gives its definition) and the version. A notification is
 * `Accepted`; every failure is the spec's error reply.
 */
export const parse = (
  incoming: Incoming,
  toolOf: (name: string) => WireTool | undefined,
  supported: ReadonlyArray<string>
): Parsed | Reply => {
  const message = incoming.message
  if (!isRecord(message)) {
    return errorReply(
      undefined,
      McpError.invalidRequest(
        Array.isArray(message)
          ? "Batches are not supported"
          : "A JSON-RPC message must be an object"
      )
    )
  }
  const id = isRequestId(message.id) ? message.id : undefined
  if (message.jsonrpc !== "2.0") return errorReply(id, McpError.invalidRequest("jsonrpc must be \"2.0\""))
  if (typeof message.method !== "string") {
    return errorReply(id, McpError.invalidRequest("A request needs a string method"))
  }
  if (!("id" in message)) return { _tag: "Accepted" }
  if (id === undefined) return errorReply(undefined, McpError.invalidRequest("id must be a string or an integer"))
  const method = message.method
  if (!METHODS.has(method)) return errorReply(id, McpError.methodNotFound(method))
  const params = message.params
  if (params !== undefined && !isRecord(params)) {
    return errorReply(id, McpError.invalidParams("params must be an object"))
  }
  const meta = params?._meta
  if (!isRecord(meta)) return errorReply(id, McpError.invalidParams("Missing params._meta"))
  const version = meta[MetaKey.protocolVersion]
  if (typeof version !== "string") {
    return errorReply(
      id,
      McpError.invalidParams(
        version === undefined
          ? `Missing _meta["${MetaKey.protocolVersion}"]`
          : `Invalid _meta["${MetaKey.protocolVersion}"]: not a string`
      )
    )
  }
  const logLevel = meta[MetaKey.logLevel]
  if (logLevel !== undefined && !isLoggingLevel(logLevel)) {
    return errorReply(id, McpError.invalidParams(`Invalid _meta["${MetaKey.logLevel}"]: not a logging level`))
  }
  const declared = meta[MetaKey.clientCapabilities]
  if (!isRecord(declared)) {
    return errorReply(
      id,
      McpError.invalidParams(
        declared === undefined
          ? `Missing _meta["${MetaKey.clientCapabilities}"]`
          : `Invalid _meta["${MetaKey.clientCapabilities}"]: not an object`
      )
    )
  }
  const decoded = decodeClientCapabilities(declared)
  if (Exit.isFailure(decoded)) {
    return errorReply(id, McpError.invalidParams(`Invalid _meta["${MetaKey.clientCapabilities}"]`))
  }
  const clientCapabilities = decoded.value
  if (nestedDeeperThan(params, MAX_PARAMS_DEPTH)) {
    return errorReply(id, McpError.invalidParams(`params are nested more than ${MAX_PARAMS_DEPTH} levels deep`))
  }
  if (incoming.headers !== undefined) {
    // On tools/call, the tool's x-mcp-header parameters must be mirrored in Mcp-Param-* headers.
    const tool = method === "tools/call" && typeof params?.name === "string" ? toolOf(params.name) : undefined
    const mismatch = validateRequestHeaders(incoming.headers, { method, params: params ?? {} }, tool)
    if (mismatch !== undefined) return errorReply(id, mismatch)
  }
  if (!supported.includes(version)) {
    return errorReply(id, McpError.unsupportedProtocolVersion(version, supported))
  }
  return { id, method, params: params ?? {}, clientCapabilities }
}
