/**
 * Source address → pod: which pod a DNS query came from.
 * - Host-network pods are left out (their address is the node's), and so are finished pods
 *   (their address may be reused).
 * - When two pods claim one address, the `Running` one wins, then the newer, then the lower
 *   `namespace/name`, so the choice never depends on list order.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { objectKey } from "../../resources/kube_object.ts";
import type { Pod } from "../../resources/pod.ts";
import { formatIp, parseIp, unmapIpv4 } from "../../util/ip.ts";

const FINISHED = new Set(["Succeeded", "Failed"]);

/** The address in the form queries arrive with, or `undefined` when `text` is not an IP address. */
export function canonicalClientAddress(text: string): string | undefined {
  const parsed = parseIp(text);
  return parsed === undefined ? undefined : formatIp(unmapIpv4(parsed));
}

function prefer(a: Pod, b: Pod): boolean {
  const running = Number(a.status.phase === "Running") - Number(b.status.phase === "Running");
  if (running !== 0) return running > 0;
  const aTime = Date.parse(a.metadata.creationTimestamp ?? "");
  const bTime = Date.parse(b.metadata.creationTimestamp ?? "");
  const aKnown = Number.isFinite(aTime);
  const bKnown = Number.isFinite(bTime);
  if (aKnown !== bKnown) return aKnown;
  if (aKnown && aTime !== bTime) return aTime > bTime;
  return objectKey(a.metadata) < objectKey(b.metadata);
}

/** Every address of every pod that can be a DNS client, mapped to its pod. */
export function indexClients(pods: readonly Pod[]): ReadonlyMap<string, Pod> {
  const index = new Map<string, Pod>();
  for (const pod of pods) {
    if (pod.spec.hostNetwork) continue;
    if (pod.status.phase !== undefined && FINISHED.has(pod.status.phase)) continue;
    const texts = pod.status.podIP === undefined
      ? pod.status.podIPs
      : [...pod.status.podIPs, pod.status.podIP];
    for (const text of texts) {
      const address = canonicalClientAddress(text);
      if (address === undefined) continue;
      const holder = index.get(address);
      if (holder === undefined || (holder !== pod && prefer(pod, holder))) index.set(address, pod);
    }
  }
  return index;
}
