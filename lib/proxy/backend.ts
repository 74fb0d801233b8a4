/**
 * Which host the proxy forwards to: `--target-host` when given, otherwise the Service name
 * composed with the cluster domain, so one chart renders the same on every cluster.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** The settings that decide the backend host. */
export interface BackendSettings {
  readonly targetHost: string;
  readonly targetServiceName: string;
  readonly targetServiceNamespace: string;
  readonly clusterDomain: string;
}

/**
 * Returns the backend host, or a problem sentence naming the flags to set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveBackendHost } from "./backend.ts";
 *
 * const service = { targetServiceName: "ingress", targetServiceNamespace: "nginx" };
 * assert.deepEqual(resolveBackendHost({ targetHost: "", ...service, clusterDomain: "cozy.local" }), {
 *   host: "ingress.nginx.svc.cozy.local",
 * });
 * ```
 */
export function resolveBackendHost(settings: BackendSettings): { host: string } | { problem: string } {
  if (settings.targetHost !== "") return { host: settings.targetHost };
  if (settings.targetServiceName === "") {
    return {
      problem: "no backend: --target-host is empty and so is --target-service-name; set --target-host, " +
        "or --target-service-name together with --target-service-namespace",
    };
  }
  if (settings.targetServiceNamespace === "") {
    return {
      problem: `no backend: --target-service-name="${settings.targetServiceName}" needs ` +
        "--target-service-namespace (the namespace of the ingress controller's Service)",
    };
  }
  const domain = settings.clusterDomain.replace(/\.$/, "");
  return { host: `${settings.targetServiceName}.${settings.targetServiceNamespace}.svc.${domain}` };
}
