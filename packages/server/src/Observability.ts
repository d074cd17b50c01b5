/**
 * What an operator sees of the MRTR server: its metrics (effect's `Metric`,
 * exported with `effect/observability`'s `Otlp` or `PrometheusMetrics`) and
 * the span of each round. The counters are updated by the dispatcher and the
 * codec; this module names them and offers the Prometheus text.
 *
 * Metrics (names as exported):
 * - `mrtr_conversations_started_total{method}`: first rounds of `tools/call`,
 *   `prompts/get`, `resources/read` (requests without `requestState`).
 * - `mrtr_conversations_completed_total{method}`: complete results of them.
 * - `mrtr_conversation_rounds{method}` (histogram): input rounds a completed
 *   conversation took (0 = it never asked).
 * - `mrtr_request_state_rejections_total{reason}` (`@mrtr/core`): rejected
 *   states by the real reason (`expired`, `replayed`, `decryption-failed`,
 *   ...); the client still sees one frozen `-32602 Invalid requestState`.
 * - `mrtr_request_state_unsealed_total{source}` (`@mrtr/core`): states read,
 *   `kept` (sealed here and kept until their retry) or `decrypted`.
 * - `mrtr_replay_guard_redemptions_total{outcome, store}`,
 *   `mrtr_replay_guard_full_total{scope}`, `mrtr_redis_errors_total{operation}`.
 * - `mrtr_replay_guard_entries{store}` (gauge): redeemed ids the guard holds.
 * - `mrtr_tasks_total{status}`: task status changes (Tasks extension).
 * - `mrtr_legacy_legs_in_flight` (gauge): server-to-client requests of the
 *   2025-11-25 shim awaiting their answer on this instance.
 * - `mrtr_legacy_answers_forwarded_total{outcome}`: answers to legs that a
 *   client POSTed to another instance than the leg's, sent on to the owner
 *   (`delivered`; `owner_gone` when no instance listened: it stopped).
 *
 * Span: `mrtr.round` per MRTR request, with `mrtr.method`, `mrtr.target`,
 * `mrtr.round` (for `input_required` the round it asks, 1 for the first;
 * for `complete` the input rounds the conversation took) and `mrtr.outcome`
 * (`complete` or `input_required`), `mrtr.conversation.id` (the same on
 * every round of one conversation, whichever instance serves it: it travels
 * sealed in `requestState`); a rejected state sets
 * `mrtr.requestState.reason` on it.
 *
 * Gotcha: the counters are process-wide (effect's global metric registry);
 * in a fleet sum them across instances.
 * Source: `docs/architecture.md`, "Services a deployment swaps" (telemetry).
 *
 * @since 0.1.0
 */
import { RequestState } from "@mrtr/core"
import { Effect, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"

/**
 * Counter of conversations started (first rounds), by `method`.
 *
 * @category metrics
 * @since 0.1.0
 */
export const conversationsStarted = Metric.counter("mrtr_conversations_started_total", {
  description: "MRTR conversations started: tools/call, prompts/get, resources/read without requestState",
  incremental: true
})

/**
 * Counter of conversations completed (complete results), by `method`.
 *
 * @category metrics
 * @since 0.1.0
 */
export const conversationsCompleted = Metric.counter("mrtr_conversations_completed_total", {
  description: "MRTR conversations completed with a complete result",
  incremental: true
})

/**
 * Histogram of the input rounds of completed conversations, by `method`
 * (boundaries 0, 1, 2, 3, 4, 6, 8, 12, 16).
 *
 * @category metrics
 * @since 0.1.0
 */
export const conversationRounds = Metric.histogram("mrtr_conversation_rounds", {
  description: "Input rounds a completed MRTR conversation took",
  boundaries: [0, 1, 2, 3, 4, 6, 8, 12, 16]
})

/**
 * Records one MRTR request's outcome: a started conversation when it carried
 * no `requestState`, and for a complete result the completion and its rounds.
 *
 * @category metrics
 * @since 0.1.0
 */
export const recordRound = (method: string, first: boolean, complete: boolean, round: number): Effect.Effect<void> => {
  const metrics = metricsOf(method)
  const started = first ? Metric.update(metrics.started, 1) : Effect.void
  if (!complete) return started
  return Effect.andThen(
    started,
    Effect.andThen(Metric.update(metrics.completed, 1), Metric.update(metrics.rounds, round))
  )
}

// The three metrics with the `method` attribute, built once per method (there are three MRTR methods;
// any other string gets its own, uncached, as before).
/** The conversation metrics of one method, with its attribute. */
interface MethodMetrics {
  readonly started: typeof conversationsStarted
  readonly completed: typeof conversationsCompleted
  readonly rounds: typeof conversationRounds
}
const metricsByMethod = new Map<string, MethodMetrics>()
const makeMetrics = (method: string): MethodMetrics => {
  const attributes = { method }
  return {
    started: Metric.withAttributes(conversationsStarted, attributes),
    completed: Metric.withAttributes(conversationsCompleted, attributes),
    rounds: Metric.withAttributes(conversationRounds, attributes)
  }
}
const metricsOf = (method: string) => {
  const known = metricsByMethod.get(method)
  if (known !== undefined) return known
  const made = makeMetrics(method)
  if (method === "tools/call" || method === "prompts/get" || method === "resources/read") {
    metricsByMethod.set(method, made)
  }
  return made
}

/**
 * Every metric of the process in the Prometheus text format (what a scrape
 * endpoint answers; `PrometheusMetrics.layerHttp` mounts one on an
 * `HttpRouter`).
 *
 * @category metrics
 * @since 0.1.0
 */
export const prometheusText: Effect.Effect<string> = PrometheusMetrics.format()

/**
 * Counter of task status changes, by `status` (`working`, `input_required`,
 * `completed`, `failed`, `cancelled`): each task counts once in `working`
 * when created, then once per change to another status, on the instance
 * that made it (a resumed `input_required` → `working` counts again). In a
 * fleet sum across instances; created minus terminal is the tasks in flight.
 *
 * @category metrics
 * @since 0.2.0
 */
export const tasksTotal = Metric.counter("mrtr_tasks_total", {
  description: "Task status changes (Tasks extension), by the status entered",
  incremental: true
})

/**
 * Gauge of the redeemed single-use ids a replay guard holds, by `store`
 * (`memory`: exact; `redis`: this instance's first redemptions not yet
 * expired, so the fleet's sum approximates what Redis holds); defined in
 * `@mrtr/core`'s `ReplayGuard`.
 *
 * @category metrics
 * @since 0.2.0
 */
export const replayGuardEntries = RequestState.replayGuardEntries

/**
 * Gauge of the 2025-11-25 shim's server-to-client requests (elicitation,
 * sampling, roots) awaiting their answer on this instance.
 *
 * @category metrics
 * @since 0.2.0
 */
export const legacyLegsInFlight = Metric.gauge("mrtr_legacy_legs_in_flight", {
  description: "Server-to-client requests of 2025-11-25 sessions awaiting their answer on this instance"
})

/**
 * Counter of answers to legs that reached another instance than the leg's
 * and were sent on to the owner over the session directory, by `outcome`
 * (`delivered`, `owner_gone`).
 *
 * @category metrics
 * @since 0.2.0
 */
export const legacyAnswersForwarded = Metric.counter("mrtr_legacy_answers_forwarded_total", {
  description: "Answers to 2025-11-25 server-to-client requests forwarded to the instance that holds the request",
  incremental: true
})
