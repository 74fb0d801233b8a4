/**
 * Source address → pod: which pod a DNS query came from. Built once per change of the watched
 * Pods, read once per query.
 *
 * Decided:
 * - Pods on the host network are left out: their source address is the node's, shared by every
 *   other host-network pod and the node itself, so it names no workload.
 * - Pods that have finished (`Succeeded`, `Failed`) are left out: their address may already be
 *   given to a new pod.
 * - Both `status.podIPs` and `status.podIP` are read (a server may fill only the latter);
 *   addresses are stored in the form the DNS server hands the answerer (dotted quad; RFC 5952
 *   IPv6, lower-case and compressed; an IPv4-mapped IPv6 address as its IPv4 address), so a
 *   lookup is one `Map.get`.
 * - When two live pods claim one address (a pod being replaced, a stale cache), the `Running`
 *   one wins, then the newer (`creationTimestamp`), then the lower `namespace/name`, so the
 *   choice never depends on list order.
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

/** True when `a` should own an address that `b` also claims. */
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

/**
 * Every address of every pod that can be a DNS client, mapped to its pod.
 *
 * @example
 * ```ts
 * import type { Pod } from "../../resources/pod.ts";
 * import { indexClients } from "./client_index.ts";
 *
 * declare const pods: readonly Pod[];
 * const clients = indexClients(pods);
 * clients.get("10.244.1.7")?.metadata.name; // the pod that sent a query from 10.244.1.7
 * ```
 */
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
