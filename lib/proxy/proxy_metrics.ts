/**
 * The proxy's Prometheus metrics, declared once so `/metrics`, docs/proxy.md and the tests agree.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { type HistogramFamily, MetricsRegistry, type NumberFamily } from "../util/metrics.ts";
import { registerBuildInfo } from "../util/process_metrics.ts";
import { REVISION } from "../util/revision.ts";
import { DIAL_CAUSES } from "./dial_cause.ts";
import { NAME_OUTCOMES } from "./routing/requested_name.ts";
import { DEFAULT_ROUTE } from "../routes/route_table.ts";

/** Which listener a connection arrived on. */
export type ListenerName = "http" | "https";

/** Connection duration buckets, in seconds: from a quick health check to an hours-long stream. */
const DURATION_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800, 3600];

/** Metric families the proxy records. */
export interface ProxyMetrics {
  readonly registry: MetricsRegistry;
  readonly accepted: NumberFamily<"listener">;
  readonly active: NumberFamily<"listener">;
  readonly bytes: NumberFamily<"listener" | "direction">;
  readonly dialFailures: NumberFamily<"listener" | "cause">;
  readonly headerFailures: NumberFamily<"listener">;
  readonly acceptErrors: NumberFamily<"listener">;
  readonly idleTimeouts: NumberFamily<"listener">;
  readonly duration: HistogramFamily<"listener">;
  readonly backendReady: NumberFamily<never>;
  /** Connections by the table entry that chose their backend (`default`: the default target). */
  readonly routeConnections: NumberFamily<"route">;
  /** How each routed connection's first bytes ended (`found`, `timeout`, ...). */
  readonly routeReads: NumberFamily<"listener" | "outcome">;
  /** Route-file loads: `ok`, or `invalid` (the last good table stays). */
  readonly routeTableLoads: NumberFamily<"result">;
  /** Routes in the table being served. */
  readonly routeTableRoutes: NumberFamily<never>;
}

/** Options for {@linkcode createProxyMetrics}. */
export interface ProxyMetricsOptions {
  /** Resident set size in bytes, sampled at scrape time. */
  readonly rss: () => number;
  readonly version: string;
  /** `--routes-file` is set: the routing series start at zero. @default false */
  readonly routing?: boolean;
  /** @default the build's revision (`unknown` when run from source) */
  readonly revision?: string;
}

/** Registers the proxy's metrics, each series at zero so alerts see it before any event. */
export function createProxyMetrics(options: ProxyMetricsOptions): ProxyMetrics {
  const registry = new MetricsRegistry();
  registerBuildInfo(registry, { version: options.version, revision: options.revision ?? REVISION });
  const metrics: ProxyMetrics = {
    registry,
    accepted: registry.counter(
      "ouroboros_proxy_connections_accepted_total",
      "Client connections accepted, by listener.",
      ["listener"],
    ),
    active: registry.gauge(
      "ouroboros_proxy_connections_active",
      "Client connections open now, by listener.",
      [
        "listener",
      ],
    ),
    bytes: registry.counter(
      "ouroboros_proxy_bytes_relayed_total",
      "Bytes relayed, by listener and direction (upstream is client to backend).",
      ["listener", "direction"],
    ),
    dialFailures: registry.counter(
      "ouroboros_proxy_backend_dial_failures_total",
      "Backend connection attempts that failed, by listener and cause.",
      ["listener", "cause"],
    ),
    headerFailures: registry.counter(
      "ouroboros_proxy_header_write_failures_total",
      "Connections closed because the PROXY header could not be written to the backend in time.",
      ["listener"],
    ),
    acceptErrors: registry.counter(
      "ouroboros_proxy_accept_errors_total",
      "Errors accepting connections (such as running out of file descriptors), by listener.",
      ["listener"],
    ),
    idleTimeouts: registry.counter(
      "ouroboros_proxy_idle_timeouts_total",
      "Connections closed because nothing moved in either direction for --idle-timeout, by listener.",
      ["listener"],
    ),
    duration: registry.histogram(
      "ouroboros_proxy_connection_duration_seconds",
      "How long client connections stayed open, by listener.",
      ["listener"],
      DURATION_BUCKETS,
    ),
    backendReady: registry.gauge(
      "ouroboros_proxy_backend_ready",
      "1 when the last readiness probe reached the backend, 0 when it failed or none ran yet.",
    ),
    routeConnections: registry.counter(
      "ouroboros_proxy_route_connections_total",
      "Connections by the route-table backend that served them; default is the default target.",
      ["route"],
    ),
    routeReads: registry.counter(
      "ouroboros_proxy_route_reads_total",
      "How the first bytes of routed connections ended, by listener and outcome (found, no-name, not-tls, " +
        "unroutable, invalid, too-large, timeout, closed).",
      ["listener", "outcome"],
    ),
    routeTableLoads: registry.counter(
      "ouroboros_proxy_route_table_loads_total",
      "Reads of --routes-file, by result: ok, or invalid (the last good table is kept).",
      ["result"],
    ),
    routeTableRoutes: registry.gauge(
      "ouroboros_proxy_route_table_routes",
      "Routes in the table being served (0: every connection goes to the default target).",
    ),
  };
  registry.sampledGauge("process_resident_memory_bytes", "Resident memory size in bytes.", options.rss);
  for (const listener of ["http", "https"] as const) {
    metrics.accepted.labels({ listener });
    metrics.active.labels({ listener });
    metrics.bytes.labels({ listener, direction: "upstream" });
    metrics.bytes.labels({ listener, direction: "downstream" });
    for (const cause of DIAL_CAUSES) metrics.dialFailures.labels({ listener, cause });
    metrics.headerFailures.labels({ listener });
    metrics.acceptErrors.labels({ listener });
    metrics.idleTimeouts.labels({ listener });
    metrics.duration.labels({ listener });
  }
  metrics.backendReady.labels({});
  if (options.routing === true) {
    metrics.routeConnections.labels({ route: DEFAULT_ROUTE });
    for (const listener of ["http", "https"] as const) {
      for (const outcome of NAME_OUTCOMES) metrics.routeReads.labels({ listener, outcome });
    }
    metrics.routeTableLoads.labels({ result: "ok" });
    metrics.routeTableLoads.labels({ result: "invalid" });
    metrics.routeTableRoutes.labels({});
  }
  return metrics;
}
