/**
 * JSON-RPC error codes used by MCP 2026-07-28, their HTTP status mapping on
 * Streamable HTTP, and `McpError`, a typed error carrying a code.
 *
 * Code allocation (MCP 2026-07-28, basic, error codes): the JSON-RPC codes
 * -32700 and -32600..-32603; -32000..-32019 are legacy and SHOULD NOT be used
 * by new code; -32020..-32099 are reserved for the specification, of which
 * -32020 (HeaderMismatch), -32021 (MissingRequiredClientCapability) and
 * -32022 (UnsupportedProtocolVersion) are defined. Implementations of this
 * revision must not emit -32002 (resource not found: use -32602) or -32042
 * (URL elicitation required, 2025-11-25 only).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { describeCapabilities } from "./Capabilities.ts"
import type { ClientCapabilities } from "./internal/base.ts"
import type { JsonRpcErrorObject } from "./JsonRpc.ts"

/**
 * JSON-RPC error codes MCP 2026-07-28 defines or uses.
 *
 * - `ParseError` (-32700): the body is not valid JSON.
 * - `InvalidRequest` (-32600): not a valid JSON-RPC request.
 * - `MethodNotFound` (-32601): unknown or removed method (HTTP 404).
 * - `InvalidParams` (-32602): bad params, missing `_meta` keys, unknown
 *   resource, failed `requestState` verification.
 * - `InternalError` (-32603).
 * - `HeaderMismatch` (-32020): HTTP headers missing or not matching the body.
 * - `MissingRequiredClientCapability` (-32021): `data.requiredCapabilities`.
 * - `UnsupportedProtocolVersion` (-32022): `data.supported`, `data.requested`.
 *
 * MCP 2026-07-28, basic (error codes); schema `*Error` definitions.
 *
 * @category utils
 * @since 0.1.0
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022
} as const
/**
 * One of the numeric codes in `ErrorCode`.
 *
 * @category models
 * @since 0.1.0
 */
export type ErrorCode = typeof ErrorCode[keyof typeof ErrorCode]

/**
 * HTTP status a Streamable HTTP server answers with for a JSON-RPC error
 * `code` found while checking a request's envelope (message, headers,
 * `_meta`):
 *
 * - -32601 → 404
 * - -32700, -32600, -32602, -32020, -32021, -32022 → 400
 * - -32603 and any other code → 200 (the spec assigns none; the official
 *   clients turn any other non-2xx into a transport failure and lose the
 *   JSON-RPC error, so the error travels in a 200)
 *
 * Errors found while running a method differ for -32602 (200): see
 * `HttpStatus` in `@mrtr/server`, which is what the server uses.
 *
 * MCP 2026-07-28, basic/transports/streamable-http (protocol version header,
 * server validation, backward compatibility).
 *
 * @category utils
 * @since 0.1.0
 */
export const httpStatusOf = (code: number): number => {
  switch (code) {
    case ErrorCode.MethodNotFound:
      return 404
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.InvalidParams:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400
    default:
      return 200
  }
}

/**
 * True for the error codes a "modern" (2026-07-28) server uses on HTTP 400;
 * a dual-era client that sees a 400 carrying one of these keeps speaking the
 * modern protocol instead of falling back to `initialize`.
 *
 * MCP 2026-07-28, basic/transports/streamable-http (backward compatibility).
 *
 * @category guards
 * @since 0.1.0
 */
export const isModernErrorCode = (code: number): boolean =>
  code === ErrorCode.HeaderMismatch ||
  code === ErrorCode.MissingRequiredClientCapability ||
  code === ErrorCode.UnsupportedProtocolVersion

/**
 * The longest error `message` sent on the wire, in UTF-16 units: messages often quote what the client sent (an
 * unknown task id, a mismatched header value), and a megabyte of input must not come back as a megabyte of error.
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_ERROR_MESSAGE_LENGTH = 1024

/**
 * The most an error's `data` carries on the wire, in UTF-16 units of its strings, keys and scalars together: `data`
 * often holds what the client sent (`data.uri`, the requested protocol version, the error object a client answered
 * with), so it is bounded as messages are. Each string is also cut at {@link MAX_ERROR_MESSAGE_LENGTH}.
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_ERROR_DATA_LENGTH = 4 * MAX_ERROR_MESSAGE_LENGTH

/** Past this depth a nested value of `data` is replaced by a marker (the client's own error, say, 19,000 levels deep). */
const MAX_ERROR_DATA_DEPTH = 16

const cut = (text: string, limit: number): string => {
  if (text.length <= limit) return text
  let end = Math.max(0, limit - 64)
  // never cut a surrogate pair in two
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}… (${text.length} characters in all)`
}

const wireMessage = (message: string): string => cut(message, MAX_ERROR_MESSAGE_LENGTH)

/**
 * An error's `data` as it may go on the wire: every string cut as messages are (at
 * {@link MAX_ERROR_MESSAGE_LENGTH}, saying how long it was), and the whole within {@link MAX_ERROR_DATA_LENGTH}: entries
 * past the budget are dropped, an object then gets a `"…"` key and an array a last `"…"` item saying how many; values
 * nested deeper than 16 levels become `"…"`. A value within the bounds is returned as is (the same reference).
 * `McpError.toJsonRpc` applies it, so every error a server sends is bounded, whatever its data holds.
 *
 * @category utils
 * @since 0.1.0
 */
export const boundErrorData = (data: unknown): unknown => {
  let budget = MAX_ERROR_DATA_LENGTH
  const bound = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") {
      const text = cut(value, Math.min(MAX_ERROR_MESSAGE_LENGTH, Math.max(budget, 80)))
      budget -= text.length
      return text
    }
    if (value === null || typeof value !== "object") {
      budget -= String(value).length
      return value
    }
    if (depth >= MAX_ERROR_DATA_DEPTH) {
      budget -= 1
      return "…"
    }
    let changed = false
    if (Array.isArray(value)) {
      const out: Array<unknown> = []
      for (let i = 0; i < value.length; i++) {
        if (budget <= 0) {
          out.push(`… (${value.length - i} more items)`)
          return out
        }
        const item = bound(value[i], depth + 1)
        if (item !== value[i]) changed = true
        out.push(item)
      }
      return changed ? out : value
    }
    const entries = Object.entries(value)
    const out: Record<string, unknown> = {}
    for (let i = 0; i < entries.length; i++) {
      const [key, item] = entries[i]!
      if (budget <= 0) {
        out["…"] = `${entries.length - i} more keys`
        return out
      }
      const boundKey = cut(key, Math.min(MAX_ERROR_MESSAGE_LENGTH, Math.max(budget, 80)))
      budget -= boundKey.length
      const boundItem = bound(item, depth + 1)
      if (boundKey !== key || boundItem !== item) changed = true
      out[boundKey] = boundItem
    }
    return changed ? out : value
  }
  return bound(data, 0)
}

/**
 * A JSON-RPC error as a typed, yieldable Effect error (`_tag: "McpError"`):
 * `{ code: integer, message: string, data?: unknown }`.
 *
 * Use the static constructors for the codes MCP defines, `toJsonRpc()` to get
 * the wire `error` object and `httpStatus` for the Streamable HTTP status.
 *
 * MCP 2026-07-28, basic (error codes); schema `Error`.
 *
 * @category errors
 * @since 0.1.0
 */
export class McpError extends Schema.TaggedError<McpError>()("McpError", {
  code: Schema.Int,
  message: Schema.String,
  data: Schema.optionalKey(Schema.Unknown)
}) {
  /**
   * The wire form `{ code, message, data? }` (no `data` key when absent), the `message` cut at
   * {@link MAX_ERROR_MESSAGE_LENGTH} and the `data` bounded by {@link boundErrorData}.
   *
   * @since 0.1.0
   */
  toJsonRpc(): JsonRpcErrorObject {
    const message = wireMessage(this.message)
    return this.data === undefined ?
      { code: this.code, message } :
      { code: this.code, message, data: boundErrorData(this.data) }
  }

  /**
   * The HTTP status for this error on Streamable HTTP when found in a
   * request's envelope (see `httpStatusOf`; for errors of a running method
   * see `HttpStatus` in `@mrtr/server`).
   *
   * @since 0.1.0
   */
  get httpStatus(): number {
    return httpStatusOf(this.code)
  }

  /**
   * Builds an `McpError` from a decoded wire error object.
   *
   * @since 0.1.0
   */
  static fromJsonRpc(error: JsonRpcErrorObject): McpError {
    return error.data === undefined ?
      new McpError({ code: error.code, message: error.message }) :
      new McpError({ code: error.code, message: error.message, data: error.data })
  }

  /**
   * -32700 "Parse error": the request body is not valid JSON.
   *
   * @since 0.1.0
   */
  static parseError(message = "Parse error"): McpError {
    return new McpError({ code: ErrorCode.ParseError, message })
  }

  /**
   * -32600: the message is not a valid JSON-RPC request.
   *
   * @since 0.1.0
   */
  static invalidRequest(message: string): McpError {
    return new McpError({ code: ErrorCode.InvalidRequest, message })
  }

  /**
   * -32601 "Method not found: <method>" (HTTP 404 on Streamable HTTP). Also
   * used for methods removed in 2026-07-28 (`initialize`, `ping`,
   * `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe`).
   *
   * @since 0.1.0
   */
  static methodNotFound(method: string): McpError {
    return new McpError({ code: ErrorCode.MethodNotFound, message: `Method not found: ${method}` })
  }

  /**
   * -32602: invalid params (including a missing `_meta` key, an unknown
   * resource, or a `requestState` that fails verification).
   *
   * @since 0.1.0
   */
  static invalidParams(message: string, data?: unknown): McpError {
    return data === undefined ?
      new McpError({ code: ErrorCode.InvalidParams, message }) :
      new McpError({ code: ErrorCode.InvalidParams, message, data })
  }

  /**
   * -32603 "Internal error".
   *
   * @since 0.1.0
   */
  static internalError(message = "Internal error"): McpError {
    return new McpError({ code: ErrorCode.InternalError, message })
  }

  /**
   * -32020 HeaderMismatch: an HTTP header is missing, malformed, or does not
   * match the request body (HTTP 400).
   *
   * MCP 2026-07-28, basic/transports/streamable-http (server validation).
   *
   * @since 0.1.0
   */
  static headerMismatch(message: string): McpError {
    return new McpError({ code: ErrorCode.HeaderMismatch, message })
  }

  /**
   * -32021 MissingRequiredClientCapability with
   * `data: { requiredCapabilities }` (an object, e.g. `{ elicitation: {} }`,
   * not an array). HTTP 400.
   *
   * MCP 2026-07-28, basic (capabilities); schema `MissingRequiredClientCapabilityError`.
   *
   * @since 0.1.0
   */
  static missingRequiredClientCapability(requiredCapabilities: ClientCapabilities): McpError {
    return new McpError({
      code: ErrorCode.MissingRequiredClientCapability,
      message: `Missing required client capability: ${describeCapabilities(requiredCapabilities)}`,
      data: { requiredCapabilities }
    })
  }

  /**
   * -32022 UnsupportedProtocolVersion with `data: { supported, requested }`.
   * HTTP 400.
   *
   * MCP 2026-07-28, basic/versioning; schema `UnsupportedProtocolVersionError`.
   *
   * @since 0.1.0
   */
  static unsupportedProtocolVersion(requested: string, supported: ReadonlyArray<string>): McpError {
    return new McpError({
      code: ErrorCode.UnsupportedProtocolVersion,
      message: `Unsupported protocol version: ${requested}`,
      data: { supported: [...supported], requested }
    })
  }
}
