/**
 * What the pieces of the 2025-11-25 dispatcher share: one `DispatcherState` per
 * dispatcher (the server's `Core`, the session store and directory, the stdio
 * sessions by connection, the resumption of streams, the capabilities
 * `initialize` announces), built once by `make` (`dispatch.ts`) and handed to
 * the lifecycle (`lifecycle.ts`), the requests (`requests.ts`), the
 * notifications and answers (`notifications.ts`) and the broadcasts
 * (`broadcast.ts`); and the replies all of them build: a result, a session
 * error with its legacy code.
 *
 * Gotchas: the context is the dispatcher's, never module state (two servers
 * in one process have two stores); `shared` and `ttl` are read once, when the
 * dispatcher is built. The session errors carry their own HTTP status (400,
 * 404, 503), unlike the errors of requests (200).
 * Source: MCP 2025-11-25, basic/lifecycle, basic/transports (session
 * management).
 */
import type { Engine } from "@mrtr/core/engine"
import type { Legacy } from "@mrtr/protocol"
import { McpError } from "@mrtr/protocol/ErrorCode"
import type { RequestId } from "@mrtr/protocol/JsonRpc"
import type { Implementation } from "@mrtr/protocol/Schema"
import type { SessionDirectory } from "../../SessionDirectory.ts"
import type { Reply } from "../../Transport.ts"
import { errorReply } from "../errors.ts"
import type { Registry } from "../registry.ts"
import type * as Resume from "./resume.ts"
import type * as Session from "./session.ts"

/** What the legacy dispatcher shares with the server. */
export interface Core {
  readonly registry: Registry
  readonly engine: Engine.Services
  readonly info: Implementation
  readonly instructions: string | undefined
  readonly audience: string
  readonly limits: Session.Limits
  /** Where the sessions of the fleet are found (`SessionDirectory.local`: this process only). */
  readonly directory: SessionDirectory["Service"]
}

/**
 * The state of one legacy dispatcher, built once by `make` and passed to
 * each of its pieces (nothing of it lives at module level).
 */
export interface DispatcherState {
  /** What the server shares with the dispatcher. */
  readonly core: Core
  /** `core.directory`: where the sessions of the fleet are found. */
  readonly directory: SessionDirectory["Service"]
  /** `directory.shared`: whether other instances see the sessions (read once). */
  readonly shared: boolean
  /** The sessions this instance holds (its own, and replicas of the fleet's). */
  readonly store: Session.Store
  /** `core.limits.idleTimeoutMs`: the idle TTL of a session's shared record. */
  readonly ttl: number
  /** The stdio sessions, by their connection. */
  readonly byConnection: WeakMap<object, Session.Session>
  /** Resumption of streams across the instances of the fleet (`resume.ts`). */
  readonly resumption: Resume.Resumption
  /** What `initialize` answers the server can do (one object for every session). */
  readonly capabilities: Legacy.ServerCapabilities
}

/** The legacy error codes of session management (TS SDK and conformance practice). */
export const SESSION_ERROR = -32000
export const SESSION_NOT_FOUND = -32001
export const RESOURCE_NOT_FOUND = -32002

export const sessionError = (code: number, message: string, httpStatus: number, id?: RequestId): Reply =>
  errorReply(id, new McpError({ code, message }), httpStatus)

export const result = (id: RequestId, value: unknown, headers?: Record<string, string>): Reply => ({
  _tag: "Response",
  message: { jsonrpc: "2.0", id, result: value },
  httpStatus: 200,
  ...(headers === undefined ? {} : { headers })
})
