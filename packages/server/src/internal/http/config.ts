/**
 * The resolved options of an MCP HTTP endpoint (`HttpTransport`'s
 * `EndpointOptions` checked and parsed once, when `layer`, `routes`,
 * `handleRequest`, ... is called), read by every step of the request path.
 *
 * Gotcha: `hostVerdicts` is mutable (a small cache of `Host` verdicts shared by
 * every request of the endpoint).
 *
 * @internal
 */
import type { HttpRouter } from "effect/http"
import type { EndpointOptions } from "../../HttpTransport.ts"
import type * as Cors from "../cors.ts"
import type { HostRule, OriginRule } from "./hostGuard.ts"

export interface Config {
  readonly path: HttpRouter.PathInput
  readonly maxBodyBytes: number
  readonly maxJsonValues: number
  readonly hosts: ReadonlyArray<HostRule> | "*"
  readonly origins: ReadonlyArray<OriginRule> | "*"
  readonly principal: EndpointOptions["principal"]
  /** The CORS wrapper, when `cors` is on. */
  readonly cors: Cors.Cors | undefined
  /** Never answer a POST with SSE. */
  readonly jsonResponse: boolean
  /** Last verdicts of `hostAllowed` by `Host` value (at most 64). */
  readonly hostVerdicts: Map<string, boolean>
  /**
   * The endpoint is the whole server (`layer`): no middleware of the user's
   * reads the body before or after it, so it may read a Node body directly.
   */
  readonly ownsServer: boolean
  /** How long the body of an `Upgrade` offer may take to arrive (Node's own timeouts no longer cover it). */
  readonly upgradeBodyTimeoutMillis: number
  /** The silence after which an SSE answer gets a `: keep-alive` comment (`undefined`: never). */
  readonly sseKeepAliveMillis: number | undefined
}

/**
 * How one request's SSE answer is written: the keep-alive interval and the
 * Node response to write the comments to (absent off Node: no keep-alive).
 */
export interface Sse {
  readonly keepAliveMillis: number | undefined
  readonly response?: SseResponse | undefined
}

/** The part of a Node `ServerResponse` the keep-alive reads and writes (`sseKeepAlive.ts`). */
export interface SseResponse {
  readonly headersSent: boolean
  readonly writableEnded: boolean
  readonly destroyed: boolean
  readonly writableNeedDrain: boolean
  write(chunk: string): boolean
  getHeader(name: string): unknown
}
