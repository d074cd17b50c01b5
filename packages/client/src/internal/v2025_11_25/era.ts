/**
 * The client's 2025-11-25 era: a session opened by `initialize`, requests
 * carrying `MCP-Protocol-Version` (HTTP) and only `_meta.progressToken`,
 * and the server's own `elicitation/create`, `sampling/createMessage` and
 * `roots/list` requests answered with the input handlers
 * (`serverRequests.ts`) while a request is in flight.
 *
 * The session's life:
 * - `initialize` (capabilities from the Layer's handlers, `roots.listChanged`
 *   when the roots handler reports changes), then
 *   `notifications/initialized`, bounded by `requestTimeout` like a request
 *   (over HTTP it waits for the server's 202).
 * - `start` (once the era is selected): the GET stream (HTTP, started at
 *   once so the GET is sent before the first request: a server may take the
 *   first GET after a request as that request's resumption, as the
 *   conformance suite's `sse-retry` does) and `logging/setLevel` when a
 *   `logLevel` is configured and the server logs.
 * - A session the server no longer knows (`renewsSessions`: HTTP 404,
 *   -32001) is initialized again once and the request re-sent; concurrent
 *   calls share one renewal.
 * - `notifications/roots/list_changed` whenever the roots change.
 *
 * Server requests: on a request's own stream they belong to that call. On
 * the GET stream or stdio nothing ties them to a call, so the client never
 * guesses: a call abandoned before its response (interrupted, timed out)
 * still counts as in flight until the connection closes (its server may ask
 * for it late), and such a request belongs to
 * - the call in flight, when exactly one is and it was not abandoned;
 * - the connection (the Layer's handlers, the connection's keys) when none
 *   is;
 * - otherwise no call: the Layer's handler answers it when the Layer has
 *   one for its kind, else it is refused with -32600 (`InvalidRequest`,
 *   "cannot tell which request ... belongs to"), never given to a call it
 *   may not belong to.
 *
 * They are answered in a fiber of the client's scope. At
 * most `MAX_PENDING_SERVER_REQUESTS` (64) are answered at a time; more are
 * refused at once (-32603). A handler's failure fails an MRTR call with its
 * `InputHandlerError` (the server is answered -32603).
 *
 * Gotchas:
 * - Until the session is established only pings are answered (-32601
 *   otherwise).
 * - A request abandoned before its response is cancelled with
 *   `notifications/cancelled` (`cancelsAbandoned`; stdio's transport does
 *   it itself).
 *
 * Source: MCP 2025-11-25, basic/lifecycle, basic/transports (session
 * management), basic/utilities/cancellation, client/roots,
 * server/utilities/logging.
 */
import { ErrorCode } from "@mrtr/protocol/ErrorCode"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import type { ClientCapabilities } from "@mrtr/protocol/Schema"
import { Cause, Deferred, Effect, Exit, Option, Semaphore, Stream } from "effect"
import type { OutgoingRequest } from "../../ClientTransport.ts"
import { type InputHandlerError, type RequestError, RequestTimeout } from "../../Errors.ts"
import type { ServerRequest } from "../../Models.ts"
import { boundedExceptSignIn, boundMillis } from "../deadline.ts"
import type { CallContext, Era, EraRequest, EraSettings } from "../era.ts"
import { exchange } from "../exchange.ts"
import type { Handlers } from "../inputHandlers.ts"
import { dispatchWith, pingOnly, respond, takeRequestId } from "../outgoing.ts"
import {
  initializeParams,
  type InitializeResult,
  legacyCapabilities,
  readInitializeResult,
  toDiscoverResult
} from "./lifecycle.ts"
import { type Answered, answerServerRequest, type CallKeys, callKeys } from "./serverRequests.ts"

/** The most server requests one connection answers at a time; more are refused with -32603. */
export const MAX_PENDING_SERVER_REQUESTS = 64

/** How the transport behaves, as the era selection tells it. */
export interface LegacyOptions {
  /** Send `notifications/cancelled` for an abandoned request (not on stdio, whose transport sends it). */
  readonly cancelsAbandoned: boolean
  /** A 404 / -32001 means the server lost the session: initialize again (Streamable HTTP). */
  readonly renewsSessions: boolean
}

/** One session: what `initialize` negotiated and the capabilities declared. */
interface Session {
  readonly protocolVersion: string
  readonly initialize: InitializeResult
  readonly capabilities: ClientCapabilities
  /** `MCP-Protocol-Version` when the transport sends headers, else none. */
  readonly headers: Readonly<Record<string, string>>
}

/** A call in flight: how the server requests that belong to it are answered and reported. */
interface ActiveCall {
  readonly keys: CallKeys
  readonly handlers: Handlers
  readonly failed: Deferred.Deferred<never, InputHandlerError>
  readonly failOnHandlerError: boolean
  readonly onServerRequest: ((request: ServerRequest) => Effect.Effect<void>) | undefined
  /** Ended without its response (interrupted, timed out): still counted in flight, never given a request. */
  abandoned: boolean
}

/** Tells the call's `onServerRequest` of an answered request. */
const report = (call: ActiveCall | undefined, answered: Answered): Effect.Effect<void> =>
  call?.onServerRequest === undefined || answered.answered === undefined ? Effect.void : call.onServerRequest({
    key: answered.answered.key,
    method: call.keys.method,
    target: call.keys.target,
    request: answered.answered.request,
    response: answered.answered.result
  })

const ignoreNotification = () => Effect.void

/** The request was answered by an HTTP error status (a TransportError with a status): no call of it is in flight. */
const isRefusedRequest = (exit: Exit.Exit<unknown, unknown>): boolean =>
  Exit.isFailure(exit) &&
  exit.cause.reasons.some((reason) =>
    Cause.isFailReason(reason) && typeof reason.error === "object" && reason.error !== null &&
    (reason.error as { _tag?: unknown })._tag === "TransportError" &&
    typeof (reason.error as { status?: unknown }).status === "number"
  )

/**
 * Opens a session (`initialize`, `notifications/initialized`) and returns
 * the era over it; its `start` must run next (see the module header).
 */
export const initialize = Effect.fnUntraced(function*(settings: EraSettings, options: LegacyOptions) {
  const { transport } = settings
  const lock = yield* Semaphore.make(1)
  const active = new Set<ActiveCall>()
  const connectionKeys = callKeys("", "")
  let pending = 0

  const openSession = Effect.fnUntraced(function*() {
    const capabilities = legacyCapabilities(
      settings.declared(settings.layerHandlers),
      Option.exists(settings.layerHandlers.roots, (roots) => roots.changes !== undefined)
    )
    const message: OutgoingRequest = {
      jsonrpc: "2.0",
      id: takeRequestId(),
      method: "initialize",
      params: initializeParams(capabilities, settings.clientInfo)
    }
    const raw = yield* exchange(transport, message, {}, {
      onNotification: ignoreNotification,
      serve: (request) => pingOnly(transport, request),
      idleTimeout: settings.requestTimeout
    })
    const result = yield* readInitializeResult(raw)
    const headers: Record<string, string> = transport.usesHeaders
      ? { "mcp-protocol-version": result.protocolVersion }
      : {}
    const initialized = transport.notify({ jsonrpc: "2.0", method: "notifications/initialized" }, headers)
    const millis = boundMillis(settings.requestTimeout)
    yield* millis === undefined ? initialized : boundedExceptSignIn(
      initialized,
      millis,
      transport.signInMillis,
      () => new RequestTimeout({ method: "notifications/initialized", bound: "request", millis })
    )
    return { protocolVersion: result.protocolVersion, initialize: result, capabilities, headers } satisfies Session
  })

  let session: Session = yield* openSession()

  /** `answerServerRequest`, at most `MAX_PENDING_SERVER_REQUESTS` at a time: past it refused at once (-32603). */
  const answerBounded = (
    request: Record<string, unknown> & { readonly id: RequestId },
    handlers: Handlers,
    keys: CallKeys
  ): Effect.Effect<Answered> =>
    Effect.suspend(() => {
      if (pending >= MAX_PENDING_SERVER_REQUESTS) {
        return Effect.succeed<Answered>({
          response: {
            jsonrpc: "2.0",
            id: request.id,
            error: {
              code: ErrorCode.InternalError,
              message: `Too many requests pending on this connection (${MAX_PENDING_SERVER_REQUESTS})`
            }
          }
        })
      }
      pending++
      return answerServerRequest(request, handlers, session.capabilities, keys).pipe(
        Effect.ensuring(Effect.sync(() => void pending--))
      )
    })

  /**
   * A server request outside any stream: the one call in flight's (unless abandoned), else the connection's, or
   * refused when it cannot be told whose it is (see the header); in a fiber of its own.
   */
  const serve = (request: Record<string, unknown> & { readonly id: RequestId }): Effect.Effect<void> =>
    Effect.suspend(() => {
      const only = active.size === 1 ? [...active][0]! : undefined
      const call = only !== undefined && !only.abandoned ? only : undefined
      const { headers } = session
      if (call === undefined && active.size > 0 && !layerAnswers(request.method)) {
        return respond(transport, {
          jsonrpc: "2.0",
          id: request.id,
          error: {
            code: ErrorCode.InvalidRequest,
            message: `The client cannot tell which of its ${active.size} requests in flight this ${
              String(request.method)
            } request belongs to (it arrived outside any request's stream); refused`
          }
        }, headers)
      }
      // answered in a fiber of its own: a person taking their time blocks neither
      // the other requests nor the notifications that arrive meanwhile
      return answerBounded(request, call?.handlers ?? settings.layerHandlers, call?.keys ?? connectionKeys).pipe(
        Effect.tap((answered) => respond(transport, answered.response, headers)),
        Effect.tap((answered) => report(call, answered)),
        Effect.flatMap((answered) =>
          answered.failure !== undefined && call !== undefined && call.failOnHandlerError
            ? Deferred.fail(call.failed, answered.failure)
            : Effect.void
        ),
        Effect.asVoid,
        Effect.forkIn(settings.scope),
        Effect.asVoid
      )
    })

  /** Whether the Layer's own handlers answer `method` (or it is a ping): a request no call can claim may go to them. */
  const layerAnswers = (method: unknown): boolean => {
    const handlers = settings.layerHandlers
    return method === "ping" ||
      (method === "elicitation/create" && Option.isSome(handlers.elicitation)) ||
      (method === "sampling/createMessage" && Option.isSome(handlers.sampling)) ||
      (method === "roots/list" && Option.isSome(handlers.roots))
  }

  /** The GET stream and the log level of the current session. */
  const start: Effect.Effect<void> = Effect.suspend(() => {
    const current = session
    const listen = transport.listen === undefined ? Effect.void : transport.listen(current.headers).pipe(
      Stream.runForEach((message) => dispatchWith(message, settings.publish, serve)),
      Effect.catch((error) => Effect.logDebug("The GET stream ended", error.message)),
      // started here, so the GET is sent before the first request: the session's stream is open (or opening)
      // before the request, not raced by it
      Effect.forkIn(settings.scope, { startImmediately: true }),
      Effect.asVoid
    )
    const setLevel = settings.logLevel === undefined || current.initialize.capabilities.logging === undefined
      ? Effect.void
      : exchangeIn(current, { method: "logging/setLevel", params: { level: settings.logLevel }, target: "" }, {
        handlers: settings.layerHandlers,
        capabilities: current.capabilities,
        progressToken: undefined,
        requestTimeout: settings.requestTimeout,
        onNotification: ignoreNotification,
        onServerRequest: undefined,
        failOnHandlerError: false
      }).pipe(Effect.ignore)
    return Effect.andThen(listen, setLevel)
  })

  /** One request in `current`, the server's requests on its stream answered for the call. */
  const exchangeIn = Effect.fnUntraced(function*(current: Session, outgoing: EraRequest, context: CallContext) {
    const message: OutgoingRequest = {
      jsonrpc: "2.0",
      id: takeRequestId(),
      method: outgoing.method,
      params: context.progressToken === undefined
        ? outgoing.params
        : { ...outgoing.params, _meta: { progressToken: context.progressToken } }
    }
    const call: ActiveCall = {
      keys: callKeys(outgoing.method, outgoing.target),
      handlers: context.handlers,
      failed: yield* Deferred.make<never, InputHandlerError>(),
      failOnHandlerError: context.failOnHandlerError,
      onServerRequest: context.onServerRequest,
      abandoned: false
    }
    const serveOnStream = (request: Record<string, unknown> & { readonly id: RequestId }) =>
      answerBounded(request, call.handlers, call.keys).pipe(
        Effect.tap((answered) => respond(transport, answered.response, current.headers)),
        Effect.tap((answered) => report(call, answered)),
        Effect.flatMap((answered) =>
          answered.failure !== undefined && call.failOnHandlerError ? Effect.fail(answered.failure) : Effect.void
        )
      )
    return yield* Effect.acquireUseRelease(
      Effect.sync(() => active.add(call)),
      () =>
        exchange(transport, message, current.headers, {
          onNotification: context.onNotification,
          serve: serveOnStream,
          failed: call.failed,
          idleTimeout: context.requestTimeout,
          // runs when the exchange ends without its response: the server may still ask for this call
          onAbandon: Effect.andThen(
            Effect.sync(() => void (call.abandoned = true)),
            options.cancelsAbandoned
              ? respond(transport, {
                jsonrpc: "2.0",
                method: "notifications/cancelled",
                params: { requestId: message.id, reason: "The client abandoned the request" }
              }, current.headers)
              : Effect.void
          )
        }),
      // an abandoned call stays in flight for `serve` (until the connection closes), unless its request never
      // reached a session (an HTTP error status: the server answered, the session is gone)
      (_, exit) =>
        Effect.sync(() => {
          if (!call.abandoned || isRefusedRequest(exit)) active.delete(call)
        })
    )
  })

  /** The session is gone (HTTP 404 / -32001 "Session not found"): initialize again once. */
  const sessionGone = (error: RequestError | InputHandlerError) =>
    options.renewsSessions && (
      (error._tag === "TransportError" && error.status === 404) ||
      (error._tag === "McpError" && error.code === -32001)
    )

  /** A new session, unless a concurrent call renewed it already. */
  const renew = (gone: Session): Effect.Effect<Session, RequestError> =>
    lock.withPermits(1)(Effect.suspend(() =>
      session !== gone ? Effect.succeed(session) : openSession().pipe(
        Effect.tap((opened) =>
          Effect.andThen(
            Effect.sync(() => {
              session = opened
              // the old session's abandoned calls cannot ask in the new one
              for (const call of active) if (call.abandoned) active.delete(call)
            }),
            start
          )
        )
      )
    ))

  const send = (outgoing: EraRequest, context: CallContext) =>
    Effect.suspend(() => {
      const current = session
      return exchangeIn(current, outgoing, context).pipe(
        Effect.catchIf(sessionGone, () =>
          Effect.flatMap(renew(current), (renewed) => exchangeIn(renewed, outgoing, context)))
      )
    })

  const era: Era & { readonly start: Effect.Effect<void> } = {
    get connection() {
      const { initialize: result, protocolVersion } = session
      return {
        era: "2025-11-25" as const,
        protocolVersion,
        serverInfo: result.serverInfo,
        capabilities: result.capabilities,
        ...(result.instructions === undefined ? {} : { instructions: result.instructions })
      }
    },
    discovered: Effect.sync(() => Option.some(toDiscoverResult(session.initialize))),
    mirrorsToolHeaders: false,
    send,
    serve,
    rootsChanged: Effect.suspend(() =>
      respond(transport, { jsonrpc: "2.0", method: "notifications/roots/list_changed" }, session.headers)
    ),
    listen: undefined,
    start
  }
  return era
})
