/**
 * SSE keep-alive: an SSE answer on a Node response that stays silent for its
 * interval gets a comment line `: keep-alive` (ignored by SSE parsers), so
 * that proxies and load balancers with an idle timeout (nginx's
 * `proxy_read_timeout` is 60 s by default) do not cut a stream that waits for
 * a person or for notifications.
 *
 * Gotchas: the comment is written straight to the Node response, outside
 * effect's body stream: safe because effect writes each batch of whole events
 * in one `write`, and only after the head, into a buffer that is not full,
 * and never into an encoded body (SSE answers carry `no-transform`; a
 * compressor that ignored it would see plain bytes in its output). Module
 * state: the watched answers and one unref'd timer per interval.
 *
 * @internal
 */
import type { SseResponse } from "./config.ts"

/** An SSE comment: no event, only bytes on a quiet connection. */
const KEEP_ALIVE = ": keep-alive\n\n"

/** An open SSE answer: its response, when it last wrote an event (epoch ms), its keep-alive interval. */
export interface Open {
  readonly response: SseResponse
  last: number
  readonly millis: number
}

/** Stops watching `open` (its body ended). */
export const unwatch = (open: Open) => void sweeps.get(open.millis)?.open.delete(open)

/**
 * The open SSE answers by keep-alive interval, each set swept by one unref'd
 * timer every half interval (so no answer stays silent for more than 1.5
 * intervals); a timer stops when its set is empty. One timer per interval
 * rather than one per stream: a stream with its own timer and a merged
 * comment stream cost about as much CPU as the rest of a 2025-11-25 round.
 */
const sweeps = new Map<number, { readonly open: Set<Open>; timer: ReturnType<typeof setInterval> | undefined }>()

const sweep = (millis: number) => {
  const entry = sweeps.get(millis)!
  const now = Date.now()
  for (const open of entry.open) {
    const response = open.response
    // An answer that ended without its final event (the client went away) leaves here.
    if (response.writableEnded || response.destroyed) {
      entry.open.delete(open)
      continue
    }
    if (now - open.last < millis) continue
    open.last = now
    // Between two writes of whole events, after the head, never into a full buffer, never into an encoded body
    // (a compressor that ignored `no-transform`: plain bytes in it would corrupt the stream).
    if (response.headersSent && !response.writableNeedDrain && response.getHeader("content-encoding") === undefined) {
      response.write(KEEP_ALIVE)
    }
  }
  if (entry.open.size === 0 && entry.timer !== undefined) {
    clearInterval(entry.timer)
    entry.timer = undefined
  }
}

/** How many SSE answers the keep-alive watches, for every interval (for tests). */
export const watchedCount = (): number => {
  let count = 0
  for (const entry of sweeps.values()) count += entry.open.size
  return count
}

/**
 * Watches `response` for silences of `millis`; returns its entry, whose
 * `last` the caller updates, and which it ends with `unwatch` when the body
 * ends, however it ends (a sweep also drops an ended or destroyed response).
 */
export const watch = (response: SseResponse, millis: number): Open => {
  let entry = sweeps.get(millis)
  if (entry === undefined) {
    entry = { open: new Set(), timer: undefined }
    sweeps.set(millis, entry)
  }
  const open: Open = { response, last: Date.now(), millis }
  entry.open.add(open)
  if (entry.timer === undefined) {
    entry.timer = setInterval(() => sweep(millis), Math.max(1, Math.floor(millis / 2)))
    entry.timer.unref?.()
  }
  return open
}
