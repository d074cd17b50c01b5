/**
 * Where a secure elicitation's page lives: the `InteractionLinks` service
 * that turns an interaction id into the absolute URL sent in the URL-mode
 * elicitation.
 *
 * The server's interaction page (`@mrtr/server` `InteractionPage`) provides
 * it from its public base URL; core knows nothing of HTTP. Gotcha: the URL
 * must be the one the user's browser reaches (behind a proxy, the proxy's
 * public origin), and its last path segment is the interaction id, the
 * page's only secret.
 * Source: MCP 2026-07-28, client/elicitation (URL mode).
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"

/**
 * `urlOf(id)`: the absolute `https:` (or, for local servers, `http:`) URL of
 * the interaction page of `id`, e.g.
 * `"https://mcp.example.com/mrtr/interactions/<id>"`.
 *
 * @since 0.1.0
 */
export class InteractionLinks extends Context.Service<InteractionLinks, {
  readonly urlOf: (id: string) => Effect.Effect<string>
}>()("@mrtr/core/InteractionLinks") {}
