/**
 * Answering the requests a 2025-11-25 server sends while it serves a call
 * (`elicitation/create`, `sampling/createMessage`, `roots/list`) or at any
 * time (`ping`), with the same input handlers that answer `inputRequests` on
 * the 2026-07-28 wire.
 *
 * Keys: an in-flight request carries no key, so the handler is given one
 * derived the way the server's engine derives keys for asks without an
 * explicit key: `<kind>-<n>` (`elicitation-1`, `sampling-1`, `roots-1`),
 * numbered per kind in arrival order within the call. A handler keyed on an
 * explicit server key (e.g. `user_name`) cannot match on this wire: the key
 * never travels.
 *
 * Errors (answered at once, never left waiting): a method the client has no
 * handler for, or an unknown method, gets -32601 (MethodNotFound); params
 * that do not decode, or a mode / feature the handler does not implement
 * (URL mode without a `url` handler, sampling `tools` without tool support),
 * get -32602 (InvalidParams); a handler that fails gets -32603
 * (InternalError) and the failure is reported to the call, which then fails
 * with the `InputHandlerError` exactly as on the 2026-07-28 wire.
 *
 * Source: MCP 2025-11-25, client/elicitation, client/sampling, client/roots,
 * basic/utilities/ping; schema `JSONRPCError`.
 */
import { ErrorCode } from "@mrtr/protocol/ErrorCode"
import { type RequestId } from "@mrtr/protocol/JsonRpc"
import { type ClientCapabilities, InputRequest, type InputResponse } from "@mrtr/protocol/Schema"
import { Effect, Option, Schema } from "effect"
import type { OutgoingResponse } from "../../ClientTransport.ts"
import type { InputHandlerError } from "../../Errors.ts"
import { answer, canAnswer, type Handlers } from "../inputHandlers.ts"

/** The kind of an ask, as the server's engine names it (the prefix of its derived keys). */
type Kind = "elicitation" | "sampling" | "roots"

const KIND: Readonly<Record<string, Kind>> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots"
}

/**
 * The call a server request belongs to: the request being served (`method`,
 * `target`) and the per-kind counters its derived keys are numbered from.
 * A request outside any call (the GET stream, several calls in flight on
 * stdio) is attributed to the connection's own `CallKeys` (method `""`).
 */
export interface CallKeys {
  readonly method: string
  readonly target: string
  readonly counters: Record<Kind, number>
}

/** Fresh key counters for one call. */
export const callKeys = (method: string, target: string): CallKeys => ({
  method,
  target,
  counters: { elicitation: 0, sampling: 0, roots: 0 }
})

/**
 * What answering one server request produced: the `response` to send back,
 * and the handler's failure when there was one (the call should fail with it).
 */
export interface Answered {
  readonly response: OutgoingResponse
  readonly failure?: InputHandlerError | undefined
  /** For a request a handler answered: its derived key, the question and the answer. */
  readonly answered?:
    | { readonly key: string; readonly request: InputRequest; readonly result: InputResponse }
    | undefined
}

const error = (id: RequestId, code: number, message: string): Answered => ({
  response: { jsonrpc: "2.0", id, error: { code, message } }
})

const decodeInputRequest = Schema.decodeUnknownEffect(InputRequest)

const hasHandler = (kind: Kind, handlers: Handlers): boolean =>
  kind === "elicitation"
    ? Option.isSome(handlers.elicitation)
    : kind === "sampling"
    ? Option.isSome(handlers.sampling)
    : Option.isSome(handlers.roots)

/**
 * Answers one server request (see the module header). `capabilities` are
 * the ones the client declared at `initialize`; `keys` is the call it
 * belongs to (its counters are advanced). Never fails.
 */
export const answerServerRequest = (
  request: Record<string, unknown> & { readonly id: RequestId },
  handlers: Handlers,
  capabilities: ClientCapabilities,
  keys: CallKeys
): Effect.Effect<Answered> =>
  Effect.gen(function*() {
    const { id } = request
    const method = request.method as string
    if (method === "ping") return { response: { jsonrpc: "2.0", id, result: {} } }
    const kind = KIND[method]
    if (kind === undefined || !hasHandler(kind, handlers)) {
      return error(id, ErrorCode.MethodNotFound, `Method not found: ${method}`)
    }
    keys.counters[kind]++
    const key = `${kind}-${keys.counters[kind]}`
    const decoded = yield* decodeInputRequest({
      method,
      ...(request.params === undefined ? {} : { params: request.params })
    }).pipe(Effect.option)
    if (Option.isNone(decoded)) return error(id, ErrorCode.InvalidParams, `Invalid params for ${method}`)
    if (!canAnswer(decoded.value, handlers, capabilities)) {
      return error(
        id,
        ErrorCode.InvalidParams,
        `The client does not support this ${method} request (mode or feature not declared)`
      )
    }
    return yield* answer(key, decoded.value, handlers, { key, method: keys.method, target: keys.target, round: 1 })
      .pipe(
        Effect.map((result): Answered => ({
          response: { jsonrpc: "2.0", id, result: result as Record<string, unknown> },
          answered: { key, request: decoded.value, result }
        })),
        Effect.catch((failure) =>
          Effect.succeed<Answered>({
            response: { jsonrpc: "2.0", id, error: { code: ErrorCode.InternalError, message: failure.message } },
            failure
          })
        )
      )
  })
