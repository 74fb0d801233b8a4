/**
 * The judgements of the etc-hosts DNS wiring check. The block is judged by the sink's own code,
 * so "the block matches" means exactly "the controller on this node would write nothing".
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { SkippedWildcard } from "../../hostnames/desired_set.ts";
import { applyHostsBlock } from "../../controller/modes/etc_hosts/hosts_block.ts";
import { planEntries } from "../../controller/modes/etc_hosts/hosts_entries.ts";
import { decodeHostsBytes, stripFiller } from "../../controller/modes/etc_hosts/hosts_layout.ts";
import { scanHostsMarkers } from "../../controller/modes/etc_hosts/hosts_markers.ts";
import { isHostsMarkerProblem } from "../../controller/modes/etc_hosts/hosts_problems.ts";
import type { BlockMarkers } from "../../controller/modes/markers.ts";
import { splitLines } from "../../controller/modes/text_lines.ts";
import { errorMessage } from "../../util/error_message.ts";
import { formatIp, parseIp } from "../../util/ip.ts";
import type { Finding } from "../doctor_check.ts";
import { finding, hostDiff, sample } from "./dns_wiring_findings.ts";

const NODE_CONTROLLER_TODO = "check that the ouroboros etc-hosts DaemonSet pod on this node is running and " +
  "read its log (check 6): it rewrites the block within seconds of a change";

/** How to run the doctor where the node's hosts file is. */
export const RUN_ON_A_NODE = "run it on a node: in the etc-hosts DaemonSet pod of that node " +
  "(`kubectl -n <namespace> get pods -l app.kubernetes.io/component=etc-hosts -o wide`, then " +
  "`kubectl -n <namespace> exec <pod> -- /ouroboros doctor --mode=etc-hosts --proxy-ip=<ip>`), or read " +
  "the file by hand: `kubectl debug node/<node> -it --image=busybox -- cat /host/etc/hosts`";

/** What the hosts file is checked against. */
export interface HostsFileExpectation {
  readonly subject: string;
  /** The desired hostnames, sorted, wildcards left out. */
  readonly hosts: readonly string[];
  readonly proxyIp: string;
  readonly markers: BlockMarkers;
}

/**
 * Whether the block holds exactly the wanted hosts at `--proxy-ip`, markers intact; plus a
 * warning for earlier entries that shadow ours (resolvers use the first match).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MARKERS } from "../../controller/modes/markers.ts";
 * import { hostsFileFindings } from "./etc_hosts_wiring_findings.ts";
 *
 * const bytes = new TextEncoder().encode("127.0.0.1 localhost\n");
 * const expected = { subject: "hosts file", hosts: ["shop.example.com"], proxyIp: "10.96.0.20", markers: DEFAULT_MARKERS };
 * assert.equal(hostsFileFindings(bytes, expected)[0]?.verdict, "problem"); // no ouroboros block
 * ```
 */
export function hostsFileFindings(bytes: Uint8Array, expected: HostsFileExpectation): Finding[] {
  const { subject, hosts, proxyIp, markers } = expected;
  const text = stripFiller(decodeHostsBytes(bytes)).text;
  const edit = applyHostsBlock(text, { ip: proxyIp, hosts, markers });
  if (edit.kind === "refused") {
    return [
      isHostsMarkerProblem(edit.problem)
        ? finding(subject, ["problem", `the ouroboros block is damaged (${edit.problem}): ${edit.message}`])
        : finding(subject, [
          "problem",
          `the controller refuses to write this file (${edit.problem}): ${edit.message}`,
        ]),
    ];
  }
  const shadowed = edit.shadowed.length === 0 ? [] : [finding(subject, [
    "warning",
    `an entry above the ouroboros block already names ${edit.shadowed.length} of our hosts ` +
    `(${sample(edit.shadowed)}): resolvers use the first match, so on this node they do not reach the proxy`,
    "remove or change those entries",
  ])];
  if (edit.kind === "unchanged") {
    return [
      finding(subject, [
        "ok",
        hosts.length === 0
          ? "no hostname is wanted and the file holds no ouroboros block"
          : `the ouroboros block holds the ${hosts.length} wanted hostnames at ${proxyIp}, markers intact`,
      ]),
      ...shadowed,
    ];
  }
  const scan = scanHostsMarkers(text, splitLines(text), { markers });
  if (scan.kind !== "present") {
    return [
      finding(subject, [
        "problem",
        `the file has no ouroboros block, but ${hosts.length} hostnames are wanted (${sample(hosts)})`,
        NODE_CONTROLLER_TODO,
      ]),
      ...shadowed,
    ];
  }
  const plan = hosts.length === 0 ? undefined : planEntries(proxyIp, hosts);
  const want = plan?.kind === "entries" ? plan.ip : undefined;
  const elsewhere = scan.entries.filter((entry) => {
    const address = parseIp(entry.ip);
    return want !== undefined && (address === undefined || formatIp(address) !== want);
  });
  if (elsewhere.length > 0) {
    const ips = [...new Set(elsewhere.map((entry) => entry.ip))];
    return [
      finding(subject, [
        "problem",
        `${elsewhere.length} entries of the ouroboros block point at ${ips.join(", ")}, not at --proxy-ip ` +
        `${want} (${sample(elsewhere.map((entry) => entry.host))})`,
        `if the proxy Service's ClusterIP changed, set --proxy-ip (the chart's etcHosts.proxyIP) to it; otherwise ${NODE_CONTROLLER_TODO}`,
      ]),
      ...shadowed,
    ];
  }
  const diff = hostDiff(scan.entries.map((entry) => entry.host), {
    desired: hosts,
    where: "the ouroboros block",
  });
  return [finding(subject, [diff.verdict, diff.saw, NODE_CONTROLLER_TODO]), ...shadowed];
}

/** The wildcards the controller leaves out of the hosts file; `undefined` when none. */
export function skippedWildcardsFinding(
  subject: string,
  skipped: readonly SkippedWildcard[],
): Finding | undefined {
  if (skipped.length === 0) return undefined;
  const values = [...new Set(skipped.map((entry) => entry.value))];
  return finding(subject, [
    "warning",
    `${values.length} wildcard hostnames are not written: a hosts file cannot express a wildcard, so the ` +
    `controller skips them (${
      sample(skipped.map((entry) => `${entry.value} from ${entry.source} ${entry.key}`))
    })`,
    "for names under a wildcard, use --mode=coredns or --mode=coredns-import, or list each name exactly in " +
    "the Ingress or route",
  ]);
}

/** Why the file could not be read here: never a problem, since this may not be a node. */
export function unreadableHostsFinding(subject: string, error: unknown): Finding {
  const why = error instanceof Deno.errors.NotFound
    ? "it does not exist here: this is not a node, or the node's hosts file is not mounted at this path"
    : error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable
    ? "it may not be read here"
    : `it could not be read: ${errorMessage(error)}`;
  return finding(subject, [
    "could-not-check",
    `the node's hosts file is where the etc-hosts block lives; ${why}`,
    RUN_ON_A_NODE,
  ]);
}
