/**
 * The judgements of the DNS wiring check. Every Corefile question is answered by the controller's
 * own Corefile code, so doctor and controller never disagree. Wanted names missing are a problem;
 * stale names alone a warning (the controller removes them on its next pass).
 *
 * Pure: no I/O.
 *
 * @module
 */

import { applyCorefileBlock } from "../../controller/modes/coredns/corefile/apply_corefile_block.ts";
import { analyzeCorefile } from "../../controller/modes/coredns/corefile/analyze_corefile.ts";
import { isMarkerProblem } from "../../controller/modes/coredns/corefile/corefile_refusal.ts";
import { hasReloadPlugin } from "../../controller/modes/coredns/corefile/has_reload_plugin.ts";
import { importCovers, importLineFor } from "../../controller/modes/coredns/corefile/import_line.ts";
import {
  importDataChange,
  importSnippet,
  snippetHosts,
} from "../../controller/modes/coredns/corefile/import_snippet.ts";
import { analyzeNodeLocalDns } from "../../controller/modes/coredns/corefile/analyze_node_local_dns.ts";
import { nodeLocalDnsZones } from "../../controller/modes/coredns/corefile/node_local_dns_block.ts";
import { nodeLocalDnsMarkers } from "../../controller/modes/coredns/corefile/node_local_dns_markers.ts";
import type { BlockMarkers } from "../../controller/modes/markers.ts";
import type { Finding, Verdict } from "../doctor_check.ts";

/** The check's id. */
export const DNS_WIRING_CHECK_ID = "dns-wiring";

/** How many hostnames a finding names before it says "and N more". */
export const SAMPLE_SIZE = 5;

const CONTROLLER_TODO = "check that the ouroboros controller is running and read its log: it rewrites " +
  "the rules within seconds of a change";

/** A finding of this check. */
export function finding(subject: string, [verdict, saw, todo]: readonly [Verdict, string, string?]): Finding {
  return { check: DNS_WIRING_CHECK_ID, subject, verdict, saw, ...(todo === undefined ? {} : { todo }) };
}

/** Names, at most {@linkcode SAMPLE_SIZE} of them, then how many more. */
export function sample(names: readonly string[]): string {
  const shown = names.slice(0, SAMPLE_SIZE).join(", ");
  return names.length > SAMPLE_SIZE ? `${shown} and ${names.length - SAMPLE_SIZE} more` : shown;
}

/**
 * How the stored hosts differ from the desired ones: a verdict and the sentence for it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hostDiff } from "./dns_wiring_findings.ts";
 *
 * assert.deepEqual(
 *   hostDiff(["a.example.com"], { desired: ["a.example.com", "b.example.com"], where: "the block" }),
 *   { verdict: "problem", saw: "the block lacks 1 wanted (b.example.com)" },
 * );
 * ```
 */
export function hostDiff(
  stored: readonly string[],
  { desired, where }: { readonly desired: readonly string[]; readonly where: string },
): { readonly verdict: Verdict; readonly saw: string } {
  const have = new Set(stored);
  const want = new Set(desired);
  const missing = desired.filter((host) => !have.has(host));
  const stale = stored.filter((host) => !want.has(host));
  const parts = [
    ...(missing.length === 0 ? [] : [`lacks ${missing.length} wanted (${sample(missing)})`]),
    ...(stale.length === 0 ? [] : [`holds ${stale.length} no longer wanted (${sample(stale)})`]),
  ];
  if (parts.length === 0) {
    return {
      verdict: "problem",
      saw: `${where} names the ${desired.length} wanted hostnames but not as ouroboros writes them ` +
        "(another proxy FQDN, or a changed layout)",
    };
  }
  return { verdict: missing.length > 0 ? "problem" : "warning", saw: `${where} ${parts.join(" and ")}` };
}

/** What coredns mode's Corefile is checked against. */
export interface CorefileExpectation {
  readonly subject: string;
  /** The desired hostnames, sorted. */
  readonly hosts: readonly string[];
  readonly proxyFqdn: string;
  readonly markers: BlockMarkers;
}

/** coredns mode: whether the Corefile holds our block, intact and equal to the desired set. */
export function corefileBlockFinding(corefile: string, expected: CorefileExpectation): Finding {
  const { subject } = expected;
  const analysis = analyzeCorefile(corefile, { markers: expected.markers });
  if (analysis.kind === "refused") {
    return finding(subject, [
      "problem",
      `ouroboros cannot edit this Corefile (${analysis.problem}): ${analysis.message}`,
      isMarkerProblem(analysis.problem)
        ? "delete the ouroboros marker lines and the rewrite lines between them; ouroboros writes a fresh block on its next pass"
        : "fix the Corefile as described; ouroboros writes nothing to it until then",
    ]);
  }
  const stored = analysis.markers.kind === "present" ? analysis.markers.hosts : [];
  const edit = applyCorefileBlock(corefile, {
    hosts: expected.hosts,
    fqdn: expected.proxyFqdn,
    markers: expected.markers,
  });
  if (edit.kind === "unchanged") {
    return finding(subject, [
      "ok",
      expected.hosts.length === 0
        ? "no hostname is wanted and the Corefile holds no ouroboros block"
        : `the ouroboros block holds the ${expected.hosts.length} wanted hostnames, markers intact`,
    ]);
  }
  if (edit.kind === "refused") {
    return finding(subject, [
      "problem",
      `ouroboros would refuse to edit it (${edit.problem}): ${edit.message}`,
    ]);
  }
  if (analysis.markers.kind === "absent") {
    return finding(subject, [
      "problem",
      `the Corefile has no ouroboros block, but ${expected.hosts.length} hostnames are wanted (${
        sample(expected.hosts)
      })`,
      CONTROLLER_TODO,
    ]);
  }
  const diff = hostDiff(stored, { desired: expected.hosts, where: "the ouroboros block" });
  return finding(subject, [diff.verdict, diff.saw, CONTROLLER_TODO]);
}

/** Whether CoreDNS reloads the Corefile; without it, changes wait for a restart (a warning). */
export function reloadFinding(subject: string, corefile: string): Finding {
  return hasReloadPlugin(corefile)
    ? finding(subject, [
      "ok",
      "the Corefile enables the reload plugin: CoreDNS applies changes within its interval",
    ])
    : finding(subject, [
      "warning",
      "the Corefile has no reload plugin: ouroboros's changes take effect only when the CoreDNS pods restart",
      "add a line `reload` to the .:53 server block",
    ]);
}

/** coredns-import mode: whether the root block imports a pattern matching our key. */
export function importLineFinding(
  corefile: string,
  { subject, key }: { readonly subject: string; readonly key: string },
): Finding {
  return importCovers(corefile, key)
    ? finding(subject, ["ok", `the .:53 server block imports a pattern that matches ${JSON.stringify(key)}`])
    : finding(subject, [
      "problem",
      `no import line in the .:53 server block matches ${JSON.stringify(key)}, so CoreDNS never reads ` +
      "the rules ouroboros writes",
      `add "${importLineFor(key)}" to the .:53 server block`,
    ]);
}

/** coredns-import mode: whether our key holds exactly the desired rules. */
export function importKeyFinding(
  stored: string | undefined,
  expected: Omit<CorefileExpectation, "markers">,
): Finding {
  const { subject } = expected;
  const desired = importSnippet(expected.hosts, expected.proxyFqdn);
  if (importDataChange(stored, desired) === "none") {
    return finding(subject, [
      "ok",
      desired === undefined
        ? "no hostname is wanted and the key is absent"
        : `the key holds the rules for the ${expected.hosts.length} wanted hostnames`,
    ]);
  }
  if (stored === undefined) {
    return finding(subject, [
      "problem",
      `the key is absent, but ${expected.hosts.length} hostnames are wanted (${sample(expected.hosts)})`,
      CONTROLLER_TODO,
    ]);
  }
  const diff = hostDiff(snippetHosts(stored), { desired: expected.hosts, where: "the key" });
  return finding(subject, [diff.verdict, diff.saw, CONTROLLER_TODO]);
}

/** What the node-local-dns finding is judged from. */
export interface NodeLocalDnsExpectation extends CorefileExpectation {
  readonly mode: "warn" | "manage";
}

/**
 * node-local-dns: present needs `manage` (else its pods bypass the rewrite rules), and then our
 * block must serve the desired zones. `corefile`: `undefined` no ConfigMap, `null` no key.
 */
export function nodeLocalDnsFinding(
  corefile: string | undefined | null,
  expected: NodeLocalDnsExpectation,
): Finding {
  const { subject } = expected;
  const manage = expected.mode === "manage";
  if (corefile === undefined) {
    return manage
      ? finding(subject, [
        "warning",
        "--node-local-dns=manage, but this ConfigMap does not exist, so there is nothing to manage",
        "set OUROBOROS_NODE_LOCAL_DNS_NAMESPACE/_CONFIGMAP to where it is, or use --node-local-dns=warn",
      ])
      : finding(subject, ["ok", "node-local-dns is not installed: every pod resolves through CoreDNS"]);
  }
  if (!manage) {
    return finding(subject, [
      "warning",
      "node-local-dns is installed: pods that resolve through it get hairpinned names from upstream, " +
      "without CoreDNS's rewrite rules",
      "run the controller with --node-local-dns=manage",
    ]);
  }
  if (corefile === null) {
    return finding(subject, [
      "problem",
      "the ConfigMap has no node-local-dns Corefile under the expected key",
    ]);
  }
  const analysis = analyzeNodeLocalDns(corefile, {
    markers: nodeLocalDnsMarkers(expected.markers.id),
    clusterName: expected.proxyFqdn,
  });
  if (analysis.kind === "refused") {
    return finding(subject, [
      "problem",
      `ouroboros cannot edit this Corefile (${analysis.problem}): ${analysis.message}`,
      "fix the node-local-dns Corefile as described; ouroboros writes nothing to it until then",
    ]);
  }
  const zones = nodeLocalDnsZones(expected.hosts);
  const want = zones.ok ? zones.zones : [];
  const have = analysis.own.kind === "present" ? analysis.own.zones : [];
  if (want.length === have.length && want.every((zone, index) => zone === have[index])) {
    return finding(subject, [
      "ok",
      want.length === 0
        ? "managed; no hostname is wanted and there is no ouroboros block"
        : `managed; the ouroboros block forwards the ${want.length} wanted zones to CoreDNS`,
    ]);
  }
  const diff = hostDiff(have, { desired: want, where: "the ouroboros node-local-dns block" });
  return finding(subject, [diff.verdict, diff.saw.replaceAll("hostnames", "zones"), CONTROLLER_TODO]);
}
