/**
 * The client's 2026-07-28 era: every request is stateless and carries
 * `params._meta` (the protocol version, the call's `clientCapabilities`,
 * `clientInfo`, the log level and progress token) and, over Streamable
 * HTTP, the standard headers (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`, `Mcp-Param-*` for the tool's `x-mcp-header` arguments).
 * Servers do not send requests on this wire: an `input_required` result
 * carries the questions, and the client's input loop (`inputLoop.ts`)
 * answers them and sends the request again.
 *
 * Gotchas:
 * - A -32022 (UnsupportedProtocolVersion) whose `data.supported` lists
 *   2026-07-28 is retried once with a new id (a server may refuse a version
 *   it supports, e.g. during a rolling deploy).
 * - The probe's `DiscoverResult` answers the first `discover()` without a
 *   request, once.
 * - A request the server sends outside a stream (stdio) gets -32601;
 *   `ping` is answered.
 *
 * Source: MCP 2026-07-28, basic (request `_meta`), basic/versioning,
 * basic/transports/streamable-http, basic/transports/stdio.
 */
import { ErrorCode, type McpError } from "@mrtr/protocol/ErrorCode"
import { requestHeaders } from "@mrtr/protocol/Headers"
import { makeRequestMeta, PROTOCOL_VERSION } from "@mrtr/protocol/Meta"
import { type ClientCapabilities, type DiscoverResult, type ProgressToken, type Tool } from "@mrtr/protocol/Schema"
import { type Duration, Effect, Option, Stream } from "effect"
import type { OutgoingRequest } from "../../ClientTransport.ts"
import { ProtocolViolation, type RequestError } from "../../Errors.ts"
import type { CallContext, Era, EraRequest, EraSettings } from "../era.ts"
import { exchange, type StreamNotification } from "../exchange.ts"
import { isRecord, pingOnly, takeRequestId } from "../outgoing.ts"
import { mcpErrorOf } from "../results.ts"

/** The `_meta` of a 2026-07-28 request. */
export const requestMeta = (
  settings: EraSettings,
  capabilities: ClientCapabilities,
  progressToken: ProgressToken | undefined
): Record<string, unknown> =>
  makeRequestMeta({
    clientCapabilities: capabilities,
    clientInfo: settings.clientInfo,
    logLevel: settings.logLevel,
    progressToken
  })

const isRetriable = (error: RequestError): error is McpError =>
  error._tag === "McpError" && error.code === ErrorCode.UnsupportedProtocolVersion &&
  isRecord(error.data) && Array.isArray(error.data.supported) && error.data.supported.includes(PROTOCOL_VERSION)

/**
 * One 2026-07-28 request: `params` (with their `_meta`) under a new id, the
 * standard headers when the transport sends headers; its `result`. Used by
 * the era's `send` and by the probe (`eraSelection.ts`).
 */
export const request = (
  settings: EraSettings,
  method: string,
  params: Readonly<Record<string, unknown>>,
  tool: Tool | undefined,
  onNotification: (notification: StreamNotification) => Effect.Effect<void>,
  idleTimeout: Duration.Duration | undefined
): Effect.Effect<Record<string, unknown>, RequestError> => {
  const { transport } = settings
  const once = Effect.suspend(() => {
    const message: OutgoingRequest = { jsonrpc: "2.0", id: takeRequestId(), method, params }
    return exchange(transport, message, transport.usesHeaders ? requestHeaders(message, tool) : {}, {
      onNotification,
      idleTimeout
    })
  })
  return Effect.catchIf(once, isRetriable, () => once)
}

/** The 2026-07-28 era over `settings.transport`; `discovered` is the probe's result, if any. */
export const make = (settings: EraSettings, discovered: DiscoverResult | undefined): Era => {
  let fromProbe = discovered
  return {
    connection: { era: "2026-07-28", protocolVersion: PROTOCOL_VERSION },
    discovered: Effect.sync(() => {
      const result = fromProbe
      fromProbe = undefined
      return Option.fromNullishOr(result)
    }),
    mirrorsToolHeaders: settings.transport.usesHeaders,
    send: (outgoing: EraRequest, call: CallContext) =>
      request(
        settings,
        outgoing.method,
        { ...outgoing.params, _meta: requestMeta(settings, call.capabilities, call.progressToken) },
        outgoing.tool,
        call.onNotification,
        call.requestTimeout
      ),
    serve: (incoming) => pingOnly(settings.transport, incoming),
    rootsChanged: Effect.void,
    listen: (filter, capabilities) => listen(settings, filter, capabilities)
  }
}

/**
 * `subscriptions/listen`: the notifications of the stream, in order, until the server ends it with its result (the
 * stream ends) or an error (the stream fails with it). No idle bound: a subscription may stay quiet for hours.
 */
const listen = (
  settings: EraSettings,
  filter: Readonly<Record<string, unknown>>,
  capabilities: ClientCapabilities
): Stream.Stream<{ readonly method: string; readonly params?: Readonly<Record<string, unknown>> }, RequestError> =>
  Stream.suspend(() => {
    const { transport } = settings
    const message: OutgoingRequest = {
      jsonrpc: "2.0",
      id: takeRequestId(),
      method: "subscriptions/listen",
      params: { notifications: filter, _meta: requestMeta(settings, capabilities, undefined) }
    }
    const headers = transport.usesHeaders ? requestHeaders(message, undefined) : {}
    const isResponse = (incoming: unknown) =>
      isRecord(incoming) && typeof incoming.method !== "string" && ("result" in incoming || "error" in incoming)
    return transport.request(message, headers).pipe(
      Stream.takeUntil(isResponse),
      Stream.mapEffect((incoming): Effect.Effect<
        Option.Option<{ readonly method: string; readonly params?: Readonly<Record<string, unknown>> }>,
        RequestError
      > => {
        if (!isRecord(incoming)) return Effect.succeedNone
        if (isResponse(incoming)) {
          if (!("error" in incoming)) return Effect.succeedNone
          const error = mcpErrorOf(incoming.error)
          return Effect.fail(
            error ??
              new ProtocolViolation({
                method: "subscriptions/listen",
                reason: "malformed JSON-RPC error",
                result: incoming
              })
          )
        }
        if (typeof incoming.method !== "string" || "id" in incoming) return Effect.succeedNone
        return Effect.succeedSome({
          method: incoming.method,
          ...(isRecord(incoming.params) ? { params: incoming.params } : {})
        })
      }),
      Stream.filter(Option.isSome),
      Stream.map((option) => option.value)
    )
  })
