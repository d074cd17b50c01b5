/**
 * Choosing the connection's `Era`, once, before its first request, and
 * routing what the server sends outside any request's stream to it.
 *
 * - `protocol: "2026-07-28"` and `"2025-11-25"` pin the era (no probe).
 * - `"auto"` probes once with `server/discover` sent with the full
 *   2026-07-28 `_meta` (the verdict's rules: `eraProbe.ts`), bounded by
 *   `probeTimeout`: a 2026-07-28 verdict selects that era (its
 *   `DiscoverResult` kept for the first `discover()`); a legacy one opens a
 *   2025-11-25 session, and falls back to 2026-07-28 when `initialize` is
 *   refused the way a modern-only server refuses it (-32601, or -32022 /
 *   -32602 whose `data.supported` lists 2026-07-28).
 * - The first caller selects under a lock; later callers get the era at
 *   once.
 *
 * This module and the transports are the only places that read
 * `transport.kind`: it decides what a probe without an answer means (stdio:
 * legacy; HTTP: a failure) and how the 2025-11-25 era treats its transport
 * (`LegacyOptions`).
 *
 * Gotchas:
 * - The era is recorded before the 2025-11-25 session's `start` (the GET
 *   stream, `logging/setLevel`), so the server requests those carry are
 *   answered as the session's.
 * - Until an era is selected, a request outside a stream gets -32601
 *   (`ping` is answered); notifications are published in any era.
 * - The probe's `probeTimeout`, like every `requestTimeout`, does not count
 *   the time the transport spends signing in (the sign-in a 401 starts).
 *
 * Source: MCP 2026-07-28, basic/versioning, basic/lifecycle,
 * basic/transports/streamable-http (backward compatibility); SEP-2575.
 */
import { ErrorCode } from "@mrtr/protocol/ErrorCode"
import { type RequestId } from "@mrtr/protocol/JsonRpc"
import { PROTOCOL_VERSION } from "@mrtr/protocol/Meta"
import { Duration, Effect, Option, Semaphore } from "effect"
import { type RequestError, TransportError } from "../Errors.ts"
import type { Protocol } from "../Models.ts"
import { boundedExceptSignIn, boundMillis } from "./deadline.ts"
import type { Era, EraSettings } from "./era.ts"
import { verdictOf } from "./eraProbe.ts"
import { dispatchWith, isRecord, pingOnly } from "./outgoing.ts"
import * as V2025_11_25 from "./v2025_11_25/era.ts"
import * as V2026_07_28 from "./v2026_07_28/era.ts"

/** The connection's era, selected on first use. */
export interface EraSelection {
  /** The era: selected by the first caller (probe, session), then the same one. */
  readonly era: Effect.Effect<Era, RequestError>
  /** A message that arrived outside any request's stream (stdio, the GET stream). */
  readonly dispatch: (message: unknown) => Effect.Effect<void>
  /** The roots changed: told to the server when an era is selected, else nothing (the session will declare them). */
  readonly rootsChanged: Effect.Effect<void>
}

/** `initialize` refused the way a modern-only server refuses it. */
const refusedAsModern = (error: RequestError) =>
  error._tag === "McpError" && (
    error.code === ErrorCode.MethodNotFound ||
    // a modern-only server SHOULD name its versions in any error to initialize (-32022, or -32602 as in 2025-11-25)
    ((error.code === ErrorCode.UnsupportedProtocolVersion || error.code === ErrorCode.InvalidParams) &&
      isRecord(error.data) && Array.isArray(error.data.supported) && error.data.supported.includes(PROTOCOL_VERSION))
  )

/** The selection for one connection over `settings.transport`. */
export const make = (settings: EraSettings, protocol: Protocol, probeTimeout: Duration.Input): EraSelection => {
  const { transport } = settings
  const legacyOptions: V2025_11_25.LegacyOptions = {
    // stdio's transport cancels abandoned requests itself
    cancelsAbandoned: transport.kind !== "stdio",
    renewsSessions: transport.kind === "http"
  }
  let selected: Era | undefined

  /** A 2025-11-25 session: recorded as selected before its `start`. */
  const legacy: Effect.Effect<Era, RequestError> = Effect.flatMap(
    V2025_11_25.initialize(settings, legacyOptions),
    (era) => Effect.as(Effect.andThen(Effect.sync(() => void (selected = era)), era.start), era)
  )

  const probe: Effect.Effect<Era, RequestError> = Effect.gen(function*() {
    const attempt = V2026_07_28.request(
      settings,
      "server/discover",
      { _meta: V2026_07_28.requestMeta(settings, settings.declared(settings.layerHandlers), undefined) },
      undefined,
      () => Effect.void,
      undefined
    ).pipe(Effect.exit, Effect.map(Option.some))
    // A sign-in the probe's 401 starts waits for the user: that time is not the server's (`signInMillis`).
    const probeMillis = boundMillis(Duration.fromInputUnsafe(probeTimeout))
    const outcome = yield* probeMillis === undefined
      ? attempt
      : boundedExceptSignIn(attempt, probeMillis, transport.signInMillis, () => "expired" as const).pipe(
        Effect.catch(() => Effect.succeedNone)
      )
    const verdict = yield* verdictOf(
      Option.getOrUndefined(outcome),
      transport.kind,
      new TransportError({
        reason: `server/discover got no answer within ${Duration.format(Duration.fromInputUnsafe(probeTimeout))}`
      })
    )
    switch (verdict._tag) {
      case "Modern":
        return V2026_07_28.make(settings, Option.getOrUndefined(verdict.discovered))
      case "Fail":
        return yield* Effect.fail(verdict.error)
      case "Legacy":
        return yield* legacy.pipe(
          Effect.catchIf(refusedAsModern, () => Effect.succeed(V2026_07_28.make(settings, undefined)))
        )
    }
  })

  const select: Effect.Effect<Era, RequestError> = protocol === "2026-07-28"
    ? Effect.sync(() => V2026_07_28.make(settings, undefined))
    : protocol === "2025-11-25"
    ? legacy
    : probe

  const lock = Semaphore.makeUnsafe(1)
  const era: Effect.Effect<Era, RequestError> = Effect.suspend(() =>
    selected !== undefined ? Effect.succeed(selected) : lock.withPermits(1)(
      Effect.suspend(() =>
        selected !== undefined ? Effect.succeed(selected) : select.pipe(
          Effect.tap((chosen) => Effect.sync(() => void (selected = chosen)))
        )
      )
    )
  )

  const serve = (request: Record<string, unknown> & { readonly id: RequestId }): Effect.Effect<void> =>
    selected === undefined ? pingOnly(transport, request) : selected.serve(request)

  return {
    era,
    dispatch: (message) => Effect.suspend(() => dispatchWith(message, settings.publish, serve)),
    rootsChanged: Effect.suspend(() => selected === undefined ? Effect.void : selected.rootsChanged)
  }
}
