/**
 * How the HTTP transport sends one request and reads its reply, in two
 * implementations behind one shape ({@link Send} / {@link Reply}):
 *
 * - {@link fromHttpClient}: any effect `HttpClient` (fetch, undici, a test
 *   client, one with middleware); what `HttpTransport.layer` uses;
 * - {@link nodeSend}: `node:http` / `node:https` driven directly, with the
 *   transport's keep-alive agents; what `HttpTransport.layerNode` uses.
 *
 * Why two: an MRTR conversation pays a request per round, and effect's
 * `HttpClient` wrapper (its request and response objects, the detached
 * upload fiber, the abort signal, the race between them) costs about twice
 * what `node:http` itself does per request; driven directly, `node:http`
 * inside one `Effect.callback` costs what a raw driver does. When a tracer
 * that records spans is installed, `layerNode` sends through effect's
 * `NodeHttpClient` on the same agents instead, so every request is still an
 * `http.client` span with a `traceparent` header.
 *
 * Gotchas:
 * - `Reply.headers` are lower-case names; a repeated header is joined with
 *   ", " (as `node:http` does for all but `set-cookie`, which stays an array
 *   there and is not read).
 * - A reply must be consumed once: `text`, `stream` or `discard`. On
 *   `node:http`, `discard` keeps the connection of a body already there or
 *   short and announced (it is read to its end in the background, for 5 s at
 *   most, the caller waiting 2 ms at most), and closes it otherwise (an SSE
 *   stream never ends); a stream left before its end is closed (the server
 *   sees the request cancelled) unless `answered` was called, and then
 *   released the same way. On an `HttpClient`, `discard` closes the
 *   connection.
 * - `nodeSend` with `prefetchBytes` reads a JSON body before it resumes
 *   (one wait per request); `text` then answers at once.
 * - Interrupting `Send`, `text` or `stream` closes the connection.
 *
 * Source: MCP 2026-07-28, basic/transports/streamable-http.
 */
import * as NodeStream from "@effect/platform-node/NodeStream"
import { ByteSize, Effect, Stream, Tracer } from "effect"
import { constTrue } from "effect/Function"
import {
  HttpClient,
  type HttpClientError,
  HttpClientRequest,
  type HttpClientResponse,
  HttpIncomingMessage
} from "effect/http"
import * as Http from "node:http"
import * as Https from "node:https"
import { urlToHttpOptions } from "node:url"
import { TransportError } from "../Errors.ts"
import { systemCode } from "./systemCode.ts"

/** One request: its method, its headers (lower-case names) and a UTF-8 body. */
export interface Outgoing {
  readonly method: "GET" | "POST" | "DELETE"
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
}

/** The reply to an {@link Outgoing}: its status line and headers, and one way to consume its body. */
export interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The whole body as UTF-8; a body over `maxBytes` (announced or streamed) fails without reading the rest. */
  readonly text: (maxBytes: number) => Effect.Effect<string, TransportError>
  /** The body's bytes as they arrive (an SSE stream). */
  readonly stream: Stream.Stream<Uint8Array, TransportError>
  /** Gives the body up. */
  readonly discard: Effect.Effect<void>
  /**
   * Tells that the stream carried its request's response: left after that,
   * it is drained to its end (the connection is reused) rather than closed,
   * which would cancel the request.
   */
  readonly answered: () => void
}

/** Sends one request; fails with `TransportError` when no reply came (refused, reset, DNS). */
export type Send = (request: Outgoing) => Effect.Effect<Reply, TransportError>

/** What a failed connection attempt to `url` was, in words a person recognizes. */
export const connectFailure = (url: string, code: string | undefined): string => {
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

const tooLarge = (maxBytes: number, status: number) =>
  new TransportError({ reason: `The HTTP response body exceeds ${maxBytes} bytes`, status })

const unreadable = (status: number, cause: unknown) =>
  new TransportError({ reason: "Cannot read the HTTP response body", status, cause })

// -----------------------------------------------------------------------------
// effect HttpClient
// -----------------------------------------------------------------------------

/** Whether `cause` (an `HttpClientError`) is the body reader refusing more than `MaxBodySize` bytes. */
const isOverflow = (cause: HttpClientError.HttpClientError): boolean => {
  const reason = cause.reason
  return reason._tag === "DecodeError" && typeof reason.cause === "object" && reason.cause !== null &&
    (reason.cause as { readonly _tag?: unknown })._tag === "MaxBytesError"
}

const utf8 = new TextDecoder()

/**
 * Closes the connection of a response whose body is not read, as the end of
 * a scope of `HttpClient.withScope` would. The client is not scoped: that
 * scope aborts every request at its end, and an `AbortController.abort()`
 * (its `DOMException`) costs as much as the rest of a round's parsing.
 */
const discardResponse = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> =>
  Effect.scoped(Effect.asVoid(Stream.toPull(response.stream)))

const replyOf = (response: HttpClientResponse.HttpClientResponse): Reply => ({
  status: response.status,
  headers: response.headers,
  text: (maxBytes) =>
    Effect.suspend(() => {
      const announced = Number(response.headers["content-length"])
      if (Number.isFinite(announced) && announced > maxBytes) {
        return Effect.andThen(discardResponse(response), Effect.fail(tooLarge(maxBytes, response.status)))
      }
      return response.arrayBuffer.pipe(
        Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBytes)),
        Effect.mapError((cause) =>
          isOverflow(cause) ? tooLarge(maxBytes, response.status) : unreadable(response.status, cause)
        ),
        Effect.map((body) => utf8.decode(body))
      )
    }),
  stream: Stream.mapError(
    response.stream,
    (cause) => new TransportError({ reason: "The SSE stream failed", status: response.status, cause })
  ),
  discard: discardResponse(response),
  answered: () => {}
})

/** A request node refused to build, with node's reason (e.g. `Invalid character in header content ["x-a"]`). */
const refused = (endpoint: string, cause: unknown): string =>
  `HTTP request to ${endpoint} failed${cause instanceof Error ? `: ${cause.message}` : ""}`

/** An error node raised (its `code` is one of node's `ERR_*`). */
const isNodeError = (error: unknown): boolean => {
  const code = error instanceof Error ? (error as { readonly code?: unknown }).code : undefined
  return typeof code === "string" && code.startsWith("ERR_")
}

/**
 * {@link Send} over an effect `HttpClient`. Each request is effect's
 * `http.client` span (with `traceparent`) only when a tracer that records
 * spans is installed: under effect's default tracer no span is built.
 */
export const fromHttpClient = (client: HttpClient.HttpClient, url: string | URL): Send => {
  const endpoint = String(url)
  return (outgoing) => {
    const base = outgoing.method === "POST"
      ? HttpClientRequest.post(url)
      : outgoing.method === "GET"
      ? HttpClientRequest.get(url)
      : HttpClientRequest.delete(url)
    const withHeaders = HttpClientRequest.setHeaders(base, outgoing.headers)
    const request = outgoing.body === undefined
      ? withHeaders
      : HttpClientRequest.bodyText(withHeaders, outgoing.body, outgoing.headers["content-type"] ?? "application/json")
    return Effect.withFiber((fiber) =>
      fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
        ? Effect.provideService(client.execute(request), HttpClient.TracerDisabledWhen, constTrue)
        : client.execute(request)
    ).pipe(
      Effect.map(replyOf),
      Effect.catch((cause) =>
        cause.response === undefined
          ? Effect.fail(new TransportError({ reason: connectFailure(endpoint, systemCode(cause)), cause }))
          : Effect.succeed(replyOf(cause.response))
      ),
      // node:http refusing to build the request (a header value with a control character) throws
      // inside the client: the same TransportError as on `nodeSend`'s path
      Effect.catchDefect((defect) =>
        isNodeError(defect)
          ? Effect.fail(new TransportError({ reason: refused(endpoint, defect), cause: defect }))
          : Effect.die(defect)
      )
    )
  }
}

// -----------------------------------------------------------------------------
// node:http
// -----------------------------------------------------------------------------

/** The agents `nodeSend` sends with (keep-alive: a conversation reuses its connection round after round). */
export interface NodeAgents {
  readonly http: Http.Agent
  readonly https: Https.Agent
}

/** A reply's media type: its `content-type` without parameters, lower-cased (`undefined` without one). */
export const mediaType = (reply: Pick<Reply, "headers">): string | undefined =>
  reply.headers["content-type"]?.split(";", 1)[0]?.trim().toLowerCase()

/** Resumes on the next tick of the event loop's tick queue. */
const nextTick: Effect.Effect<void> = Effect.callback<void>((resume) =>
  void process.nextTick(() => resume(Effect.void))
)

/** How long a reply given up may take to end in the background (its connection is closed past it), in ms. */
const LINGER_MS = 5_000
/** How long the caller waits for the end of a reply it gave up (see `release`), in ms. */
const GRACE_MS = 2

/** Bodies this short, announced by `content-length`, are drained by `discard` so the connection is reused. */
const DRAIN_BYTES = 64 * 1024

/**
 * Gives the rest of `response` up, keeping its connection when it can: the
 * rest is read to its end in the background (the connection goes back to the
 * agent's pool then, or is closed with `close` past {@link LINGER_MS}). The
 * caller waits for that end for {@link GRACE_MS} at most, so that an end
 * already on its way (the next packet) frees the connection before the next
 * request is sent, and a server that holds the body open holds nobody.
 * Resumes on the tick after the end, as `text` does: node:http frees the
 * connection on the next tick.
 */
const release = (response: Http.IncomingMessage, close: () => void): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (response.readableEnded) return void process.nextTick(() => resume(Effect.void))
    if (response.destroyed) {
      close()
      return resume(Effect.void)
    }
    let waiting = true
    const stopWaiting = () => {
      if (!waiting) return false
      waiting = false
      clearTimeout(grace)
      return true
    }
    const linger = setTimeout(close, LINGER_MS).unref()
    const grace = setTimeout(() => stopWaiting() && resume(Effect.void), GRACE_MS)
    const done = () => {
      clearTimeout(linger)
      response.off("end", done)
      response.off("close", done)
      if (stopWaiting()) process.nextTick(() => resume(Effect.void))
    }
    response.on("end", done)
    response.on("close", done)
    response.resume()
    // interrupted while waiting: the rest is still read in the background, bounded by the linger timer
    return Effect.sync(stopWaiting)
  })

/** A `node:http` reply (a class: one allocation per reply, its methods on the prototype). */
class NodeReply implements Reply {
  readonly status: number
  // Strings for every header the transport reads (node joins repeated ones with ", "; only
  // `set-cookie` is an array, and it is not read).
  readonly headers: Readonly<Record<string, string | undefined>>
  private isAnswered = false
  constructor(readonly request: Http.ClientRequest, readonly response: Http.IncomingMessage) {
    this.status = response.statusCode ?? 0
    this.headers = response.headers as Readonly<Record<string, string | undefined>>
  }
  private close(): void {
    this.response.destroy()
    this.request.destroy()
  }
  private announced(): number {
    return Number(this.headers["content-length"])
  }
  /** The body read while the reply was awaited (`nodeSend`'s `prefetchBytes`), and its size in bytes. */
  private prefetched: Effect.Effect<string, TransportError> | undefined
  private prefetchedBytes = 0
  /**
   * Reads the whole body (at most `maxBytes`) and hands the outcome to `done`, on the tick after
   * the body's end; returns what stops the reading (and closes the connection).
   */
  read(maxBytes: number, done: (outcome: Effect.Effect<string, TransportError>) => void): () => void {
    const { response, status } = this
    const close = () => this.close()
    if (this.announced() > maxBytes) {
      close()
      done(Effect.fail(tooLarge(maxBytes, status)))
      return close
    }
    // cut off before anything listened (then it emits no more events)
    if (response.destroyed) {
      done(Effect.fail(unreadable(status, new Error("the connection closed before the end of the body"))))
      return close
    }
    let finished = false
    const finish = (outcome: Effect.Effect<string, TransportError>) => {
      if (finished) return
      finished = true
      done(outcome)
    }
    const chunks: Array<Buffer> = []
    let size = 0
    response.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        close()
        finish(Effect.fail(tooLarge(maxBytes, status)))
      } else chunks.push(chunk)
    })
    response.on("end", () => {
      this.prefetchedBytes = size
      // TextDecoder, as effect's `text` does: a leading byte order mark is not part of the text
      const text = utf8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
      // After node:http's own "end" work: it frees the connection on the next tick, and the next
      // request (sent when this resumes) must find it free, or the agent opens another one.
      process.nextTick(() => finish(Effect.succeed(text)))
    })
    // also a connection closed before the body's end ("aborted": emitted because a listener exists)
    response.on("error", (cause) => finish(Effect.fail(unreadable(status, cause))))
    response.on("close", () => {
      if (!response.complete) {
        finish(Effect.fail(unreadable(status, new Error("the connection closed before the end of the body"))))
      }
    })
    return close
  }
  /** Reads the body while the reply is awaited: `text` then has it without waiting. */
  prefetch(maxBytes: number, done: () => void): () => void {
    return this.read(maxBytes, (outcome) => {
      this.prefetched = outcome
      done()
    })
  }
  text(maxBytes: number): Effect.Effect<string, TransportError> {
    const prefetched = this.prefetched
    if (prefetched !== undefined) {
      return this.prefetchedBytes > maxBytes ? Effect.fail(tooLarge(maxBytes, this.status)) : prefetched
    }
    return Effect.callback<string, TransportError>((resume) => {
      const stop = this.read(maxBytes, resume)
      return Effect.sync(stop)
    })
  }
  get stream(): Stream.Stream<Uint8Array, TransportError> {
    const { response, status } = this
    return NodeStream.fromReadable<Uint8Array, TransportError>({
      evaluate: () => response,
      onError: (cause) => new TransportError({ reason: "The SSE stream failed", status, cause }),
      closeOnDone: false
    }).pipe(
      // Left after its end arrived, or after its response (`answered`): drained, the connection is
      // reused. Left before (a call given up, a hanging server): closed, the server sees it cancelled.
      Stream.ensuring(
        Effect.suspend(() =>
          response.complete || this.isAnswered ? release(response, () => this.close()) : Effect.sync(() => this.close())
        )
      )
    )
  }
  answered(): void {
    this.isAnswered = true
  }
  get discard(): Effect.Effect<void> {
    // On the next tick: the reply is seen as its headers are parsed, and the parser finishes the
    // same packet after (a 202's empty body, an error page sent whole) before that tick.
    return Effect.flatMap(nextTick, () =>
      this.response.complete || this.announced() <= DRAIN_BYTES
        ? release(this.response, () => this.close())
        : Effect.sync(() => this.close()))
  }
}

/**
 * {@link Send} on `node:http` (`node:https` for an `https:` URL) with
 * `agents`. One `Effect.callback` per request: the request is written with
 * its `content-length`; the reply's status and headers resume it, or, with
 * `prefetchBytes` (bytes), the end of a JSON body read up to that size. An
 * interruption before then destroys the request. A `url` that is no URL, a
 * request node refuses to build (an invalid header value) and a connection
 * that fails are `TransportError`s.
 */
export const nodeSend = (agents: NodeAgents, url: string | URL, prefetchBytes?: number): Send => {
  let target: URL
  try {
    target = new URL(url)
  } catch (cause) {
    const invalid = new TransportError({ reason: `Not a URL: ${String(url)}`, cause })
    return () => Effect.fail(invalid)
  }
  const endpoint = target.href
  const secure = target.protocol === "https:"
  // host, port, path (and credentials) once: node:http would convert the URL on every request
  const where = urlToHttpOptions(target)
  const agent = secure ? agents.https : agents.http
  return (outgoing) =>
    Effect.callback<Reply, TransportError>((resume) => {
      // a Buffer, not a string: node writes a string body and the header block as one string in the
      // body's encoding (UTF-8), and header values are Latin-1
      const body = outgoing.body === undefined ? undefined : Buffer.from(outgoing.body, "utf8")
      const headers = body === undefined
        ? outgoing.headers
        : { ...outgoing.headers, "content-length": String(body.length) }
      const options = { ...where, method: outgoing.method, headers, agent }
      let request: Http.ClientRequest
      try {
        request = secure ? Https.request(options) : Http.request(options)
      } catch (cause) {
        // an invalid header value (a control character in a token) throws here
        return resume(Effect.fail(new TransportError({ reason: refused(endpoint, cause), cause })))
      }
      let settled = false
      let stop: (() => void) | undefined
      request.once("response", (response) => {
        settled = true
        const reply = new NodeReply(request, response)
        // a JSON body is read before the caller resumes: one wait per request, as a raw driver's
        if (prefetchBytes !== undefined && mediaType(reply) === "application/json") {
          stop = reply.prefetch(prefetchBytes, () => {
            stop = undefined
            resume(Effect.succeed(reply))
          })
        } else resume(Effect.succeed(reply))
      })
      // kept after the reply: a socket error later must not be an unhandled "error" event
      request.on("error", (cause) => {
        if (settled) return
        settled = true
        resume(Effect.fail(new TransportError({ reason: connectFailure(endpoint, systemCode(cause)), cause })))
      })
      request.end(body)
      return Effect.sync(() => {
        if (!settled) request.destroy()
        stop?.()
      })
    })
}
