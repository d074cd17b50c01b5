/**
 * The network address of the client of the current request: what the
 * stores' pools without a principal are shared by (the replay guard, the
 * interaction store, the task store, 2025-11-25 sessions), so one client
 * address cannot take the room of every other unauthenticated caller.
 *
 * A `Context.Reference` the transport provides around each request
 * (`HttpTransport`: the socket's peer, or, behind proxies named in
 * `trustedProxies`, the address they forwarded in `X-Forwarded-For`);
 * `undefined` where there is none (stdio, in memory, a test), and the
 * anonymous pool is then one share.
 *
 * Gotcha: behind a proxy that is not trusted every client has the proxy's
 * address, so they share one share; a forwarded header is never read unless
 * the proxy is configured as trusted (anyone can send one).
 *
 * @since 0.2.0
 */
import { Context } from "effect"

/**
 * The current request's client address (see the module header).
 *
 * @since 0.2.0
 * @category references
 */
export const ClientAddress = Context.Reference<string | undefined>("@mrtr/core/ClientAddress", {
  defaultValue: () => undefined
})
