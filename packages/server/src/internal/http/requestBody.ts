/**
 * Reading a request to the MCP endpoint before it is parsed: the media type
 * of `Content-Type`, whether `Accept` allows an SSE answer, the body capped
 * at `maxBodyBytes` (413 past it, with a lingering close), and the size past
 * which a body's work is done in steps.
 *
 * Gotcha: `acceptsEventStream` remembers the last `Accept` value it saw
 * (module state): clients send the same one on every request.
 *
 * Source: MCP 2026-07-28, basic/transports (Streamable HTTP).
 *
 * @internal
 */
import * as NodeStream from "@effect/platform-node/NodeStream"
import { ByteSize, Effect } from "effect"
import { type Headers, HttpIncomingMessage, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { IncomingMessage } from "node:http"
import { ErrorCode, errorJson } from "../jsonRpc.ts"
import * as LingeringClose from "../lingeringClose.ts"
import type { Config } from "./config.ts"

/** The media type of a `Content-Type` value, lowercased, without parameters. */
export const mediaType = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : value === "application/json" ? value : value.split(";")[0]!.trim().toLowerCase()

// The verdict on the last `Accept` value seen: clients send the same one on every request.
let lastAccept: string | undefined
let lastAcceptsEventStream = false

/** True when `Accept` lists `text/event-stream` with a non-zero quality. */
export const acceptsEventStream = (accept: string | undefined): boolean => {
  if (accept === undefined) return false
  if (accept === lastAccept) return lastAcceptsEventStream
  const verdict = parseAcceptsEventStream(accept)
  lastAccept = accept
  lastAcceptsEventStream = verdict
  return verdict
}

const parseAcceptsEventStream = (accept: string): boolean => {
  return accept.split(",").some((range) => {
    const [type, ...params] = range.split(";")
    if (type === undefined || type.trim().toLowerCase() !== "text/event-stream") return false
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith("q="))
    return q === undefined || Number(q.slice(2)) > 0
  })
}

/**
 * Reads the body, capped at `config.maxBodyBytes` bytes received (so chunked
 * bodies are capped too; `Content-Length` is checked before). Fails with
 * `"BodyTooLarge"` past the cap, `"Timeout"` when the body of an `Upgrade`
 * offer has not arrived after `config.upgradeBodyTimeoutMillis`, and
 * `"Unreadable"` otherwise.
 *
 * Through effect/http's buffered reader (`request.arrayBuffer`, capped with
 * `HttpIncomingMessage.MaxBodySize`), which keeps the body for middleware that
 * reads it before or after the endpoint, answers `Expect: 100-continue`, and
 * frames the body of an `Upgrade` offer. When the endpoint is the whole server
 * (`layer`: no user middleware) and the request is neither, a Node body is read
 * straight from the `IncomingMessage` with `NodeStream.toArrayBuffer` (what
 * that reader runs, without the cached copy and the fiber it makes per
 * request). Either is cheaper than pulling `request.stream` through a `Stream`.
 */
export const readBody = (
  request: HttpServerRequest.HttpServerRequest,
  headers: Headers.Headers,
  config: Config
): Effect.Effect<ArrayBuffer, "BodyTooLarge" | "Unreadable" | "Timeout"> => {
  const max = config.maxBodyBytes
  const source = request.source
  if (
    config.ownsServer && source instanceof IncomingMessage && !source.readableDidRead &&
    headers["expect"] === undefined && headers["upgrade"] === undefined
  ) {
    return NodeStream.toArrayBuffer(() => source, {
      maxBytes: max,
      // drain rather than destroy past the cap, so the 413 still reaches the client
      destroyOnOverflow: false,
      onError: (error) => error instanceof NodeStream.MaxBytesError ? "BodyTooLarge" as const : "Unreadable" as const
    })
  }
  const read = request.arrayBuffer.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(max)),
    Effect.mapError((error) =>
      error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"
        ? "BodyTooLarge" as const
        : "Unreadable" as const
    ),
    // A middleware that read the body first read it under its own cap, if any.
    Effect.filterOrFail((body) => body.byteLength <= max, () => "BodyTooLarge" as const)
  )
  return headers["upgrade"] === undefined ? read : read.pipe(
    Effect.timeoutOrElse({
      duration: config.upgradeBodyTimeoutMillis,
      orElse: () => Effect.fail("Timeout" as const)
    })
  )
}

/**
 * The 413 answer, with `Connection: close`; the rest of a Node request's body
 * is drained in the background, bounded (a lingering close, see
 * `internal/lingeringClose.ts`), so clients that write the whole body before
 * reading still read the 413.
 */
export const tooLarge = (config: Config, request: HttpServerRequest.HttpServerRequest) => {
  const source = request.source
  if (source instanceof IncomingMessage) LingeringClose.drain(source)
  return HttpServerResponse.text(
    errorJson(ErrorCode.InvalidRequest, `Request body exceeds ${config.maxBodyBytes} bytes`),
    {
      status: 413,
      contentType: "application/json",
      headers: { connection: "close" }
    }
  )
}

/**
 * Bodies larger than this (bytes) are worked on in steps (count the values; decode and parse; dispatch), yielding to
 * the event loop between them, so that one large request holds other requests up for one step at a time rather than
 * for all its work at once. Smaller bodies, nearly all requests, take no extra turn.
 */
export const LARGE_BODY_BYTES = 256 * 1024
