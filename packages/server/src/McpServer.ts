/**
 * The MCP 2026-07-28 server: registries of tools, prompts, resources and
 * resource templates, and the dispatcher that answers one JSON-RPC message.
 *
 * The dispatcher validates the envelope, the per-request `_meta`
 * (protocolVersion, clientCapabilities) and, on HTTP, the standard headers;
 * routes by method; runs `tools/call`, `prompts/get` and `resources/read`
 * through the MRTR engine (so their handlers may ask); and stamps every
 * result with `resultType`, `_meta["io.modelcontextprotocol/serverInfo"]` and,
 * on cacheable complete results, `ttlMs`/`cacheScope`. Every failure becomes
 * the spec's JSON-RPC error with its HTTP status. The server keeps no
 * per-conversation memory: a suspended handler travels in the sealed
 * `requestState`.
 *
 * A server is a Layer (`McpServer.layer`); tools, prompts and resources are
 * registered by Layers too (`McpServer.tools`, `McpServer.prompts`,
 * `McpServer.resources`), so an app composes a server from several modules.
 * Source: MCP 2026-07-28, basic/lifecycle, basic/transports, server/*,
 * basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import {
  Cause,
  type Config,
  Context,
  Effect,
  Exit,
  Fiber,
  Layer,
  Option,
  PubSub,
  Queue,
  Scheduler,
  Schema,
  Scope,
  Stream
} from "effect"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { Digest } from "effect/crypto"
import {
  ClientCapabilities,
  ErrorCode,
  type Implementation,
  type InputResponses,
  LoggingLevel,
  McpError,
  MetaKey,
  PROTOCOL_VERSION,
  type RequestId,
  type ServerCapabilities,
  validateRequestHeaders
} from "@mrtr/protocol"
import {
  ElicitationCancelled,
  ElicitationDeclined,
  Engine,
  JournalTooLarge,
  MissingClientCapability,
  NotCanonicalJson,
  RequestState,
  RoundLimitExceeded
} from "@mrtr/core"
import { isRequestId } from "./internal/jsonRpc.ts"
import * as HttpStatus from "./HttpStatus.ts"
import * as ToolError from "./ToolError.ts"
import { McpHandler } from "./McpHandler.ts"
import type { Completer, Prompt } from "./Prompt.ts"
import { McpRequest } from "./RequestContext.ts"
import type { Resource } from "./Resource.ts"
import type { Tool } from "./Tool.ts"
import type { Incoming, Reply, WireMessage } from "./Transport.ts"

/**
 * The protocol revisions this server answers on the stateless wire.
 *
 * @since 0.1.0
 */
export const SUPPORTED_VERSIONS: ReadonlyArray<string> = [PROTOCOL_VERSION]

/**
 * Server options. Everything but `name` and `version` has a default.
 *
 * - `title`, `instructions`: shown to clients (`server/discover`).
 * - `audience`: the identity sealed states are bound to (default `name`);
 *   instances sharing a key ring must share it.
 * - `cache`: `ttlMs` (milliseconds, ≥ 0) and `cacheScope` stamped on complete
 *   results of `server/discover`, the list methods and `resources/read`
 *   (default `{ ttlMs: 0, cacheScope: "private" }`: clients must revalidate).
 * - `maxRounds`, `maxJournalBytes`: bounds of one MRTR conversation
 *   (defaults 16 rounds and 32 KiB).
 *
 * @since 0.1.0
 */
export interface Options {
  readonly name: string
  readonly version: string
  readonly title?: string | undefined
  readonly instructions?: string | undefined
  readonly audience?: string | undefined
  readonly cache?: { readonly ttlMs: number; readonly cacheScope: "public" | "private" } | undefined
  readonly maxRounds?: number | undefined
  readonly maxJournalBytes?: number | undefined
}

/**
 * Which registry changed: sent to `subscriptions/listen` streams as
 * `notifications/<kind>/list_changed` when the client opted in.
 *
 * @since 0.1.0
 */
export type ListChanged = "tools" | "prompts" | "resources"

type AnyTool = Tool<any, never>
type AnyPrompt = Prompt<any, never>
type AnyResource = Resource<any, never>

/**
 * The server service: its identity, its registries (which may change at
 * run time; each change is announced to `subscriptions/listen` streams), and
 * `handle`, the dispatcher the transports call.
 *
 * @since 0.1.0
 */
export class McpServer extends Context.Service<McpServer, {
  readonly info: Implementation
  readonly addTool: (tool: AnyTool) => Effect.Effect<void>
  readonly removeTool: (name: string) => Effect.Effect<void>
  readonly addPrompt: (prompt: AnyPrompt) => Effect.Effect<void>
  readonly removePrompt: (name: string) => Effect.Effect<void>
  readonly addResource: (resource: AnyResource) => Effect.Effect<void>
  readonly removeResource: (uriOrTemplate: string) => Effect.Effect<void>
  readonly handle: (incoming: Incoming) => Effect.Effect<Reply>
  /** The scopes the target of a `tools/call` / `prompts/get` / `resources/read` declared (else none). */
  readonly requiredScopes: (message: unknown) => ReadonlyArray<string>
}>()("@mrtr/server/McpServer") {}

const MRTR_METHODS = new Set(["tools/call", "prompts/get", "resources/read"])
const NOT_CACHEABLE = { ttlMs: 0, cacheScope: "private" } as const
const CACHEABLE = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read"
])
const METHODS = new Set([
  "server/discover",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "completion/complete",
  "subscriptions/listen"
])

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * How deeply `params` may nest (objects and arrays). Deeper messages are
 * refused with -32602 before any handler, digest or decoder recurses into them.
 *
 * @since 0.1.0
 */
export const MAX_PARAMS_DEPTH = 64

// Recursive, but never deeper than `max` + 1 calls: it stops at that depth.
const nestedDeeperThan = (value: unknown, max: number, depth = 1): boolean => {
  if (typeof value !== "object" || value === null) return false
  if (depth > max) return true
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (nestedDeeperThan(value[i], max, depth + 1)) return true
    }
    return false
  }
  for (const key in value) {
    if (Object.hasOwn(value, key) && nestedDeeperThan((value as Record<string, unknown>)[key], max, depth + 1)) return true
  }
  return false
}

const decodeClientCapabilities = Schema.decodeUnknownExit(ClientCapabilities)
const isLoggingLevel = Schema.is(LoggingLevel)

const errorReply = (id: RequestId | undefined, error: McpError): Reply => ({
  _tag: "Response",
  message: {
    jsonrpc: "2.0",
    ...(id === undefined ? {} : { id }),
    error: error.toJsonRpc()
  } as WireMessage,
  httpStatus: HttpStatus.ofError(error.code, "envelope")
})

/** The one frozen answer to every bad, expired or foreign requestState. */
const INVALID_REQUEST_STATE = McpError.invalidParams("Invalid requestState")

const toMcpError = (error: unknown): McpError | undefined => {
  if (error instanceof McpError) return error
  if (error instanceof RequestState.InvalidRequestState) return INVALID_REQUEST_STATE
  if (error instanceof MissingClientCapability) {
    return McpError.missingRequiredClientCapability(error.requiredCapabilities)
  }
  if (error instanceof RoundLimitExceeded) return McpError.invalidParams(error.message)
  // Arguments canonical JSON cannot represent (`1e400`, a lone surrogate): the client's to fix.
  if (error instanceof NotCanonicalJson) return McpError.invalidParams(error.message)
  // A valid single-use state the replay guard has no room for: not a forgery, the server is saturated.
  if (error instanceof RequestState.ReplayGuardFull) {
    return new McpError({ code: ErrorCode.InternalError, message: error.message })
  }
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

// A prompt or resource handler that does not catch the user's "no": the
// request cannot complete, through no fault of the server, so it is not
// logged as an error. (A tool reports it as a tool execution error instead.)
const userSaidNo = (error: unknown): McpError | undefined =>
  error instanceof ElicitationDeclined || error instanceof ElicitationCancelled
    ? new McpError({ code: ErrorCode.InternalError, message: error.message })
    : undefined

interface Parsed {
  readonly id: RequestId
  readonly method: string
  readonly params: Record<string, unknown>
  readonly clientCapabilities: ClientCapabilities
}

/**
 * Builds the server service. Requires the `RequestStateCodec` (the key
 * ring) and a `Digest`; {@link layer} provides both by default.
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const codec = yield* RequestState.RequestStateCodec
  const digest = yield* Digest.Digest
  const info: Implementation = {
    name: options.name,
    version: options.version,
    ...(options.title === undefined ? {} : { title: options.title })
  }
  const audience = options.audience ?? options.name
  const cache = options.cache ?? NOT_CACHEABLE
  const engine: Engine.Services = {
    codec,
    digest,
    limits: {
      maxRounds: options.maxRounds ?? 16,
      maxJournalBytes: options.maxJournalBytes ?? 32 * 1024
    }
  }
  const tools = new Map<string, AnyTool>()
  const prompts = new Map<string, AnyPrompt>()
  const resources = new Map<string, AnyResource>()
  const changes = yield* PubSub.unbounded<ListChanged>()
  const changed = (kind: ListChanged) => Effect.asVoid(PubSub.publish(changes, kind))

  const capabilities = (): ServerCapabilities => ({
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { listChanged: true },
    completions: {},
    logging: {}
  })

  // The `_meta` every result carries, built once (results are serialized, never mutated).
  const serverMeta: Readonly<Record<string, unknown>> = Object.freeze({ [MetaKey.serverInfo]: info })
  // Same keys, values and order as spreading; built in place (spreading the
  // conditional parts was a visible cost per result).
  // An authenticated caller's results may depend on who asks: never "public" (caching.mdx, SEP-2567).
  const stamp = (method: string, result: Record<string, unknown>, cacheable: boolean, principal?: string) => {
    const stamped: Record<string, unknown> = Object.assign({}, result)
    stamped.resultType = "complete"
    if (CACHEABLE.has(method)) {
      const fields = cacheable ? cache : NOT_CACHEABLE
      stamped.ttlMs = fields.ttlMs
      stamped.cacheScope = principal === undefined ? fields.cacheScope : "private"
    }
    stamped._meta = isRecord(result._meta) ? Object.assign({}, result._meta, serverMeta) : serverMeta
    return stamped
  }

  // -- MRTR methods -------------------------------------------------------

  const runMrtr = <E>(
    parsed: Parsed,
    principal: string | undefined,
    target: string,
    args: unknown,
    handler: Effect.Effect<Record<string, unknown>, E, any>
  ) => {
    const inputResponses = parsed.params.inputResponses
    const requestState = parsed.params.requestState
    if (inputResponses !== undefined && !isRecord(inputResponses)) {
      return Effect.fail(McpError.invalidParams("inputResponses must be an object"))
    }
    if (requestState !== undefined && typeof requestState !== "string") {
      return Effect.fail(McpError.invalidParams("requestState must be a string"))
    }
    const retried = inputResponses !== undefined || requestState !== undefined
    return Engine.runWith(engine, handler, {
      method: parsed.method,
      target,
      arguments: args,
      audience,
      principal,
      clientCapabilities: parsed.clientCapabilities,
      inputResponses: inputResponses as InputResponses | undefined,
      requestState
    }).pipe(
      Effect.map((outcome) =>
        outcome._tag === "InputRequired"
          ? { ...outcome.result, _meta: serverMeta }
          : stamp(parsed.method, outcome.value, !retried && outcome.round === 0)
      )
    )
  }

  const callTool = (parsed: Parsed, principal: string | undefined) => {
    const name = parsed.params.name
    if (typeof name !== "string") return Effect.fail(McpError.invalidParams("tools/call needs a string name"))
    const tool = tools.get(name)
    if (tool === undefined) return Effect.fail(McpError.invalidParams(`Unknown tool: ${name}`))
    const args = parsed.params.arguments
    if (args !== undefined && !isRecord(args)) {
      return Effect.fail(McpError.invalidParams("tools/call arguments must be an object"))
    }
    const handler = tool.call(args ?? {}).pipe(
      Effect.catch((error: unknown) => {
        if (toMcpError(error) !== undefined) return Effect.fail(error)
        // A tool's own typed failure is a tool execution error, reported in the result (see ToolError).
        const text = ToolError.describe(error)
        return Effect.logWarning(`Tool ${name} failed: ${text}`).pipe(
          Effect.annotateLogs({ tool: name }),
          Effect.andThen(Effect.sync(() =>
            tool.onError === undefined ? { content: [{ type: "text" as const, text }], isError: true } : tool.onError(error)
          ))
        )
      })
    )
    return runMrtr(parsed, principal, name, args ?? {}, handler as unknown as Effect.Effect<Record<string, unknown>, unknown>)
  }

  const getPrompt = (parsed: Parsed, principal: string | undefined) => {
    const name = parsed.params.name
    if (typeof name !== "string") return Effect.fail(McpError.invalidParams("prompts/get needs a string name"))
    const prompt = prompts.get(name)
    if (prompt === undefined) return Effect.fail(McpError.invalidParams(`Unknown prompt: ${name}`))
    const args = parsed.params.arguments
    if (args !== undefined && !isRecord(args)) {
      return Effect.fail(McpError.invalidParams("prompts/get arguments must be an object"))
    }
    return runMrtr(parsed, principal, name, args ?? {}, prompt.get(args ?? {}) as any)
  }

  const findResource = (uri: string) => {
    const exact = resources.get(uri)
    if (exact !== undefined && exact._tag === "Resource") return { resource: exact, variables: {} }
    for (const resource of resources.values()) {
      if (resource._tag !== "ResourceTemplate") continue
      const variables = resource.match(uri)
      if (variables !== undefined) return { resource, variables }
    }
    return undefined
  }

  const readResource = (parsed: Parsed, principal: string | undefined) => {
    const uri = parsed.params.uri
    if (typeof uri !== "string") return Effect.fail(McpError.invalidParams("resources/read needs a string uri"))
    const found = findResource(uri)
    if (found === undefined) return Effect.fail(McpError.invalidParams(`Resource not found: ${uri}`, { uri }))
    return runMrtr(parsed, principal, uri, null, found.resource.read(uri, found.variables) as any)
  }

  // -- Other methods --------------------------------------------------------

  const list = <A>(key: string, items: Iterable<A>, cursor: unknown) =>
    cursor !== undefined && cursor !== null
      ? Effect.fail(McpError.invalidParams("Invalid cursor"))
      : Effect.succeed({ [key]: Array.from(items) })

  const complete = (parsed: Parsed) => {
    const ref = parsed.params.ref
    const argument = parsed.params.argument
    if (!isRecord(ref) || !isRecord(argument) || typeof argument.name !== "string" || typeof argument.value !== "string") {
      return Effect.fail(McpError.invalidParams("completion/complete needs ref and argument { name, value }"))
    }
    let completer: Completer | undefined
    if (ref.type === "ref/prompt" && typeof ref.name === "string") {
      const prompt = prompts.get(ref.name)
      if (prompt === undefined) return Effect.fail(McpError.invalidParams(`Unknown prompt: ${ref.name}`))
      completer = Object.hasOwn(prompt.completions, argument.name) ? prompt.completions[argument.name] : undefined
    } else if (ref.type === "ref/resource" && typeof ref.uri === "string") {
      const resource = resources.get(ref.uri)
      if (resource === undefined) return Effect.fail(McpError.invalidParams(`Unknown resource template: ${ref.uri}`))
      completer = Object.hasOwn(resource.completions, argument.name) ? resource.completions[argument.name] : undefined
    } else {
      return Effect.fail(McpError.invalidParams("completion/complete ref must be ref/prompt or ref/resource"))
    }
    const context = isRecord(parsed.params.context) && isRecord(parsed.params.context.arguments)
      ? parsed.params.context.arguments as Record<string, string>
      : {}
    const value = argument.value
    const found = completer
    return (found === undefined ? Effect.succeed([] as ReadonlyArray<string>) : Effect.suspend(() => found(value, context))).pipe(
      Effect.map((values) => ({
        completion: {
          values: values.slice(0, 100),
          total: values.length,
          hasMore: values.length > 100
        }
      }))
    )
  }

  const listen = (parsed: Parsed): Reply => {
    const filter = isRecord(parsed.params.notifications) ? parsed.params.notifications : {}
    const honoured: Record<string, boolean> = {}
    for (const key of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"]) {
      if (filter[key] === true) honoured[key] = true
    }
    const subscription = { [MetaKey.subscriptionId]: parsed.id }
    const wanted = (kind: ListChanged) => honoured[`${kind}ListChanged`] === true
    const ack: WireMessage = {
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: honoured, _meta: subscription }
    }
    return {
      _tag: "Stream",
      messages: Stream.concat(
        Stream.succeed(ack),
        Stream.fromPubSub(changes).pipe(
          Stream.filter(wanted),
          Stream.map((kind): WireMessage => ({
            jsonrpc: "2.0",
            method: `notifications/${kind}/list_changed`,
            params: { _meta: subscription }
          }))
        )
      )
    }
  }

  // -- Envelope, _meta and headers ------------------------------------------

  const parse = (incoming: Incoming): Parsed | Reply => {
    const message = incoming.message
    if (!isRecord(message)) {
      return errorReply(undefined, McpError.invalidRequest(Array.isArray(message)
        ? "Batches are not supported"
        : "A JSON-RPC message must be an object"))
    }
    const id = isRequestId(message.id) ? message.id : undefined
    if (message.jsonrpc !== "2.0") return errorReply(id, McpError.invalidRequest("jsonrpc must be \"2.0\""))
    if (typeof message.method !== "string") {
      return errorReply(id, McpError.invalidRequest("A request needs a string method"))
    }
    if (!("id" in message)) return { _tag: "Accepted" }
    if (id === undefined) return errorReply(undefined, McpError.invalidRequest("id must be a string or an integer"))
    const method = message.method
    if (!METHODS.has(method)) return errorReply(id, McpError.methodNotFound(method))
    const params = message.params
    if (params !== undefined && !isRecord(params)) return errorReply(id, McpError.invalidParams("params must be an object"))
    const meta = params?._meta
    if (!isRecord(meta)) return errorReply(id, McpError.invalidParams("Missing params._meta"))
    const version = meta[MetaKey.protocolVersion]
    if (typeof version !== "string") {
      return errorReply(
        id,
        McpError.invalidParams(
          version === undefined
            ? `Missing _meta["${MetaKey.protocolVersion}"]`
            : `Invalid _meta["${MetaKey.protocolVersion}"]: not a string`
        )
      )
    }
    const logLevel = meta[MetaKey.logLevel]
    if (logLevel !== undefined && !isLoggingLevel(logLevel)) {
      return errorReply(id, McpError.invalidParams(`Invalid _meta["${MetaKey.logLevel}"]: not a logging level`))
    }
    const declared = meta[MetaKey.clientCapabilities]
    if (!isRecord(declared)) {
      return errorReply(
        id,
        McpError.invalidParams(
          declared === undefined
            ? `Missing _meta["${MetaKey.clientCapabilities}"]`
            : `Invalid _meta["${MetaKey.clientCapabilities}"]: not an object`
        )
      )
    }
    const decoded = decodeClientCapabilities(declared)
    if (Exit.isFailure(decoded)) {
      return errorReply(id, McpError.invalidParams(`Invalid _meta["${MetaKey.clientCapabilities}"]`))
    }
    const clientCapabilities = decoded.value
    if (nestedDeeperThan(params, MAX_PARAMS_DEPTH)) {
      return errorReply(id, McpError.invalidParams(`params are nested more than ${MAX_PARAMS_DEPTH} levels deep`))
    }
    if (incoming.headers !== undefined) {
      // On tools/call, the tool's x-mcp-header parameters must be mirrored in Mcp-Param-* headers.
      const tool = method === "tools/call" && typeof params?.name === "string" ? tools.get(params.name) : undefined
      const mismatch = validateRequestHeaders(incoming.headers, { method, params: params ?? {} }, tool?.definition)
      if (mismatch !== undefined) return errorReply(id, mismatch)
    }
    if (!SUPPORTED_VERSIONS.includes(version)) {
      return errorReply(id, McpError.unsupportedProtocolVersion(version, SUPPORTED_VERSIONS))
    }
    return { id, method, params: params ?? {}, clientCapabilities }
  }

  const route = (parsed: Parsed, principal: string | undefined): Effect.Effect<unknown, unknown, McpRequest> => {
    const params = parsed.params
    switch (parsed.method) {
      case "server/discover":
        return Effect.succeed({
          supportedVersions: SUPPORTED_VERSIONS,
          capabilities: capabilities(),
          ...(options.instructions === undefined ? {} : { instructions: options.instructions })
        })
      case "tools/list":
        return list("tools", Array.from(tools.values(), (t) => t.definition), params.cursor)
      case "prompts/list":
        return list("prompts", Array.from(prompts.values(), (p) => p.definition), params.cursor)
      case "resources/list":
        return list(
          "resources",
          Array.from(resources.values()).filter((r) => r._tag === "Resource").map((r) => r.definition),
          params.cursor
        )
      case "resources/templates/list":
        return list(
          "resourceTemplates",
          Array.from(resources.values()).filter((r) => r._tag === "ResourceTemplate").map((r) => r.definition),
          params.cursor
        )
      case "tools/call":
        return callTool(parsed, principal)
      case "prompts/get":
        return getPrompt(parsed, principal)
      case "resources/read":
        return readResource(parsed, principal)
      case "completion/complete":
        return complete(parsed)
      default:
        return Effect.fail(McpError.methodNotFound(parsed.method))
    }
  }

  const respond = (parsed: Parsed, principal: string | undefined) =>
    route(parsed, principal).pipe(
      Effect.map((result): WireMessage => ({
        jsonrpc: "2.0",
        id: parsed.id,
        result: MRTR_METHODS.has(parsed.method) ? result : stamp(parsed.method, result as Record<string, unknown>, true, principal)
      })),
      Effect.catchCause((cause): Effect.Effect<WireMessage> => {
        const failure = Cause.findErrorOption(cause)
        const known = Option.isSome(failure) ? toMcpError(failure.value) ?? userSaidNo(failure.value) : undefined
        if (known !== undefined) {
          return Effect.succeed({ jsonrpc: "2.0", id: parsed.id, error: known.toJsonRpc() })
        }
        return Effect.logError("Request failed", cause).pipe(
          Effect.annotateLogs({ method: parsed.method }),
          // The details stay in the log: a handler's own failure may carry internals.
          // (A handler that wants the client to see an error fails with an McpError.)
          Effect.as({ jsonrpc: "2.0", id: parsed.id, error: McpError.internalError().toJsonRpc() })
        )
      })
    )

  const statusOf = (message: WireMessage) => HttpStatus.ofResponse(message, "method")

  // Runs a request; the first notification it emits turns the reply into a stream.
  // Written with combinators rather than `Effect.gen`: a generator suspended
  // here for the whole request measurably raised CPU and GC time per request
  // on the benchmark (bench/index.ts).
  const handleRequest = (parsed: Parsed, incoming: Incoming): Effect.Effect<Reply> => {
    const meta = parsed.params._meta as Record<string, unknown>
    const accept = incoming.headers?.("accept")
    const canStream = incoming.headers === undefined || accept === undefined || accept.includes("text/event-stream")
    const logLevel = typeof meta[MetaKey.logLevel] === "string" ? meta[MetaKey.logLevel] as LoggingLevel : undefined
    const progressToken = typeof meta.progressToken === "string" || typeof meta.progressToken === "number"
      ? meta.progressToken
      : undefined
    const clientInfo = meta[MetaKey.clientInfo]
    const context = (notify: McpRequest["Service"]["notify"]) =>
      McpRequest.of({
        id: parsed.id,
        method: parsed.method,
        clientCapabilities: parsed.clientCapabilities,
        clientInfo: isRecord(clientInfo) ? clientInfo as Implementation : undefined,
        logLevel,
        progressToken,
        principal: incoming.principal,
        auth: incoming.auth,
        notify
      })
    // Without a progress token or a log level the request can emit nothing
    // before its response (the spec forbids unrequested notifications), so it
    // runs in place: no queue, no fiber.
    if (!canStream || (progressToken === undefined && logLevel === undefined)) {
      return Effect.map(
        Effect.provideService(respond(parsed, incoming.principal), McpRequest, context(() => Effect.void)),
        (message): Reply => ({ _tag: "Response", message, httpStatus: statusOf(message) })
      )
    }
    return Effect.flatMap(Queue.unbounded<WireMessage, Cause.Done>(), (queue) =>
      Effect.flatMap(
        respond(parsed, incoming.principal).pipe(
          Effect.provideService(McpRequest, context((notification) => Effect.asVoid(Queue.offer(queue, notification)))),
          Effect.tap((response) => Queue.offer(queue, response).pipe(Effect.andThen(Queue.end(queue)))),
          Effect.forkDetach
        ),
        (fiber) =>
          Effect.map(Queue.take(queue).pipe(Effect.orDie), (first): Reply =>
            "id" in first
              ? { _tag: "Response", message: first, httpStatus: statusOf(first) }
              : {
                _tag: "Stream",
                messages: Stream.concat(Stream.succeed(first), Stream.fromQueue(queue)).pipe(
                  Stream.ensuring(Fiber.interrupt(fiber))
                )
              })
      ))
  }

  const handle = (incoming: Incoming): Effect.Effect<Reply> => {
    const parsed = parse(incoming)
    if ("_tag" in parsed) return Effect.succeed(parsed)
    if (parsed.method === "subscriptions/listen") return Effect.succeed(listen(parsed))
    return handleRequest(parsed, incoming)
  }

  const NO_SCOPES: ReadonlyArray<string> = []
  const requiredScopes = (message: unknown): ReadonlyArray<string> => {
    if (!isRecord(message) || !isRecord(message.params)) return NO_SCOPES
    const params = message.params
    switch (message.method) {
      case "tools/call":
        return (typeof params.name === "string" ? tools.get(params.name)?.scopes : undefined) ?? NO_SCOPES
      case "prompts/get":
        return (typeof params.name === "string" ? prompts.get(params.name)?.scopes : undefined) ?? NO_SCOPES
      case "resources/read":
        return (typeof params.uri === "string" ? findResource(params.uri)?.resource.scopes : undefined) ?? NO_SCOPES
      default:
        return NO_SCOPES
    }
  }

  return McpServer.of({
    info,
    requiredScopes,
    addTool: (tool) => Effect.suspend(() => (tools.set(tool.name, tool), changed("tools"))),
    removeTool: (name) => Effect.suspend(() => (tools.delete(name) ? changed("tools") : Effect.void)),
    addPrompt: (prompt) => Effect.suspend(() => (prompts.set(prompt.name, prompt), changed("prompts"))),
    removePrompt: (name) => Effect.suspend(() => (prompts.delete(name) ? changed("prompts") : Effect.void)),
    addResource: (resource) => Effect.suspend(() => (resources.set(resource.key, resource), changed("resources"))),
    removeResource: (key) => Effect.suspend(() => (resources.delete(key) ? changed("resources") : Effect.void)),
    handle
  })
})

/**
 * The server as a Layer, providing `McpServer` and the `McpHandler` the
 * transports need.
 *
 * With zero configuration it reads the key ring from
 * `MRTR_REQUEST_STATE_KEYS` (else a random per-process key, logged; a
 * malformed value fails the layer with a `ConfigError`) and the
 * expiry from `MRTR_REQUEST_STATE_TTL` (default 10 minutes), and uses
 * `node:crypto` for digests. `requestState` configures sealing instead:
 * either codec options (`{ keyRing, ttl?, maxSize?, singleUse? }`, see
 * `RequestState.RequestStateCodecOptions`; e.g.
 * `{ keyRing: RequestState.KeyRing.fromBytes([{ bytes }]), ttl: "5 minutes" }`)
 * or a whole codec Layer.
 *
 * @since 0.1.0
 */
export const layer = <E = never>(
  options: Options & {
    readonly requestState?:
      | Layer.Layer<RequestState.RequestStateCodec, E>
      | RequestState.RequestStateCodecOptions<E>
      | undefined
  }
): Layer.Layer<McpServer | McpHandler, Config.ConfigError | E> => {
  const server = Layer.effect(McpServer, make(options))
  const handler = Layer.effect(McpHandler, McpServer.useSync((s) => McpHandler.of({ handle: s.handle, requiredScopes: s.requiredScopes })))
  const requestState = options.requestState
  const codec: Layer.Layer<RequestState.RequestStateCodec, Config.ConfigError | E> = requestState === undefined
    ? RequestState.RequestStateCodec.layerConfig
    : Layer.isLayer(requestState)
    ? requestState as Layer.Layer<RequestState.RequestStateCodec, E>
    : RequestState.RequestStateCodec.layer(requestState as RequestState.RequestStateCodecOptions<E>)
  return Layer.provideMerge(handler, server).pipe(
    Layer.provide(codec),
    Layer.provide(NodeCrypto.layerDigest)
  )
}

/**
 * Provides a registering layer's context to the handler of one of its items.
 * Usually every service in it is already in the request's context (a handler
 * that needs nothing of its own): then nothing is merged, since a merge
 * copies every service of the application on every request.
 */
const provideRegistered = (registered: Context.Context<any>) => {
  // Not the layer's own Scope when the request has one: a handler that needs a
  // Scope gets the request's (its resources are released with the request).
  // Nor a Scheduler: the handler runs on the engine's, which tracks its work.
  const context = Context.omit(Scope.Scope, Scheduler.Scheduler)(registered)
  const layerScope = Context.getOption(registered, Scope.Scope)
  const entries = Array.from(context.mapUnsafe, ([id, value]) => [Context.Service<unknown>(id), value] as const)
  const provide = (current: Context.Context<never>): Context.Context<never> => {
    let next = current
    for (const [key, value] of entries) {
      if (Context.getOrUndefined(current, key) !== value) {
        next = Context.merge(current, context)
        break
      }
    }
    // A request run without a Scope (a custom transport) falls back to the layer's.
    if (Option.isSome(layerScope) && Option.isNone(Context.getOption(next, Scope.Scope))) {
      next = Context.add(next, Scope.Scope, layerScope.value)
    }
    return next
  }
  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, never> =>
    Effect.updateContext(effect as Effect.Effect<A, E, never>, provide)
}

const register = <A, R>(
  items: ReadonlyArray<A>,
  add: (server: McpServer["Service"], item: A) => Effect.Effect<void>,
  withContext: (item: A, provide: <A2, E2, R2>(effect: Effect.Effect<A2, E2, R2>) => Effect.Effect<A2, E2, never>) => A
): Layer.Layer<never, never, McpServer | R> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const server = yield* McpServer
    const provide = provideRegistered(yield* Effect.context<R>())
    for (const item of items) yield* add(server, withContext(item, provide))
  }))

/**
 * Registers tools with the server. The Layer requires what the tools'
 * handlers require (besides the engine's services), and provides it to them
 * on every round. A handler that needs a `Scope` gets the request's
 * (Streamable HTTP and stdio open one per request), so what it acquires is
 * released when the request ends; a request handled without one (a custom
 * transport calling `handle` outside any Scope) gets the layer's, released
 * when the server stops.
 *
 * @since 0.1.0
 */
export const tools = <const T extends ReadonlyArray<Tool<any, any>>>(
  ...items: T
): Layer.Layer<never, never, McpServer | (T[number] extends Tool<any, infer R> ? R : never)> =>
  register(items, (s, t) => s.addTool(t as AnyTool), (tool, provide) => ({
    ...tool,
    call: (args: unknown) => provide(tool.call(args))
  })) as any

/**
 * Registers prompts with the server; see {@link tools}.
 *
 * @since 0.1.0
 */
export const prompts = <const P extends ReadonlyArray<Prompt<any, any>>>(
  ...items: P
): Layer.Layer<never, never, McpServer | (P[number] extends Prompt<any, infer R> ? R : never)> =>
  register(items, (s, p) => s.addPrompt(p as AnyPrompt), (prompt, provide) => ({
    ...prompt,
    get: (args: unknown) => provide(prompt.get(args))
  })) as any

/**
 * Registers resources and resource templates with the server; see {@link tools}.
 *
 * @since 0.1.0
 */
export const resources = <const T extends ReadonlyArray<Resource<any, any>>>(
  ...items: T
): Layer.Layer<never, never, McpServer | (T[number] extends Resource<any, infer R> ? R : never)> =>
  register(items, (s, r) => s.addResource(r as AnyResource), (resource, provide) => ({
    ...resource,
    read: (uri: string, variables: Readonly<Record<string, string>>) =>
      provide(resource.read(uri, variables))
  })) as any
