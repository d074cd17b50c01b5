/**
 * The last step of the 2026-07-28 server path (see `docs/architecture.md`):
 * runs a request's `response` (a plain effect: route, drive and encode, built
 * by `McpServer.handle`) with the request's `McpRequest` context and turns it
 * into the transport's `Reply`:
 * one response (with its HTTP status from the `HttpStatus` table, stage
 * "method"), or, once the handler emits a notification (progress, log) on a
 * client that accepts SSE, a stream ending with the response. The stream
 * closing interrupts the request, and so does the reply given up before its
 * first message.
 * Gotcha: without a progress token or a log level nothing can precede the
 * response, so the request runs in place (no queue, no fiber): the common case.
 * Source: MCP 2026-07-28, basic/transports (Streamable HTTP), basic/utilities/progress,
 * server/utilities/logging.
 */
import { type LoggingLevel, MetaKey } from "@mrtr/protocol/Meta"
import type { Implementation } from "@mrtr/protocol/Schema"
import { type Cause, Effect, Fiber, Predicate, Queue, Stream } from "effect"
import * as HttpStatus from "../HttpStatus.ts"
import { McpRequest } from "../RequestContext.ts"
import type { Incoming, Reply, WireMessage } from "../Transport.ts"
import type { Parsed } from "./envelope.ts"

const statusOf = (message: WireMessage) => HttpStatus.ofResponse(message, "method")

/**
 * Runs `response`, the answer to `parsed`, with its `McpRequest` context;
 * the first notification it emits turns the reply into a stream. See the
 * module header.
 */
export const reply = (
  parsed: Parsed,
  incoming: Incoming,
  response: Effect.Effect<WireMessage, never, McpRequest>
): Effect.Effect<Reply> => {
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
      clientInfo: Predicate.isObject(clientInfo) ? clientInfo as Implementation : undefined,
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
      Effect.provideService(response, McpRequest, context(() => Effect.void)),
      (message): Reply => ({ _tag: "Response", message, httpStatus: statusOf(message) })
    )
  }
  return streamed(response, context)
}

/** The reply of a request that may emit notifications: a stream once it does, else its one response. */
const streamed = Effect.fnUntraced(function*(
  response: Effect.Effect<WireMessage, never, McpRequest>,
  context: (notify: McpRequest["Service"]["notify"]) => McpRequest["Service"]
) {
  const queue = yield* Queue.unbounded<WireMessage, Cause.Done>()
  const fiber = yield* response.pipe(
    Effect.provideService(McpRequest, context((notification) => Effect.asVoid(Queue.offer(queue, notification)))),
    Effect.tap((message) => Queue.offer(queue, message).pipe(Effect.andThen(Queue.end(queue)))),
    Effect.forkDetach
  )
  // Cancelled before its first message (the client gone): the request is interrupted with it.
  const first = yield* Effect.orDie(Queue.take(queue)).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)))
  return "id" in first
    ? { _tag: "Response", message: first, httpStatus: statusOf(first) } satisfies Reply
    : {
      _tag: "Stream",
      messages: Stream.concat(Stream.succeed(first), Stream.fromQueue(queue)).pipe(
        Stream.ensuring(Fiber.interrupt(fiber))
      )
    } satisfies Reply
})
