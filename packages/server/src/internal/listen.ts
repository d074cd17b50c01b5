/**
 * `subscriptions/listen` of the 2026-07-28 wire: a long-lived stream of
 * list-changed notifications, filtered by what the client asked for.
 * Gotcha: the 2025-11-25 wire sends the same notifications on a session's
 * GET stream instead (`legacy/dispatch.ts`).
 * Source: MCP 2026-07-28, basic/patterns/subscriptions.
 */
import { type PubSub, Stream } from "effect"
import { MetaKey } from "@mrtr/protocol"
import type { Reply, WireMessage } from "../Transport.ts"
import type { Parsed } from "./envelope.ts"
import { isRecord } from "./errors.ts"
import type { ListChanged } from "./registry.ts"

/**
 * Answers `subscriptions/listen`: the acknowledgement (with the filter the
 * server honours), then each registry change the client opted into, tagged
 * with the listen request's id. The stream ends when the client goes away.
 */
export const listen = (parsed: Parsed, changes: PubSub.PubSub<ListChanged>): Reply => {
  const filter = isRecord(parsed.params.notifications) ? parsed.params.notifications : {}
  const honoured: Record<string, boolean> = {}
  for (const key of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"]) {
    if (filter[key] === true) honoured[key] = true
  }
  const subscription = { [MetaKey.subscriptionId]: parsed.id }
  const wanted = (kind: ListChanged) => honoured[`${kind}ListChanged`] === true
  const ack: WireMessage = {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { notifications: honoured, _meta: subscription }
  }
  return {
    _tag: "Stream",
    messages: Stream.concat(
      Stream.succeed(ack),
      Stream.fromPubSub(changes).pipe(
        Stream.filter(wanted),
        Stream.map((kind): WireMessage => ({
          jsonrpc: "2.0",
          method: `notifications/${kind}/list_changed`,
          params: { _meta: subscription }
        }))
      )
    )
  }
}
