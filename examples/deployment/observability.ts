/**
 * Observability: the server of server.ts with a Prometheus scrape endpoint, `GET /metrics`, mounted beside `/mcp`.
 * Behind a balancer, refuse `/metrics` there or serve it on a port of its own: every client that reaches the MCP port
 * reaches this route too.
 */
// #region metrics
import { HttpTransport } from "@mrtr/server"
import { Layer } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { server } from "./server.ts"

export const serveWithMetrics = (port: number) =>
  HttpTransport.layer({ port, mount: PrometheusMetrics.layerHttp() }).pipe(Layer.provide(server))
// #endregion metrics
