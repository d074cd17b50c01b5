/**
 * The last step of the 2026-07-28 data flow: runs a checked request with its
 * `McpRequest` context and turns the outcome into the transport's `Reply`:
 * one response (with its HTTP status from the `HttpStatus` table, stage
 * "method"), or, once the handler emits a notification (progress, log) on a
 * client that accepts SSE, a stream ending with the response. The stream
 * closing interrupts the request.
 * Gotcha: without a progress token or a log level nothing can precede the
 * response, so the request runs in place (no queue, no fiber): the common case.
 * Source: MCP 2026-07-28, basic/transports (Streamable HTTP), basic/utilities/progress,
 * server/utilities/logging.
 */
import { type Cause, Effect, Fiber, Queue, Stream } from "effect"
import { type Implementation, type LoggingLevel, MetaKey } from "@mrtr/protocol"
import * as HttpStatus from "../HttpStatus.ts"
import { McpRequest } from "../RequestContext.ts"
import type { Incoming, Reply, WireMessage } from "../Transport.ts"
import type { Parsed } from "./envelope.ts"
import { isRecord } from "./errors.ts"

const statusOf = (message: WireMessage) => HttpStatus.ofResponse(message, "method")

/** Runs `respond` for `parsed`; see the module header. */
// Runs a request; the first notification it emits turns the reply into a stream.
// Written with combinators rather than `Effect.gen`: a generator suspended
// here for the whole request measurably raised CPU and GC time per request
// on the benchmark (bench/index.ts).
export const reply = (
  parsed: Parsed,
  incoming: Incoming,
  respond: Effect.Effect<WireMessage, never, McpRequest>
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
      Effect.provideService(respond, McpRequest, context(() => Effect.void)),
      (message): Reply => ({ _tag: "Response", message, httpStatus: statusOf(message) })
    )
  }
  return Effect.flatMap(Queue.unbounded<WireMessage, Cause.Done>(), (queue) =>
    Effect.flatMap(
      respond.pipe(
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
