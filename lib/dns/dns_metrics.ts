/**
 * The DNS server's Prometheus metrics, in one place. No label names a client or a queried name
 * (unbounded, par's mistake); the debug log and the observer hook carry those.
 *
 * Pure: builds the metric families in a registry; no I/O.
 *
 * @module
 */

import type { LocalSource } from "./local_answer.ts";
import { type HistogramFamily, MetricsRegistry, type NumberFamily } from "../util/metrics.ts";
import { registerBuildInfo } from "../util/process_metrics.ts";
import { REVISION } from "../util/revision.ts";

/** How queries arrive. */
export const DNS_TRANSPORTS = ["udp", "tcp"] as const;

/**
 * What became of a query. `forwarded` is any upstream reply, whatever its RCODE; `servfail` means
 * no upstream answered; `dropped` got no response at all.
 */
export const QUERY_OUTCOMES = [
  "local",
  "nodata",
  "forwarded",
  "servfail",
  "refused",
  "formerr",
  "notimp",
  "badvers",
  "dropped",
] as const;

/** One of {@linkcode QUERY_OUTCOMES}. */
export type QueryOutcome = (typeof QUERY_OUTCOMES)[number];

/** Why an upstream exchange failed; after a `mismatch` (stray or spoofed) waiting goes on. */
export const UPSTREAM_ERROR_REASONS = ["timeout", "malformed", "mismatch", "tcp", "send"] as const;

/** One of {@linkcode UPSTREAM_ERROR_REASONS}. */
export type UpstreamErrorReason = (typeof UPSTREAM_ERROR_REASONS)[number];

/** Where a query's answer came from, for the latency histogram. */
export const ANSWER_PATHS = ["local", "upstream"] as const;

const LOCAL_SOURCES: readonly LocalSource[] = ["records", "par-proxy", "hairpin"];

/** From a local answer (tens of microseconds) to an upstream giving up (seconds). */
const LATENCY_BUCKETS = [
  0.0001,
  0.00025,
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
];

/** Metric families the DNS server records. */
export interface DnsMetrics {
  readonly registry: MetricsRegistry;
  readonly queries: NumberFamily<"transport" | "outcome">;
  readonly localAnswers: NumberFamily<"source">;
  readonly duration: HistogramFamily<"path">;
  readonly upstreamErrors: NumberFamily<"reason">;
  readonly truncated: NumberFamily<"transport">;
  readonly tcpActive: NumberFamily<never>;
  readonly tcpRejected: NumberFamily<never>;
  /** Lookups in the forwarded-answer cache, by result (hit, miss). */
  readonly cacheLookups: NumberFamily<"result">;
  readonly cacheEntries: NumberFamily<never>;
  readonly cacheBytes: NumberFamily<never>;
}

/** Options for {@linkcode createDnsMetrics}. */
export interface DnsMetricsOptions {
  /** Resident set size in bytes, sampled at scrape time. */
  readonly rss: () => number;
  /** For `ouroboros_build_info`. */
  readonly version: string;
  /** For `ouroboros_build_info`. @default the build's (`unknown` from source) */
  readonly revision?: string;
}

/** Registers the DNS server's metrics, every series at zero so alerts see them before a query. */
export function createDnsMetrics(options: DnsMetricsOptions): DnsMetrics {
  const registry = new MetricsRegistry();
  registerBuildInfo(registry, { version: options.version, revision: options.revision ?? REVISION });
  const metrics: DnsMetrics = {
    registry,
    queries: registry.counter(
      "ouroboros_dns_queries_total",
      "DNS queries, by transport and outcome (local, nodata, forwarded, servfail, refused, formerr, notimp, badvers, dropped).",
      ["transport", "outcome"],
    ),
    localAnswers: registry.counter(
      "ouroboros_dns_local_answers_total",
      "Queries answered from cluster state, by what matched (records, par-proxy, hairpin).",
      ["source"],
    ),
    duration: registry.histogram(
      "ouroboros_dns_query_duration_seconds",
      "Time from a query's arrival to its response, by path (local: answered here; upstream: forwarded).",
      ["path"],
      LATENCY_BUCKETS,
    ),
    upstreamErrors: registry.counter(
      "ouroboros_dns_upstream_errors_total",
      "Failed exchanges with an upstream, by reason (timeout, malformed, mismatch, tcp, send).",
      ["reason"],
    ),
    truncated: registry.counter(
      "ouroboros_dns_truncated_responses_total",
      "Responses sent with TC set (the answer did not fit the client's limit, or the upstream's over UDP), by transport.",
      ["transport"],
    ),
    tcpActive: registry.gauge("ouroboros_dns_tcp_connections_active", "DNS-over-TCP connections open now."),
    tcpRejected: registry.counter(
      "ouroboros_dns_tcp_connections_rejected_total",
      "DNS-over-TCP connections closed at once because the connection limit was reached.",
    ),
    cacheLookups: registry.counter(
      "ouroboros_dns_cache_lookups_total",
      "Questions looked up in the forwarded-answer cache (--cache-size), by result (hit, miss).",
      ["result"],
    ),
    cacheEntries: registry.gauge("ouroboros_dns_cache_entries", "Forwarded answers in the cache now."),
    cacheBytes: registry.gauge("ouroboros_dns_cache_bytes", "Bytes of forwarded answers in the cache now."),
  };
  registry.sampledGauge("process_resident_memory_bytes", "Resident memory size in bytes.", options.rss);
  for (const transport of DNS_TRANSPORTS) {
    for (const outcome of QUERY_OUTCOMES) metrics.queries.labels({ transport, outcome });
    metrics.truncated.labels({ transport });
  }
  for (const source of LOCAL_SOURCES) metrics.localAnswers.labels({ source });
  for (const path of ANSWER_PATHS) metrics.duration.labels({ path });
  for (const reason of UPSTREAM_ERROR_REASONS) metrics.upstreamErrors.labels({ reason });
  metrics.tcpActive.labels({});
  metrics.tcpRejected.labels({});
  for (const result of ["hit", "miss"]) metrics.cacheLookups.labels({ result });
  metrics.cacheEntries.labels({});
  metrics.cacheBytes.labels({});
  return metrics;
}
