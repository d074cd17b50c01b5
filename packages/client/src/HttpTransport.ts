/**
 * Streamable HTTP client transport (MCP 2026-07-28): each JSON-RPC message is
 * its own POST to the server's single endpoint, with
 * `Accept: application/json, text/event-stream`; the server answers with one
 * JSON body, or with a per-request SSE stream that carries request-related
 * notifications (progress, log) and then the response. Closing the stream
 * cancels the request.
 *
 * For 2025-11-25 servers the transport also keeps the session
 * (`Mcp-Session-Id`, `DELETE` on close), opens the GET stream (`listen`) and
 * resumes an SSE stream the server closed early (`Last-Event-ID`, `retry`).
 *
 * Built on effect's `HttpClient`; `layerNode` provides the `node:http` one
 * from `@effect/platform-node`, with keep-alive connections.
 *
 * Gotchas (cost per request, which an MRTR conversation pays every round):
 * - a JSON body is read in one piece (`arrayBuffer` bounded by
 *   `maxBodyBytes`), not as a stream of chunks;
 * - each request is effect's `http.client` span, with a `traceparent`
 *   header, only when a tracer that records spans is installed (e.g.
 *   OpenTelemetry's, `Effect.withTracer`); under effect's default tracer,
 *   which records nothing, no span is built and no `traceparent` is sent.
 *
 * With an `Authorization` service in the context (`Authorization.layer`),
 * every request (POST, and a 2025-11-25 session's GET and DELETE) carries the
 * bearer token, and a `401` or `403 insufficient_scope` runs the sign-in /
 * step-up and sends the same request again (same JSON-RPC id,
 * `inputResponses` and `requestState`).
 *
 * Source: MCP 2026-07-28, basic/transports/streamable-http, basic/authorization;
 * MCP 2025-11-25, basic/transports.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { ByteSize, Duration, Effect, Layer, Option, Stream, Tracer } from "effect"
import { constTrue } from "effect/Function"
import * as Sse from "effect/encoding/Sse"
import { HttpClient, type HttpClientError, HttpClientRequest, type HttpClientResponse, HttpIncomingMessage } from "effect/http"
import { Authorization } from "./Authorization.ts"
import { ClientTransport, decodeJson, encodeJson } from "./ClientTransport.ts"
import { TransportError } from "./Errors.ts"
import { systemCode } from "./internal/systemCode.ts"

/**
 * Options of the HTTP transport.
 *
 * - `url`: the MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`.
 * - `headers`: extra headers sent with every POST (e.g. `Authorization`);
 *   the MCP headers the client computes take precedence.
 * - `maxEventBytes`: largest SSE event accepted, in UTF-16 code units
 *   (default 16 MiB); a larger one fails the request with `TransportError`.
 * - `maxBodyBytes`: largest JSON response body accepted, in bytes (default
 *   16 MiB); a larger one fails the request with `TransportError` without
 *   reading the rest.
 *
 * MCP 2026-07-28, basic/transports/streamable-http.
 *
 * @since 0.1.0
 */
export interface Options {
  readonly url: string | URL
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly maxEventBytes?: number | undefined
  readonly maxBodyBytes?: number | undefined
}

/** What a failed connection attempt to `url` was, in words a person recognizes. */
const connectFailure = (url: string, code: string | undefined): string => {
  switch (code) {
    case "ECONNREFUSED":
      return `connection refused: nothing listens at ${url}`
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `host not found: ${url}`
    case "ECONNRESET":
      return `the connection to ${url} was reset`
    case "ETIMEDOUT":
      return `the connection to ${url} timed out`
    default:
      return `HTTP request to ${url} failed${code === undefined ? "" : ` (${code})`}`
  }
}

/** A JSON-RPC message: an object with `jsonrpc: "2.0"`. */
const isJsonRpc = (value: unknown): boolean =>
  typeof value === "object" && value !== null && (value as { readonly jsonrpc?: unknown }).jsonrpc === "2.0"

const mediaType = (response: HttpClientResponse.HttpClientResponse): string | undefined =>
  response.headers["content-type"]?.split(";", 1)[0]?.trim().toLowerCase()

const utf8 = new TextDecoder()

/**
 * Closes the connection of a response whose body is not read (an error page,
 * a `202`, a refused stream): the request is aborted, as the end of a scope
 * of `HttpClient.withScope` would. A body that is read needs nothing (its
 * connection goes back to the pool), which is why the client is not scoped:
 * that scope aborts every request at its end, and an `AbortController.abort()`
 * (its `DOMException`) costs as much as the rest of a round's parsing.
 */
const discard = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> =>
  Effect.scoped(Effect.asVoid(Stream.toPull(response.stream)))

/** Whether `cause` (an `HttpClientError`) is the body reader refusing more than `MaxBodySize` bytes. */
const isOverflow = (cause: HttpClientError.HttpClientError): boolean => {
  const reason = cause.reason
  return reason._tag === "DecodeError" && typeof reason.cause === "object" && reason.cause !== null &&
    (reason.cause as { readonly _tag?: unknown })._tag === "MaxBytesError"
}

/**
 * Reads a response body as UTF-8, refusing bodies over `maxBytes` (announced,
 * or streamed: the reader stops at the limit and closes the connection).
 * One read of the whole body (`arrayBuffer` with `MaxBodySize`), not a
 * stream of chunks: the cheap path every JSON answer takes.
 */
const readText = (response: HttpClientResponse.HttpClientResponse, maxBytes: number, limit: ByteSize.ByteSize) =>
  Effect.suspend(() => {
    const tooLarge = () =>
      new TransportError({ reason: `The HTTP response body exceeds ${maxBytes} bytes`, status: response.status })
    const announced = Number(response.headers["content-length"])
    if (Number.isFinite(announced) && announced > maxBytes) return Effect.andThen(discard(response), Effect.fail(tooLarge()))
    return response.arrayBuffer.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, limit),
      Effect.mapError((cause) =>
        isOverflow(cause)
          ? tooLarge()
          : new TransportError({ reason: "Cannot read the HTTP response body", status: response.status, cause })
      ),
      Effect.map((body) => utf8.decode(body))
    )
  })

/** What an SSE body told about resuming it (2025-11-25): the last event id and `retry` delay. */
interface SseResume {
  lastEventId: string | undefined
  retry: Duration.Duration | undefined
  events: number
}

/** The JSON-RPC messages carried by an SSE body, parsed, in order. */
const sseMessages = (
  response: HttpClientResponse.HttpClientResponse,
  maxEventSize: number,
  resume: SseResume
): Stream.Stream<unknown, TransportError> =>
  Stream.suspend(() => {
    const data: Array<string> = []
    const parser = Sse.makeParser((event) => {
      if (event._tag === "Retry") {
        resume.retry = event.duration
        return
      }
      if (event.id !== undefined) resume.lastEventId = event.id
      resume.events++
      if (event.data !== "") data.push(event.data)
    }, { maxEventSize })
    return response.stream.pipe(
      Stream.mapError((cause) => new TransportError({ reason: "The SSE stream failed", status: response.status, cause })),
      Stream.decodeText(),
      Stream.flatMap((chunk) => {
        const error = parser.feed(chunk)
        const parsed = Stream.fromIterable(data.splice(0))
        return error === undefined ? parsed : Stream.concat(
          parsed,
          Stream.fail(new TransportError({ reason: "An SSE event is too large", status: response.status, cause: error }))
        )
      }),
      Stream.mapEffect(decodeJson)
    )
  })

const requestIdOf = (message: unknown): unknown =>
  typeof message === "object" && message !== null ? (message as { readonly id?: unknown }).id : undefined

/** Is `message` the JSON-RPC response (result or error) to the request `id`? */
const isResponseTo = (message: unknown, id: unknown): boolean =>
  typeof message === "object" && message !== null && (message as { readonly id?: unknown }).id === id &&
  ("result" in message || "error" in message)

/** Reconnections of one SSE stream that deliver nothing before it is given up. */
const MAX_IDLE_RECONNECTS = 5
/** The wait before resuming a stream whose server sent no `retry`, in milliseconds. */
const DEFAULT_RETRY_MS = 1000

/** Visible ASCII (0x21-0x7E), the only characters a session id may hold (2025-11-25, basic/transports). */
const VISIBLE_ASCII = /^[\x21-\x7E]+$/

/**
 * Builds the transport from an `HttpClient`. Requests are POSTed with
 * `Content-Type: application/json` and
 * `Accept: application/json, text/event-stream`.
 *
 * Response handling (any status):
 * - `application/json` body: the one JSON-RPC message it holds (a 400 / 404
 *   carrying a JSON-RPC error is delivered as that error response); an error
 *   status whose body is not JSON-RPC is a `TransportError` with the status;
 * - `text/event-stream` body: every SSE event's `data` as one message. When
 *   the stream ends before the response after an event with an `id`
 *   (2025-11-25 polling, SEP-1699), the transport waits the stream's
 *   `retry` (default 1 s) and resumes it with a `GET` carrying
 *   `Last-Event-ID`, up to 5 times in a row without new events;
 * - 202 / 204, or any other body: `TransportError` with the status; a 404
 *   without JSON-RPC says "no MCP endpoint at this URL".
 *
 * Connection failures are `TransportError`s that say what happened:
 * "connection refused: nothing listens at <url>", "host not found: <url>",
 * "the connection to <url> was reset" / "timed out".
 *
 * 2025-11-25 sessions: the `Mcp-Session-Id` of a response (visible ASCII
 * only) is sent on every later request, an `initialize` is sent without
 * one; a 404 to a request that carried one ends the session (the client
 * must `initialize` again). When the transport's scope closes the session is
 * ended with `DELETE` (its failure is ignored).
 *
 * MCP 2026-07-28, basic/transports/streamable-http (sending messages to the
 * server); MCP 2025-11-25, basic/transports (session management, resumability).
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  // Not `HttpClient.withScope`: see `discard`.
  const client = yield* HttpClient.HttpClient
  const maxEventSize = options.maxEventBytes ?? 16 * 1024 * 1024
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024
  const bodyLimit = ByteSize.bytes(maxBodyBytes)
  let sessionId: string | undefined
  let protocolVersion: string | undefined

  /** The headers of a 2025-11-25 session: its id and the negotiated version. */
  const sessionHeaders = (): Record<string, string> => ({
    ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId }),
    ...(protocolVersion === undefined ? {} : { "mcp-protocol-version": protocolVersion })
  })

  const execute = (request: HttpClientRequest.HttpClientRequest, sentSession: string | undefined) =>
    Effect.withFiber((fiber) =>
      // No span per request when nothing records spans (effect's default tracer): building one, its
      // attributes and the `traceparent` header cost more than the rest of the request.
      fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
        ? Effect.provideService(client.execute(request), HttpClient.TracerDisabledWhen, constTrue)
        : client.execute(request)
    ).pipe(
      Effect.catch((cause) =>
        cause.response === undefined
          ? Effect.fail(new TransportError({ reason: connectFailure(String(options.url), systemCode(cause)), cause }))
          : Effect.succeed(cause.response)
      ),
      Effect.tap((response) =>
        Effect.sync(() => {
          const issued = response.headers["mcp-session-id"]
          if (issued !== undefined && VISIBLE_ASCII.test(issued)) sessionId = issued
          else if (response.status === 404 && sentSession !== undefined && sessionId === sentSession) {
            sessionId = undefined
          }
        })
      )
    )

  const authorization = Option.getOrUndefined(yield* Effect.serviceOption(Authorization))
  const endpoint = String(options.url)

  /** `execute` with the bearer token; a challenge (401, 403) signs in or steps up and sends the request again. */
  const authorized = (request: HttpClientRequest.HttpClientRequest, sentSession: string | undefined) =>
    authorization === undefined ? execute(request, sentSession) : Effect.gen(function*() {
      // Each challenge either fails or brings a new token; the Authorization service bounds the sign-ins.
      for (let attempt = 0;; attempt++) {
        const bearer = yield* authorization.headers(endpoint)
        const response = yield* execute(HttpClientRequest.setHeaders(request, bearer), sentSession)
        if ((response.status === 401 || response.status === 403) && attempt < 8) {
          const again = yield* authorization.challenged(endpoint, {
            sent: bearer["authorization"],
            status: response.status,
            wwwAuthenticate: response.headers["www-authenticate"]
          }).pipe(Effect.mapError((error) => new TransportError({ reason: error.message, status: response.status, cause: error })))
          if (again) {
            yield* discard(response)
            continue
          }
        } else if (response.status < 400) {
          yield* authorization.accepted(endpoint)
        }
        return response
      }
    })

  const post = (message: unknown, headers: Readonly<Record<string, string>>) =>
    Effect.gen(function*() {
      const body = yield* encodeJson(message)
      const initialize = typeof message === "object" && message !== null &&
        (message as { readonly method?: unknown }).method === "initialize"
      if (initialize) sessionId = undefined
      const version = Object.entries(headers).find(([name]) => name.toLowerCase() === "mcp-protocol-version")?.[1]
      if (version !== undefined) protocolVersion = version
      const sent = sessionId
      const request = HttpClientRequest.post(options.url).pipe(
        HttpClientRequest.setHeaders({
          ...options.headers,
          accept: "application/json, text/event-stream",
          ...(sent === undefined ? {} : { "mcp-session-id": sent }),
          ...headers
        }),
        HttpClientRequest.bodyText(body, "application/json")
      )
      return yield* authorized(request, sent)
    })

  const get = (lastEventId: string | undefined) =>
    Effect.suspend(() => {
      const sent = sessionId
      return authorized(
        HttpClientRequest.get(options.url).pipe(
          HttpClientRequest.setHeaders({
            ...options.headers,
            accept: "text/event-stream",
            ...sessionHeaders(),
            ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId })
          })
        ),
        sent
      )
    })

  /** An SSE body, resumed with `GET` + `Last-Event-ID` while it ends early (see `make`). */
  const resumable = (
    response: HttpClientResponse.HttpClientResponse,
    requestId: unknown
  ): Stream.Stream<unknown, TransportError> => {
    const resume: SseResume = { lastEventId: undefined, retry: undefined, events: 0 }
    let idle = 0
    let eventsAtReconnect = 0
    let answered = false
    const from = (current: HttpClientResponse.HttpClientResponse): Stream.Stream<unknown, TransportError> =>
      Stream.concat(
        sseMessages(current, maxEventSize, resume).pipe(
          Stream.tap((message) =>
            Effect.sync(() => {
              if (requestId !== undefined && isResponseTo(message, requestId)) answered = true
            })
          )
        ),
        Stream.unwrap(Effect.suspend(() => {
          const lastEventId = resume.lastEventId
          // the stream ended after its response: nothing to resume
          if (answered) return Effect.succeed(Stream.empty)
          // a reconnection that delivered no event counts towards giving up
          idle = resume.events === eventsAtReconnect ? idle + 1 : 0
          eventsAtReconnect = resume.events
          if (lastEventId === undefined || idle > MAX_IDLE_RECONNECTS) return Effect.succeed(Stream.empty)
          return Effect.sleep(resume.retry ?? Duration.millis(DEFAULT_RETRY_MS)).pipe(
            Effect.andThen(get(lastEventId)),
            Effect.flatMap((next): Effect.Effect<Stream.Stream<unknown, TransportError>> =>
              mediaType(next) === "text/event-stream" && next.status === 200
                ? Effect.succeed(from(next))
                : Effect.as(
                  discard(next),
                  Stream.fail(
                    new TransportError({
                      reason: `Resuming the SSE stream (Last-Event-ID ${lastEventId}) failed`,
                      status: next.status
                    })
                  )
                )
            )
          )
        }))
      )
    return from(response)
  }

  const request = (message: unknown, headers: Readonly<Record<string, string>>) =>
    Stream.unwrap(Effect.gen(function*() {
      const response = yield* post(message, headers)
      const notMcp = () =>
        new TransportError({
          reason: response.status === 404 ? "no MCP endpoint at this URL" : "The server did not answer with JSON-RPC",
          status: response.status
        })
      switch (mediaType(response)) {
        case "application/json":
          return Stream.fromEffect(readText(response, maxBodyBytes, bodyLimit).pipe(
            Effect.flatMap((text) =>
              decodeJson(text).pipe(
                Effect.mapError((error) =>
                  response.status >= 400
                    ? notMcp()
                    : new TransportError({ reason: "The HTTP response is not JSON", status: response.status, cause: error })
                )
              )
            ),
            // An error status whose JSON is not JSON-RPC (another application's 404 page) is no MCP answer.
            Effect.filterOrFail((value) => response.status < 400 || isJsonRpc(value), notMcp)
          ))
        case "text/event-stream":
          // read ahead: the body's end, which follows the response, is consumed
          // before the client stops pulling, so the connection stays reusable
          return resumable(response, requestIdOf(message)).pipe(Stream.buffer({ capacity: 16 }))
        default:
          yield* discard(response)
          return Stream.fail(
            response.status === 404
              ? notMcp()
              : new TransportError({
                reason: response.status === 202 || response.status === 204
                  ? "The server accepted the request without answering it"
                  : `Unexpected HTTP response (content-type: ${mediaType(response) ?? "none"})`,
                status: response.status
              })
          )
      }
    }))

  const notify = (message: unknown, headers: Readonly<Record<string, string>>) =>
    post(message, headers).pipe(
      Effect.tap(discard),
      Effect.flatMap((response) =>
        response.status >= 200 && response.status < 300
          ? Effect.void
          : Effect.fail(new TransportError({ reason: "The server rejected a notification", status: response.status }))
      )
    )

  const listen = (headers: Readonly<Record<string, string>>) =>
    Stream.unwrap(Effect.gen(function*() {
      const version = Object.entries(headers).find(([name]) => name.toLowerCase() === "mcp-protocol-version")?.[1]
      if (version !== undefined) protocolVersion = version
      const response = yield* get(undefined)
      if (response.status !== 200 || mediaType(response) !== "text/event-stream") yield* discard(response)
      if (response.status === 405) return Stream.empty
      if (response.status !== 200 || mediaType(response) !== "text/event-stream") {
        return Stream.fail(new TransportError({ reason: "The server refused the GET stream", status: response.status }))
      }
      return resumable(response, undefined)
    }))

  yield* Effect.addFinalizer(() =>
    Effect.suspend(() => {
      if (sessionId === undefined) return Effect.void
      const request = HttpClientRequest.delete(options.url).pipe(
        HttpClientRequest.setHeaders({ ...options.headers, ...sessionHeaders() })
      )
      sessionId = undefined
      // the bearer token too (no sign-in for a DELETE: a session being closed is not worth a consent)
      const bearer = authorization === undefined ? Effect.succeed({}) : authorization.headers(endpoint)
      return bearer.pipe(
        Effect.flatMap((headers) => client.execute(HttpClientRequest.setHeaders(request, headers))),
        Effect.flatMap(discard),
        Effect.timeout("2 seconds"),
        Effect.ignore
      )
    })
  )

  return ClientTransport.of({
    kind: "http",
    usesHeaders: true,
    request,
    notify,
    notifications: Stream.never,
    listen
  })
})

/**
 * The HTTP transport as a Layer; requires an `HttpClient`.
 *
 * MCP 2026-07-28, basic/transports/streamable-http.
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<ClientTransport, never, HttpClient.HttpClient> =>
  Layer.effect(ClientTransport, make(options))

/**
 * The HTTP transport over `node:http` (`NodeHttpClient` from
 * `@effect/platform-node`) with keep-alive connections, which an MRTR
 * conversation reuses round after round (a new TCP connection per round
 * roughly doubles a round's latency on loopback); requires nothing. The
 * agent's sockets are closed with the layer.
 *
 * MCP 2026-07-28, basic/transports/streamable-http.
 *
 * @since 0.1.0
 */
export const layerNode = (options: Options): Layer.Layer<ClientTransport> =>
  layer(options).pipe(
    Layer.provide(NodeHttpClient.layerNodeHttpOptions({ keepAlive: true }))
  )
