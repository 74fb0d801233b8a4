/**
 * Reads a pod's own HTTP endpoints (`/readyz`, `/metrics`) either `direct` to the pod IP (works
 * in-cluster) or through the API server's `pods/proxy` (works anywhere, given RBAC). Every outcome
 * is a value; only the caller's abort rejects.
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

/** What one GET found; `forbidden` is RBAC refusing the API server's proxy. */
export type PodHttpAnswer =
  | { readonly kind: "answered"; readonly status: number; readonly text: string }
  | { readonly kind: "unreachable"; readonly why: string }
  | { readonly kind: "forbidden"; readonly saw: string };

/** Reads a pod's HTTP endpoint. */
export interface PodHttp {
  /** For findings that say how a pod was reached. */
  readonly reach: "direct" | "apiserver";
  /** Rejects only when `signal` aborts. */
  get(pod: PodEndpoint, path: string, signal: AbortSignal): Promise<PodHttpAnswer>;
}

/** Options of both ways. */
export interface PodHttpOptions {
  /** Deadline of each request. @default 5_000 */
  readonly timeoutMs?: number;
}

/** The direct way: plain HTTP to the pod's IP. */
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

/** The API server's way: `pods/{name}:{port}/proxy{path}` through the doctor's client. */
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
