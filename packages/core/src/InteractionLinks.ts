/**
 * Where a secure elicitation's page lives: the `InteractionLinks` service
 * that turns an interaction id into the absolute URL sent in the URL-mode
 * elicitation.
 *
 * The server's interaction page (`@mrtr/server` `InteractionPage`) provides
 * it from its public base URL; core knows nothing of HTTP. Gotcha: the URL
 * must be the one the user's browser reaches (behind a proxy, the proxy's
 * public origin), and its last path segment is the interaction id, the
 * page's only secret. `Elicitation.secure` also reads from it how the page
 * verifies who opens it (`identifiesUsers`, `singleUser`) and refuses an ask
 * whose user the page could not verify (`UserIdentityRequired`).
 * Source: MCP 2026-07-28, client/elicitation (URL mode).
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"

/**
 * - `urlOf(id)`: the absolute `https:` (or, for local servers, `http:`) URL
 *   of the interaction page of `id`, e.g.
 *   `"https://mcp.example.com/mrtr/interactions/<id>"`.
 * - `identifiesUsers`: the page knows who its browser's user is (the
 *   server's `InteractionPage` with a `principal`), so a page of an
 *   authenticated conversation is completed only by that user. Default
 *   `false`: secure asks of authenticated requests are refused.
 * - `singleUser`: the server has one user, the person at this machine (a
 *   local server): a page of an unauthenticated conversation may be
 *   completed by whoever opens it. Default `false`: secure asks of
 *   unauthenticated requests are refused.
 *
 * @category services
 * @since 0.1.0
 */
export class InteractionLinks extends Context.Service<InteractionLinks, {
  readonly urlOf: (id: string) => Effect.Effect<string>
  readonly identifiesUsers?: boolean | undefined
  readonly singleUser?: boolean | undefined
}>()("@mrtr/core/InteractionLinks") {}
