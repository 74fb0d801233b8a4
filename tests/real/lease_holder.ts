/**
 * The holder of a Lease on the real apiserver, read as the admin: what the leader-election
 * scenarios judge leadership by (the apiserver's record, not a replica's own word).
 *
 * @module
 */

import type { Stack } from "./stack.ts";

/** The pod-name part of `namespace/name`'s holderIdentity (`<pod>_<suffix>`); `""`: nobody, or no Lease. */
export async function leaseHolder(stack: Stack, namespace: string, name: string): Promise<string> {
  const response = await stack.plane.request(
    `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`,
  );
  if (!response.ok) {
    await response.body?.cancel();
    return "";
  }
  const lease = await response.json() as { spec?: { holderIdentity?: string } };
  return (lease.spec?.holderIdentity ?? "").split("_")[0] ?? "";
}
