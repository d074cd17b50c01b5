/**
 * The request path of the MCP endpoint, one function per step: the `Host` /
 * `Origin` checks (`handleWith`), CORS and authentication (`handleAdmitted`),
 * method, media type, body, JSON and scopes (`handleAuthorized`), then the
 * dispatcher and its reply as an HTTP response (`dispatch`). The order of
 * the checks and their answers are the table in `HttpTransport.ts`'s header.
 *
 * Gotchas: written with combinators rather than `Effect.gen` (a generator
 * suspended across the body read cost about 90 µs of CPU per request); a
 * body larger than `LARGE_BODY_BYTES` yields to the event loop between its
 * steps; a dispatcher defect is logged and answered -32603 (HTTP 200).
 *
 * Source: MCP 2026-07-28, basic/transports (Streamable HTTP), basic/authorization.
 *
 * @internal
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { ClientAddress } from "@mrtr/core"
import { Cause, Effect, Option } from "effect"
import { type Headers, HttpServerRequest, HttpServerResponse } from "effect/http"
import { IncomingMessage } from "node:http"
import type { Authentication, ResourceServer } from "../../Authorization.ts"
import type { Handler, Incoming } from "../../Transport.ts"
import * as JsonBudget from "../jsonBudget.ts"
import { ErrorCode, requestIdOf } from "../jsonRpc.ts"
import type { Config, Sse } from "./config.ts"
import { hostAllowed, originAllowed } from "./hostGuard.ts"
import { acceptsEventStream, LARGE_BODY_BYTES, mediaType, readBody, tooLarge } from "./requestBody.ts"
import { errorResponse, internalErrorReply, toResponse } from "./responses.ts"

const PARSE_ERROR = ErrorCode.ParseError
const INVALID_REQUEST = ErrorCode.InvalidRequest

const decoder = new TextDecoder()

/**
 * The protected resource of an endpoint with authorization on: the service and the canonical
 * resource URI its tokens' audience must name (configured or from the bound address, never a header).
 */
export interface Protected {
  readonly server: ResourceServer["Service"]
  readonly resource: string
}

/** The whole request path for one HTTP request to the endpoint (never fails; the router routes every method here). */
export const handleWith = (
  handler: Handler,
  config: Config,
  request: HttpServerRequest.HttpServerRequest,
  authorization?: Protected | undefined
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  // The client's address, for the stores' shares of unauthenticated callers: the socket's peer, or what trusted
  // proxies forwarded (Effect's `xForwardedHeaders`; the request itself is served unchanged).
  const served = (address: Option.Option<string>) =>
    Effect.provideService(
      handleAddressed(handler, config, request, authorization),
      ClientAddress.ClientAddress,
      Option.getOrUndefined(address)
    )
  if (config.forwarded === undefined) return served(request.remoteAddress)
  return Effect.provideService(
    config.forwarded(
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (forwarded) => served(forwarded.remoteAddress))
    ),
    HttpServerRequest.HttpServerRequest,
    request
  )
}

const handleAddressed = (
  handler: Handler,
  config: Config,
  request: HttpServerRequest.HttpServerRequest,
  authorization: Protected | undefined
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  // `request.headers` builds a fresh object on every access on Node: read it once.
  const headers = request.headers
  if (!hostAllowed(config, request, headers)) {
    return Effect.succeed(errorResponse(403, INVALID_REQUEST, "Forbidden: Host not allowed"))
  }
  if (!originAllowed(config, headers)) {
    return Effect.succeed(errorResponse(403, INVALID_REQUEST, "Forbidden: Origin not allowed"))
  }
  return config.cors === undefined
    ? handleAdmitted(handler, config, request, headers, authorization)
    : config.cors(request, handleAdmitted(handler, config, request, headers, authorization))
}

/** `handleWith` once the `Host` / `Origin` checks passed. */
const handleAdmitted = (
  handler: Handler,
  config: Config,
  request: HttpServerRequest.HttpServerRequest,
  headers: Headers.Headers,
  authorization: Protected | undefined
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  // Every request to the endpoint is authenticated first, whatever its method (MCP 2026-07-28 basic/authorization).
  if (authorization === undefined) return handleAuthorized(handler, config, request, headers, undefined, undefined)
  return Effect.flatMap(
    authorization.server.authenticate(request, authorization.resource),
    (authentication) =>
      authentication._tag === "Refused"
        ? Effect.succeed(authentication.response)
        : handleAuthorized(handler, config, request, headers, authorization.server, authentication)
  )
}

/** The request once authenticated (when authorization is on): method, media type, body, JSON, scopes, dispatch. */
const handleAuthorized = (
  handler: Handler,
  config: Config,
  request: HttpServerRequest.HttpServerRequest,
  headers: Headers.Headers,
  authorization: ResourceServer["Service"] | undefined,
  authentication: Extract<Authentication, { readonly _tag: "Authenticated" }> | undefined
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  if (request.method !== "POST") {
    // A 2025-11-25 session's stream (GET) or its end (DELETE); everything else, and any
    // GET or DELETE without a session, is not served here.
    if ((request.method === "GET" || request.method === "DELETE") && headers["mcp-session-id"] !== undefined) {
      const sse = acceptsEventStream(headers["accept"]) ? sseOf(config, request) : undefined
      // A GET stream is SSE or nothing: without `text/event-stream` in `Accept` it could never answer.
      if (request.method === "GET" && sse === undefined) {
        return Effect.succeed(
          errorResponse(406, INVALID_REQUEST, "Not Acceptable: a GET stream needs Accept: text/event-stream")
        )
      }
      // With authorization on, the session is the authenticated caller's (its principal binds it), and
      // every method needs the scopes every request needs (`requiredScopes`), as a POST does.
      if (authorization !== undefined && authentication !== undefined) {
        const denied = authorization.authorize(authentication, [])
        if (denied !== undefined) return Effect.succeed(denied)
        return dispatch(
          handler,
          headers,
          undefined,
          authentication.auth.principal,
          sse,
          request.method,
          authentication.auth
        )
      }
      return config.principal === undefined
        ? dispatch(handler, headers, undefined, undefined, sse, request.method)
        : Effect.flatMap(
          config.principal(request),
          (principal) => dispatch(handler, headers, undefined, principal, sse, request.method as "GET" | "DELETE")
        )
    }
    return Effect.succeed(HttpServerResponse.empty({ status: 405, headers: { allow: "POST" } }))
  }
  if (mediaType(headers["content-type"]) !== "application/json") {
    return Effect.succeed(
      errorResponse(415, INVALID_REQUEST, "Unsupported Media Type: Content-Type must be application/json")
    )
  }
  const contentLength = headers["content-length"]
  if (contentLength !== undefined && Number(contentLength) > config.maxBodyBytes) {
    return Effect.succeed(tooLarge(config, request))
  }
  return Effect.matchEffect(readBody(request, headers, config), {
    onFailure: (failure) =>
      Effect.succeed(
        failure === "BodyTooLarge"
          ? tooLarge(config, request)
          : failure === "Timeout"
          ? errorResponse(408, INVALID_REQUEST, "Request timeout: the body did not arrive in time")
          : errorResponse(400, INVALID_REQUEST, "Could not read the request body")
      ),
    onSuccess: (body) => {
      if (JsonBudget.exceedsValues(new Uint8Array(body), config.maxJsonValues)) {
        return Effect.succeed(
          errorResponse(413, INVALID_REQUEST, `Request body holds more than ${config.maxJsonValues} JSON values`)
        )
      }
      // A large body's work is done in steps with the event loop's other callbacks between them (see LARGE_BODY_BYTES).
      const large = body.byteLength > LARGE_BODY_BYTES
      const parsed = Effect.suspend(() => {
        let message: unknown
        try {
          message = JSON.parse(decoder.decode(body))
        } catch {
          return Effect.succeed(errorResponse(400, PARSE_ERROR, "Parse error"))
        }
        const sse = !config.jsonResponse && acceptsEventStream(headers["accept"]) ? sseOf(config, request) : undefined
        if (authorization !== undefined && authentication !== undefined) {
          const denied = authorization.authorize(authentication, handler.requiredScopes?.(message) ?? [])
          if (denied !== undefined) return Effect.succeed(denied)
          const authorized = dispatch(
            handler,
            headers,
            message,
            authentication.auth.principal,
            sse,
            "POST",
            authentication.auth
          )
          return large ? Effect.andThen(Effect.yieldNow, authorized) : authorized
        }
        const handle = config.principal === undefined
          ? dispatch(handler, headers, message, undefined, sse)
          : Effect.flatMap(
            config.principal(request),
            (principal) => dispatch(handler, headers, message, principal, sse)
          )
        return large ? Effect.andThen(Effect.yieldNow, handle) : handle
      })
      return large ? Effect.andThen(Effect.yieldNow, parsed) : parsed
    }
  })
}

/** How this request's SSE answer is written: the keep-alive goes to its Node response (none off Node). */
const sseOf = (config: Config, request: HttpServerRequest.HttpServerRequest): Sse =>
  config.sseKeepAliveMillis !== undefined && request.source instanceof IncomingMessage
    ? { keepAliveMillis: config.sseKeepAliveMillis, response: NodeHttpServerRequest.toServerResponse(request) }
    : { keepAliveMillis: undefined }

/** Hands a parsed message to the dispatcher and turns its reply into the HTTP response. */
const dispatch = (
  handler: Handler,
  headers: Headers.Headers,
  message: unknown,
  principal: string | undefined,
  sse: Sse | undefined,
  httpMethod: "POST" | "GET" | "DELETE" = "POST",
  auth?: Incoming["auth"]
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const incoming: Incoming = {
    message,
    headers: (name) => headers[name.toLowerCase()],
    principal,
    canStream: sse !== undefined,
    ...(httpMethod === "POST" ? {} : { httpMethod }),
    ...(auth === undefined ? {} : { auth })
  }
  const id = requestIdOf(message)
  return handler.handle(incoming).pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause)
        : Effect.as(Effect.logError("HttpTransport: the dispatcher died", cause), internalErrorReply(id))
    ),
    Effect.flatMap((reply) => toResponse(reply, id, sse))
  )
}
