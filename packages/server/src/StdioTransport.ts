/**
 * stdio transport for MCP 2026-07-28: newline-delimited JSON-RPC on stdin and
 * stdout.
 *
 * - Input: each line (terminated by `\n`, an optional `\r` before it is
 *   dropped) is one JSON-RPC message, UTF-8. Blank lines are ignored. A line
 *   that is not JSON gets a `-32700` error line; a line longer than
 *   `maxLineBytes` gets a `-32600` error line (it is skipped without being
 *   buffered) and the transport keeps serving. Error lines have no `id`.
 * - Concurrency: every message is handled in its own fiber; responses are
 *   written as they complete, each as one whole line (writes are serialized,
 *   never interleaved, and never cut by an interruption).
 * - `Stream` replies: each message is written as its own line, in order; the
 *   stream ends after the response to the request's `id`.
 * - Cancellation: `notifications/cancelled` with `params.requestId`
 *   interrupts the in-flight request with that id (no response is written for
 *   it). The notification is also passed to the dispatcher.
 * - End of input: what waits for the client ends at once, since nothing it
 *   sends can arrive any more: `subscriptions/listen` streams are closed,
 *   and a 2025-11-25 request waiting for the client's answers fails (its
 *   pending and later server-to-client requests are refused). The other
 *   in-flight requests get `drainTimeout` to finish and write their
 *   responses, then are interrupted.
 * - Logs: `serve` and `layer` route Effect's built-in logger to stderr
 *   (`References.LogToStderr`), so stdout carries nothing but JSON-RPC.
 *
 * Source: MCP 2026-07-28, basic/transports (stdio), basic/utilities/cancellation.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import {
  Cause,
  Duration,
  Effect,
  Fiber,
  FiberMap,
  FiberSet,
  Layer,
  Queue,
  References,
  Semaphore,
  Stdio,
  Stream
} from "effect"
import { ErrorCode, errorJson, isObject, isRequestId, type RequestId, requestIdOf } from "./internal/jsonRpc.ts"
import { McpHandler } from "./McpHandler.ts"
import type { Connection, Handler, WireMessage } from "./Transport.ts"

/**
 * Options of the stdio transport.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * Longest accepted line, in bytes, without the line break. Longer lines are answered with a `-32600` error line and
   * skipped.
   *
   * @default 4_194_304 (4 MiB)
   */
  readonly maxLineBytes?: number | undefined
  /**
   * How long in-flight requests may run after the end of input before they are interrupted (what waits for the client
   * does not wait for it: see the module header).
   *
   * @default "10 seconds"
   */
  readonly drainTimeout?: Duration.Input | undefined
}

/**
 * Default line limit: 4 MiB (4_194_304 bytes).
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024

/**
 * The transport core, independent of the process: reads newline-delimited
 * JSON-RPC from `input`, dispatches every message to `McpHandler` in its own
 * fiber, and calls `output` once per outgoing message with the JSON text of
 * the message, without the trailing `\n` (the caller frames it). `output`
 * calls never overlap.
 *
 * Completes when `input` ends and the in-flight requests have finished (or
 * `drainTimeout` has passed; the rest are interrupted). Fails only if `input`
 * fails. Interrupting it interrupts every in-flight request.
 *
 * Source: MCP 2026-07-28, basic/transports (stdio).
 *
 * @category running
 * @since 0.1.0
 */
export const run = <E>(
  input: Stream.Stream<Uint8Array, E>,
  output: (line: string) => Effect.Effect<void>,
  options: Options = {}
): Effect.Effect<void, E, McpHandler> =>
  Effect.gen(function*() {
    const handler = yield* McpHandler
    const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
    const drainTimeout = Duration.fromInputUnsafe(options.drainTimeout ?? Duration.seconds(10))
    const requests = yield* FiberMap.make<RequestId>()
    const others = yield* FiberSet.make()
    const lock = yield* Semaphore.make(1)
    const write = (line: string) => Effect.uninterruptible(lock.withPermit(output(line)))
    // The connection a 2025-11-25 session (opened by `initialize`) is bound to; it ends with the input.
    const finalizers: Array<Effect.Effect<void>> = []
    const inputEnd: Array<Effect.Effect<void>> = []
    const connection: Connection = {
      send: (message) => write(encode(message, undefined)),
      onClose: (finalizer) => void finalizers.push(finalizer),
      onInputEnd: (finalizer) => void inputEnd.push(finalizer)
    }
    // `subscriptions/listen` requests in flight: they only wait for the client to go away.
    const listens = new Set<RequestId>()
    yield* Effect.addFinalizer(() => Effect.forEach(finalizers, (finalizer) => finalizer, { discard: true }))

    const onMessage = (text: string): Effect.Effect<void> => {
      if (text.trim() === "") return Effect.void
      let message: unknown
      try {
        message = JSON.parse(text)
      } catch {
        return write(errorLine(PARSE_ERROR, "Parse error"))
      }
      return Effect.gen(function*() {
        const cancelled = cancelledRequestId(message)
        if (cancelled !== undefined) {
          yield* FiberMap.remove(requests, cancelled)
        }
        const id = requestIdOf(message)
        const work = dispatch(handler, message, id, write, connection)
        if (id !== undefined && !(yield* FiberMap.has(requests, id))) {
          if (isObject(message) && message["method"] === "subscriptions/listen") {
            listens.add(id)
            yield* FiberMap.run(requests, id)(Effect.ensuring(work, Effect.sync(() => listens.delete(id))))
            return
          }
          yield* FiberMap.run(requests, id)(work)
        } else {
          // Notifications, invalid messages, and a request reusing an id still in flight
          // (that one cannot be cancelled by id, and must not replace the first).
          yield* FiberSet.run(others)(work)
        }
      })
    }

    const splitter = makeLineSplitter(maxLineBytes)
    const onLine = (line: Line): Effect.Effect<void> =>
      line._tag === "TooLong"
        ? write(errorLine(INVALID_REQUEST, `Message exceeds ${maxLineBytes} bytes`))
        : onMessage(line.text)

    yield* Stream.runForEach(input, (chunk) => Effect.forEach(splitter.push(chunk), onLine, { discard: true }))
    yield* Effect.forEach(splitter.end(), onLine, { discard: true })

    // Nothing the client sends can arrive now: what waits for it ends at once, the rest drains.
    yield* Effect.forEach(Array.from(listens), (id) => FiberMap.remove(requests, id), { discard: true })
    yield* Effect.forEach(inputEnd.splice(0), (finalizer) => finalizer, { discard: true })

    yield* Effect.andThen(FiberMap.awaitEmpty(requests), FiberSet.awaitEmpty(others)).pipe(
      Effect.ignore,
      Effect.timeoutOption(drainTimeout)
    )
  }).pipe(Effect.scoped)

/**
 * Serves the dispatcher on the `Stdio` service: `run` over `stdio.stdin`,
 * writing each message plus `\n` to `stdio.stdout()`. Effect's built-in
 * loggers write to stderr while it runs. Completes when stdin ends (after
 * draining); a stdin error is logged and treated as the end of input.
 *
 * Use it as the main effect of a stdio server so the process exits when the
 * client closes stdin:
 *
 * ```ts
 * import { NodeRuntime, NodeStdio } from "@effect/platform-node"
 * import { McpServer, StdioTransport } from "@mrtr/server"
 * import { Effect } from "effect"
 *
 * const dispatcherLayer = McpServer.layer({ name: "s", version: "1.0.0" })
 *
 * StdioTransport.serve().pipe(Effect.provide([dispatcherLayer, NodeStdio.layer]), NodeRuntime.runMain)
 * ```
 *
 * Source: MCP 2026-07-28, basic/transports (stdio).
 *
 * @category running
 * @since 0.1.0
 */
export const serve = (options: Options = {}): Effect.Effect<void, never, McpHandler | Stdio.Stdio> =>
  Effect.gen(function*() {
    const stdio = yield* Stdio.Stdio
    const queue = yield* Queue.unbounded<string, Cause.Done>()
    const writer = yield* Stream.fromQueue(queue).pipe(
      Stream.run(stdio.stdout()),
      Effect.tapCause((cause) => Effect.logError("stdio: writing to stdout failed", cause)),
      Effect.ignore,
      Effect.forkScoped
    )
    yield* run(stdio.stdin, (line) => Effect.asVoid(Queue.offer(queue, `${line}\n`)), options).pipe(
      Effect.tapCause((cause) => Effect.logError("stdio: reading stdin failed", cause)),
      Effect.ignore
    )
    yield* Queue.end(queue)
    yield* Fiber.join(writer)
  }).pipe(Effect.scoped, Effect.provideService(References.LogToStderr, true))

/**
 * `serve` as a layer: starts serving when the layer is built and stops when
 * its scope closes. Requires `McpHandler` and `Stdio` (e.g.
 * `NodeStdio.layer`, or use `layerNode`). Reaching the end of stdin stops
 * reading but does not end the process; use `serve` as the main effect if the
 * process should exit then.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<never, never, McpHandler | Stdio.Stdio> =>
  Layer.effectDiscard(Effect.forkScoped(serve(options)))

/**
 * `layer` on the process's own stdin/stdout (`NodeStdio.layer` from
 * `@effect/platform-node`). Requires `McpHandler`.
 *
 * Source: MCP 2026-07-28, basic/transports.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerNode = (options: Options = {}): Layer.Layer<never, never, McpHandler> =>
  layer(options).pipe(Layer.provide(NodeStdio.layer))

/**
 * Runs a server over the process's stdin/stdout as the program's main
 * effect: builds `server` (any Layer providing `McpHandler`, e.g.
 * `McpServer.layer(...)` with its tools), serves until stdin ends, then
 * exits. Every log line, including those written while `server` is built
 * (such as the random key ring warning), goes to stderr, so stdout carries
 * nothing but JSON-RPC.
 *
 * ```ts
 * import { McpServer, StdioTransport, Tool } from "@mrtr/server"
 * import { Effect, Layer } from "effect"
 *
 * const greet = Tool.make("greet", { handler: () => Effect.succeed("Hello!") })
 *
 * StdioTransport.main(McpServer.tools(greet).pipe(Layer.provideMerge(McpServer.layer({ name: "s", version: "1" }))))
 * ```
 *
 * Source: MCP 2026-07-28, basic/transports (stdio: "the server MUST NOT write anything to stdout that is not a valid MCP message").
 *
 * @category layers
 * @since 0.1.0
 */
export const main = <E>(server: Layer.Layer<McpHandler, E>, options: Options = {}): void =>
  serve(options).pipe(
    Effect.provide(Layer.merge(server, NodeStdio.layer)),
    Effect.provideService(References.LogToStderr, true),
    NodeRuntime.runMain
  )

// -----------------------------------------------------------------------------
// Internal
// -----------------------------------------------------------------------------

const PARSE_ERROR = ErrorCode.ParseError
const INVALID_REQUEST = ErrorCode.InvalidRequest
const INTERNAL_ERROR = ErrorCode.InternalError

const errorLine = errorJson

const cancelledRequestId = (message: unknown): RequestId | undefined => {
  if (!isObject(message) || message["method"] !== "notifications/cancelled" || "id" in message) return undefined
  const params = message["params"]
  return isObject(params) && isRequestId(params["requestId"]) ? params["requestId"] : undefined
}

const isResponse = (message: WireMessage): boolean =>
  !("method" in message) && ("result" in message || "error" in message)

const isFinalFor = (id: RequestId | undefined) => (message: WireMessage): boolean =>
  isResponse(message) && (id === undefined || message["id"] === id)

const encode = (message: WireMessage, id: RequestId | undefined): string => {
  try {
    return JSON.stringify(message)
  } catch {
    return errorLine(INTERNAL_ERROR, "Internal error: message is not serializable", id)
  }
}

const dispatch = (
  handler: Handler,
  message: unknown,
  id: RequestId | undefined,
  write: (line: string) => Effect.Effect<void>,
  connection: Connection
): Effect.Effect<void> =>
  Effect.gen(function*() {
    const reply = yield* handler.handle({ message, connection })
    switch (reply._tag) {
      case "Accepted":
        return
      case "Response":
        return yield* write(encode(reply.message, id))
      case "Stream":
        return yield* reply.messages.pipe(
          Stream.takeUntil(isFinalFor(id)),
          Stream.runForEach((m) => write(encode(m, id)))
        )
    }
  }).pipe(
    // One Scope per request, closed once its response is written: what a
    // handler acquires in it is released with the request.
    Effect.scoped,
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause)
        : Effect.andThen(
          Effect.logError("stdio: the dispatcher died", cause),
          id === undefined ? Effect.void : write(errorLine(INTERNAL_ERROR, "Internal error", id))
        )
    )
  )

type Line = { readonly _tag: "Line"; readonly text: string } | { readonly _tag: "TooLong" }

/**
 * Splits bytes into lines on `\n`, decoding each whole line as UTF-8 (so
 * multi-byte characters split across chunks are intact). A line over
 * `maxBytes` is not buffered: its bytes are dropped as they arrive and it is
 * reported once as `TooLong` at its line break.
 */
const makeLineSplitter = (maxBytes: number) => {
  const decoder = new TextDecoder()
  let parts: Array<Uint8Array> = []
  let size = 0
  let tooLong = false

  const append = (bytes: Uint8Array) => {
    if (bytes.byteLength === 0 || tooLong) return
    size += bytes.byteLength
    if (size > maxBytes) {
      tooLong = true
      parts = []
      return
    }
    parts.push(bytes)
  }

  const finish = (): Line => {
    let line: Line
    if (tooLong) {
      line = { _tag: "TooLong" }
    } else {
      const bytes = parts.length === 1 ? parts[0]! : concat(parts, size)
      let text = decoder.decode(bytes)
      if (text.endsWith("\r")) text = text.slice(0, -1)
      line = { _tag: "Line", text }
    }
    parts = []
    size = 0
    tooLong = false
    return line
  }

  return {
    push(chunk: Uint8Array): Array<Line> {
      const lines: Array<Line> = []
      let start = 0
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, start)) {
        append(chunk.subarray(start, i))
        lines.push(finish())
        start = i + 1
      }
      // Copy: the producer may reuse its buffer.
      append(chunk.slice(start))
      return lines
    },
    /** The last line when input ends without a line break. */
    end(): Array<Line> {
      return size === 0 && !tooLong ? [] : [finish()]
    }
  }
}

const concat = (parts: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const out = new Uint8Array(size)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.byteLength
  }
  return out
}
