/**
 * How `ouroboros doctor` reads a pod's own HTTP endpoints (`/readyz`, `/metrics` on its health
 * port), two ways behind one interface:
 * - `direct`: GET `http://<podIP>:<port><path>`. Works from inside the cluster (the `helm test`
 *   pod); pod IPs are usually unreachable from a workstation.
 * - `apiserver`: GET the API server's `pods/{name}:{port}/proxy{path}` subresource with the
 *   doctor's client. Works from anywhere the kubeconfig works, given RBAC `get` on `pods/proxy`.
 *
 * Decisions:
 * - Every outcome is a value, never a throw: the pod answered (any status, with its body), it
 *   could not be reached (refused, timed out, no IP: said in one sentence), or RBAC refused the
 *   proxy (403, naming verb, resource and namespace). A caller's abort still rejects.
 * - Each request has its own deadline (default 5 s) inside the caller's signal.
 *
 * Effects: one HTTP request per call.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { isForbidden, KubeApiError, KubeTransportError } from "../../kube/errors.ts";
import { errorMessage } from "../../util/error_message.ts";

/** Which pod and port to ask. */
export interface PodEndpoint {
  readonly namespace: string;
  readonly name: string;
  /** `status.podIP`; needed by the direct way only. */
  readonly ip?: string;
  readonly port: number;
}

/** What one GET found. */
export type PodHttpAnswer =
  /** The pod's endpoint answered. */
  | { readonly kind: "answered"; readonly status: number; readonly text: string }
  /** It could not be reached; `why` is one sentence (connection refused, timed out, no IP). */
  | { readonly kind: "unreachable"; readonly why: string }
  /** RBAC refused the API server's proxy; `saw` names the verb, resource and namespace. */
  | { readonly kind: "forbidden"; readonly saw: string };

/** Reads a pod's HTTP endpoint. */
export interface PodHttp {
  /** `direct` or `apiserver`, for findings that say how a pod was reached. */
  readonly reach: "direct" | "apiserver";
  /** GETs `path` (`/readyz`) on the pod's port. Rejects only when `signal` aborts. */
  get(pod: PodEndpoint, path: string, signal: AbortSignal): Promise<PodHttpAnswer>;
}

/** Options of both ways. */
export interface PodHttpOptions {
  /** Deadline of each request. @default 5_000 */
  readonly timeoutMs?: number;
}

/**
 * The direct way: plain HTTP to the pod's IP.
 *
 * @example
 * ```ts
 * import { directPodHttp } from "./pod_http.ts";
 *
 * const http = directPodHttp({ timeoutMs: 2_000 });
 * const answer = await http.get(
 *   { namespace: "ouroboros", name: "ouroboros-proxy-5d9c", ip: "10.244.1.7", port: 8081 },
 *   "/readyz",
 *   AbortSignal.timeout(10_000),
 * );
 * answer.kind; // "answered", "unreachable" or "forbidden"
 * ```
 */
export function directPodHttp(options: PodHttpOptions = {}): PodHttp {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return {
    reach: "direct",
    async get(pod, path, signal) {
      if (pod.ip === undefined || pod.ip === "") return { kind: "unreachable", why: "the pod has no IP yet" };
      const host = pod.ip.includes(":") ? `[${pod.ip}]` : pod.ip;
      const url = `http://${host}:${pod.port}${path}`;
      const deadline = AbortSignal.timeout(timeoutMs);
      try {
        const response = await fetch(url, { signal: AbortSignal.any([signal, deadline]) });
        return { kind: "answered", status: response.status, text: await response.text() };
      } catch (error) {
        signal.throwIfAborted();
        const why = deadline.aborted
          ? `no answer from ${url} within ${timeoutMs / 1000}s`
          : `GET ${url} failed: ${errorMessage(error)}`;
        return { kind: "unreachable", why };
      }
    },
  };
}

/**
 * The API server's way: `pods/{name}:{port}/proxy{path}` through the doctor's client.
 *
 * @example
 * ```ts
 * import type { KubeClient } from "../../kube/client.ts";
 * import { apiserverPodHttp } from "./pod_http.ts";
 *
 * declare const api: KubeClient;
 * const http = apiserverPodHttp(api);
 * await http.get({ namespace: "ouroboros", name: "ouroboros-proxy-5d9c", port: 8081 }, "/readyz", AbortSignal.timeout(10_000));
 * ```
 */
export function apiserverPodHttp(api: Pick<KubeClient, "getText">, options: PodHttpOptions = {}): PodHttp {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return {
    reach: "apiserver",
    async get(pod, path, signal) {
      const where = `/api/v1/namespaces/${encodeURIComponent(pod.namespace)}/pods/` +
        `${encodeURIComponent(pod.name)}:${pod.port}/proxy${path}`;
      try {
        const answer = await api.getText(where, { signal, timeoutMs });
        return { kind: "answered", status: answer.status, text: answer.text };
      } catch (error) {
        signal.throwIfAborted();
        if (isForbidden(error)) {
          return { kind: "forbidden", saw: `not allowed to get pods/proxy in ${pod.namespace}` };
        }
        if (error instanceof KubeApiError) {
          return { kind: "unreachable", why: `the API server could not reach it: ${error.status.message}` };
        }
        if (error instanceof KubeTransportError && error.kind === "timeout") {
          return { kind: "unreachable", why: `no answer through the API server within ${timeoutMs / 1000}s` };
        }
        return { kind: "unreachable", why: errorMessage(error) };
      }
    },
  };
}
