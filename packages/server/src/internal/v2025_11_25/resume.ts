/**
 * Resumption across instances: a GET with `Last-Event-ID` that reaches an
 * instance which does not hold the stream (2025-11-25 sessions on a shared
 * `SessionDirectory`). Stream ids name their instance and, for a POST
 * stream, the request (`session.ts`), so the receiving instance knows whose
 * stream it is.
 *
 * - The owner is alive: the receiver sends it `Resume`; the owner hands the
 *   stream's events after the id, then its live messages up to the
 *   response, as `StreamEvent`s (with their own event ids) and a
 *   `StreamEnd`, which the receiver writes on the GET's SSE stream, so the
 *   client sees the same stream as from the owner (SEP-1699 polling with
 *   `closeStream` works without affinity). The resumed connection takes the
 *   stream over, as on one instance (a previous one ends). Answers to the
 *   server's requests on it reach the owner as every answer does (`fleet.ts`).
 * - The owner holds no such stream any more (its connection closed without
 *   `closeStream`, which cancelled the request; or it answered long ago), or
 *   does not answer within `FIRST_EVENT_MS` (it answers `StreamStart` at once
 *   when it holds the stream, events or not): the GET gets one SSE event, the
 *   request's JSON-RPC error -32603 (`data.reason: "stream_ended"`), and the
 *   owner is told to cancel it.
 * - The owner is gone (no instance listens on its channel: stopped,
 *   killed): the same, with `data.reason: "instance_lost"`. So the official
 *   v1 client, which resumes a broken POST stream with a GET and
 *   `Last-Event-ID`, fails that call at once instead of waiting out its
 *   request timeout.
 * The same holds on one instance: a `Last-Event-ID` of a POST stream this
 * instance no longer holds fails that request (`stream_ended`) instead of
 * opening the session's GET stream, where the client would wait for a
 * response that never comes.
 * Those error events carry the event id `<stream>.lost`; a GET resuming
 * after it gets 405 (nothing more to replay), which the v1 client takes as
 * "no stream" and stops reconnecting (an error response does not stop it:
 * it only stops for a result).
 * Gotchas: the events travel over pub/sub (at most once, in order); a GET
 * stream of another instance is not resumed: a new one is opened here.
 * Source: MCP 2025-11-25, basic/transports (resumability and redelivery);
 * SEP-1699.
 */
import { ErrorCode, McpError } from "@mrtr/protocol/ErrorCode"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import { type Cause, Effect, Fiber, Queue, Stream } from "effect"
import type { Routed, SessionDirectory, SessionDirectoryUnavailable } from "../../SessionDirectory.ts"
import type { Reply, WireMessage } from "../../Transport.ts"
import * as Session from "./session.ts"

type Directory = SessionDirectory["Service"]

/** What a resumption's receiver hears from the owner. */
type Item =
  | { readonly _tag: "Start" }
  | { readonly _tag: "Event"; readonly eventId: string; readonly message: WireMessage }
  | { readonly _tag: "End"; readonly found: boolean }

/** The suffix of the event id that ends a lost stream. */
const LOST = "lost"

/** How long the receiver waits for the owner's first answer (`StreamStart` or `StreamEnd`), in milliseconds. */
const FIRST_EVENT_MS = 5_000

const lostReply = (streamId: string, requestId: RequestId, retryMs: number, error: McpError): Reply => {
  const message: WireMessage = { jsonrpc: "2.0", id: requestId, error: error.toJsonRpc() }
  return {
    _tag: "Stream",
    messages: Stream.succeed(message),
    events: { prime: undefined, retryMs, idOf: () => `${streamId}.${LOST}` }
  }
}

const instanceLost = new McpError({
  code: ErrorCode.InternalError,
  message: "The server instance that ran this request stopped: the request is lost, send it again",
  data: { reason: "instance_lost" }
})

const streamEnded = new McpError({
  code: ErrorCode.InternalError,
  message: "This request's stream is no longer held by the server instance that ran it (a connection that closes " +
    "without the server detaching it cancels the request): send it again",
  data: { reason: "stream_ended" }
})

/** Resuming a session's streams on whichever instance of a fleet receives the GET. */
export interface Resumption {
  /** The messages of resumptions another instance sent here (what `fleet.receive` hands over). */
  readonly receive: (message: Routed) => Effect.Effect<void>
  /**
   * A GET with `Last-Event-ID` of `session`: 405 after a lost marker, the
   * resumed stream of another instance (or the request's error); undefined
   * when the stream is this instance's (or a GET stream), for the usual
   * resumption.
   */
  readonly resumeElsewhere: (
    session: Session.Session,
    lastEventId: string,
    retryMs: number
  ) => Effect.Effect<Reply | undefined, SessionDirectoryUnavailable>
}

/** Resumption across the instances of `directory`, for the sessions of `store`. */
export const make = (store: Session.Store, directory: Directory): Resumption => {
  /** The resumptions this instance serves for streams of others, by id. */
  const pending = new Map<string, Queue.Queue<Item, Cause.Done>>()

  /** Owner side: hands a stream's events and live messages to the instance that received the GET. */
  const serve = (request: Extract<Routed, { readonly _tag: "Resume" }>): Effect.Effect<void> =>
    Effect.suspend(() => {
      const reply = (message: Routed) => directory.send(request.replyTo, message)
      const session = store.get(request.session)
      const stream = session?.streams.get(request.stream)
      if (session === undefined || stream === undefined || stream.kind !== "post") {
        return Effect.ignore(reply({ _tag: "StreamEnd", resume: request.resume, found: false }))
      }
      return Effect.flatMap(Queue.unbounded<WireMessage, Cause.Done>(), (queue) => {
        for (const event of stream.events) if (event.seq > request.after) Queue.offerUnsafe(queue, event.message)
        if (stream.done) Queue.endUnsafe(queue)
        else Session.takeOver(stream, queue)
        const pump = Stream.fromQueue(queue).pipe(
          Stream.runForEach((message) =>
            Effect.flatMap(
              reply({
                _tag: "StreamEvent",
                resume: request.resume,
                eventId: session.eventIds.get(message) ?? "",
                message
              }),
              (delivered) => delivered ? Effect.void : Effect.fail("gone" as const)
            )
          ),
          Effect.andThen(reply({ _tag: "StreamEnd", resume: request.resume, found: true })),
          // The receiver is gone (or Redis is): the stream waits for another resumption.
          Effect.catch(() =>
            Effect.sync(() => {
              if (stream.subscriber === queue) stream.subscriber = undefined
            })
          ),
          Effect.asVoid
        )
        // The receiver hears at once that the stream is held here, however long the handler stays quiet.
        return Effect.andThen(
          Effect.ignore(reply({ _tag: "StreamStart", resume: request.resume })),
          Effect.asVoid(Effect.forkDetach(pump))
        )
      })
    })

  /** Receiver side: what the owner sent for one of this instance's resumptions. */
  const hear = (message: Extract<Routed, { readonly _tag: "StreamStart" | "StreamEvent" | "StreamEnd" }>) =>
    Effect.sync(() => {
      const queue = pending.get(message.resume)
      if (queue === undefined) return
      if (message._tag === "StreamStart") {
        Queue.offerUnsafe(queue, { _tag: "Start" })
      } else if (message._tag === "StreamEnd") {
        Queue.offerUnsafe(queue, { _tag: "End", found: message.found })
        Queue.endUnsafe(queue)
        pending.delete(message.resume)
      } else if (typeof message.message === "object" && message.message !== null) {
        Queue.offerUnsafe(queue, { _tag: "Event", eventId: message.eventId, message: message.message as WireMessage })
      }
    })

  /** What `fleet.receive` hands over: the messages of resumptions. */
  const receive = (message: Routed): Effect.Effect<void> =>
    message._tag === "Resume"
      ? serve(message)
      : message._tag === "StreamStart" || message._tag === "StreamEvent" || message._tag === "StreamEnd"
      ? hear(message)
      : Effect.void

  /**
   * A GET with `Last-Event-ID` of `session`: 405 after a lost marker, the
   * resumed stream of another instance (or the request's error, see the
   * module header); undefined when the stream is this instance's (or a GET
   * stream), for the usual resumption.
   */
  const resumeElsewhere = (
    session: Session.Session,
    lastEventId: string,
    retryMs: number
  ): Effect.Effect<Reply | undefined, SessionDirectoryUnavailable> =>
    Effect.suspend(() => {
      const dot = lastEventId.lastIndexOf(".")
      if (dot <= 0) return Effect.undefined
      const streamId = lastEventId.slice(0, dot)
      const seq = lastEventId.slice(dot + 1)
      if (seq === LOST) return Effect.succeed<Reply>({ _tag: "Accepted", httpStatus: 405 })
      const parsed = Session.parseStreamId(streamId)
      const after = Number(seq)
      if (parsed === undefined || parsed.requestId === undefined || !Number.isSafeInteger(after)) {
        return Effect.undefined
      }
      const { instance: owner, requestId } = parsed
      if (owner === directory.instanceId) {
        if (session.streams.has(streamId)) return Effect.undefined
        // A POST stream of ours that is gone: its request was cancelled with its connection (or is past the
        // streams kept): fail it rather than leave the client waiting; stop it if it still runs.
        const fiber = session.inflight.get(requestId)
        return Effect.as(
          fiber === undefined ? Effect.void : Fiber.interrupt(fiber),
          lostReply(streamId, requestId, retryMs, streamEnded)
        )
      }
      const resume = globalThis.crypto.randomUUID()
      const cancel = Effect.ignore(directory.send(owner, {
        _tag: "Cancel",
        session: session.id,
        requestId,
        reason: "its stream could not be resumed"
      }))
      return Effect.flatMap(Queue.unbounded<Item, Cause.Done>(), (queue) => {
        pending.set(resume, queue)
        const forget = Effect.sync(() => {
          if (pending.get(resume) === queue) pending.delete(resume)
        })
        return directory.send(owner, {
          _tag: "Resume",
          session: session.id,
          stream: streamId,
          after,
          resume,
          replyTo: directory.instanceId
        }).pipe(
          Effect.onError(() => forget),
          Effect.flatMap((alive): Effect.Effect<Reply> => {
            if (!alive) return Effect.as(forget, lostReply(streamId, requestId, retryMs, instanceLost))
            return Queue.take(queue).pipe(
              Effect.timeoutOrElse({ duration: FIRST_EVENT_MS, orElse: () => Effect.succeed(undefined) }),
              Effect.catch(() => Effect.succeed(undefined)),
              Effect.flatMap((first): Effect.Effect<Reply> => {
                if (first === undefined || (first._tag === "End" && !first.found)) {
                  return Effect.as(Effect.andThen(forget, cancel), lostReply(streamId, requestId, retryMs, streamEnded))
                }
                const ids = new WeakMap<WireMessage, string>()
                const messages = Stream.concat(
                  first._tag === "Start" ? Stream.empty : Stream.succeed(first),
                  Stream.fromQueue(queue)
                ).pipe(
                  Stream.takeWhile((item): item is Extract<Item, { readonly _tag: "Event" }> => item._tag === "Event"),
                  Stream.map((item) => {
                    ids.set(item.message, item.eventId)
                    return item.message
                  }),
                  Stream.ensuring(forget)
                )
                return Effect.succeed<Reply>({
                  _tag: "Stream",
                  messages,
                  events: { prime: undefined, retryMs, idOf: (message) => ids.get(message) }
                })
              })
            )
          })
        )
      })
    })

  return { receive, resumeElsewhere }
}
