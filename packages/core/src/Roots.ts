/**
 * Roots asks: request the client's filesystem roots, in direct style.
 *
 * `yield* Roots.list()` returns the client's roots (`{ uri, name? }[]`).
 * Source: MCP 2026-07-28, client/roots; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import { ListRootsResult, type Root } from "@mrtr/protocol/Schema"
import type { Effect } from "effect"
import { Result, Schema } from "effect"
import { freezeJson } from "./Canonical.ts"
import { Conversation } from "./Conversation.ts"
import type { MissingClientCapability } from "./Errors.ts"

const decodeResult = Schema.decodeUnknownOption(ListRootsResult)

// The one question of every roots ask, frozen: its digest is found by identity.
const question = freezeJson({ method: "roots/list", params: {} } as const)

/**
 * Asks the client for its roots and returns them (`ListRootsResult.roots`,
 * each `{ uri: "file://...", name? }`).
 *
 * Input request: `{ method: "roots/list", params: {} }`, under `key`
 * (default `roots-<n>` by program order). Needs the client capability `roots`.
 * Fails with `MissingClientCapability`. A response that is not a
 * `ListRootsResult` is treated as missing and asked again.
 *
 * @category asking
 * @since 0.1.0
 */
export const list = (
  options: { readonly key?: string | undefined } = {}
): Effect.Effect<ReadonlyArray<Root>, MissingClientCapability, Conversation> =>
  Conversation.use((conversation) =>
    conversation.ask({
      kind: "roots",
      key: options.key,
      request: question,
      decode: (_key, response) => {
        const decoded = decodeResult(response)
        return decoded._tag === "Some" ? Result.succeed(decoded.value.roots) : undefined
      }
    })
  )
