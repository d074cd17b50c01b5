/**
 * The requests of a 2025-11-25 client, in a session or outside any:
 * `initialize` (`lifecycle.ts`; a second one in a session is refused),
 * `ping`, `logging/setLevel`, `resources/subscribe` / `unsubscribe`, the
 * lists, `completion/complete`, and `tools/call`, `prompts/get`,
 * `resources/read`, run through the shim (`shim.ts`) on the request's own
 * stream (`streams.ts`), with the request's `McpRequest` context.
 *
 * Gotchas: JSON-RPC errors of requests travel with HTTP 200; a failure that
 * is no known error is logged and answered -32603 (Internal error); an ask
 * the session's capabilities cannot answer is, for a tool, a tool execution
 * error (`isError: true`, its text naming the capability: the model reads
 * it), for a prompt or resource -32600 with `data.requiredCapabilities`
 * (`client_capability_missing`); outside any session every such ask is
 * -32600 `input_undeliverable`; a missing resource is -32002 with
 * `data.uri`. Outside any session `logging/setLevel` and the subscriptions
 * are answered and kept nowhere. A session subscribes to at most
 * `MAX_SUBSCRIPTIONS` URIs of `MAX_SUBSCRIPTION_URI` characters each,
 * `MAX_SUBSCRIPTIONS_CHARS` together. On a shared directory a change of the
 * session is written there before the answer (`shareChange`), and a request
 * waiting for the client's answers fails with -32603 `session_lost` once the
 * session's record is gone (`sessionLost`).
 * Source: MCP 2025-11-25, basic/utilities (ping), server/tools,
 * server/prompts, server/resources, server/utilities (completion, logging);
 * `docs/architecture.md` (the 2025-11-25 walk).
 */
import { MissingClientCapability } from "@mrtr/core"
import { describeCapabilities } from "@mrtr/protocol/Capabilities"
import { ErrorCode, McpError } from "@mrtr/protocol/ErrorCode"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import { LoggingLevel } from "@mrtr/protocol/Meta"
import { Effect, Schema } from "effect"
import { McpRequest } from "../../RequestContext.ts"
import type { Incoming, Reply, WireMessage } from "../../Transport.ts"
import { errorReply, isRecord } from "../errors.ts"
import { ResourceNotFound } from "../registry.ts"
import { toResponse } from "../results.ts"
import { type DispatcherState, RESOURCE_NOT_FOUND, result, sessionError } from "./context.ts"
import { initialize, shareChange } from "./lifecycle.ts"
import type * as Session from "./session.ts"
import { runCall } from "./shim.ts"
import { streamed } from "./streams.ts"

const isLoggingLevel = Schema.is(LoggingLevel)

const LEVELS = LoggingLevel.literals

/** Most resources one session may subscribe to (`resources/subscribe`). */
const MAX_SUBSCRIPTIONS = 1000

/** Longest URI a session may subscribe to, in characters. */
const MAX_SUBSCRIPTION_URI = 2048

/** Most characters all of a session's subscribed URIs may take together (the record every instance shares). */
const MAX_SUBSCRIPTIONS_CHARS = 65_536

/** How often (ms) a request waiting for the client's answers checks that its session is still in a shared directory (see `sessionLost`). */
const RECORD_CHECK_MS = 5_000

/** Refreshes a shared session's idle TTL (best effort: the next message looks it up anyway). */
const touch = ({ directory, shared, ttl }: DispatcherState, session: Session.Session | undefined) =>
  !shared || session === undefined || session.send !== undefined
    ? Effect.void
    : Effect.ignore(directory.lookup(session.id, ttl))
/**
 * While a request's legs wait for the client's answers: fails with -32603
 * `session_lost` once the session's shared record is gone (checked every
 * `RECORD_CHECK_MS`, one lookup per waiting request; each also refreshes
 * the idle TTL, as any message of the session does). A directory that
 * cannot answer is no verdict: the legs wait on (`legTimeoutMs` still
 * bounds them; the failed lookups count as Redis errors).
 */
const sessionLost = (
  { directory, shared, ttl }: DispatcherState,
  session: Session.Session | undefined
): Effect.Effect<never, McpError> | undefined =>
  !shared || session === undefined || session.send !== undefined ? undefined : Effect.gen(function*() {
    while (true) {
      yield* Effect.sleep(RECORD_CHECK_MS)
      const record = yield* directory.lookup(session.id, ttl).pipe(Effect.orElseSucceed(() => "unavailable" as const))
      if (record === undefined) {
        return yield* new McpError({
          code: ErrorCode.InternalError,
          message:
            "The session is gone from the fleet's session directory (ended, expired, or lost by it): initialize a new session",
          data: { reason: "session_lost" }
        })
      }
    }
  })

/**
 * A tool whose ask needs a capability the session did not declare: a tool execution error (`isError`) the model
 * reads and can tell the user about ("this client cannot show forms"), as the official SDK's server answers, rather
 * than a JSON-RPC error most hosts show as a bare failure. 2025-11-25 has no code of its own for it (2026-07-28's
 * -32021 is a protocol error the client acts on, so that era keeps it).
 */
const missingCapabilityResult = (error: MissingClientCapability) => ({
  content: [{
    type: "text" as const,
    text: `This tool needs a client capability this client did not declare (${
      describeCapabilities(error.requiredCapabilities)
    }), so it cannot ask the user what it needs: use a client that supports it`
  }],
  isError: true
})

/** The response to request `id` of `method`: `work`'s result as is (no `resultType`), or its failure's error. */
const respond = (
  id: RequestId,
  method: string,
  work: Effect.Effect<unknown, unknown>,
  inSession = true
): Effect.Effect<WireMessage> =>
  toResponse(
    id,
    // a tool's missing capability is its error result (see missingCapabilityResult); other requests' an error
    inSession && method === "tools/call"
      ? Effect.catchIf(
        work,
        (error): error is MissingClientCapability => error instanceof MissingClientCapability,
        (error) => Effect.succeed(missingCapabilityResult(error))
      )
      : work,
    { era: "2025-11-25", inSession, annotations: { method, era: "2025-11-25" } }
  )

// -- Messages ---------------------------------------------------------------------

/** The reply to a request `id` of `session` (`undefined`: outside any session). */
type Handler = (
  ctx: DispatcherState,
  incoming: Incoming,
  session: Session.Session | undefined,
  id: RequestId,
  method: string,
  params: Record<string, unknown>
) => Effect.Effect<Reply>

const call: Handler = (ctx, incoming, session, id, method, params) => {
  const found = ctx.core.registry.call(method, params)
  if (found instanceof McpError) return Effect.succeed(errorReply(id, found, 200))
  if (found instanceof ResourceNotFound) {
    return Effect.succeed(errorReply(
      id,
      new McpError({ code: RESOURCE_NOT_FOUND, message: `Resource not found: ${found.uri}`, data: { uri: found.uri } }),
      200
    ))
  }
  const http = incoming.connection === undefined
  const canStream = incoming.canStream ?? true
  const meta = isRecord(params._meta) ? params._meta : {}
  const progressToken = typeof meta.progressToken === "string" || typeof meta.progressToken === "number"
    ? meta.progressToken
    : undefined
  return streamed(session, id, canStream, http, (emit, closeStream) =>
    respond(
      id,
      method,
      runCall({
        engine: ctx.core.engine,
        audience: ctx.core.audience,
        principal: incoming.principal,
        session,
        canDeliver: canStream,
        emit,
        maxPendingLegs: ctx.core.limits.maxPendingLegs,
        legTimeoutMs: ctx.core.limits.legTimeoutMs,
        sessionLost: sessionLost(ctx, session)
      }, found).pipe(
        Effect.provideService(
          McpRequest,
          McpRequest.of({
            id,
            method,
            clientCapabilities: session?.clientCapabilities ?? {},
            clientInfo: session?.clientInfo,
            logLevel: session === undefined ? undefined : session.logLevel ?? "debug",
            progressToken,
            principal: incoming.principal,
            auth: incoming.auth,
            notify: emit,
            closeStream
          })
        )
      ) as Effect.Effect<Record<string, unknown>>,
      session !== undefined
    ), touch(ctx, session))
}

export const request: Handler = (ctx, incoming, session, id, method, params) => {
  switch (method) {
    case "initialize":
      return session === undefined
        ? initialize(ctx, incoming, id, params)
        : Effect.succeed(
          sessionError(ErrorCode.InvalidRequest, "Invalid Request: the session is already initialized", 400, id)
        )
    case "ping":
      return Effect.succeed(result(id, {}))
    case "logging/setLevel": {
      if (!isLoggingLevel(params.level)) {
        return Effect.succeed(
          errorReply(id, McpError.invalidParams(`Invalid log level: one of ${LEVELS.join(", ")}`), 200)
        )
      }
      if (session === undefined) return Effect.succeed(result(id, {}))
      session.logLevel = params.level
      return shareChange(ctx, session, { _tag: "LogLevel", level: params.level }, result(id, {}), id)
    }
    case "resources/subscribe":
    case "resources/unsubscribe": {
      if (typeof params.uri !== "string") {
        return Effect.succeed(errorReply(id, McpError.invalidParams(`${method} needs a string uri`), 200))
      }
      const full = errorReply(
        id,
        McpError.invalidParams(
          `A session may subscribe to at most ${MAX_SUBSCRIPTIONS} resources of ${MAX_SUBSCRIPTIONS_CHARS} characters together`
        ),
        200
      )
      if (method === "resources/subscribe" && params.uri.length > MAX_SUBSCRIPTION_URI) {
        return Effect.succeed(errorReply(
          id,
          McpError.invalidParams(`resources/subscribe takes URIs of at most ${MAX_SUBSCRIPTION_URI} characters`),
          200
        ))
      }
      if (session !== undefined) {
        if (method === "resources/unsubscribe") session.subscriptions.delete(params.uri)
        else if (!session.subscriptions.has(params.uri)) {
          let chars = params.uri.length
          for (const uri of session.subscriptions) chars += uri.length
          if (session.subscriptions.size >= MAX_SUBSCRIPTIONS || chars > MAX_SUBSCRIPTIONS_CHARS) {
            return Effect.succeed(full)
          }
          session.subscriptions.add(params.uri)
        }
        return shareChange(
          ctx,
          session,
          method === "resources/unsubscribe"
            ? { _tag: "Unsubscribe", uri: params.uri }
            : { _tag: "Subscribe", uri: params.uri, max: MAX_SUBSCRIPTIONS },
          result(id, {}),
          id,
          full
        )
      }
      return Effect.succeed(result(id, {}))
    }
    case "tools/list":
    case "prompts/list":
    case "resources/list":
    case "resources/templates/list":
      return Effect.map(
        respond(id, method, ctx.core.registry.listMethod(method, params, incoming.principal)),
        (message) => reply(message)
      )
    case "completion/complete":
      return Effect.map(respond(id, method, ctx.core.registry.complete(params)), (message) => reply(message))
    case "tools/call":
    case "prompts/get":
    case "resources/read":
      return call(ctx, incoming, session, id, method, params)
    default:
      return Effect.succeed(errorReply(id, McpError.methodNotFound(method), 200))
  }
}

const reply = (message: WireMessage): Reply => ({ _tag: "Response", message, httpStatus: 200 })
