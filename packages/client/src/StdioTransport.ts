/**
 * stdio client transport: spawns the server as a child process and speaks
 * newline-delimited JSON-RPC over its stdin / stdout (stderr is the server's
 * log and is drained). Responses are correlated to requests by `id`;
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
import { Cause, Deferred, Duration, Effect, Layer, Option, Queue, Scope, Stream } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import type { RequestId } from "@mrtr/protocol"
import {
  ClientTransport,
  decodeJson,
  encodeJson,
  type OutgoingNotification,
  type OutgoingRequest,
  type OutgoingResponse
} from "./ClientTransport.ts"
import { TransportError } from "./Errors.ts"

/**
 * Options of the stdio transport.
 *
 * - `command` + `args`: the program to spawn (no shell), e.g.
 *   `{ command: "node", args: ["server.js"] }`; or `command` as a ready
 *   `ChildProcess.Command` from `effect/process`.
 * - `cwd`, `env`: working directory and extra environment variables (merged
 *   into the parent's environment).
 * - `shutdownTimeout`: grace period between closing stdin and killing the
 *   process when the scope closes (default 2 seconds).
 * - `maxLineBytes`: longest line accepted from the server, in UTF-16 code
 *   units (default 16 MiB); a longer one ends the connection with
 *   `TransportError` (every pending request fails with it).
 *
 * MCP 2026-07-28, basic/transports (stdio).
 *
 * @since 0.1.0
 */
export interface Options {
  readonly command: string | ChildProcess.Command
  readonly args?: ReadonlyArray<string> | undefined
  readonly cwd?: string | undefined
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly shutdownTimeout?: Duration.Input | undefined
  readonly maxLineBytes?: number | undefined
}

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

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
 * Failures: `TransportError` when the process cannot be spawned; every
 * request in flight, and every later request, fails with `TransportError`
 * once the process exits or its stdout ends.
 *
 * MCP 2026-07-28, basic/transports (stdio).
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const scope = yield* Effect.scope
  const handle = yield* spawner.spawn(toCommand(options)).pipe(
    Effect.mapError((cause) => new TransportError({ reason: "Cannot spawn the MCP server process", cause }))
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
  yield* Stream.runDrain(handle.stderr).pipe(Effect.ignore, Effect.forkIn(scope))
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
      close(new TransportError({
        reason: overflow
          ? `The MCP server wrote a line longer than ${maxLine} characters`
          : "The MCP server process closed its stdout"
      }))
    )),
    Effect.forkIn(scope)
  )
  yield* handle.exitCode.pipe(
    Effect.option,
    Effect.flatMap((code) =>
      close(new TransportError({
        reason: Option.isSome(code) ? `The MCP server process exited with code ${code.value}` : "The MCP server process exited"
      }))
    ),
    Effect.forkIn(scope)
  )
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

  const notify = (message: OutgoingNotification | OutgoingResponse, _headers: Readonly<Record<string, string>>) => write(message)

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
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<ClientTransport, TransportError, ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.effect(ClientTransport, make(options))

/**
 * The stdio transport with Node's `ChildProcessSpawner` (from
 * `@effect/platform-node`); requires nothing.
 *
 * MCP 2026-07-28, basic/transports (stdio).
 *
 * @since 0.1.0
 */
export const layerNode = (options: Options): Layer.Layer<ClientTransport, TransportError> =>
  layer(options).pipe(
    Layer.provide(NodeChildProcessSpawner.layer),
    Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))
  )
