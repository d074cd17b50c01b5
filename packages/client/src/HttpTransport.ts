/**
 * Streamable HTTP client transport (MCP 2026-07-28): each JSON-RPC message is
 * its own POST to the server's single endpoint, with
 * `Accept: application/json, text/event-stream`; the server answers with one
 * JSON body, or with a per-request SSE stream that carries request-related
 * notifications (progress, log) and then the response. Closing the stream
 * cancels the request. No sessions, no GET stream, no `Last-Event-ID`.
 *
 * Built on effect's `HttpClient`; `layerNode` provides the `node:http` one
 * from `@effect/platform-node`.
 *
 * With an `Authorization` service in the context (`Authorization.layer`),
 * every POST carries the bearer token, and a `401` or `403
 * insufficient_scope` runs the sign-in / step-up and sends the same message
 * again (same JSON-RPC id, `inputResponses` and `requestState`).
 *
 * Source: MCP 2026-07-28, basic/transports/streamable-http.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer, Option, Stream } from "effect"
import * as Sse from "effect/encoding/Sse"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
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

/** Reads a response body as UTF-8, refusing bodies over `maxBytes` (announced or streamed). */
const readText = (response: HttpClientResponse.HttpClientResponse, maxBytes: number) =>
  Effect.gen(function*() {
    const tooLarge = new TransportError({
      reason: `The HTTP response body exceeds ${maxBytes} bytes`,
      status: response.status
    })
    const announced = Number(response.headers["content-length"])
    if (Number.isFinite(announced) && announced > maxBytes) return yield* tooLarge
    const chunks: Array<Uint8Array> = []
    let size = 0
    yield* response.stream.pipe(
      Stream.mapError((cause) =>
        new TransportError({ reason: "Cannot read the HTTP response body", status: response.status, cause })
      ),
      Stream.runForEach((chunk) => {
        size += chunk.length
        if (size > maxBytes) return Effect.fail(tooLarge)
        chunks.push(chunk)
        return Effect.void
      })
    )
    const body = new Uint8Array(size)
    let offset = 0
    for (const chunk of chunks) {
      body.set(chunk, offset)
      offset += chunk.length
    }
    return new TextDecoder().decode(body)
  })

/** The JSON-RPC messages carried by an SSE body, parsed, in order. */
const sseMessages = (
  response: HttpClientResponse.HttpClientResponse,
  maxEventSize: number
): Stream.Stream<unknown, TransportError> =>
  Stream.suspend(() => {
    const data: Array<string> = []
    // `retry:` directives are ignored: 2026-07-28 has no stream resumption.
    const parser = Sse.makeParser((event) => {
      if (event._tag === "Event" && event.data !== "") data.push(event.data)
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

/**
 * Builds the transport from an `HttpClient`. Requests are POSTed with
 * `Content-Type: application/json` and
 * `Accept: application/json, text/event-stream`.
 *
 * Response handling (any status):
 * - `application/json` body: the one JSON-RPC message it holds (a 400 / 404
 *   carrying a JSON-RPC error is delivered as that error response); an error
 *   status whose body is not JSON-RPC is a `TransportError` with the status;
 * - `text/event-stream` body: every SSE event's `data` as one message;
 * - 202 / 204, or any other body: `TransportError` with the status; a 404
 *   without JSON-RPC says "no MCP endpoint at this URL".
 *
 * Connection failures are `TransportError`s that say what happened:
 * "connection refused: nothing listens at <url>", "host not found: <url>",
 * "the connection to <url> was reset" / "timed out".
 *
 * MCP 2026-07-28, basic/transports/streamable-http (sending messages to the server).
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const client = HttpClient.withScope(yield* HttpClient.HttpClient)
  const maxEventSize = options.maxEventBytes ?? 16 * 1024 * 1024
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024
  const authorization = Option.getOrUndefined(yield* Effect.serviceOption(Authorization))
  const endpoint = String(options.url)

  const post = (message: unknown, headers: Readonly<Record<string, string>>) =>
    authorization === undefined ? send(message, headers, {}) : Effect.gen(function*() {
      // Each challenge either fails or brings a new token; the Authorization service bounds the sign-ins.
      for (let attempt = 0;; attempt++) {
        const bearer = yield* authorization.headers(endpoint)
        const response = yield* send(message, headers, bearer)
        if ((response.status === 401 || response.status === 403) && attempt < 8) {
          const again = yield* authorization.challenged(endpoint, {
            sent: bearer["authorization"],
            status: response.status,
            wwwAuthenticate: response.headers["www-authenticate"]
          }).pipe(Effect.mapError((error) => new TransportError({ reason: error.message, status: response.status, cause: error })))
          if (again) continue
        } else if (response.status < 400) {
          yield* authorization.accepted(endpoint)
        }
        return response
      }
    })

  const send = (
    message: unknown,
    headers: Readonly<Record<string, string>>,
    bearer: Readonly<Record<string, string>>
  ) =>
    Effect.gen(function*() {
      const body = yield* encodeJson(message)
      const request = HttpClientRequest.post(options.url).pipe(
        HttpClientRequest.setHeaders({
          ...options.headers,
          ...bearer,
          accept: "application/json, text/event-stream",
          ...headers
        }),
        HttpClientRequest.bodyText(body, "application/json")
      )
      return yield* client.execute(request).pipe(
        Effect.catch((cause) =>
          cause.response === undefined
            ? Effect.fail(new TransportError({ reason: connectFailure(String(options.url), systemCode(cause)), cause }))
            : Effect.succeed(cause.response)
        )
      )
    })

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
          return Stream.fromEffect(readText(response, maxBodyBytes).pipe(
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
          return sseMessages(response, maxEventSize)
        default:
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
      Effect.flatMap((response) =>
        response.status >= 200 && response.status < 300
          ? Effect.void
          : Effect.fail(new TransportError({ reason: "The server rejected a notification", status: response.status }))
      ),
      Effect.scoped
    )

  return ClientTransport.of({
    kind: "http",
    usesHeaders: true,
    request,
    notify,
    notifications: Stream.never
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
