/**
 * `--node-local-dns=manage`'s writer: the Corefile sink (`coredns_sink.ts`) pointed at the
 * node-local-dns ConfigMap, with the pure edit of `corefile/apply_node_local_dns_block.ts`, so it
 * gets the same conditional writes (resourceVersion precondition, conflict retries), refusals
 * with Warning Events, size check, revert guard and dry run as coredns mode.
 *
 * How a change reaches the nodes: the DaemonSet mounts the ConfigMap's `Corefile` key as a file
 * (`/etc/coredns/Corefile.base`); the kubelet refreshes the mount within about a minute (its sync
 * period plus the ConfigMap cache); node-cache checks that directory every 10 s, substitutes
 * `__PILLAR__CLUSTER__DNS__`, `__PILLAR__UPSTREAM__SERVERS__` and `__PILLAR__LOCAL__DNS__` again
 * and writes the Corefile it serves, which its `reload` plugin then loads. Our block carries the
 * cluster block's own words, placeholders included, so node-cache fills them in as for its own.
 *
 * A zone another server block already serves is left out (CoreDNS would refuse to start): a WARN
 * notice names them when that set changes, a DEBUG line while it lasts.
 *
 * Effects: HTTP through the injected client (the sink); the edit is pure.
 *
 * @module
 */

import type { BlockMarkers } from "../markers.ts";
import type { Notice } from "../sink.ts";
import { applyNodeLocalDnsBlock } from "./corefile/apply_node_local_dns_block.ts";
import { CorednsSink, type CorednsSinkOptions, type CorefileEditFn } from "./coredns_sink.ts";
import { NODE_LOCAL_DNS_WORDING } from "./corefile_sink_wording.ts";

/** Options for {@linkcode nodeLocalDnsSink}. */
export interface NodeLocalDnsSinkOptions extends Omit<CorednsSinkOptions, "edit" | "wording" | "markers"> {
  /** The release's node-local-dns markers (`nodeLocalDnsMarkers(--marker-id)`). */
  readonly markers: BlockMarkers;
}

/**
 * The node-local-dns sink. `proxyFqdn` picks the cluster-domain server block whose upstream the
 * block copies.
 *
 * @example
 * ```ts
 * import type { KubeClient } from "../../../kube/client.ts";
 * import { nodeLocalDnsMarkers } from "./corefile/node_local_dns_markers.ts";
 * import { nodeLocalDnsSink } from "./node_local_dns_sink.ts";
 *
 * declare const client: KubeClient;
 * const sink = nodeLocalDnsSink({
 *   client,
 *   target: { namespace: "kube-system", configmap: "node-local-dns", key: "Corefile" },
 *   proxyFqdn: "ouroboros-proxy.ouroboros.svc.cluster.local.",
 *   markers: nodeLocalDnsMarkers(),
 * });
 * sink.description; // "node-local-dns kube-system/node-local-dns[Corefile]"
 * ```
 */
export function nodeLocalDnsSink(options: NodeLocalDnsSinkOptions): CorednsSink {
  const { markers, proxyFqdn } = options;
  const where = `${options.target.namespace}/${options.target.configmap}`;
  let lastSkipped = "";
  const edit: CorefileEditFn = (corefile, hosts) => {
    const result = applyNodeLocalDnsBlock(corefile, { hosts, clusterName: proxyFqdn, markers });
    if (result.kind === "refused") return result;
    const skipped = result.skipped.join(" ");
    const notices: Notice[] = [];
    if (skipped !== "") {
      notices.push({
        level: skipped === lastSkipped ? "debug" : "warn",
        message: "another server block of the node-local-dns Corefile already serves these zones, so " +
          "ouroboros's block leaves them out (CoreDNS refuses a zone served twice); pods on nodes with " +
          "node-local-dns get those names from that block, not from the proxy",
        properties: { configmap: where, zones: result.skipped },
      });
    }
    lastSkipped = skipped;
    if (result.kind === "unchanged") return { kind: "unchanged", notices };
    const { corefile: text, previousHosts, reload } = result;
    return { kind: "changed", corefile: text, previousHosts, reload, notices };
  };
  return new CorednsSink({ ...options, edit, wording: NODE_LOCAL_DNS_WORDING });
}
