/**
 * `--node-local-dns=manage`'s writer: the Corefile sink (`coredns_sink.ts`) pointed at the
 * node-local-dns ConfigMap with the node-local-dns edit, so it has the same safety as coredns mode.
 *
 * Effects: HTTP through the injected client (the sink); the edit is pure.
 *
 * Nodes see a change within about a minute (kubelet mount refresh, then node-cache's 10 s check);
 * our block keeps the `__PILLAR__` placeholders so node-cache fills them in. A zone another block
 * serves is left out (CoreDNS would not start): WARN when that set changes, DEBUG while it lasts.
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
  /** `nodeLocalDnsMarkers(--marker-id)`. */
  readonly markers: BlockMarkers;
}

/**
 * The node-local-dns sink; `proxyFqdn` picks the cluster-domain server block whose upstream the
 * block copies.
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
