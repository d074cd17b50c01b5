/**
 * What the dispatcher's reply becomes on HTTP: one JSON body (`Response`),
 * `202` (`Accepted`), or an SSE stream (`Stream`) that ends after the
 * response to the request's id; for a client that did not ask for SSE, the
 * stream collapsed into its final response as JSON. Also the transport's own
 * JSON-RPC error answers (403, 413, 415, ...) and the -32603 reply a
 * dispatcher defect becomes.
 *
 * Gotchas: a message that cannot be serialized answers -32603 with HTTP 200;
 * SSE events are written by hand with `event: message` (what the MCP SDKs
 * send; `effect/encoding/Sse` leaves the default type out). An SSE answer on
 * a Node response is watched for silences by `sseKeepAlive.ts` from its start
 * until its body ends, however it ends.
 *
 * Source: MCP 2026-07-28, basic/transports (Streamable HTTP); `HttpStatus`.
 *
 * @internal
 */
import { Effect, Option, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import * as HttpStatus from "../../HttpStatus.ts"
import type { Reply, WireMessage } from "../../Transport.ts"
import { ErrorCode, errorJson, type RequestId } from "../jsonRpc.ts"
import type { Sse } from "./config.ts"
import { unwatch, watch } from "./sseKeepAlive.ts"

const INTERNAL_ERROR = ErrorCode.InternalError

const errorBody = errorJson

/** A JSON body with `status`. */
export const jsonResponse = (body: string, status: number): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(body, { status, contentType: "application/json" })

/** A JSON-RPC error body (`code`, `message`, the request's `id` when known) with HTTP `status`. */
export const errorResponse = (status: number, code: number, message: string, id?: RequestId) =>
  jsonResponse(errorBody(code, message, id), status)

const isResponse = (message: WireMessage): boolean =>
  !("method" in message) && ("result" in message || "error" in message)

/** The response that ends a request's stream: the one with its id (any response if the id is unknown). */
const isFinalFor = (id: RequestId | undefined) => (message: WireMessage): boolean =>
  isResponse(message) && (id === undefined || message["id"] === id)

const encodeMessage = (message: WireMessage, id: RequestId | undefined): { body: string; ok: boolean } => {
  try {
    return { body: JSON.stringify(message), ok: true }
  } catch {
    return { body: errorBody(INTERNAL_ERROR, "Internal error: response is not serializable", id), ok: false }
  }
}

const statusOfResponse = (message: WireMessage): number => HttpStatus.ofResponse(message, "method")

/** What a dispatcher defect becomes: -32603 with the request's id, HTTP 200 (see `HttpStatus`). */
export const internalErrorReply = (id: RequestId | undefined): Reply => ({
  _tag: "Response",
  message: id === undefined
    ? { jsonrpc: "2.0", error: { code: INTERNAL_ERROR, message: "Internal error" } }
    : { jsonrpc: "2.0", id, error: { code: INTERNAL_ERROR, message: "Internal error" } },
  httpStatus: 200
})

const encoder = new TextEncoder()

/**
 * One SSE event per message. Written by hand rather than with
 * `effect/encoding/Sse`'s encoder, which leaves out `event: message` (the
 * default event type); the explicit line is what the MCP SDKs send.
 * `JSON.stringify` output has no line breaks, so one `data:` line suffices.
 */
const sseEvent = (json: string, eventId?: string | undefined): Uint8Array =>
  encoder.encode(
    eventId === undefined ? `event: message\ndata: ${json}\n\n` : `id: ${eventId}\nevent: message\ndata: ${json}\n\n`
  )

/** The HTTP response of a dispatcher's `reply` to the request `id`, as SSE when `sse` is given (see the module header). */
export const toResponse = (
  reply: Reply,
  id: RequestId | undefined,
  sse: Sse | undefined
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  switch (reply._tag) {
    case "Accepted":
      return Effect.succeed(HttpServerResponse.empty({ status: reply.httpStatus ?? 202 }))
    case "Response": {
      const encoded = encodeMessage(reply.message, id)
      const response = jsonResponse(encoded.body, encoded.ok ? reply.httpStatus : 200)
      return Effect.succeed(
        reply.headers === undefined ? response : HttpServerResponse.setHeaders(response, reply.headers)
      )
    }
    case "Stream": {
      const messages = reply.messages.pipe(Stream.takeUntil(isFinalFor(id)))
      if (sse !== undefined) {
        const events = reply.events
        const open = sse.keepAliveMillis === undefined || sse.response === undefined
          ? undefined
          : watch(sse.response, sse.keepAliveMillis)
        const event = (m: WireMessage, eventId?: string | undefined) => {
          if (open !== undefined) open.last = Date.now()
          return sseEvent(encodeMessage(m, id).body, eventId)
        }
        const written = events === undefined
          ? Stream.map(messages, (m) => event(m))
          : Stream.concat(
            events.prime === undefined ? Stream.empty : Stream.succeed(encoder.encode(
              `id: ${events.prime}\n${events.retryMs === undefined ? "" : `retry: ${events.retryMs}\n`}data: \n\n`
            )),
            Stream.map(messages, (m) => event(m, events.idOf(m)))
          )
        const body = open === undefined ? written : Stream.ensuring(written, Effect.sync(() => unwatch(open)))
        return Effect.succeed(HttpServerResponse.stream(
          body,
          {
            contentType: "text/event-stream",
            // `no-transform`: no compression middleware (effect's `HttpMiddleware.compression` honours it) holds
            // events back or encodes the stream the keep-alive writes to
            headers: { "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" }
          }
        ))
      }
      // Collapse for clients that did not ask for SSE: answer with the final response as JSON.
      return Effect.map(Stream.runLast(messages), (last) => {
        if (Option.isSome(last) && isResponse(last.value)) {
          const encoded = encodeMessage(last.value, id)
          return jsonResponse(encoded.body, encoded.ok ? statusOfResponse(last.value) : 200)
        }
        return id === undefined
          ? HttpServerResponse.empty({ status: 202 })
          : errorResponse(200, INTERNAL_ERROR, "Internal error: the request ended without a response", id)
      })
    }
  }
}
