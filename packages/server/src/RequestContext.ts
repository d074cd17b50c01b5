/**
 * The request a handler runs for, and the notifications it may emit on that
 * request's own stream: progress and log messages.
 *
 * Progress is sent only when the request carried
 * `_meta.progressToken`; log messages only when it carried
 * `_meta["io.modelcontextprotocol/logLevel"]` and at or above that level.
 * On Streamable HTTP the first notification turns the response into a
 * per-request SSE stream; on stdio each is a line.
 * Source: MCP 2026-07-28, basic/utilities/progress; server/utilities/logging;
 * basic/transports.
 *
 * @since 0.1.0
 */
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import { LoggingLevel } from "@mrtr/protocol/Meta"
import type { ClientCapabilities, Implementation } from "@mrtr/protocol/Schema"
import { Context, Effect } from "effect"
import type { AuthInfo } from "./internal/authInfo.ts"
import type { WireMessage } from "./Transport.ts"

/**
 * The request being handled:
 * - `id`, `method`: from the JSON-RPC request;
 * - `clientCapabilities`, `clientInfo`, `logLevel`, `progressToken`: from `_meta`;
 * - `principal`: the authenticated user, when the transport knows one;
 * - `auth`: the verified access token's caller and scopes, on HTTP with
 *   `Authorization.layer` (read it with `Authorization.authInfo`);
 * - `notify`: writes a notification on the request's stream (a no-op when
 *   the transport cannot stream it).
 * - `closeStream`: see {@link closeStream} (absent where it means nothing).
 *
 * @category services
 * @since 0.1.0
 */
export class McpRequest extends Context.Service<McpRequest, {
  readonly id: RequestId
  readonly method: string
  readonly clientCapabilities: ClientCapabilities
  readonly clientInfo?: Implementation | undefined
  readonly logLevel?: LoggingLevel | undefined
  readonly progressToken?: string | number | undefined
  readonly principal?: string | undefined
  readonly auth?: AuthInfo | undefined
  readonly notify: (notification: WireMessage) => Effect.Effect<void>
  readonly closeStream?: Effect.Effect<void> | undefined
}>()("@mrtr/server/McpRequest") {}

/**
 * Closes the request's SSE connection without ending the request (SEP-1699
 * polling, 2025-11-25 sessions on Streamable HTTP): the handler goes on, its
 * later messages (notifications, server-to-client requests, the response)
 * are kept, and the client receives them by reconnecting with `GET` and the
 * `Last-Event-ID` of the closed stream (after the `retry` delay the stream
 * advised). A no-op on stdio, on the 2026-07-28 wire and on a reply that is
 * not a stream.
 *
 * Source: MCP 2025-11-25, basic/transports (resumability and redelivery).
 *
 * @category notifications
 * @since 0.2.0
 */
export const closeStream: Effect.Effect<void, never, McpRequest> = McpRequest.use((request) =>
  request.closeStream ?? Effect.void
)

// Severities in RFC 5424 order, debug first.
const LEVELS: ReadonlyArray<LoggingLevel> = LoggingLevel.literals

/**
 * Reports progress on the current request: `notifications/progress` with
 * `{ progressToken, progress, total?, message? }`. `progress` should increase
 * with every call; `total` is the expected final value when known. A no-op
 * when the request carried no `_meta.progressToken`.
 *
 * @category notifications
 * @since 0.1.0
 */
export const progress = (
  progress: number,
  options: { readonly total?: number | undefined; readonly message?: string | undefined } = {}
): Effect.Effect<void, never, McpRequest> =>
  McpRequest.use((request) =>
    request.progressToken === undefined ? Effect.void : request.notify({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: {
        progressToken: request.progressToken,
        progress,
        ...(options.total === undefined ? {} : { total: options.total }),
        ...(options.message === undefined ? {} : { message: options.message })
      }
    })
  )

/**
 * Sends a log message on the current request: `notifications/message` with
 * `{ level, data, logger? }`. A no-op unless the request asked for logs with
 * `_meta["io.modelcontextprotocol/logLevel"]` at or below `level`
 * (severities as in RFC 5424: debug < info < ... < emergency).
 *
 * @category notifications
 * @since 0.1.0
 */
export const log = (
  level: LoggingLevel,
  data: unknown,
  logger?: string
): Effect.Effect<void, never, McpRequest> =>
  McpRequest.use((request) =>
    request.logLevel === undefined || LEVELS.indexOf(level) < LEVELS.indexOf(request.logLevel)
      ? Effect.void
      : request.notify({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level, data, ...(logger === undefined ? {} : { logger }) }
      })
  )
