/**
 * Metrics of every API request, by Kubernetes verb, resource and status code, like client-go's
 * `rest_client_*` but naming the resource. Durations end at the response headers, so a watch is
 * timed to its opening and a list excludes reading its body.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { HistogramFamily, type MetricsRegistry, NumberFamily } from "../util/metrics.ts";

/** One finished request, as the transport reports it. */
export interface KubeRequestRecord {
  /** From {@linkcode requestVerb}. */
  readonly verb: string;
  /** Without the query string. */
  readonly path: string;
  /** `undefined` when no answer came. */
  readonly status: number | undefined;
  readonly seconds: number;
}

/** What the transport tells about each request (`TransportOptions.requests`). */
export interface KubeRequestRecorder {
  record(request: KubeRequestRecord): void;
}

const VERBS_BY_METHOD: Readonly<Record<string, string>> = {
  GET: "get",
  POST: "create",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** The Kubernetes verb of a request: its `verb` (`LIST`, `WATCH`) if set, else the method's. */
export function requestVerb(request: { readonly method: string; readonly verb?: string }): string {
  if (request.verb !== undefined) return request.verb.toLowerCase();
  return VERBS_BY_METHOD[request.method] ?? request.method.toLowerCase();
}

/**
 * The resource a path names, with its subresource; a path outside the resource APIs as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestResource } from "./request_metrics.ts";
 *
 * assert.equal(requestResource("/api/v1/namespaces/kube-system/configmaps/coredns"), "configmaps");
 * assert.equal(
 *   requestResource("/apis/networking.k8s.io/v1/namespaces/a/ingresses/b/status"),
 *   "ingresses/status",
 * );
 * assert.equal(requestResource("/api/v1/namespaces/default"), "namespaces");
 * assert.equal(requestResource("/version"), "/version");
 * ```
 */
export function requestResource(path: string): string {
  const segments = path.split("/").filter((segment) => segment !== "");
  const prefix = segments[0] === "api" ? 2 : segments[0] === "apis" ? 3 : undefined;
  if (prefix === undefined || segments.length <= prefix) return path;
  let rest = segments.slice(prefix);
  // `namespaces/<ns>/<resource>…` is namespaced; `namespaces[/<name>]` is the kind itself.
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const resource = rest[0] ?? path;
  const subresource = rest[2];
  return subresource === undefined ? resource : `${resource}/${subresource}`;
}

/** Seconds: a cached get to a slow 10,000-item list page. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The counter's name. */
export const KUBE_REQUESTS_TOTAL = "ouroboros_kube_requests_total";
/** The histogram's name. */
export const KUBE_REQUEST_DURATION = "ouroboros_kube_request_duration_seconds";

/** Counts and times API requests; create it before the clients, which record from the start. */
export class KubeRequestMetrics implements KubeRequestRecorder {
  readonly #total = new NumberFamily<"verb" | "resource" | "code">(
    KUBE_REQUESTS_TOTAL,
    "HTTP requests sent to the API server, by Kubernetes verb, resource and status code (<error>: no answer).",
    "counter",
    ["verb", "resource", "code"],
  );
  readonly #duration = new HistogramFamily<"verb" | "resource">(
    KUBE_REQUEST_DURATION,
    "Time from sending an API request to its response headers, by verb and resource.",
    ["verb", "resource"],
    DURATION_BUCKETS,
  );

  /** Counts one request. */
  record(request: KubeRequestRecord): void {
    const resource = requestResource(request.path);
    const code = request.status === undefined ? "<error>" : String(request.status);
    this.#total.labels({ verb: request.verb, resource, code }).value += 1;
    this.#duration.labels({ verb: request.verb, resource }).observe(request.seconds);
  }

  /** Adds both families to `registry` (once). */
  register(registry: MetricsRegistry): void {
    registry.include(KUBE_REQUESTS_TOTAL, this.#total);
    registry.include(KUBE_REQUEST_DURATION, this.#duration);
  }
}
