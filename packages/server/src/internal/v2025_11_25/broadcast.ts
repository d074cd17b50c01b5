/**
 * What the server tells the 2025-11-25 sessions at once, outside any request:
 * `notifications/<kind>/list_changed` (to every session) and
 * `notifications/resources/updated` (to the sessions subscribed to the URI
 * with `resources/subscribe`, `requests.ts`).
 *
 * Gotchas: only the sessions this instance holds hear it (on a fleet each
 * instance delivers what the server's bus brings it to its own); a message
 * goes out as `Session.sendOutside` sends it: on stdio to the connection, on
 * HTTP to the session's GET stream on this instance, and nowhere when there
 * is none (it is not kept for later) or the session has ended. The sessions
 * are read when the effect runs, not when it is made.
 * Source: MCP 2025-11-25, server/tools, server/prompts, server/resources
 * (list changed, subscriptions), basic/transports (listening for messages
 * from the server).
 */
import { Effect } from "effect"
import type { WireMessage } from "../../Transport.ts"
import type { DispatcherState } from "./context.ts"
import * as Session from "./session.ts"

export const broadcast = (
  { store }: DispatcherState,
  message: WireMessage,
  to: (session: Session.Session) => boolean = () => true
) =>
  Effect.suspend(() =>
    Effect.forEach(
      Array.from(store.sessions.values()).filter(to),
      (session) => Session.sendOutside(session, message),
      { discard: true }
    )
  )

/** `notifications/<kind>/list_changed` to every session. */
export const listChanged = (ctx: DispatcherState, kind: string) =>
  broadcast(ctx, { jsonrpc: "2.0", method: `notifications/${kind}/list_changed` })

/** `notifications/resources/updated` to the sessions subscribed to `uri`. */
export const resourceUpdated = (ctx: DispatcherState, uri: string) =>
  broadcast(
    ctx,
    { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } },
    (session) => session.subscriptions.has(uri)
  )
