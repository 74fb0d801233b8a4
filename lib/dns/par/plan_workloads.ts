/**
 * The workload DNS opt-in (`--manage-workloads`), planned: which Deployments get their pod
 * template pointed at this server, which get it back, which are left alone and why.
 *
 * A Deployment is wanted when an accepted Records entry of its namespace (either forward type)
 * selects its pod template's labels, so that its pods, once rolled, are the clients the entry
 * answers. A wanted Deployment gets `dnsPolicy: None` and a `dnsConfig` that keeps what the
 * kubelet would have given it under its own policy: nameservers this server (then the template's
 * own, at most three in all), search list `<ns>.svc.<domain> svc.<domain> <domain>` then the
 * template's own searches, options `ndots:5` (or the template's own ndots) then the template's
 * other options. par dropped the search list and ndots, which broke short Service names.
 *
 * Decided:
 * - The pod template's labels are matched, not the Deployment's own: the answers select pods by
 *   their labels, and a Deployment whose pods would not match gains nothing from the patch. (par
 *   matched the Deployment's labels; most charts put the same labels on both.)
 * - Never opted in, and reported: this server's own Deployment (its pods would resolve through
 *   themselves: a loop); a template with `dnsPolicy: Default` (or `ClusterFirst` with
 *   `hostNetwork`, which the kubelet treats as `Default`): such pods resolve through the node,
 *   and cluster DNS servers themselves are among them, so pointing them here could loop; a
 *   template with `dnsPolicy: None` not written by this server: it has DNS settings of its own
 *   that a patch would lose.
 * - A Deployment carrying the annotation whose DNS settings someone changed since (see
 *   `changedByOthers`) is left alone and reported; the person who changed it owns it now.
 * - With this server's address unknown (`nameserver: ""`), nothing is opted in or updated, but
 *   restores still happen.
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

/** The pods of this DNS server: a namespace and labels its pod template carries. */
export interface SelfSelector {
  readonly namespace: string;
  /** Must not be empty (an empty selector would match every Deployment of the namespace). */
  readonly labels: Readonly<Record<string, string>>;
}

/** What the plan depends on besides the Deployments. */
export interface WorkloadPlanOptions {
  /** The accepted Records entries (`acceptRecordsEntries`). */
  readonly entries: readonly AcceptedEntry[];
  /** This server's Service ClusterIP; `""` while unknown. */
  readonly nameserver: string;
  /** `cluster.local` or the cluster's own. */
  readonly clusterDomain: string;
  /** This server's own pods, never opted in. */
  readonly self?: SelfSelector;
}

/** One Deployment's step. `patch` is a JSON merge patch for the Deployment. */
export type WorkloadStep =
  | {
    readonly kind: "opt-in" | "update" | "restore";
    readonly deployment: Deployment;
    readonly patch: JsonObject;
    /** Why, in words: the matching entries, or why it no longer matches. */
    readonly detail: string;
  }
  | { readonly kind: "unchanged"; readonly deployment: Deployment }
  | { readonly kind: "skipped"; readonly deployment: Deployment; readonly reason: string };

/** The most nameservers a pod may have (the API server refuses more). */
const MAX_NAMESERVERS = 3;

/** The `dnsConfig` an opted-in template gets, from its settings before the opt-in. */
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

/** Why a template that was never opted in must not be, or `undefined`. */
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

/**
 * One step for every Deployment that is selected by an entry or carries the annotation, in
 * `deployments` order (others are not this plan's business and are left out).
 *
 * @example
 * ```ts
 * import type { Deployment } from "../../resources/deployment.ts";
 * import type { AcceptedEntry } from "../answer/records_entries.ts";
 * import { planWorkloads } from "./plan_workloads.ts";
 *
 * declare const deployments: readonly Deployment[];
 * declare const entries: readonly AcceptedEntry[];
 * const steps = planWorkloads(deployments, { entries, nameserver: "10.96.0.53", clusterDomain: "cluster.local" });
 * steps.filter((step) => step.kind === "opt-in"); // the Deployments to patch now
 * ```
 */
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
