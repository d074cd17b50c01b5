/**
 * stdio client transport: spawns the server as a child process and speaks
 * newline-delimited JSON-RPC over its stdin / stdout (stderr is the server's
 * log: passed to `onStderr` or drained, its last lines kept for the error
 * that reports the process's end, with its exit code). Responses are correlated to requests by `id`;
 * notifications that carry the `progressToken` of an in-flight request are
 * delivered on that request's stream, every other notification, and every
 * request the server makes (2025-11-25), on `notifications` (the client
 * answers those through `notify`). The transport owns the process: when its scope closes,
 * stdin is closed, the server gets a grace period to exit, and is then
 * killed (with its process group).
 *
 * MRTR metadata travels only in `_meta` (there are no headers on stdio); a
 * request abandoned before its response is cancelled with
 * `notifications/cancelled`.
 *
 * Source: MCP 2026-07-28, basic/transports (stdio).
 *
 * @since 0.1.0
 */
import * as NodeChildProcessSpawner from "@effect/platform-node/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import { type Cause, Deferred, Duration, Effect, Layer, Option, Queue, Scope, Stream } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import {
  ClientTransport,
  decodeJson,
  encodeJson,
  type OutgoingNotification,
  type OutgoingRequest,
  type OutgoingResponse
} from "./ClientTransport.ts"
import { TransportError } from "./Errors.ts"
import { systemCode } from "./internal/systemCode.ts"

/**
 * Options of the stdio transport.
 *
 * MCP 2026-07-28, basic/transports (stdio).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * The program to spawn (no shell), with `args`: `{ command: "node", args: ["server.js"] }`; or a ready
   * `ChildProcess.Command` from `effect/process`.
   */
  readonly command: string | ChildProcess.Command
  /**
   * The arguments of `command` (a string `command`).
   *
   * @default []
   */
  readonly args?: ReadonlyArray<string> | undefined
  /**
   * The working directory of the process.
   *
   * @default undefined (this process's working directory)
   */
  readonly cwd?: string | undefined
  /**
   * Extra environment variables, merged into this process's environment.
   *
   * @default {}
   */
  readonly env?: Readonly<Record<string, string>> | undefined
  /**
   * Grace period between closing stdin and killing the process when the scope closes.
   *
   * @default "2 seconds"
   */
  readonly shutdownTimeout?: Duration.Input | undefined
  /**
   * Longest line accepted from the server, in UTF-16 code units; a longer one ends the connection with `TransportError`
   * (every pending request fails with it).
   *
   * @default 16_777_216 (16 MiB)
   */
  readonly maxLineBytes?: number | undefined
  /**
   * Called with each piece of text the server writes to its stderr (its log), e.g. to show it. Either way the last
   * lines are kept for the `TransportError` that reports the process's end (`stderr`).
   *
   * @default undefined (drained)
   */
  readonly onStderr?: ((text: string) => Effect.Effect<void>) | undefined
}

/** How much of the server's stderr is kept for the error that reports its end: the last lines, at most this many characters. */
const STDERR_TAIL_CHARS = 4000
const STDERR_TAIL_LINES = 20

const displayCommand = (options: Options): string =>
  typeof options.command === "string" ? [options.command, ...(options.args ?? [])].join(" ") : "the command"

/** Why the process could not be started, with the command and the system code (`ENOENT`, `EACCES`, ...). */
const spawnFailure = (options: Options, cause: unknown): string => {
  const code = systemCode(cause)
  const what = `Cannot spawn the MCP server process '${displayCommand(options)}'`
  switch (code) {
    case "ENOENT":
      return `${what}: ENOENT (no such command, or the working directory does not exist)`
    case "EACCES":
    case "EPERM":
      return `${what}: ${code} (permission denied: not executable?)`
    case undefined:
      return `${what}${cause instanceof Error && cause.message !== "" ? `: ${cause.message}` : ""}`
    default:
      return `${what}: ${code}`
  }
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isRequestId = (u: unknown): u is RequestId =>
  typeof u === "string" || (typeof u === "number" && Number.isInteger(u))

const toCommand = (options: Options): ChildProcess.Command =>
  typeof options.command !== "string"
    ? options.command
    : ChildProcess.make(options.command, [...(options.args ?? [])], {
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.env === undefined ? {} : { env: { ...options.env }, extendEnv: true }),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe"
    })

interface Pending {
  readonly queue: Queue.Queue<unknown, TransportError | Cause.Done>
  readonly progressToken: unknown
  answered: boolean
}

/**
 * Spawns the server and builds the transport; requires a
 * `ChildProcessSpawner` and a `Scope` that owns the process.
 *
 * Failures: `TransportError` when the process cannot be spawned (naming
 * the command and the system code, e.g. `ENOENT`); every request in flight,
 * and every later request, fails with `TransportError` once the process
 * exits or its stdout ends (`The MCP server process exited with code 1`,
 * with the last lines of its stderr in `stderr`).
 *
 * MCP 2026-07-28, basic/transports (stdio).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const scope = yield* Effect.scope
  const handle = yield* spawner.spawn(toCommand(options)).pipe(
    Effect.mapError((cause) => new TransportError({ reason: spawnFailure(options, cause), cause }))
  )
  const pending = new Map<RequestId, Pending>()
  const unsolicited = yield* Queue.unbounded<unknown>()
  const input = yield* Queue.unbounded<string, Cause.Done>()
  let closed: TransportError | undefined

  const close = (error: TransportError) =>
    Effect.suspend(() => {
      if (closed !== undefined) return Effect.void
      closed = error
      return Effect.forEach(pending.values(), (p) => Queue.fail(p.queue, error), { discard: true })
    })

  const write = (message: unknown) =>
    Effect.suspend(() => closed !== undefined ? Effect.fail(closed) : encodeJson(message)).pipe(
      Effect.flatMap((json) => Queue.offer(input, json + "\n")),
      Effect.asVoid
    )

  const receive = (message: unknown) =>
    Effect.suspend(() => {
      if (!isRecord(message)) return Effect.void
      if (typeof message.method === "string") {
        // A request of the server (2025-11-25: elicitation/create, ...) goes to
        // `notifications`; the client answers it (or refuses it, on 2026-07-28).
        if ("id" in message) return Queue.offer(unsolicited, message)
        const token = isRecord(message.params) ? message.params.progressToken : undefined
        if (token !== undefined) {
          for (const p of pending.values()) {
            if (!p.answered && p.progressToken === token) return Queue.offer(p.queue, message)
          }
        }
        return Queue.offer(unsolicited, message)
      }
      if (!isRequestId(message.id)) return Effect.void
      const p = pending.get(message.id)
      if (p === undefined) return Effect.void
      p.answered = true
      return Queue.offer(p.queue, message).pipe(Effect.andThen(Queue.end(p.queue)))
    }).pipe(Effect.asVoid)

  yield* Stream.fromQueue(input).pipe(
    Stream.encodeText,
    Stream.run(handle.stdin),
    Effect.catchCause((cause) => close(new TransportError({ reason: "Writing to the server's stdin failed", cause }))),
    Effect.forkIn(scope)
  )
  // The server's log: passed on (onStderr) and its tail kept for the error
  // that reports the process's end.
  let stderrTail = ""
  const stderrDone = yield* Deferred.make<void>()
  yield* handle.stderr.pipe(
    Stream.decodeText(),
    Stream.runForEach((text) => {
      stderrTail = (stderrTail + text).slice(-STDERR_TAIL_CHARS)
      return options.onStderr === undefined ? Effect.void : options.onStderr(text)
    }),
    Effect.ignore,
    Effect.andThen(Deferred.succeed(stderrDone, undefined)),
    Effect.forkIn(scope)
  )
  const lastStderrLines = (): string | undefined => {
    const lines = stderrTail.split(/\r?\n/).filter((line) => line.trim() !== "").slice(-STDERR_TAIL_LINES)
    return lines.length === 0 ? undefined : lines.join("\n")
  }
  // The process went away: its exit code (when it exits soon) and the last
  // lines of its stderr (once read to the end, or shortly).
  const ended = (stdoutClosed: boolean) =>
    Effect.gen(function*() {
      const code = yield* handle.exitCode.pipe(Effect.option, Effect.timeoutOption(Duration.seconds(1)))
      yield* Deferred.await(stderrDone).pipe(Effect.timeoutOption(Duration.millis(500)))
      const reason = Option.isNone(code)
        ? stdoutClosed ? "The MCP server process closed its stdout" : "The MCP server process exited"
        : Option.isSome(code.value)
        ? `The MCP server process exited with code ${code.value.value}`
        : "The MCP server process exited"
      const stderr = lastStderrLines()
      return yield* close(new TransportError({ reason, ...(stderr === undefined ? {} : { stderr }) }))
    })
  // A line longer than maxLineBytes (UTF-16 code units) ends the connection
  // instead of growing without bound.
  const maxLine = options.maxLineBytes ?? 16 * 1024 * 1024
  let partial = 0
  let overflow = false
  yield* handle.stdout.pipe(
    Stream.decodeText(),
    Stream.takeWhile((chunk) => {
      const newline = chunk.lastIndexOf("\n")
      partial = newline === -1 ? partial + chunk.length : chunk.length - newline - 1
      overflow = partial > maxLine
      return !overflow
    }),
    Stream.splitLines,
    Stream.filter((line) => line.trim() !== ""),
    Stream.runForEach((line) =>
      decodeJson(line).pipe(
        Effect.flatMap(receive),
        Effect.catch((error) => Effect.logWarning("Ignoring a line that is not JSON", error.reason))
      )
    ),
    Effect.catchCause(() => Effect.void),
    Effect.andThen(Effect.suspend(() =>
      overflow
        ? close(new TransportError({ reason: `The MCP server wrote a line longer than ${maxLine} characters` }))
        : ended(true)
    )),
    Effect.forkIn(scope)
  )
  yield* handle.exitCode.pipe(Effect.ignore, Effect.andThen(ended(false)), Effect.forkIn(scope))
  // Close stdin first and give the server a chance to exit on its own; the
  // spawner's finalizer then kills whatever is left.
  yield* Scope.addFinalizer(
    scope,
    Effect.gen(function*() {
      yield* close(new TransportError({ reason: "The stdio transport was closed" }))
      yield* Queue.end(input)
      yield* handle.exitCode.pipe(
        Effect.timeoutOption(options.shutdownTimeout ?? Duration.seconds(2)),
        Effect.ignore
      )
    })
  )

  const request = (message: OutgoingRequest, _headers: Readonly<Record<string, string>>) =>
    Stream.unwrap(Effect.gen(function*() {
      const queue = yield* Queue.unbounded<unknown, TransportError | Cause.Done>()
      const meta = isRecord(message.params._meta) ? message.params._meta : {}
      const entry: Pending = { queue, progressToken: meta.progressToken, answered: false }
      pending.set(message.id, entry)
      yield* Effect.addFinalizer(() =>
        Effect.suspend(() => {
          pending.delete(message.id)
          return entry.answered || closed !== undefined
            ? Effect.void
            : write({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: message.id } }).pipe(
              Effect.ignore
            )
        })
      )
      yield* write(message)
      return Stream.fromQueue(queue)
    }))

  const notify = (message: OutgoingNotification | OutgoingResponse, _headers: Readonly<Record<string, string>>) =>
    write(message)

  return ClientTransport.of({
    kind: "stdio",
    usesHeaders: false,
    request,
    notify,
    notifications: Stream.fromQueue(unsolicited)
  })
})

/**
 * The stdio transport as a Layer; the process lives as long as the Layer.
 * Requires a `ChildProcessSpawner`.
 *
 * MCP 2026-07-28, basic/transports (stdio).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  options: Options
): Layer.Layer<ClientTransport, TransportError, ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.effect(ClientTransport, make(options))

/**
 * The stdio transport with Node's `ChildProcessSpawner` (from
 * `@effect/platform-node`); requires nothing.
 *
 * MCP 2026-07-28, basic/transports (stdio).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerNode = (options: Options): Layer.Layer<ClientTransport, TransportError> =>
  layer(options).pipe(
    Layer.provide(NodeChildProcessSpawner.layer),
    Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))
  )
