/**
 * The resolution check's judgements: A and AAAA answers together must be exactly the proxy's
 * addresses; extra ones are a problem (a client may bypass the proxy), a subset a warning.
 * - The cluster DNS is judged first; when it is right and the pod's resolver is not, the pod's
 *   resolver is blamed by its address (link-local: node-local-dns; else a custom dnsConfig).
 * - No reply from a workstation is could-not-check; in a pod, a problem.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { formatDuration } from "../../util/duration.ts";
import { formatIp, parseIp, unmapIpv4 } from "../../util/ip.ts";
import { formatHostPort } from "../../util/listen_address.ts";
import type { AddressLookupResult } from "../../util/address_lookup_result.ts";
import type { Finding, Verdict } from "../doctor_check.ts";
import { sample } from "./dns_wiring_findings.ts";

/** The check's id. */
export const RESOLUTION_CHECK_ID = "resolution";

export type { AddressLookupResult };

/** A DNS server: an IP address and a port. */
export interface DnsServer {
  readonly host: string;
  readonly port: number;
}

/** Asks `server` for the A or AAAA records of `name` (`lib/dns`'s `lookupAddresses`). */
export type AddressLookup = (
  server: DnsServer,
  name: string,
  options: { readonly type: "A" | "AAAA"; readonly timeoutMs?: number; readonly signal?: AbortSignal },
) => Promise<AddressLookupResult>;

/** What one resolver said about one host, both address types together. */
export type ResolverView =
  | {
    readonly kind: "answer";
    readonly server: DnsServer;
    /** The first RCODE other than NOERROR of the two answers, else 0. */
    readonly rcode: number;
    readonly addresses: readonly string[];
    readonly ttl?: number;
  }
  | {
    readonly kind: "no-answer";
    readonly server: DnsServer;
    readonly timedOut: boolean;
    readonly reason: string;
  }
  | { readonly kind: "not-asked"; readonly why: string };

/** One host's answers and what they are compared with. */
export interface HostResolution {
  readonly host: string;
  readonly pod: ResolverView;
  readonly cluster: ResolverView;
  /** The proxy's addresses. */
  readonly expected: readonly string[];
  /** Such as "the ClusterIPs of Service ouroboros/ouroboros-proxy". */
  readonly expectedFrom: string;
  readonly inCluster: boolean;
  /** The Helm release, for "`helm test <release>`". */
  readonly release?: string;
}

const RCODE_NAMES: Readonly<Record<number, string>> = {
  1: "FORMERR",
  2: "SERVFAIL",
  3: "NXDOMAIN",
  4: "NOTIMP",
  5: "REFUSED",
};

/**
 * One resolver's view from its A and AAAA results: both addresses, the smaller TTL, the first
 * error RCODE; no reply to either question is no reply at all.
 */
export function mergeLookups(server: DnsServer, results: readonly AddressLookupResult[]): ResolverView {
  const failed = results.find((result) => result.kind === "no-answer");
  if (failed !== undefined) return { server, ...failed };
  const answers = results.filter((result) => result.kind === "answer");
  const ttls = answers.flatMap((answer) => answer.ttl === undefined ? [] : [answer.ttl]);
  return {
    kind: "answer",
    server,
    rcode: answers.find((answer) => answer.rcode !== 0)?.rcode ?? 0,
    addresses: [...new Set(answers.flatMap((answer) => answer.addresses))],
    ...(ttls.length === 0 ? {} : { ttl: Math.min(...ttls) }),
  };
}

type Comparison = "match" | "subset" | "extra" | "other" | "error" | "silent" | "not-asked";

function canonical(address: string): string {
  const parsed = parseIp(address);
  return parsed === undefined ? address : formatIp(unmapIpv4(parsed));
}

function compare(view: ResolverView, expected: readonly string[]): Comparison {
  if (view.kind === "not-asked") return "not-asked";
  if (view.kind === "no-answer") return "silent";
  if (view.addresses.length === 0) return "error";
  const want = new Set(expected.map(canonical));
  const got = new Set(view.addresses.map(canonical));
  const extra = [...got].filter((address) => !want.has(address)).length;
  const shared = got.size - extra;
  if (extra === 0) return shared === want.size ? "match" : "subset";
  return shared > 0 ? "extra" : "other";
}

/** "gives 10.96.14.2", "says NXDOMAIN", "did not answer: …", in a sentence about `who`. */
function said(who: string, view: ResolverView): string {
  if (view.kind === "not-asked") return `${who} was not asked (${view.why})`;
  const at = `${who} ${formatHostPort(view.server.host, view.server.port)}`;
  if (view.kind === "no-answer") {
    return `${at} ${view.timedOut ? "did not answer" : "gave no usable answer"} (${view.reason})`;
  }
  if (view.addresses.length > 0) return `${at} gives ${view.addresses.join(", ")}`;
  if (view.rcode === 0) return `${at} gives no address records (NODATA)`;
  return `${at} says ${RCODE_NAMES[view.rcode] ?? `RCODE ${view.rcode}`}`;
}

function cacheNote(view: ResolverView): string {
  if (view.kind !== "answer" || view.ttl === undefined || view.ttl === 0) return "";
  return `; caches may keep this answer up to ${formatDuration(view.ttl * 1000)} after a change, so if the ` +
    `rules changed just now, run doctor again after that`;
}

const WIRING =
  "see the dns-wiring check: is the ouroboros block (or import) in place, and does CoreDNS have `reload`?";

/** Why the pod's resolver differs from a cluster DNS that gives the proxy, named by its address. */
function podCause(pod: ResolverView, cluster: ResolverView): readonly [string, string] {
  if (pod.kind === "not-asked" || cluster.kind === "not-asked") return ["", ""];
  const address = canonical(pod.server.host);
  const same = address === canonical(cluster.server.host) && pod.server.port === cluster.server.port;
  if (address.startsWith("169.254.") || address.toLowerCase().startsWith("fe80:")) {
    return [
      "the pod's resolver is node-local-dns (a link-local address): it answers from its own cache and sends " +
      "names outside the cluster domain to the node's resolvers, past CoreDNS",
      "run the controller with --node-local-dns=manage (or forward these hosts to CoreDNS in node-local-dns's " +
      "Corefile); see the dns-wiring check's node-local-dns finding",
    ];
  }
  if (same) {
    return [
      "the same address answered differently: a cache (node-local-dns in iptables mode also answers on the " +
      "cluster DNS address) or an answer that is changing right now",
      "run doctor again in a minute; if it persists, look for node-local-dns on this node",
    ];
  }
  return [
    `the pod's resolv.conf names ${address}, not the cluster DNS Service: a custom dnsConfig or a dnsPolicy ` +
    "other than ClusterFirst",
    "give the pods that call these hosts dnsPolicy: ClusterFirst (the default), or point their dnsConfig at " +
    "the cluster DNS Service",
  ];
}

function notReachable(resolution: HostResolution): string {
  return `not reachable from here; run it in the cluster: \`helm test ${resolution.release ?? "<release>"}\``;
}

/** The verdict, what was seen and what to do for one host. */
export function hostVerdict(resolution: HostResolution): readonly [Verdict, string, string?] {
  const { pod, cluster, expected, expectedFrom, inCluster } = resolution;
  const proxy = `the proxy's ${expected.join(", ")} (${expectedFrom})`;
  const p = compare(pod, expected);
  const c = compare(cluster, expected);
  const both = `${said("the pod's resolver", pod)}; ${said("the cluster DNS", cluster)}`;
  const clusterUnseen = c === "not-asked" || (c === "silent" && !inCluster);
  if (clusterUnseen) {
    if (p === "match") return ["ok", `${both}; the pod's resolver gives ${proxy}`];
    if (p === "not-asked") {
      return cluster.kind === "no-answer"
        ? ["could-not-check", both, notReachable(resolution)]
        : ["could-not-check", both];
    }
    if (p === "subset") return ["warning", `${both}, only part of ${proxy}`, WIRING];
    if (p === "silent") return ["problem", `${both}`, "check the pod's resolv.conf and that CoreDNS runs"];
    return ["problem", `${both}, not ${proxy}${cacheNote(pod)}`, WIRING];
  }
  if (c === "match") {
    if (p === "match") return ["ok", `both resolvers give ${proxy}`];
    if (p === "not-asked") return ["ok", `${both}: ${proxy}`];
    const [cause, todo] = podCause(pod, cluster);
    const right = `${said("the pod's resolver", pod)}, while ${said("the cluster DNS", cluster)}, ${proxy}`;
    if (p === "subset") return ["warning", `${right}, and the pod's answer lacks part of it: ${cause}`, todo];
    return ["problem", `${right}: ${cause}${cacheNote(pod)}`, todo];
  }
  if (c === "silent") {
    return [
      "problem",
      both,
      "check that CoreDNS runs and that no NetworkPolicy blocks this pod's DNS (UDP and TCP port 53)",
    ];
  }
  if (c === "error") {
    const rewrite = cluster.kind === "answer" && cluster.rcode === 3
      ? "the rewrite is not in effect (or its target, the proxy Service's name, does not exist)"
      : "the rewrite is not in effect or CoreDNS cannot resolve its target";
    return ["problem", `${both}, not ${proxy}: ${rewrite}`, WIRING];
  }
  if (c === "subset") {
    return ["warning", `${both}, only part of ${proxy}: one address family is not rewritten`, WIRING];
  }
  const how = c === "extra"
    ? "besides the proxy's, so a client may pick another address and bypass the proxy"
    : "the rewrite is not in effect";
  return ["problem", `${both}, not ${proxy}: ${how}${cacheNote(cluster)}`, WIRING];
}

/** Options for {@linkcode resolutionFindings}. */
export interface ResolutionFindingsOptions {
  /** Hosts before sampling. */
  readonly sampledFrom?: number;
}

/** The findings for every host; hosts with the same verdict, sentence and todo share one. */
export function resolutionFindings(
  resolutions: readonly HostResolution[],
  options: ResolutionFindingsOptions = {},
): Finding[] {
  const groups = new Map<string, { verdict: readonly [Verdict, string, string?]; hosts: string[] }>();
  for (const resolution of resolutions) {
    const verdict = hostVerdict(resolution);
    const key = JSON.stringify(verdict);
    const group = groups.get(key) ?? { verdict, hosts: [] };
    group.hosts.push(resolution.host);
    groups.set(key, group);
  }
  const sampled = options.sampledFrom !== undefined && options.sampledFrom > resolutions.length
    ? ` (a sample of ${resolutions.length} of ${options.sampledFrom} hosts, --host-limit)`
    : "";
  return [...groups.values()].map(({ verdict: [verdict, saw, todo], hosts }, index) => ({
    check: RESOLUTION_CHECK_ID,
    subject: hosts.length === 1 ? `host ${hosts[0]}` : `${hosts.length} hosts: ${sample(hosts)}`,
    verdict,
    saw: index === 0 ? saw + sampled : saw,
    ...(todo === undefined ? {} : { todo }),
  }));
}
