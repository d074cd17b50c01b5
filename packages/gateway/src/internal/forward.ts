/**
 * One forwarded `tools/call` / `prompts/get` / `resources/read`: the
 * gateway's handler for an upstream item, an `McpClient` call whose input
 * handlers are the gateway's own asks.
 *
 * - 2026-07-28 upstream: each upstream exchange is one `Mrtr.step` (so its
 *   result, the upstream's `inputRequests` and `requestState` included, is
 *   journaled in the gateway's sealed state and never shown to the client);
 *   the upstream's input requests become the gateway's asks, concurrently
 *   (one round), keyed `<upstream>/<key>` (`<upstream>/<key>#2`, ... when the
 *   upstream asks a key again in a later exchange, after refusing its
 *   answer: each exchange's answer stays in the journal); their answers go
 *   back upstream with its `requestState` on the next exchange.
 * - 2025-11-25 upstream: the call is one exchange during which the upstream
 *   asks in flight; each request is answered by a gateway ask. When an ask
 *   suspends the gateway's handler (a 2026-07-28 client must retry), the
 *   upstream call is abandoned, and the next round calls the upstream again:
 *   the asks it repeats are answered from the journal at once (the
 *   determinism rule, upstream).
 *
 * - Cancellation: the downstream request cancelled interrupts this handler,
 *   and with it the upstream call (the client sends its
 *   `notifications/cancelled`, or closes the HTTP request).
 * - Tasks: a mirrored `tools/call` (`taskSource` given) whose downstream
 *   request declares the Tasks extension asks the upstream for a task; its
 *   `CreateTaskResult` is returned as `TaskSource.created`, which the server
 *   answers under a sealed id and routes back (`mirror.ts: taskSource`).
 *
 * The upstream is asked only what the gateway's client declared: the client
 * the call uses declares exactly the downstream request's capabilities (see
 * `pool.ts`), so a compliant upstream never asks more, and the ask checks it
 * again (`-32021` otherwise).
 */
import {
  ElicitationHandler,
  Errors,
  type InputContext,
  type McpClient,
  RootsHandler,
  SamplingHandler
} from "@mrtr/client"
import { ClientAddress, Mrtr } from "@mrtr/core"
import { Conversation as ConversationModule } from "@mrtr/core/engine"
import { McpError } from "@mrtr/protocol/ErrorCode"
import { LoggingLevel, MetaKey } from "@mrtr/protocol/Meta"
import type { ClientCapabilities, InputRequest, InputRequests, InputResponses } from "@mrtr/protocol/Schema"
import { declaresTasks } from "@mrtr/protocol/Tasks"
import { RequestContext, TaskSource } from "@mrtr/server"
import { Cause, Context, type Duration, Effect, Exit, Option, Result, Schema, Scope } from "effect"
import { canonical, type Pool, UpstreamBusy } from "./pool.ts"

const Conversation = ConversationModule.Conversation
type Conversation = ConversationModule.Conversation

export type Method = "tools/call" | "prompts/get" | "resources/read"

/** What the upstream answered one exchange: complete, or asking. */
const Outcome = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("Complete"), result: Schema.Record(Schema.String, Schema.Unknown) }),
  Schema.Struct({
    _tag: Schema.Literal("Input"),
    inputRequests: Schema.Record(Schema.String, Schema.Unknown),
    requestState: Schema.optionalKey(Schema.String)
  }),
  // the upstream started a task (the request declared the Tasks extension): its CreateTaskResult
  Schema.Struct({ _tag: Schema.Literal("Task"), task: Schema.Record(Schema.String, Schema.Unknown) })
])
type Outcome = typeof Outcome.Type

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const kindOf = (method: string): "elicitation" | "sampling" | "roots" | undefined =>
  method === "elicitation/create" ?
    "elicitation" :
    method === "sampling/createMessage" ?
    "sampling" :
    method === "roots/list"
    ? "roots"
    : undefined

/** An answer the ask accepts: of the kind of the question (else it is asked again, never forwarded). */
const fits = (kind: "elicitation" | "sampling" | "roots", response: unknown): boolean =>
  isRecord(response) && (
    kind === "elicitation"
      ? typeof response.action === "string"
      : kind === "sampling"
      ? typeof response.role === "string" && response.content !== undefined
      : Array.isArray(response.roots)
  )

/** One upstream question asked of the gateway's client, under a key namespaced by the upstream. */
export const ask = (
  conversation: Conversation["Service"],
  upstream: string,
  key: string,
  request: InputRequest
): Effect.Effect<unknown, unknown> => {
  const kind = kindOf(request.method)
  if (kind === undefined) {
    return Effect.fail(
      McpError.internalError(`Upstream ${upstream} asked for an unknown kind of input: ${request.method}`)
    )
  }
  return conversation.ask<unknown, never>({
    kind,
    key: `${upstream}/${key}`,
    // the upstream's question as it asked it, but for its own `_meta` (its request's, not ours)
    request: { method: request.method, params: stripMeta(request.params) } as InputRequest,
    decode: (_key: string, response: unknown) => fits(kind, response) ? Result.succeed(response) : undefined
  })
}

export const stripMeta = (params: unknown): unknown => {
  if (!isRecord(params) || params._meta === undefined) return params
  const { _meta, ...rest } = params
  return rest
}

/** Answers one in-flight question of a 2025-11-25 upstream (`context.key`: the client's derived key). */
export type Answerer = <A>(
  method: string,
  params: unknown,
  context: InputContext.InputContext
) => Effect.Effect<A, Errors.InputHandlerError>

/** Answers by a gateway ask, in the current round (the call is abandoned if the ask suspends the handler). */
const askingAnswerer =
  (conversation: Conversation["Service"], upstream: string): Answerer => (method, params, context) =>
    ask(conversation, upstream, context.key, { method, params } as InputRequest).pipe(
      Effect.map((response) => response as any),
      Effect.mapError((cause) =>
        new Errors.InputHandlerError({ reason: `the gateway's client could not answer: ${String(cause)}`, cause })
      )
    )

/**
 * Per-call input handlers declaring exactly `capabilities`, each answering
 * with `answer` (used by a 2025-11-25 upstream's in-flight requests; a
 * 2026-07-28 exchange never calls them, see `exchange`).
 */
export const handlersFor = (answer: Answerer, capabilities: ClientCapabilities) => {
  const elicitation = capabilities.elicitation
  const form = elicitation !== undefined && (Object.keys(elicitation).length === 0 || "form" in elicitation)
  const url = elicitation !== undefined && "url" in elicitation
  let context = Context.empty() as Context.Context<never>
  if (form || url) {
    context = Context.add(
      context,
      ElicitationHandler.ElicitationHandler,
      ElicitationHandler.ElicitationHandler.of({
        ...(form ? { form: (params, ctx) => answer("elicitation/create", params, ctx) } : {}),
        ...(url ? { url: (params, ctx) => answer("elicitation/create", params, ctx) } : {})
      })
    )
  }
  if (capabilities.sampling !== undefined) {
    const sampling = capabilities.sampling as Record<string, unknown>
    context = Context.add(
      context,
      SamplingHandler.SamplingHandler,
      SamplingHandler.SamplingHandler.of({
        createMessage: (params, ctx) => answer("sampling/createMessage", params, ctx),
        tools: "tools" in sampling,
        context: "context" in sampling
      })
    )
  }
  if (capabilities.roots !== undefined) {
    context = Context.add(
      context,
      RootsHandler.RootsHandler,
      RootsHandler.RootsHandler.of({
        listRoots: (ctx) =>
          Effect.map(answer<{ readonly roots: ReadonlyArray<any> }>("roots/list", {}, ctx), (result) => result.roots)
      })
    )
  }
  return context
}

/** The upstream's failure as the gateway's client sees it. */
export const toMcpError = (upstream: string, error: unknown): McpError => {
  if (error instanceof McpError) return error
  if (error instanceof UpstreamBusy) {
    return new McpError({
      code: -32603,
      message: error.message,
      data: { upstream, scope: error.scope, limit: error.limit }
    })
  }
  const tag = isRecord(error) && typeof error._tag === "string" ? error._tag : undefined
  if (tag === "ServerError" && isRecord(error) && isRecord(error.error)) {
    const e = error.error
    if (typeof e.code === "number" && typeof e.message === "string") {
      return new McpError({ code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) })
    }
  }
  const reason = error instanceof Error ? error.message : String(error)
  return McpError.internalError(`Upstream ${upstream} is unavailable or failed: ${reason}`)
}

/** Did the upstream answer the call (its result or a JSON-RPC error), rather than the call being abandoned? */
const answered = (exit: Exit.Exit<unknown, unknown>): boolean =>
  Exit.isSuccess(exit) ||
  (exit.cause.reasons.length > 0 &&
    exit.cause.reasons.every((reason) => Cause.isFailReason(reason) && reason.error instanceof McpError))

/**
 * Runs `retire` when the upstream call ends without the upstream's answer
 * (interrupted, timed out, a gateway ask suspended the handler): its
 * 2025-11-25 session may still ask for it, so it is never leased again.
 */
export const retiredIfAbandoned =
  (retire: Effect.Effect<void>) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.onExit(self, (exit) => answered(exit) ? Effect.void : retire)

/** Is this failure the connection's (so the client is dropped and the next call connects again)? */
export const isConnectionFailure = (error: unknown): boolean =>
  isRecord(error) && (error._tag === "TransportError" || error._tag === "RequestTimeout")

export const callOnce = (
  client: McpClient.McpClient["Service"],
  method: Method,
  params: Record<string, unknown>,
  maxRounds: number | undefined,
  timeout?: Duration.Duration,
  relay?: Relay,
  tasks?: boolean
): Effect.Effect<Record<string, unknown>, unknown> => {
  const options = {
    ...relay,
    // the upstream's task comes back as `TaskStarted`, to pass through (never driven here)
    ...(tasks === true ? { tasks: "manual" as const } : {}),
    ...(maxRounds === undefined ? {} : { maxRounds }),
    ...(timeout === undefined ? {} : { callTimeout: timeout, requestTimeout: timeout })
  }
  switch (method) {
    case "tools/call":
      return client.callTool(params as any, options) as Effect.Effect<any, unknown>
    case "prompts/get":
      return client.getPrompt(params as any, options) as Effect.Effect<any, unknown>
    case "resources/read":
      return client.readResource(params as any, options) as Effect.Effect<any, unknown>
  }
}

/** The call options relaying an upstream call's progress and log messages to the downstream request. */
export interface Relay {
  readonly progressToken?: string | undefined
  readonly onNotification?: ((notification: McpClient.Notification) => Effect.Effect<void>) | undefined
}

const isNumber = (u: unknown): u is number => typeof u === "number" && Number.isFinite(u)

/**
 * The relay for the request being handled: the upstream call carries a
 * progress token of its own when the downstream request carried one, and its
 * `notifications/progress` and `notifications/message` are sent on the
 * downstream request's stream (`RequestContext.progress` / `log`: progress
 * under the downstream's token, messages at or above its log level only).
 */
export const relayOf: Effect.Effect<Relay> = Effect.map(
  Effect.serviceOption(RequestContext.McpRequest),
  (found): Relay => {
    if (Option.isNone(found)) return {}
    const downstream = found.value
    const onNotification = (notification: McpClient.Notification): Effect.Effect<void> => {
      const params = isRecord(notification.params) ? notification.params : {}
      if (notification.method === "notifications/progress" && isNumber(params.progress)) {
        return RequestContext.progress(params.progress, {
          ...(isNumber(params.total) ? { total: params.total } : {}),
          ...(typeof params.message === "string" ? { message: params.message } : {})
        }).pipe(Effect.provideService(RequestContext.McpRequest, downstream))
      }
      if (notification.method === "notifications/message" && Schema.is(LoggingLevel)(params.level)) {
        return RequestContext.log(
          params.level,
          params.data,
          typeof params.logger === "string" ? params.logger : undefined
        )
          .pipe(Effect.provideService(RequestContext.McpRequest, downstream))
      }
      return Effect.void
    }
    return {
      onNotification,
      ...(downstream.progressToken === undefined ? {} : { progressToken: `gateway-${crypto.randomUUID()}` })
    }
  }
)

/** The result as the gateway returns it: no `resultType` (the engine stamps its own), no upstream serverInfo. */
export const own = (result: Record<string, unknown>): Record<string, unknown> => {
  const { _meta, resultType: _resultType, ...rest } = result
  if (!isRecord(_meta)) return rest
  const { [MetaKey.serverInfo]: _serverInfo, ...meta } = _meta
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta }
}

/** One 2026-07-28 exchange: the upstream's complete result, or its input requests and state. */
const exchange = (
  client: McpClient.McpClient["Service"],
  method: Method,
  params: Record<string, unknown>,
  relay: Relay,
  tasks: boolean
): Effect.Effect<Outcome, unknown> =>
  callOnce(client, method, params, 1, undefined, relay, tasks).pipe(
    Effect.map((result): Outcome => ({ _tag: "Complete", result: own(result) })),
    Effect.catch((error: unknown): Effect.Effect<Outcome, unknown> => {
      if (isRecord(error) && error._tag === "MaxRoundsExceeded" && isRecord(error.lastResult)) {
        const last = error.lastResult
        return Effect.succeed({
          _tag: "Input",
          inputRequests: isRecord(last.inputRequests) ? last.inputRequests : {},
          ...(typeof last.requestState === "string" ? { requestState: last.requestState } : {})
        })
      }
      if (isRecord(error) && error._tag === "TaskStarted" && isRecord(error.task)) {
        return Effect.succeed({ _tag: "Task", task: error.task })
      }
      if (isRecord(error) && error._tag === "InputRequiredError") {
        return Effect.succeed({
          _tag: "Input",
          inputRequests: error.inputRequests as Record<string, unknown>,
          ...(typeof error.requestState === "string" ? { requestState: error.requestState } : {})
        })
      }
      return Effect.fail(error)
    })
  )

/** A client leased for a held call: kept until `release` runs (once), whatever the rounds in between. */
export interface HeldClient {
  readonly client: McpClient.McpClient["Service"]
  /** Ends the lease (idempotent). */
  readonly release: Effect.Effect<void>
  /** Retires the client after a connection failure. */
  readonly drop: Effect.Effect<void>
  /** Never leases the client again (the held call was abandoned before the upstream's answer). */
  readonly retire: Effect.Effect<void>
}

/** The held-call path of a 2026-07-28 client's call to a 2025-11-25 upstream (`held.ts`). */
export interface Held {
  readonly forward: (input: {
    readonly conversation: Conversation["Service"]
    readonly upstream: string
    readonly method: Method
    readonly params: Record<string, unknown>
    /**
     * Leases a client for a new held call, outside the handler's scope: a
     * retry that reaches its held call needs none.
     */
    readonly open: Effect.Effect<HeldClient, McpError>
    /** Where the held call's progress and log messages go while this round's request is in flight. */
    readonly relay: Relay
    /**
     * The downstream request's scope (outside the forwarding's own), if the
     * transport gave one: closed interrupted, the request was cancelled.
     */
    readonly requestScope: Scope.Scope | undefined
  }) => Effect.Effect<Record<string, unknown>, unknown, Conversation>
}

/** A lease of `pool` that lasts until its `release` (a held call's life, across rounds). */
const openHeld = (
  pool: Pool,
  name: string,
  capabilities: ClientCapabilities,
  owner: string
): Effect.Effect<HeldClient, McpError> =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const client = yield* pool.lease(capabilities, owner).pipe(
      Scope.provide(scope),
      Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause))),
      Effect.mapError((error) => toMcpError(name, error))
    )
    return { client, release: Scope.close(scope, Exit.void), drop: pool.drop(client), retire: pool.retire(client) }
  })

/**
 * Forwards one request to the upstream `name`, from inside the gateway's
 * handler (a `Conversation` in context).
 */
export const forward = (
  pool: Pool,
  name: string,
  method: Method,
  params: Record<string, unknown>,
  maxExchanges: number,
  held?: Held | undefined,
  taskSource?: string | undefined
): Effect.Effect<Record<string, unknown>, unknown, Conversation> =>
  // the request's own scope, read before the forwarding opens its own
  Effect.flatMap(Effect.serviceOption(Scope.Scope), (outer) =>
    Effect.gen(function*() {
      const conversation = yield* Conversation
      const capabilities = canonical(conversation.clientCapabilities)
      const owner = yield* ownerOf(conversation)
      if (held !== undefined && conversation.inProcess !== true) {
        const era = yield* Effect.catch(pool.era, (error) => Effect.fail(toMcpError(name, error)))
        if (era === "2025-11-25") {
          // A 2026-07-28 client's rounds: the upstream call is held open between them (see `held.ts`).
          return yield* held.forward({
            conversation,
            upstream: name,
            method,
            params,
            open: openHeld(pool, name, capabilities, owner),
            relay: yield* relayOf,
            requestScope: Option.getOrUndefined(outer)
          })
        }
      }
      // The lease holds the client for the whole call: no other call's bound closes it meanwhile.
      const client = yield* Effect.catch(
        pool.lease(capabilities, owner),
        (error) => Effect.fail(toMcpError(name, error))
      )
      const upstreamFailure = (error: unknown) =>
        (isConnectionFailure(error) ? pool.drop(client) : Effect.void).pipe(
          Effect.andThen(Effect.fail(toMcpError(name, error)))
        )
      const handlers = handlersFor(askingAnswerer(conversation, name), capabilities)
      const relay = yield* relayOf
      const connection = yield* Effect.catch(client.connection, upstreamFailure)
      if (connection.era === "2025-11-25") {
        // Asks in flight: a gateway ask that suspends the handler abandons this call (see the header).
        return own(
          yield* callOnce(client, method, params, undefined, undefined, relay).pipe(
            Effect.provideContext(handlers),
            retiredIfAbandoned(pool.retire(client)),
            Effect.catch((error) =>
              isAskFailure(error) ? Effect.fail((error as { cause: unknown }).cause) : upstreamFailure(error)
            )
          )
        )
      }
      const target = method === "resources/read" ? String(params.uri) : String(params.name)
      // A task passes through to a client that declared the extension: the server seals its id (`TaskSource`).
      const tasks = taskSource !== undefined && method === "tools/call" &&
        declaresTasks(conversation.clientCapabilities)
      let retry: { inputResponses?: InputResponses; requestState?: string } = {}
      // How often each upstream key was asked in this call's exchanges (replayed from the journal, so the same each round).
      const times = new Map<string, number>()
      for (let n = 0; n < maxExchanges; n++) {
        const sent = { ...params, ...retry }
        const outcome: Outcome = yield* Mrtr.step(
          `${name}/${method}/${target}/${n}`,
          exchange(client, method, sent, relay, tasks).pipe(
            Effect.provideContext(handlers),
            Effect.catch(upstreamFailure)
          ),
          Outcome
        )
        if (outcome._tag === "Complete") return outcome.result
        if (outcome._tag === "Task") return TaskSource.created(taskSource!, outcome.task) as any
        // A key the upstream asks again in a later exchange (its answer refused there) is another question of the
        // gateway's: `<key>#2`, ... (as a task names it), so the journal keeps the answer each exchange was given.
        const requests = Object.entries(outcome.inputRequests as InputRequests).map(([key, request]) => {
          const time = (times.get(key) ?? 0) + 1
          times.set(key, time)
          return [key, time === 1 ? key : `${key}#${time}`, request] as const
        })
        const answers = yield* Effect.forEach(
          requests,
          ([key, own, request]) =>
            Effect.map(ask(conversation, name, own, request as InputRequest), (answer) => [key, answer] as const),
          { concurrency: "unbounded" }
        )
        retry = {
          inputResponses: Object.fromEntries(answers) as InputResponses,
          ...(outcome.requestState === undefined ? {} : { requestState: outcome.requestState })
        }
      }
      return yield* Effect.fail(
        McpError.internalError(`Upstream ${name} asked for input more than ${maxExchanges} times`)
      )
    }).pipe(Effect.scoped))

/** The share a call's upstream clients count in: its principal's, else its client address's, else the anonymous one. */
const ownerOf = (conversation: Conversation["Service"]) =>
  Effect.map(
    Effect.service(ClientAddress.ClientAddress),
    (address) =>
      conversation.principal !== undefined
        ? `principal:${conversation.principal}`
        : address !== undefined
        ? `address:${ClientAddress.group(address)}`
        : "anonymous"
  )

/** A failure of the gateway's own ask (a capability the client lacks): the engine answers it (-32021). */
const isAskFailure = (error: unknown): boolean =>
  isRecord(error) && error._tag === "InputHandlerError" && isRecord(error.cause) &&
  error.cause._tag === "MissingClientCapability"
