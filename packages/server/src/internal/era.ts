/**
 * Which era a message belongs to, by the dual-era rules of the spec (never
 * by guesswork), decided once per message before any dispatch:
 *
 * | message                                                        | era    |
 * |----------------------------------------------------------------|--------|
 * | HTTP `GET` or `DELETE`                                          | legacy |
 * | a JSON-RPC response (the answer to a server-to-client request)  | legacy |
 * | `params._meta["io.modelcontextprotocol/protocolVersion"]` set   | modern |
 * | `initialize` without such a claim                              | legacy |
 * | no such claim, `MCP-Protocol-Version` absent, before 2026-07-28 or not a date | legacy (an unsupported one gets 400) |
 * | no such claim, `MCP-Protocol-Version` a date, 2026-07-28 or later  | modern (which answers -32602 naming the missing keys) |
 * | anything that is not one JSON-RPC object (batches included)     | modern (which answers its error) |
 *
 * `initialize` without a claim is legacy (and is refused with -32020 when
 * the header names a modern version); with a claim it is modern, which
 * answers -32601. `Mcp-Session-Id` plays no part. Versions are dates
 * (`YYYY-MM-DD`), so "2026-07-28 or later" is a string comparison; a header
 * that is not one (`garbage`) would compare after every date, so it is
 * legacy, which answers 400 "Unsupported protocol version" as 2025-11-25
 * requires.
 * Source: 2026-07-28 basic/versioning, basic/transports (backward
 * compatibility); `docs/architecture.md` (step "classify" of both walks).
 */
import { MetaKey, PROTOCOL_VERSION } from "@mrtr/protocol/Meta"
import type { Incoming } from "../Transport.ts"
import { isRecord } from "./errors.ts"

/** The shape of a protocol version: a date. */
const VERSION_DATE = /^\d{4}-\d{2}-\d{2}$/

/** `"modern"`: the 2026-07-28 stateless wire; `"legacy"`: 2025-11-25 and older (initialize, sessions). */
export type Era = "modern" | "legacy"

/** Classifies one incoming message; see the module header. */
export const classify = (incoming: Incoming): Era => {
  if (incoming.httpMethod === "GET" || incoming.httpMethod === "DELETE") return "legacy"
  const message = incoming.message
  if (!isRecord(message) || message.jsonrpc !== "2.0") return "modern"
  if (typeof message.method !== "string") {
    return "result" in message || "error" in message ? "legacy" : "modern"
  }
  const params = message.params
  if (isRecord(params) && isRecord(params._meta) && MetaKey.protocolVersion in params._meta) return "modern"
  if (message.method === "initialize") return "legacy"
  const header = incoming.headers?.("mcp-protocol-version")
  return header === undefined || header < PROTOCOL_VERSION || !VERSION_DATE.test(header) ? "legacy" : "modern"
}
