/**
 * Reads the proxy Service and turns it into record targets. The controller calls this at start
 * and again whenever it sees the Service change (the original resolved once at startup, so a
 * re-created proxy Service left every record pointing at a dead address until a restart).
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { isForbidden, isNotFound } from "../../kube/errors.ts";
import { SERVICE } from "../../resources/service.ts";
import { targetsFromAddresses, targetsFromService, type TargetsResult } from "./targets.ts";

/**
 * The targets for the settings: `proxyIp` when set, else the cluster IPs of Service
 * `namespace/name`. A missing Service or an RBAC refusal is an `unusable` result (it needs an
 * operator or the chart to act); other API failures reject, so the caller retries with backoff.
 */
export async function resolveTargets(
  client: Pick<KubeClient, "get">,
  where: { readonly proxyIp: string; readonly namespace: string; readonly name: string },
  signal: AbortSignal,
): Promise<TargetsResult> {
  if (where.proxyIp !== "") return targetsFromAddresses([where.proxyIp], "--external-dns-proxy-ip");
  const key = `${where.namespace}/${where.name}`;
  try {
    const service = await client.get(SERVICE, { namespace: where.namespace, name: where.name }, { signal });
    return targetsFromService(service);
  } catch (error) {
    if (isNotFound(error)) {
      return {
        kind: "unusable",
        problem: "service-not-found",
        message: `the proxy Service ${key} does not exist; check --external-dns-proxy-service and the ` +
          "namespace, or set --external-dns-proxy-ip",
      };
    }
    if (isForbidden(error)) {
      return {
        kind: "unusable",
        problem: "forbidden",
        message:
          `not allowed to read the proxy Service ${key} (grant get on it, or set --external-dns-proxy-ip)`,
      };
    }
    throw error;
  }
}
