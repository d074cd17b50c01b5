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
 * Two implementations of one transport: `layer` on any effect `HttpClient`
 * (fetch, undici, one with middleware), and `layerNode` on `node:http` /
 * `node:https` driven directly, with keep-alive agents (30-50% less client
 * CPU per round than the same requests through effect's `NodeHttpClient`,
 * in `npm run bench`).
 *
 * Gotchas (cost per request, which an MRTR conversation pays every round):
 * - a JSON body is read in one piece, bounded by `maxBodyBytes`, not as a
 *   stream of chunks;
 * - each request is effect's `http.client` span, with a `traceparent`
 *   header, only under a tracer other than effect's default one (e.g.
 *   OpenTelemetry's, `Effect.withTracer`); under the default tracer, which
 *   records nothing, no span is built and no `traceparent` is sent. Under
 *   another tracer `layerNode` sends through effect's `NodeHttpClient` on
 *   the same agents, and then costs and releases connections as `layer`
 *   does;
 * - a reply whose body is given up (an error page, a `202`, an SSE stream
 *   left after its response): `layerNode` keeps its connection when the
 *   body is already complete or announced at most 64 KiB, or is an SSE
 *   stream that carried its response; the rest is read in the background
 *   (the caller waits 2 ms at most; past 5 s the connection is closed,
 *   meanwhile the agent opens another one). Any other reply given up is
 *   closed (an SSE stream left before its response: the server sees the
 *   request cancelled). `layer` closes every one;
 * - `layer` on `node:http` keeps connections alive only with an agent that
 *   does: `NodeHttpClient.layerNodeHttpOptions({ keepAlive: true })`, or
 *   `layerNodeHttpNoAgent` with `layerAgentOptions({ keepAlive: true })`.
 *
 * With an `Authorization` service in the context (`Authorization.layer`),
 * every request (POST, and a 2025-11-25 session's GET and DELETE) carries the
 * bearer token, and a `401` or `403 insufficient_scope` runs the sign-in /
 * step-up and sends the same request again (same JSON-RPC id,
 * `inputResponses` and `requestState`). The time signing in takes (the
 * user's, above all) is not counted by the client's `requestTimeout` and
 * `probeTimeout` (`ClientTransport`'s `signInMillis`).
 *
 * Source: MCP 2026-07-28, basic/transports/streamable-http, basic/authorization;
 * MCP 2025-11-25, basic/transports.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Duration, Effect, Layer, Option, Stream, Tracer } from "effect"
import * as Sse from "effect/encoding/Sse"
import { HttpClient } from "effect/http"
import * as Http from "node:http"
import * as Https from "node:https"
import { Authorization } from "./Authorization.ts"
import { ClientTransport, decodeJson, encodeJson } from "./ClientTransport.ts"
import { TransportError } from "./Errors.ts"
import { fromHttpClient, mediaType, nodeSend, type Outgoing, type Reply, type Send } from "./internal/httpSend.ts"

/**
 * Options of the HTTP transport.
 *
 * MCP 2026-07-28, basic/transports/streamable-http.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string | URL
  /**
   * Extra headers sent with every request (POST, and a 2025-11-25 session's GET and DELETE), e.g. `Authorization`; the
   * MCP headers the client computes take precedence.
   *
   * @default {}
   */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /**
   * Largest SSE event accepted, in UTF-16 code units; a larger one fails the request with `TransportError`.
   *
   * @default 16_777_216 (16 MiB)
   */
  readonly maxEventBytes?: number | undefined
  /**
   * Largest JSON response body accepted, in bytes; a larger one fails the request with `TransportError` without reading
   * the rest.
   *
   * @default 16_777_216 (16 MiB)
   */
  readonly maxBodyBytes?: number | undefined
}

/**
 * Options of {@link layerNode}: the transport's, and the `node:http` /
 * `node:https` agents to send with.
 *
 * @category models
 * @since 0.1.0
 */
export interface NodeOptions extends Options {
  /**
   * The agents to send with, `http` and `https`: the caller's (a private CA or a client certificate in `https.Agent`
   * options, a proxy agent, a socket limit). Each one not given is a keep-alive agent the layer makes and destroys with
   * its scope. Given agents are the caller's to destroy, and should keep connections alive (`keepAlive: true`): an MRTR
   * conversation reuses its connection round after round.
   *
   * @default {} (keep-alive agents of the layer's own)
   */
  readonly agents?: {
    readonly http?: Http.Agent | undefined
    readonly https?: Https.Agent | undefined
  } | undefined
}

/** The default `maxEventBytes` and `maxBodyBytes`: 16 MiB. */
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024

/** A JSON-RPC message: an object with `jsonrpc: "2.0"`. */
const isJsonRpc = (value: unknown): boolean =>
  typeof value === "object" && value !== null && (value as { readonly jsonrpc?: unknown }).jsonrpc === "2.0"

/** `headers` with lower-case names (HTTP names are case-insensitive; a later one wins over an earlier one). */
const lowerCased = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name in headers) out[name.toLowerCase()] = headers[name]!
  return out
}

/** What an SSE body told about resuming it (2025-11-25): the last event id and `retry` delay. */
interface SseResume {
  lastEventId: string | undefined
  retry: Duration.Duration | undefined
  events: number
}

/** The JSON-RPC messages carried by an SSE body, parsed, in order. */
const sseMessages = (
  response: Reply,
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
      Stream.decodeText(),
      Stream.flatMap((chunk) => {
        const error = parser.feed(chunk)
        const parsed = Stream.fromIterable(data.splice(0))
        return error === undefined ? parsed : Stream.concat(
          parsed,
          Stream.fail(
            new TransportError({ reason: "An SSE event is too large", status: response.status, cause: error })
          )
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
/** The shortest wait before resuming a stream, whatever `retry` says (0 would reconnect in a tight loop), in ms. */
const MIN_RETRY_MS = 100

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
 *   `retry` (default 1 s, at least 100 ms) and resumes it with a `GET` carrying
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
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  // Not `HttpClient.withScope`: see `fromHttpClient`.
  const client = yield* HttpClient.HttpClient
  return yield* makeWith(options, fromHttpClient(client, options.url))
})

/** The transport over `send` (an effect `HttpClient`, or `node:http` directly: `layerNode`). */
const makeWith = Effect.fnUntraced(function*(options: Options, send: Send) {
  const maxEventSize = options.maxEventBytes ?? DEFAULT_MAX_BYTES
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BYTES
  let sessionId: string | undefined
  let protocolVersion: string | undefined

  /** The headers of a 2025-11-25 session: its id and the negotiated version. */
  const sessionHeaders = (): Record<string, string> => ({
    ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId }),
    ...(protocolVersion === undefined ? {} : { "mcp-protocol-version": protocolVersion })
  })

  /** Sends `request`; keeps the session id a reply issues, forgets one a 404 ended. */
  const execute = (request: Outgoing, sentSession: string | undefined) =>
    Effect.map(send(request), (reply) => {
      const issued = reply.headers["mcp-session-id"]
      if (issued !== undefined && VISIBLE_ASCII.test(issued)) sessionId = issued
      else if (reply.status === 404 && sentSession !== undefined && sessionId === sentSession) sessionId = undefined
      return reply
    })

  const authorization = Option.getOrUndefined(yield* Effect.serviceOption(Authorization))
  const endpoint = String(options.url)
  const extraHeaders = lowerCased(options.headers ?? {})

  /** `execute` with the bearer token; a challenge (401, 403) signs in or steps up and sends the request again. */
  const authorized = (request: Outgoing, sentSession: string | undefined) =>
    authorization === undefined ? execute(request, sentSession) : Effect.gen(function*() {
      // Each challenge either fails or brings a new token; the Authorization service bounds the sign-ins.
      for (let attempt = 0;; attempt++) {
        const bearer = yield* authorization.headers(endpoint)
        const response = yield* execute(
          { ...request, headers: { ...request.headers, ...lowerCased(bearer) } },
          sentSession
        )
        if ((response.status === 401 || response.status === 403) && attempt < 8) {
          const again = yield* authorization.challenged(endpoint, {
            sent: bearer["authorization"],
            status: response.status,
            wwwAuthenticate: response.headers["www-authenticate"]
          }).pipe(
            Effect.mapError((error) =>
              new TransportError({ reason: error.message, status: response.status, cause: error })
            )
          )
          if (again) {
            yield* response.discard
            continue
          }
        } else if (response.status < 400) {
          yield* authorization.accepted(endpoint)
        }
        return response
      }
    })

  const post = (message: unknown, headers: Readonly<Record<string, string>>) =>
    Effect.flatMap(encodeJson(message), (body) => {
      const initialize = typeof message === "object" && message !== null &&
        (message as { readonly method?: unknown }).method === "initialize"
      if (initialize) sessionId = undefined
      const sent = sessionId
      const named = lowerCased(headers)
      const version = named["mcp-protocol-version"]
      if (version !== undefined) protocolVersion = version
      const request: Outgoing = {
        method: "POST",
        headers: {
          ...extraHeaders,
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          ...(sent === undefined ? {} : { "mcp-session-id": sent }),
          ...named
        },
        body
      }
      return authorized(request, sent)
    })

  const get = (lastEventId: string | undefined) =>
    Effect.suspend(() => {
      const sent = sessionId
      return authorized({
        method: "GET",
        headers: {
          ...extraHeaders,
          accept: "text/event-stream",
          ...sessionHeaders(),
          ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId })
        }
      }, sent)
    })

  /** An SSE body, resumed with `GET` + `Last-Event-ID` while it ends early (see `make`). */
  const resumable = (
    response: Reply,
    requestId: unknown
  ): Stream.Stream<unknown, TransportError> => {
    const resume: SseResume = { lastEventId: undefined, retry: undefined, events: 0 }
    let idle = 0
    let eventsAtReconnect = 0
    let answered = false
    const from = (current: Reply): Stream.Stream<unknown, TransportError> =>
      Stream.concat(
        sseMessages(current, maxEventSize, resume).pipe(
          Stream.tap((message) =>
            Effect.sync(() => {
              if (requestId !== undefined && isResponseTo(message, requestId)) {
                answered = true
                current.answered()
              }
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
          return Effect.sleep(
            Duration.max(resume.retry ?? Duration.millis(DEFAULT_RETRY_MS), Duration.millis(MIN_RETRY_MS))
          ).pipe(
            Effect.andThen(get(lastEventId)),
            Effect.flatMap((next): Effect.Effect<Stream.Stream<unknown, TransportError>> =>
              mediaType(next) === "text/event-stream" && next.status === 200
                ? Effect.succeed(from(next))
                : Effect.as(
                  next.discard,
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

  // Combinators rather than a generator: this runs once per request.
  const request = (message: unknown, headers: Readonly<Record<string, string>>) =>
    Stream.unwrap(Effect.flatMap(post(message, headers), (response) => {
      const notMcp = () =>
        new TransportError({
          reason: response.status === 404 ? "no MCP endpoint at this URL" : "The server did not answer with JSON-RPC",
          status: response.status
        })
      switch (mediaType(response)) {
        case "application/json":
          return Effect.succeed(Stream.fromEffect(Effect.flatMap(response.text(maxBodyBytes), (text) => {
            let value: unknown
            try {
              value = JSON.parse(text)
            } catch (cause) {
              return Effect.fail(
                response.status >= 400
                  ? notMcp()
                  : new TransportError({ reason: "The HTTP response is not JSON", status: response.status, cause })
              )
            }
            // An error status whose JSON is not JSON-RPC (another application's 404 page) is no MCP answer.
            return response.status < 400 || isJsonRpc(value) ? Effect.succeed(value) : Effect.fail(notMcp())
          })))
        case "text/event-stream":
          // read ahead: the body's end, which follows the response, is consumed
          // before the client stops pulling, so the connection stays reusable
          return Effect.succeed(resumable(response, requestIdOf(message)).pipe(Stream.buffer({ capacity: 16 })))
        default:
          return Effect.as(
            response.discard,
            Stream.fail(
              response.status === 404
                ? notMcp()
                : new TransportError({
                  reason: response.status === 202 || response.status === 204
                    ? "The server accepted the request without answering it"
                    : `Unexpected HTTP response (content-type: ${mediaType(response) ?? "none"})`,
                  status: response.status
                })
            )
          )
      }
    }))

  const notify = (message: unknown, headers: Readonly<Record<string, string>>) =>
    post(message, headers).pipe(
      Effect.tap((response) => response.discard),
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
      if (response.status !== 200 || mediaType(response) !== "text/event-stream") yield* response.discard
      if (response.status === 405) return Stream.empty
      if (response.status !== 200 || mediaType(response) !== "text/event-stream") {
        return Stream.fail(new TransportError({ reason: "The server refused the GET stream", status: response.status }))
      }
      return resumable(response, undefined)
    }))

  yield* Effect.addFinalizer(() =>
    Effect.suspend(() => {
      if (sessionId === undefined) return Effect.void
      const headers = { ...extraHeaders, ...sessionHeaders() }
      sessionId = undefined
      // the bearer token too (no sign-in for a DELETE: a session being closed is not worth a consent)
      const bearer = authorization === undefined ? Effect.succeed({}) : authorization.headers(endpoint)
      return bearer.pipe(
        Effect.flatMap((token) => send({ method: "DELETE", headers: { ...headers, ...lowerCased(token) } })),
        Effect.flatMap((reply) => reply.discard),
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
    listen,
    ...(authorization?.signInMillis === undefined ? {} : { signInMillis: authorization.signInMillis })
  })
})

/**
 * The HTTP transport as a Layer; requires an `HttpClient` (fetch, undici,
 * one with middleware, effect's `NodeHttpClient`). On `node:http` give it an
 * agent that keeps connections alive, or every round opens one:
 * `Layer.provide(NodeHttpClient.layerNodeHttpOptions({ keepAlive: true }))`.
 * For `node:http` alone, {@link layerNode} costs less per round.
 *
 * MCP 2026-07-28, basic/transports/streamable-http.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<ClientTransport, never, HttpClient.HttpClient> =>
  Layer.effect(ClientTransport, make(options))

/**
 * The HTTP transport over `node:http` / `node:https` with keep-alive
 * connections, which an MRTR conversation reuses round after round (a new
 * TCP connection per round roughly doubles a round's latency on loopback);
 * requires nothing. Requests are driven on `node:http` directly (30-50% less
 * client CPU per round than through effect's `HttpClient`); under a tracer
 * other than effect's default one they go through
 * `@effect/platform-node`'s `NodeHttpClient` on the same agents instead, so
 * each is an `http.client` span with a `traceparent` header. The agents the
 * layer makes are destroyed with it (its connections closed); agents given
 * in `options.agents` (a private CA, a client certificate, a proxy) are the
 * caller's.
 *
 * Errors are those of {@link make}; a request the agent cannot build (a
 * header value with a control character) is a `TransportError` too.
 *
 * MCP 2026-07-28, basic/transports/streamable-http.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerNode = (options: NodeOptions): Layer.Layer<ClientTransport> =>
  Layer.effect(
    ClientTransport,
    Effect.gen(function*() {
      const own = yield* Effect.acquireRelease(
        Effect.sync(() => ({
          http: options.agents?.http === undefined ? new Http.Agent({ keepAlive: true }) : undefined,
          https: options.agents?.https === undefined ? new Https.Agent({ keepAlive: true }) : undefined
        })),
        (own) =>
          Effect.sync(() => {
            own.http?.destroy()
            own.https?.destroy()
          })
      )
      const agents = { http: options.agents?.http ?? own.http!, https: options.agents?.https ?? own.https! }
      const direct = nodeSend(agents, options.url, options.maxBodyBytes ?? DEFAULT_MAX_BYTES)
      const traced = fromHttpClient(
        yield* Effect.provideService(NodeHttpClient.makeNodeHttp, NodeHttpClient.HttpAgent, agents),
        options.url
      )
      const send: Send = (request) =>
        Effect.withFiber((fiber) =>
          fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer ? direct(request) : traced(request)
        )
      return yield* makeWith(options, send)
    })
  )
