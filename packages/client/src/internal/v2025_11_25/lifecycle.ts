/**
 * The 2025-11-25 lifecycle as the client speaks it: the `initialize`
 * request (protocol version, the client's capabilities, `clientInfo`), the
 * checks on its result (a handshake-era version only: 2025-11-25,
 * 2025-06-18 or 2025-03-26; a 2026 version in an `InitializeResult` is a
 * protocol violation), and the capabilities declared at `initialize`.
 *
 * Gotchas: the capabilities are fixed for the session at `initialize`, so
 * on this wire they come from the handlers the client Layer was built with
 * (a call's own handlers still answer, but cannot widen them); `roots`
 * carries `listChanged: true` only when the `RootsHandler` reports changes.
 *
 * Source: MCP 2025-11-25, basic/lifecycle (initialization, version
 * negotiation); schema `InitializeRequestParams`, `InitializeResult`.
 */
import { Legacy, SafeText } from "@mrtr/protocol"
import { type ClientCapabilities, type DiscoverResult, type Implementation } from "@mrtr/protocol/Schema"
import { Effect, Schema } from "effect"
import { ProtocolViolation } from "../../Errors.ts"

/** The revision the client offers in `initialize`. */
export const LEGACY_PROTOCOL_VERSION = Legacy.LATEST_VERSION

/** The handshake-era revisions the client accepts in an `InitializeResult`, newest first. */
export const LEGACY_PROTOCOL_VERSIONS: ReadonlyArray<string> = Legacy.VERSIONS

/** The decoded `InitializeResult` (`@mrtr/protocol`'s `Legacy.InitializeResult`). */
export type InitializeResult = Legacy.InitializeResult

/** The params of `initialize`. */
export const initializeParams = (
  capabilities: ClientCapabilities,
  clientInfo: Implementation
): Legacy.InitializeRequestParams => ({
  protocolVersion: LEGACY_PROTOCOL_VERSION,
  capabilities,
  clientInfo
})

/**
 * The capabilities declared at `initialize`: the ones derived from the
 * handlers, with `roots.listChanged: true` when the roots handler reports
 * changes.
 */
export const legacyCapabilities = (capabilities: ClientCapabilities, rootsChange: boolean): ClientCapabilities =>
  capabilities.roots !== undefined && rootsChange
    ? { ...capabilities, roots: { ...capabilities.roots, listChanged: true } }
    : capabilities

const decodeResult = Schema.decodeUnknownEffect(Legacy.InitializeResult)

/** Decodes and checks an `InitializeResult` (`ProtocolViolation` when it is malformed or names no handshake-era version). */
export const readInitializeResult = (
  raw: Record<string, unknown>
): Effect.Effect<InitializeResult, ProtocolViolation> =>
  decodeResult(raw).pipe(
    Effect.mapError((issue) =>
      new ProtocolViolation({
        method: "initialize",
        reason: `the result does not decode: ${SafeText.lines(issue.message)}`,
        result: raw
      })
    ),
    Effect.filterOrFail(
      (result) => LEGACY_PROTOCOL_VERSIONS.includes(result.protocolVersion),
      (result) =>
        new ProtocolViolation({
          method: "initialize",
          reason: `the server negotiated protocol version '${
            SafeText.oneLine(result.protocolVersion)
          }', which the client does not speak over initialize (it speaks ${LEGACY_PROTOCOL_VERSIONS.join(", ")})`,
          result: raw
        })
    )
  )

/**
 * A `DiscoverResult` describing a 2025-11-25 server, built from its
 * `InitializeResult`: `supportedVersions` is the negotiated version,
 * `capabilities` and `instructions` as given, `serverInfo` in `_meta`;
 * nothing is cacheable (`ttlMs: 0`, `cacheScope: "private"`).
 */
export const toDiscoverResult = (result: InitializeResult): DiscoverResult =>
  ({
    resultType: "complete",
    ttlMs: 0,
    cacheScope: "private",
    supportedVersions: [result.protocolVersion],
    capabilities: result.capabilities,
    ...(result.instructions === undefined ? {} : { instructions: result.instructions }),
    _meta: { "io.modelcontextprotocol/serverInfo": result.serverInfo }
  }) as DiscoverResult
