/**
 * The SSE streams of 2025-11-25 sessions on the dispatcher's side: a
 * request's own stream (its messages, recorded for `Last-Event-ID` on an
 * HTTP session, detachable with `closeStream`, SEP-1699), the session's GET
 * stream, and the resumption of a POST stream by a GET. The event log
 * itself is `session.ts`'s.
 * Source: MCP 2025-11-25, basic/transports (SSE, resumability and
 * redelivery).
 */
import { McpError } from "@mrtr/protocol/ErrorCode"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import { type Cause, Effect, Fiber, Queue, Stream } from "effect"
import type { EventIds, Reply, WireMessage } from "../../Transport.ts"
import { errorReply } from "../errors.ts"
import * as Session from "./session.ts"

/** The reconnection delay a session's SSE streams advise (`retry:`), in milliseconds. */
export const RETRY_MS = 1000

/** The event ids of a session's stream; only 2025-11-25 clients get an (empty) priming event. */
export const eventsOf = (session: Session.Session, stream: Session.EventStream, prime: boolean): EventIds => ({
  prime: prime && session.protocolVersion >= "2025-11-25" ? `${stream.id}.0` : undefined,
  retryMs: RETRY_MS,
  idOf: (message) => session.eventIds.get(message)
})

export const track = (session: Session.Session | undefined, id: RequestId, fiber: Fiber.Fiber<unknown, unknown>) => {
  if (session === undefined) return
  session.inflight.set(id, fiber)
  fiber.addObserver(() => {
    if (session.inflight.get(id) === fiber) session.inflight.delete(id)
  })
}

/**
 * Runs a request whose handler may emit messages before its response; the
 * first one decides between a plain response and a stream. The request is
 * registered for `notifications/cancelled` while it runs; the reply's
 * stream closing interrupts it. On an HTTP session the messages are
 * recorded on a POST event stream, which `closeStream` can detach from the
 * POST (SEP-1699): the request goes on, and a GET with `Last-Event-ID`
 * receives the rest.
 */
export const streamed = (
  session: Session.Session | undefined,
  id: RequestId,
  canStream: boolean,
  http: boolean,
  run: (
    emit: (message: WireMessage) => Effect.Effect<void>,
    closeStream: Effect.Effect<void>
  ) => Effect.Effect<WireMessage>,
  /** Run once the request ended (after its response). */
  after: Effect.Effect<void> = Effect.void
): Effect.Effect<Reply> =>
  Effect.flatMap(Queue.unbounded<WireMessage, Cause.Done>(), (queue) => {
    const events = http && session !== undefined && canStream ? Session.openStream(session, "post", id) : undefined
    if (events !== undefined) events.subscriber = queue
    const emit = !canStream
      ? () => Effect.void
      : events !== undefined && session !== undefined
      ? (message: WireMessage) => Effect.sync(() => Session.deliver(session, events, message))
      : (message: WireMessage) => Effect.asVoid(Queue.offer(queue, message))
    const closeStream = events === undefined ? Effect.void : Effect.sync(() => {
      if (events.detached || events.done) return
      events.detached = true
      events.subscriber = undefined
      Queue.endUnsafe(queue)
    })
    return Effect.flatMap(
      run(emit, closeStream).pipe(
        // The response, whatever the client accepts: recorded on the session's stream, or queued.
        Effect.flatMap((response) =>
          events !== undefined && session !== undefined
            ? Effect.sync(() => Session.deliver(session, events, response))
            : Effect.asVoid(Queue.offer(queue, response))
        ),
        Effect.ensuring(Effect.sync(() => {
          if (events !== undefined && session !== undefined) Session.finish(session, events)
          Queue.endUnsafe(queue)
        })),
        // A request's end is traffic of its session too.
        Effect.ensuring(after),
        Effect.forkDetach
      ),
      (fiber) => {
        track(session, id, fiber)
        // Closing the reply cancels the request, unless the server detached it (SEP-1699).
        const cancel = Effect.suspend(() => events?.detached === true ? Effect.void : Fiber.interrupt(fiber))
        return Queue.take(queue).pipe(
          Effect.map((first): Reply => {
            if (!("method" in first)) return { _tag: "Response", message: first, httpStatus: 200 }
            const messages = Stream.concat(Stream.succeed(first), Stream.fromQueue(queue)).pipe(Stream.ensuring(cancel))
            return events === undefined || session === undefined
              ? { _tag: "Stream", messages }
              : { _tag: "Stream", messages, events: eventsOf(session, events, true) }
          }),
          // Ended without a message: cancelled (no response), or detached before its first message.
          Effect.catch(() =>
            Effect.succeed<Reply>(
              events !== undefined && session !== undefined && events.detached
                ? { _tag: "Stream", messages: Stream.empty, events: eventsOf(session, events, true) }
                : { _tag: "Accepted" }
            )
          ),
          Effect.onInterrupt(() => cancel)
        )
      }
    )
  })

/**
 * A GET: the session's stream (messages outside any request), or, with the
 * `Last-Event-ID` of a POST stream, that stream's events after the id and
 * then its live messages up to its response.
 */
export const getStream = (session: Session.Session, lastEventId: string | undefined): Effect.Effect<Reply> =>
  Effect.map(Queue.unbounded<WireMessage, Cause.Done>(), (queue): Reply => {
    const resumed = lastEventId === undefined ? undefined : Session.replayAfter(session, lastEventId)
    if (resumed !== undefined && resumed.stream.kind === "post") {
      const stream = resumed.stream
      for (const message of resumed.events) Queue.offerUnsafe(queue, message)
      if (stream.done) Queue.endUnsafe(queue)
      else Session.takeOver(stream, queue)
      return { _tag: "Stream", messages: Stream.fromQueue(queue), events: eventsOf(session, stream, false) }
    }
    if (session.getStream !== undefined) {
      return errorReply(
        undefined,
        new McpError({ code: -32000, message: "Conflict: only one GET stream per session" }),
        409
      )
    }
    const stream = resumed?.stream ?? Session.openStream(session, "get")
    session.getStream = queue
    const live = Stream.fromQueue(queue).pipe(
      Stream.map((message: WireMessage) => {
        Session.record(session, stream, message)
        return message
      })
    )
    return {
      _tag: "Stream",
      messages: Stream.concat(Stream.fromIterable<WireMessage>(resumed?.events ?? []), live).pipe(
        Stream.ensuring(Effect.sync(() => {
          if (session.getStream === queue) session.getStream = undefined
        }))
      ),
      events: eventsOf(session, stream, resumed === undefined)
    }
  })
