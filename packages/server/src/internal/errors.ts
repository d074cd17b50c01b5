/**
 * How the failures of a handler run become JSON-RPC errors, for both eras
 * and tasks ({@link toErrorResponse}, {@link errorOf}): `McpError` as is, a
 * bad `requestState` as the one frozen -32602, the engine's bounds and
 * argument decoding failures as -32602, an uncaught decline/cancel of a
 * prompt or resource as -32603. Anything else is the handler's own failure
 * (logged, answered -32603 without details). `MissingClientCapability` is
 * the one era-specific failure: -32021 on 2026-07-28 and in tasks, -32600
 * with `data.reason` on a 2025-11-25 session.
 * Source: MCP 2026-07-28, basic (error codes); basic/patterns/mrtr; MCP
 * 2025-11-25, basic (JSON-RPC errors).
 */
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
import { describeCapabilities } from "@mrtr/protocol/Capabilities"
import { ErrorCode, McpError } from "@mrtr/protocol/ErrorCode"
import type { JsonRpcErrorObject, RequestId } from "@mrtr/protocol/JsonRpc"
import { Cause, Effect, ErrorReporter, Option, Predicate } from "effect"
import * as HttpStatus from "../HttpStatus.ts"
import type { Reply, WireMessage } from "../Transport.ts"

/** A plain JSON object (not an array, not null): `Predicate.isObject`, typed for JSON. */
export const isRecord: (u: unknown) => u is Record<string, unknown> = Predicate.isObject

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

/**
 * The legacy mapping of an ask the client cannot answer: -32600 with
 * `data.reason` (`client_capability_missing` in a session; outside any,
 * `input_undeliverable`, since no request could reach the client).
 */
const legacyCapabilityError = (error: MissingClientCapability, inSession: boolean): McpError =>
  inSession
    ? new McpError({
      code: ErrorCode.InvalidRequest,
      message: `This request needs a client capability the session did not declare in initialize (${
        describeCapabilities(error.requiredCapabilities)
      })`,
      data: { reason: "client_capability_missing", requiredCapabilities: error.requiredCapabilities }
    })
    : new McpError({
      code: ErrorCode.InvalidRequest,
      message:
        "This request needs input from the client, which a 2025-11-25 request outside any session cannot carry: initialize a session first",
      data: { reason: "input_undeliverable", requiredCapabilities: error.requiredCapabilities }
    })

/**
 * Where a failure is answered: the era (`"2025-11-25"` maps a missing
 * capability its own way; `inSession` says whether the request had a
 * session), and what the log of an unknown failure says and is annotated with.
 */
export interface FailureContext {
  readonly era: "2026-07-28" | "2025-11-25"
  readonly inSession?: boolean | undefined
  readonly log?: string | undefined
  readonly annotations: Readonly<Record<string, unknown>>
}

/** The known failure's `McpError` for `context`'s era, if it is one. */
export const knownError = (error: unknown, context: FailureContext): McpError | undefined =>
  context.era === "2025-11-25" && error instanceof MissingClientCapability
    ? legacyCapabilityError(error, context.inSession ?? true)
    : toMcpError(error) ?? userSaidNo(error)

/**
 * The JSON-RPC error a run that failed with `cause` answers: a known failure
 * as its error; anything else logged (with its cause: a handler's own
 * failure may carry internals) and answered -32603 without details. (A
 * handler that wants the client to see an error fails with an `McpError`.)
 * A failure that is not the protocol's (the handler's own, a defect, the
 * user's "no" a prompt did not catch) is also reported, cause and all, to
 * the fiber's `ErrorReporter`s (`effect/ErrorReporter`; none by default).
 */
export const errorOf = Effect.fnUntraced(function*(cause: Cause.Cause<unknown>, context: FailureContext) {
  const failure = Cause.findErrorOption(cause)
  // A failure of the handler's own (the user's "no" included, not the protocol's): to the fiber's `ErrorReporter`s.
  if (Option.isNone(failure) || toMcpError(failure.value) === undefined) yield* ErrorReporter.report(cause)
  const known = Option.isSome(failure) ? knownError(failure.value, context) : undefined
  if (known !== undefined) return known.toJsonRpc()
  yield* Effect.logError(context.log ?? "Request failed", cause).pipe(Effect.annotateLogs(context.annotations))
  return McpError.internalError().toJsonRpc() as JsonRpcErrorObject
})

/** The JSON-RPC error response to request `id` whose run failed with `cause`; see {@link errorOf}. */
export const toErrorResponse = (
  id: RequestId,
  cause: Cause.Cause<unknown>,
  context: FailureContext
): Effect.Effect<WireMessage> =>
  Effect.map(errorOf(cause, context), (error): WireMessage => ({ jsonrpc: "2.0", id, error }))
