/**
 * Lingering close for a request refused before its body was read (413): the
 * rest of the body is read and thrown away, up to a byte and a time bound,
 * so that a client that writes its whole body before reading the answer
 * (Python's `urllib`, `httpx`, many scripts) gets the 413 instead of a reset
 * connection (`BrokenPipeError` / `EPIPE`).
 *
 * Gotchas:
 * - The answer itself must say `Connection: close`: the connection is not
 *   reused, and effect's Node server then half-closes it (FIN) once the answer
 *   is flushed and destroys it after its close grace period (500 ms).
 * - Without the drain, Node's parser stops reading (backpressure) and the
 *   destroy meets unread bytes in the kernel, which the kernel answers with
 *   a reset that also discards the unread 413 on the client's side.
 * - Bounds: at most `maxBytes` bytes are thrown away and the socket is
 *   destroyed at the latest `maxMillis` after the drain started, whichever
 *   comes first; a client that sends more, or more slowly, still sees a reset.
 *
 * Source: RFC 9112 §9.6 (tear-down: lingering close); MCP 2026-07-28,
 * basic/transports (Streamable HTTP).
 */
import type { IncomingMessage } from "node:http"

/** Bytes of a refused body read and discarded at most: 16 MiB. */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024

/** The longest a refused request's socket is kept open for draining: 2 seconds. */
export const LINGER_MAX_MILLIS = 2_000

/**
 * Reads and discards what is left of `request`'s body, within the bounds;
 * does nothing for a request whose body is complete or whose socket is gone.
 */
export const drain = (
  request: IncomingMessage,
  maxBytes: number = LINGER_MAX_BYTES,
  maxMillis: number = LINGER_MAX_MILLIS
): void => {
  const socket = request.socket
  if (request.complete || request.destroyed || socket === null || socket.destroyed) return
  let bytes = 0
  const timer = setTimeout(() => socket.destroy(), maxMillis)
  timer.unref()
  socket.once("close", () => clearTimeout(timer))
  request.on("data", (chunk: Buffer) => {
    bytes += chunk.length
    if (bytes > maxBytes) {
      clearTimeout(timer)
      socket.destroy()
    }
  })
  request.once("end", () => clearTimeout(timer))
  request.resume()
}
