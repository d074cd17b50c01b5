/**
 * What an operator sees of a gateway's upstreams, as effect `Metric`s
 * (exported like the server's: `PrometheusMetrics`, `Otlp`; see
 * `docs/observability.md`):
 *
 * - `mrtr_gateway_upstream_available{upstream}` (gauge): 1 while the
 *   upstream's last listing succeeded, 0 from a failed connection, listing
 *   or call until a listing succeeds again (the mirror retries with backoff).
 * - `mrtr_gateway_upstream_failures_total{upstream, reason}`: failed
 *   connections (`reason="connect"`: unreachable, the process would not
 *   start, no answer to the handshake) and connections lost (`"transport"`:
 *   a transport error or a request timeout on a call or a listing).
 * - `mrtr_gateway_upstream_busy_total{upstream, scope}`: calls refused with
 *   `Upstream.UpstreamBusy` (no client could be made within its bounds).
 *
 * Gotcha: the metrics are process-wide (effect's global registry); the
 * series of an upstream appear once it is first touched.
 *
 * @since 0.4.0
 */
import { Metric } from "effect"

/**
 * Gauge: 1 while the upstream is available, 0 while it is not (attribute
 * `upstream`: its name).
 *
 * @category metrics
 * @since 0.4.0
 */
export const upstreamAvailable = Metric.gauge("mrtr_gateway_upstream_available", {
  description: "1 while the gateway's upstream answers its listings, 0 from a failure until it does again"
})

/**
 * Counter of failed and lost upstream connections, by `upstream` and
 * `reason` (`connect`, `transport`).
 *
 * @category metrics
 * @since 0.4.0
 */
export const upstreamFailures = Metric.counter("mrtr_gateway_upstream_failures_total", {
  description: "Upstream connections that failed (connect) or were lost (transport)",
  incremental: true
})

/**
 * Counter of calls refused for want of an upstream client within the bounds,
 * by `upstream` and `scope` (`upstream`, `principal`, `address`,
 * `anonymous`).
 *
 * @category metrics
 * @since 0.4.0
 */
export const upstreamBusy = Metric.counter("mrtr_gateway_upstream_busy_total", {
  description: "Calls refused because no upstream client could be made within the gateway's bounds",
  incremental: true
})
