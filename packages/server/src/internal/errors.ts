/**
 * How the failures of a handler run become JSON-RPC errors, for both eras:
 * `McpError` as is, a bad `requestState` as the one frozen -32602, the
 * engine's bounds and argument decoding failures as -32602, an uncaught
 * decline/cancel of a prompt or resource as -32603. Anything else is the
 * handler's own failure (logged, answered -32603 without details).
 * `MissingClientCapability` is era-specific and handled by each dispatcher.
 * Source: MCP 2026-07-28, basic (error codes); basic/patterns/mrtr.
 */
import { ErrorCode, McpError, type RequestId } from "@mrtr/protocol"
import {
  ElicitationCancelled,
  ElicitationDeclined,
  InteractionStore,
  InteractionUnavailable,
  JournalTooLarge,
  MissingClientCapability,
  NotCanonicalJson,
  RequestState,
  RoundLimitExceeded,
  UserIdentityRequired
} from "@mrtr/core"
import * as HttpStatus from "../HttpStatus.ts"
import type { Reply, WireMessage } from "../Transport.ts"

/** A plain JSON object (not an array, not null). */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** A JSON-RPC error response with the HTTP status its code maps to while reading the envelope (or `httpStatus`). */
export const errorReply = (id: RequestId | undefined, error: McpError, httpStatus?: number): Reply => ({
  _tag: "Response",
  message: {
    jsonrpc: "2.0",
    ...(id === undefined ? {} : { id }),
    error: error.toJsonRpc()
  } as WireMessage,
  httpStatus: httpStatus ?? HttpStatus.ofError(error.code, "envelope")
})

/** The one frozen answer to every bad, expired or foreign requestState. */
export const INVALID_REQUEST_STATE = McpError.invalidParams("Invalid requestState")

/** The known failures; `MissingClientCapability` as the 2026-07-28 -32021. */
export const toMcpError = (error: unknown): McpError | undefined => {
  if (error instanceof McpError) return error
  if (error instanceof RequestState.InvalidRequestState) return INVALID_REQUEST_STATE
  if (error instanceof MissingClientCapability) {
    return McpError.missingRequiredClientCapability(error.requiredCapabilities)
  }
  if (error instanceof RoundLimitExceeded) return McpError.invalidParams(error.message)
  // Arguments canonical JSON cannot represent (`1e400`, a lone surrogate): the client's to fix.
  if (error instanceof NotCanonicalJson) return McpError.invalidParams(error.message)
  // A valid single-use state the replay guard has no room for: not a forgery, the server is saturated.
  // Or its shared store (Redis) is unreachable: the guard fails closed, the client may retry later.
  if (error instanceof RequestState.ReplayGuardFull || error instanceof RequestState.ReplayGuardUnavailable) {
    return new McpError({ code: ErrorCode.InternalError, message: error.message })
  }
  // A secure ask whose page could not verify its user: the server's configuration, named in the message.
  if (error instanceof UserIdentityRequired) return McpError.internalError(error.message)
  // The answers a client sends make the journal grow: its size is the client's to fix.
  if (error instanceof JournalTooLarge || error instanceof RequestState.RequestStateTooLarge) {
    return McpError.invalidParams("The conversation exceeds the server's size limit for requestState")
  }
  const tag = isRecord(error) ? error._tag : undefined
  if (
    tag === "InvalidToolArguments" || tag === "InvalidPromptArguments" || tag === "InvalidResourceUri"
  ) {
    return McpError.invalidParams((error as unknown as Error).message)
  }
  return undefined
}

/**
 * A prompt or resource handler that does not catch the user's "no": the
 * request cannot complete, through no fault of the server, so it is not
 * logged as an error. (A tool reports it as a tool execution error instead.)
 */
export const userSaidNo = (error: unknown): McpError | undefined =>
  error instanceof ElicitationDeclined || error instanceof ElicitationCancelled ||
    error instanceof InteractionUnavailable || error instanceof InteractionStore.InteractionStoreFull
    ? new McpError({ code: ErrorCode.InternalError, message: error.message })
    : undefined
