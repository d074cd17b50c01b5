/**
 * `RootsHandler`: the service that answers `roots/list` input requests (the
 * filesystem roots the server may work in).
 *
 * Providing it makes the client declare `{ roots: {} }` (there is no
 * `listChanged` in 2026-07-28: `notifications/roots/list_changed` was
 * removed). A `roots/list` input request without a handler ends the call with
 * `InputRequiredError` (manual mode).
 *
 * The same handler answers the `roots/list` requests a 2025-11-25 server
 * sends; a handler with `changes` (e.g. `layerSubscriptionRef`) makes the
 * client declare `roots: { listChanged: true }` at `initialize` and send
 * `notifications/roots/list_changed` each time they emit.
 *
 * Source: MCP 2026-07-28, client/roots (deprecated by SEP-2577 but still part
 * of the revision); basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import type { Root } from "@mrtr/protocol/Schema"
import { Context, Effect, Layer, Stream, SubscriptionRef } from "effect"
import type { InputHandlerError } from "./Errors.ts"
import type { InputContext } from "./InputContext.ts"

/**
 * The roots service: `listRoots` returns the roots (`{ uri: "file://…", name? }[]`)
 * sent back as `{ roots }`; `changes` (optional) emits once each time the
 * roots change (used on 2025-11-25 sessions only).
 *
 * MCP 2026-07-28, client/roots; schema `ListRootsResult`; MCP 2025-11-25,
 * client/roots (root list changes).
 *
 * @category services
 * @since 0.1.0
 */
export class RootsHandler extends Context.Service<RootsHandler, {
  readonly listRoots: (context: InputContext) => Effect.Effect<ReadonlyArray<Root>, InputHandlerError>
  readonly changes?: Stream.Stream<void> | undefined
}>()("@mrtr/client/RootsHandler") {}

/**
 * Provides a `RootsHandler` from an effectful function; its services (`R`)
 * are taken from the Layer's context.
 *
 * MCP 2026-07-28, client/roots.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <R = never>(
  listRoots: (context: InputContext) => Effect.Effect<ReadonlyArray<Root>, InputHandlerError, R>
): Layer.Layer<RootsHandler, never, R> =>
  Layer.effect(
    RootsHandler,
    Effect.gen(function*() {
      const context = yield* Effect.context<R>()
      return RootsHandler.of({ listRoots: (ctx) => Effect.provideContext(listRoots(ctx), context) })
    })
  )

/**
 * Provides a `RootsHandler` that always answers the same roots.
 *
 * MCP 2026-07-28, client/roots.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerStatic = (roots: ReadonlyArray<Root>): Layer.Layer<RootsHandler> =>
  Layer.succeed(RootsHandler, RootsHandler.of({ listRoots: () => Effect.succeed(roots) }))

/**
 * Provides a `RootsHandler` over a `SubscriptionRef` of roots: `listRoots`
 * reads it, and every later change of the ref is a change of the roots
 * (2025-11-25 sessions then get `notifications/roots/list_changed`).
 *
 * MCP 2025-11-25, client/roots (root list changes); MCP 2026-07-28, client/roots.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerSubscriptionRef = (
  roots: SubscriptionRef.SubscriptionRef<ReadonlyArray<Root>>
): Layer.Layer<RootsHandler> =>
  Layer.succeed(
    RootsHandler,
    RootsHandler.of({
      listRoots: () => SubscriptionRef.get(roots),
      changes: SubscriptionRef.changes(roots).pipe(Stream.drop(1), Stream.as(undefined))
    })
  )
