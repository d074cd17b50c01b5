/**
 * The HTTP status of a JSON-RPC error on Streamable HTTP: one table, used by
 * the dispatcher and the HTTP transport.
 *
 * Chosen by what clients do with a status, not only by what the error means:
 * the official TypeScript clients read the JSON-RPC error of a `200` always
 * and of a `400` for a 2026-07-28 request, but turn every other non-2xx into
 * a transport failure (`SdkHttpError`) and lose the JSON-RPC error. So only
 * the codes the spec gives a status keep it; everything a handler fails with
 * is answered `200`, as the official server does.
 *
 * | code                                       | found while                       | HTTP |
 * |--------------------------------------------|-----------------------------------|------|
 * | -32700 ParseError, -32600 InvalidRequest    | reading the envelope              | 400  |
 * | -32602 InvalidParams                        | reading the envelope (`_meta`)    | 400  |
 * | -32020 HeaderMismatch                       | any                               | 400  |
 * | -32021 MissingRequiredClientCapability      | any                               | 400  |
 * | -32022 UnsupportedProtocolVersion           | any                               | 400  |
 * | -32601 MethodNotFound                       | any                               | 404  |
 * | -32602 InvalidParams                        | running the method (unknown tool, bad arguments, bad `requestState`) | 200 |
 * | -32603 InternalError and any other code     | any                               | 200  |
 *
 * Gotcha: `404` for -32601 is the spec's (and the conformance suite checks
 * it), although the official v2 client reports it as `SdkHttpError`.
 * Statuses the transport sets before any JSON-RPC is read (403, 405, 408,
 * 413, 415) are not in this table; see `HttpTransport`.
 *
 * Source: MCP 2026-07-28, basic/transports/streamable-http (protocol version
 * header, server validation, backward compatibility); basic (error codes).
 *
 * @since 0.1.0
 */
import { ErrorCode, httpStatusOf } from "@mrtr/protocol/ErrorCode"

/**
 * Where an error was found: `"envelope"` while checking the JSON-RPC
 * message, its headers and `params._meta` (before any method runs);
 * `"method"` while running the method (tool, prompt, resource, ...).
 *
 * @category models
 * @since 0.1.0
 */
export type Stage = "envelope" | "method"

/**
 * The HTTP status for a JSON-RPC error `code` found at `stage` (see the
 * table in the module header): `@mrtr/protocol`'s `httpStatusOf` for the
 * envelope, the same but 200 for -32602 of a running method. Never 5xx: a
 * client always gets a status whose body it reads.
 *
 * Source: MCP 2026-07-28, basic/transports/streamable-http.
 *
 * @category constructors
 * @since 0.1.0
 */
export const ofError = (code: number, stage: Stage): number =>
  stage === "method" && code === ErrorCode.InvalidParams ? 200 : httpStatusOf(code)

/**
 * The HTTP status of a JSON-RPC response found at `stage`: `200` for a
 * result, `ofError` for an error (a malformed `error` counts as -32603).
 *
 * Source: MCP 2026-07-28, basic/transports/streamable-http.
 *
 * @category constructors
 * @since 0.1.0
 */
export const ofResponse = (message: Readonly<Record<string, unknown>>, stage: Stage): number => {
  const error = message["error"]
  if (error === undefined) return 200
  const code = typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined
  return ofError(typeof code === "number" ? code : ErrorCode.InternalError, stage)
}
