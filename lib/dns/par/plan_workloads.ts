/**
 * The workload DNS opt-in (`--manage-workloads`), planned: which Deployments are pointed at this
 * server, which get their settings back, which are left alone and why.
 * - The pod template's labels are matched (par matched the Deployment's): answers select pods.
 * - The `dnsConfig` keeps the search list and ndots the kubelet would give (par dropped them,
 *   which broke short Service names).
 * - Never opted in: this server's own pods, and pods resolving through the node (cluster DNS
 *   servers among them): both could loop.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Deployment, PodDnsConfig, PodDnsOption } from "../../resources/deployment.ts";
import type { JsonObject } from "../../resources/json.ts";
import { type AcceptedEntry, labelsMatch } from "../answer/records_entries.ts";
import {
  changedByOthers,
  decodeOriginalDns,
  encodeOriginalDns,
  ORIGINAL_DNS_ANNOTATION,
  type OriginalDns,
  restorePatch,
} from "./original_dns.ts";

/** The pods of this DNS server. */
export interface SelfSelector {
  readonly namespace: string;
  /** Must not be empty (it would match every Deployment of the namespace). */
  readonly labels: Readonly<Record<string, string>>;
}

/** What the plan depends on besides the Deployments. */
export interface WorkloadPlanOptions {
  readonly entries: readonly AcceptedEntry[];
  /** This server's Service ClusterIP; `""` while unknown (no opt-in or update, restores go on). */
  readonly nameserver: string;
  readonly clusterDomain: string;
  readonly self?: SelfSelector;
}

/** One Deployment's step. `patch` is a JSON merge patch for the Deployment. */
export type WorkloadStep =
  | {
    readonly kind: "opt-in" | "update" | "restore";
    readonly deployment: Deployment;
    readonly patch: JsonObject;
    /** Why, in words. */
    readonly detail: string;
  }
  | { readonly kind: "unchanged"; readonly deployment: Deployment }
  | { readonly kind: "skipped"; readonly deployment: Deployment; readonly reason: string };

/** The API server refuses more nameservers. */
const MAX_NAMESERVERS = 3;

/** The `dnsConfig` an opted-in template gets: ours first, then what it had. */
export function optedInDnsConfig(
  original: OriginalDns["original"],
  options: { readonly nameserver: string; readonly namespace: string; readonly clusterDomain: string },
): Required<PodDnsConfig> {
  const own = original.dnsConfig ?? {};
  const domain = options.clusterDomain;
  const nameservers = [...new Set([options.nameserver, ...(own.nameservers ?? [])])].slice(
    0,
    MAX_NAMESERVERS,
  );
  const searches = [
    ...new Set([`${options.namespace}.svc.${domain}`, `svc.${domain}`, domain, ...(own.searches ?? [])]),
  ];
  const ownOptions = own.options ?? [];
  const ndots: PodDnsOption = ownOptions.find((option) => option.name === "ndots") ??
    { name: "ndots", value: "5" };
  return { nameservers, searches, options: [ndots, ...ownOptions.filter((option) => option !== ndots)] };
}

function optInPatch(stored: OriginalDns, dnsConfig: Required<PodDnsConfig>): JsonObject {
  return {
    metadata: { annotations: { [ORIGINAL_DNS_ANNOTATION]: encodeOriginalDns(stored) } },
    spec: { template: { spec: { dnsPolicy: "None", dnsConfig } } },
  };
}

function sameConfig(current: PodDnsConfig | undefined, wanted: Required<PodDnsConfig>): boolean {
  return JSON.stringify(current?.nameservers) === JSON.stringify(wanted.nameservers) &&
    JSON.stringify(current?.searches) === JSON.stringify(wanted.searches) &&
    JSON.stringify(current?.options?.map((o) => [o.name, o.value])) ===
      JSON.stringify(wanted.options.map((o) => [o.name, o.value]));
}

function ineligible(deployment: Deployment): string | undefined {
  const { dnsPolicy, hostNetwork } = deployment.spec.template.spec;
  if (dnsPolicy === "Default" || (hostNetwork && (dnsPolicy ?? "ClusterFirst") === "ClusterFirst")) {
    return "its pods resolve through the node (dnsPolicy " +
      `${dnsPolicy ?? "ClusterFirst"}${hostNetwork ? " with hostNetwork" : ""}); pointing them at this ` +
      "server could loop, so it is not opted in";
  }
  if (dnsPolicy === "None") {
    return "its pod template has DNS settings of its own (dnsPolicy None); it is not opted in — set its " +
      "nameserver to this server's Service in its own manifest instead";
  }
  return undefined;
}

function describeEntries(entries: readonly AcceptedEntry[]): string {
  return entries.map((entry) => `Records ${entry.records} spec.a[${entry.index}] (${entry.forwardType})`)
    .join(
      ", ",
    );
}

function planOne(deployment: Deployment, options: WorkloadPlanOptions): WorkloadStep | undefined {
  const { namespace } = deployment.metadata;
  const template = deployment.spec.template;
  const matching = options.entries.filter((entry) =>
    entry.namespace === namespace && labelsMatch(entry.labels, template.metadata.labels)
  );
  const self = options.self;
  const isSelf = self !== undefined && Object.keys(self.labels).length > 0 && self.namespace === namespace &&
    labelsMatch(self.labels, template.metadata.labels);
  const annotation = deployment.metadata.annotations[ORIGINAL_DNS_ANNOTATION];

  if (annotation === undefined) {
    if (matching.length === 0) return undefined;
    if (isSelf) {
      return { kind: "skipped", deployment, reason: "it runs this DNS server; it is never opted in" };
    }
    const why = ineligible(deployment);
    if (why !== undefined) return { kind: "skipped", deployment, reason: why };
    if (options.nameserver === "") {
      return { kind: "skipped", deployment, reason: "this server's Service has no address yet" };
    }
    const original = {
      ...(template.spec.dnsPolicy === undefined ? {} : { dnsPolicy: template.spec.dnsPolicy }),
      ...(template.spec.dnsConfig === undefined ? {} : { dnsConfig: template.spec.dnsConfig }),
    };
    const dnsConfig = optedInDnsConfig(original, { ...options, namespace });
    return {
      kind: "opt-in",
      deployment,
      patch: optInPatch({ original, nameservers: dnsConfig.nameservers }, dnsConfig),
      detail: `selected by ${describeEntries(matching)}`,
    };
  }

  const stored = decodeOriginalDns(annotation);
  if (typeof stored === "string") {
    return {
      kind: "skipped",
      deployment,
      reason:
        `its annotation ${ORIGINAL_DNS_ANNOTATION} ${stored}; left alone (fix or remove the annotation)`,
    };
  }
  const changed = changedByOthers(template.spec, stored);
  if (changed !== undefined) {
    return {
      kind: "skipped",
      deployment,
      reason: `${changed}: changed since the opt-in, so left alone (remove the annotation ` +
        `${ORIGINAL_DNS_ANNOTATION} to stop this notice)`,
    };
  }
  if (matching.length === 0 || isSelf) {
    return {
      kind: "restore",
      deployment,
      patch: restorePatch(stored),
      detail: isSelf ? "it runs this DNS server" : "no Records entry selects its pods any more",
    };
  }
  if (options.nameserver === "") return { kind: "unchanged", deployment };
  const dnsConfig = optedInDnsConfig(stored.original, { ...options, namespace });
  if (sameConfig(template.spec.dnsConfig, dnsConfig)) return { kind: "unchanged", deployment };
  return {
    kind: "update",
    deployment,
    patch: optInPatch({ original: stored.original, nameservers: dnsConfig.nameservers }, dnsConfig),
    detail: `this server's DNS settings for it changed (selected by ${describeEntries(matching)})`,
  };
}

/** One step per Deployment selected by an entry or carrying the annotation, in input order. */
export function planWorkloads(
  deployments: readonly Deployment[],
  options: WorkloadPlanOptions,
): WorkloadStep[] {
  const steps: WorkloadStep[] = [];
  for (const deployment of deployments) {
    const step = planOne(deployment, options);
    if (step !== undefined) steps.push(step);
  }
  return steps;
}
