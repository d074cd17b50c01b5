/**
 * Telling a server's era from the outcome of a `server/discover` probe sent
 * with the full 2026-07-28 `_meta` (the spec's dual-era rule for clients):
 *
 * | probe outcome | era |
 * |---|---|
 * | a `DiscoverResult` listing 2026-07-28 | modern (the result is kept: it answers `discover()`) |
 * | a result that is no `DiscoverResult` (e.g. `{}`), or one without 2026-07-28 | legacy |
 * | -32020 (HeaderMismatch), -32021 (MissingRequiredClientCapability) | modern |
 * | -32022 (UnsupportedProtocolVersion) | modern, unless `data.supported` lists only handshake-era versions |
 * | any other JSON-RPC error (-32601, -32600, -32000, ...) or a malformed answer | legacy |
 * | an HTTP 4xx without a JSON-RPC body (404, 405, ...) | legacy, except 401 / 403 (the error itself: authorization) |
 * | no answer within the probe timeout (stdio) | legacy |
 * | a transport failure without a status, a 5xx, a timeout on HTTP | the error itself |
 *
 * Gotcha: the rule reads codes, never messages, and never guesses from
 * `Mcp-Session-Id`.
 *
 * Source: MCP 2026-07-28, basic/versioning, basic/transports/streamable-http
 * (backward compatibility), basic/transports/stdio; SEP-2575.
 */
import { ErrorCode } from "@mrtr/protocol/ErrorCode"
import { PROTOCOL_VERSION } from "@mrtr/protocol/Meta"
import { DiscoverResult } from "@mrtr/protocol/Schema"
import { Effect, Exit, Option, Schema } from "effect"
import type { RequestError } from "../Errors.ts"
import { LEGACY_PROTOCOL_VERSIONS } from "./v2025_11_25/lifecycle.ts"

/** The probe's verdict. */
export type Verdict =
  | { readonly _tag: "Modern"; readonly discovered: Option.Option<DiscoverResult> }
  | { readonly _tag: "Legacy" }
  | { readonly _tag: "Fail"; readonly error: RequestError }

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const decodeDiscover = Schema.decodeUnknownEffect(DiscoverResult)

const modern = (discovered: Option.Option<DiscoverResult>): Verdict => ({ _tag: "Modern", discovered })
const legacy: Verdict = { _tag: "Legacy" }

/**
 * The verdict for a probe's outcome: its exit, or `undefined` when it timed
 * out (`stdio`: legacy; otherwise `timeoutError`).
 */
export const verdictOf = (
  outcome: Exit.Exit<Record<string, unknown>, RequestError> | undefined,
  transportKind: "http" | "stdio" | "memory",
  timeoutError: RequestError
): Effect.Effect<Verdict> => {
  if (outcome === undefined) {
    return Effect.succeed(transportKind === "http" ? { _tag: "Fail", error: timeoutError } : legacy)
  }
  if (Exit.isSuccess(outcome)) {
    return decodeDiscover(outcome.value).pipe(
      Effect.map((discovered) =>
        discovered.supportedVersions.includes(PROTOCOL_VERSION) ? modern(Option.some(discovered)) : legacy
      ),
      Effect.orElseSucceed(() => legacy)
    )
  }
  const error = Option.getOrUndefined(Exit.findErrorOption(outcome))
  if (error === undefined) return Effect.die(Exit.isFailure(outcome) ? outcome.cause : "probe")
  switch (error._tag) {
    case "McpError": {
      if (error.code === ErrorCode.HeaderMismatch || error.code === ErrorCode.MissingRequiredClientCapability) {
        return Effect.succeed(modern(Option.none()))
      }
      if (error.code === ErrorCode.UnsupportedProtocolVersion) {
        const supported = isRecord(error.data) && Array.isArray(error.data.supported) ? error.data.supported : []
        const onlyLegacy = supported.length > 0 && supported.every((v) => LEGACY_PROTOCOL_VERSIONS.includes(v))
        return Effect.succeed(onlyLegacy ? legacy : modern(Option.none()))
      }
      return Effect.succeed(legacy)
    }
    case "ProtocolViolation":
      return Effect.succeed(legacy)
    case "RequestTimeout":
      return Effect.succeed(transportKind === "http" ? { _tag: "Fail", error } : legacy)
    case "TransportError": {
      const status = error.status
      if (status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403) {
        return Effect.succeed(legacy)
      }
      return Effect.succeed({ _tag: "Fail", error })
    }
  }
}
