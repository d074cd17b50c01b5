/**
 * The models of `McpClient`'s API: its options, per-call options, the
 * params of its methods, the notifications it surfaces, the rounds it
 * reports, and what it negotiated (`Protocol`, `Connection`). `McpClient`
 * re-exports each of them (`McpClient.Options`, `McpClient.CallOptions`, ...).
 *
 * Source: MCP 2026-07-28, basic (request `_meta`), basic/patterns/mrtr,
 * basic/versioning; MCP 2025-11-25, basic/lifecycle.
 *
 * @since 0.1.0
 */
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import type { LoggingLevel } from "@mrtr/protocol/Meta"
import type {
  ClientCapabilities,
  CompleteRequestParams,
  Implementation,
  InputRequest,
  InputRequests,
  InputResponse,
  InputResponses,
  ProgressToken,
  ServerCapabilities
} from "@mrtr/protocol/Schema"
import { Duration, type Effect, type Schedule } from "effect"
import type * as TaskDriver from "./TaskDriver.ts"

/**
 * A notification the server sent while answering a request (progress, log,
 * ...), or outside any request (stdio only).
 *
 * - `method`, `params`: as on the wire (e.g. `notifications/progress` with
 *   `{ progressToken, progress, total?, message? }`, `notifications/message`
 *   with `{ level, logger?, data }`).
 * - `request`: the request whose response stream carried it (its JSON-RPC
 *   `id` and `method`), absent for unsolicited notifications.
 *
 * MCP 2026-07-28, basic/transports; server/utilities/logging; basic/utilities/progress.
 *
 * @category models
 * @since 0.1.0
 */
export interface Notification {
  readonly method: string
  readonly params?: Readonly<Record<string, unknown>> | undefined
  readonly request?: { readonly id: RequestId; readonly method: string } | undefined
}

/**
 * The protocol revision a client speaks: `"auto"` (detect, the default),
 * `"2026-07-28"` (stateless, MRTR) or `"2025-11-25"` (the `initialize`
 * handshake and sessions; servers that negotiate 2025-06-18 or 2025-03-26
 * are spoken to the same way).
 *
 * MCP 2026-07-28, basic/versioning (backward compatibility); MCP 2025-11-25,
 * basic/lifecycle.
 *
 * @category models
 * @since 0.1.0
 */
export type Protocol = "auto" | "2026-07-28" | "2025-11-25"

/**
 * What the client negotiated with the server (`McpClient.connection`):
 *
 * - `era`: `"2026-07-28"` or `"2025-11-25"` (the handshake era, whatever
 *   version in it was negotiated).
 * - `protocolVersion`: the version spoken: `2026-07-28`, or the one the
 *   `InitializeResult` named (`2025-11-25`, `2025-06-18`, `2025-03-26`).
 * - `serverInfo`, `instructions`, `capabilities`: from the `InitializeResult`
 *   (2025-11-25 only; on 2026-07-28 they come with `discover()`).
 *
 * MCP 2026-07-28, basic/versioning; MCP 2025-11-25, basic/lifecycle (schema `InitializeResult`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Connection {
  readonly era: "2026-07-28" | "2025-11-25"
  readonly protocolVersion: string
  readonly serverInfo?: Implementation | undefined
  readonly instructions?: string | undefined
  readonly capabilities?: ServerCapabilities | undefined
}

/**
 * Client options; all optional.
 *
 * MCP 2026-07-28, basic (request `_meta`), basic/patterns/mrtr,
 * basic/versioning; MCP 2025-11-25, basic/lifecycle.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * The revision to speak: `"auto"` probes the server once with `server/discover` and speaks 2026-07-28 when
   * it is modern (a `DiscoverResult`, or a -32020 / -32021 / -32022 error), 2025-11-25 otherwise (`initialize`, a
   * session, in-flight server requests answered by the same input handlers); `"2026-07-28"` or `"2025-11-25"` pin one
   * and send no probe. See `Protocol`. Any other value is a defect when the client is built.
   *
   * @default "auto"
   */
  readonly protocol?: Protocol | undefined
  /**
   * How long the `server/discover` probe waits; no answer in time means legacy on stdio and a `TransportError` on HTTP.
   * The sign-in a `401` to the probe starts is not counted (the user's time, not the server's).
   *
   * @default "10 seconds"
   */
  readonly probeTimeout?: Duration.Input | undefined
  /**
   * Sent as `_meta["io.modelcontextprotocol/clientInfo"]`.
   *
   * @default { name: "@mrtr/client", version: "0.1.0" }
   */
  readonly clientInfo?: Implementation | undefined
  /**
   * The most requests one `tools/call` / `prompts/get` / `resources/read` may send in its `input_required` loop, the
   * first one included, at least 1 (`NaN` or a value that is no number is a defect). Past it: `MaxRoundsExceeded`.
   * Rounds that only ask again URLs the user accepted (`ElicitationHandler.urlWait`) are not counted.
   *
   * @default 10
   */
  readonly maxRounds?: number | undefined
  /**
   * Spaces consecutive rounds whose result carried only a `requestState` (nothing to answer), stepped once per such
   * round and reset by a round with input requests.
   *
   * @default exponential from 100 ms, doubling, capped at 5 seconds
   */
  readonly stateOnlyBackoff?: Schedule.Schedule<unknown> | undefined
  /**
   * Sent as `_meta["io.modelcontextprotocol/logLevel"]`; without it servers send no `notifications/message`.
   *
   * @default undefined (no log messages)
   */
  readonly logLevel?: LoggingLevel | undefined
  /**
   * Called for every notification received (see also `McpClient.notifications` and the per-call option).
   *
   * @default undefined
   */
  readonly onNotification?: ((notification: Notification) => Effect.Effect<void>) | undefined
  /**
   * Capabilities to declare in addition to the ones derived from the input handlers (merged with them): `experimental`
   * / `extensions` entries, or e.g. `{ elicitation: {} }` to receive elicitation requests without a handler and answer
   * them by hand (manual mode: the call fails with `InputRequiredError`).
   *
   * @default {} (only what the input handlers imply)
   */
  readonly capabilities?: ClientCapabilities | undefined
  /**
   * The Tasks extension (SEP-2663). `"auto"` declares it on every `tools/call` and drives a task result to its end
   * (`TaskDriver.drive`: polls at the server's `pollIntervalMs`, answers its input with the same handlers, returns the
   * final result; interrupting the call cancels the task); `"manual"` declares it and fails the call with
   * `TaskDriver.TaskStarted` (drive it with `getTask` / `updateTask` / `cancelTask`).
   *
   * @default undefined (the extension is not declared)
   */
  readonly tasks?: TaskDriver.TasksMode | undefined
  /**
   * The longest wait for the next message of the answer to one request (its response, or a notification about it: each
   * progress notification restarts the wait, so a long tool that reports progress is not cut off). Past it the request
   * is cancelled and the call fails with `RequestTimeout` (`bound: "request"`). The time spent signing in (a `401`
   * answered through `Authorization`: the user's consent, and the authorization server's exchanges, bounded on their
   * own) is not counted: it bounds the MCP server's answers only. `"Infinity"` disables it.
   *
   * @default "60 seconds" (`DEFAULT_REQUEST_TIMEOUT`)
   */
  readonly requestTimeout?: Duration.Input | undefined
  /**
   * The longest a whole call may take: every round of a `tools/call` / `prompts/get` / `resources/read`, the time its
   * input handlers take to answer included (and the connection, and for a `tools/call` the listing of tools before a
   * first call; a sign-in too, as the answering of a form). Past it: `RequestTimeout` (`bound: "call"`). For both, a
   * zero or negative duration (`-Infinity` included) expires at once; a value that is no duration is a defect.
   * `"Infinity"` disables it.
   *
   * @default "10 minutes" (`DEFAULT_CALL_TIMEOUT`)
   */
  readonly callTimeout?: Duration.Input | undefined
}

/**
 * Default `Options.requestTimeout`: 60 seconds without any message of a
 * request's answer.
 *
 * MCP 2026-07-28, basic/lifecycle (timeouts).
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_REQUEST_TIMEOUT: Duration.Duration = Duration.seconds(60)

/**
 * Default `Options.callTimeout`: 10 minutes for a whole call, answering time
 * included.
 *
 * MCP 2026-07-28, basic/lifecycle (timeouts).
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_CALL_TIMEOUT: Duration.Duration = Duration.minutes(10)

/**
 * Per-call options.
 *
 * MCP 2026-07-28, basic (request `_meta`), basic/patterns/mrtr.
 *
 * @category models
 * @since 0.1.0
 */
export interface CallOptions {
  /**
   * Called for each notification carried by this call's response streams (all rounds).
   *
   * @default undefined
   */
  readonly onNotification?: ((notification: Notification) => Effect.Effect<void>) | undefined
  /**
   * Sent as `_meta.progressToken`, asking the server for `notifications/progress`.
   *
   * @default undefined (no progress asked)
   */
  readonly progressToken?: ProgressToken | undefined
  /**
   * Overrides the client's `maxRounds` for this call.
   *
   * @default the client's `maxRounds`
   */
  readonly maxRounds?: number | undefined
  /**
   * Called once per `input_required` round, after the round's answers are gathered and before the retry is sent (see
   * `Round`); not called for the final, complete result, nor when the round cap or a missing handler ends the call
   * first. The callback cannot fail (`Effect<void>`); a slow one delays the retry.
   *
   * @default undefined
   */
  readonly onRound?: ((round: Round) => Effect.Effect<void>) | undefined
  /**
   * Overrides the client's `tasks` mode for this call.
   *
   * @default the client's `tasks`
   */
  readonly tasks?: TaskDriver.TasksMode | undefined
  /**
   * Called once per status change of the task a `tools/call` became (Tasks extension), e.g. to show it to the user.
   *
   * @default undefined
   */
  readonly onTaskStatus?: ((change: TaskDriver.TaskStatusChange) => Effect.Effect<void>) | undefined
  /**
   * Overrides the client's `requestTimeout` for this call.
   *
   * @default the client's `requestTimeout`
   */
  readonly requestTimeout?: Duration.Input | undefined
  /**
   * Overrides the client's `callTimeout` for this call.
   *
   * @default the client's `callTimeout`
   */
  readonly callTimeout?: Duration.Input | undefined
  /**
   * Called for each request a 2025-11-25 server sent while serving this call, once a handler answered it (see
   * `ServerRequest`); the in-flight counterpart of `onRound`, which a 2025-11-25 call never calls.
   *
   * @default undefined
   */
  readonly onServerRequest?: ((request: ServerRequest) => Effect.Effect<void>) | undefined
}

/**
 * A request a 2025-11-25 server sent in flight, as `CallOptions.onServerRequest`
 * sees it once answered:
 *
 * - `key`: the key derived for it (`elicitation-1`, `sampling-1`, `roots-1`, ...),
 *   the one the handler saw in `InputContext.key`.
 * - `method`, `target`: the call it belongs to.
 * - `request`: the question (`{ method, params }`, as an `inputRequests` entry).
 * - `response`: the answer sent back (an `ElicitResult`, `CreateMessageResult`
 *   or `ListRootsResult`).
 *
 * MCP 2025-11-25, client/elicitation, client/sampling, client/roots.
 *
 * @category models
 * @since 0.1.0
 */
export interface ServerRequest {
  readonly key: string
  readonly method: string
  readonly target: string
  readonly request: InputRequest
  readonly response: InputResponse
}

/**
 * One `input_required` round of a `tools/call` / `prompts/get` /
 * `resources/read`, as seen by `CallOptions.onRound`:
 *
 * - `round`: 1-based number of the exchange whose result asked
 *   (`InputContext.round` of its questions).
 * - `method`, `target`: the request being retried and its tool or prompt
 *   name, or resource URI.
 * - `inputRequests`: the questions of the round, by key (`{}` for a round
 *   that carried only a `requestState`).
 * - `requestState`: the opaque state echoed on the retry, when the server
 *   gave one (its size is what travels with the client).
 * - `inputResponses`: the answers gathered, by key, sent on the retry
 *   (absent for a state-only round).
 *
 * MCP 2026-07-28, basic/patterns/mrtr.
 *
 * @category models
 * @since 0.1.0
 */
export interface Round {
  readonly round: number
  readonly method: "tools/call" | "prompts/get" | "resources/read"
  readonly target: string
  readonly inputRequests: InputRequests
  readonly requestState?: string | undefined
  readonly inputResponses?: InputResponses | undefined
}

/**
 * The MRTR retry members a caller may pass to continue a conversation by
 * hand (manual mode): `inputResponses` (key → answer, keys from the
 * `InputRequiredError.inputRequests`) and `requestState` (exactly as
 * received in `InputRequiredError.requestState`). They are sent on the
 * first request of the call only; later rounds carry what the server asks.
 *
 * MCP 2026-07-28, schema `InputResponseRequestParams`.
 *
 * @category models
 * @since 0.1.0
 */
export interface RetryParams {
  readonly inputResponses?: InputResponses | undefined
  readonly requestState?: string | undefined
}

/**
 * Params of `callTool`: `{ name, arguments?, inputResponses?, requestState? }`.
 *
 * MCP 2026-07-28, schema `CallToolRequestParams`.
 *
 * @category models
 * @since 0.1.0
 */
export interface CallToolParams extends RetryParams {
  readonly name: string
  readonly arguments?: Readonly<Record<string, unknown>> | undefined
}

/**
 * Params of `getPrompt`: `{ name, arguments?, inputResponses?, requestState? }`.
 *
 * MCP 2026-07-28, schema `GetPromptRequestParams`.
 *
 * @category models
 * @since 0.1.0
 */
export interface GetPromptParams extends RetryParams {
  readonly name: string
  readonly arguments?: Readonly<Record<string, string>> | undefined
}

/**
 * Params of `readResource`: `{ uri, inputResponses?, requestState? }`.
 *
 * MCP 2026-07-28, schema `ReadResourceRequestParams`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReadResourceParams extends RetryParams {
  readonly uri: string
}

/**
 * Params of the list methods: `{ cursor? }` (an opaque pagination cursor
 * from a previous page's `nextCursor`).
 *
 * MCP 2026-07-28, schema `PaginatedRequestParams`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ListParams {
  readonly cursor?: string | undefined
}

/**
 * Params of `complete`: `{ ref, argument: { name, value }, context? }`.
 *
 * MCP 2026-07-28, schema `CompleteRequestParams`.
 *
 * @category models
 * @since 0.1.0
 */
export type CompleteParams = Omit<CompleteRequestParams, "_meta">
