/**
 * The DNS wiring check of external-dns mode: does every wanted hostname have its record, pointing
 * at the proxy's current addresses, and has external-dns consumed it? A DNSEndpoint list answered
 * 404 means the CRD is missing: a problem.
 *
 * Effects: HTTP GET/LIST through the injected client.
 *
 * @module
 */

import { DNS_ENDPOINT } from "../../resources/dns_endpoint.ts";
import { SERVICE } from "../../resources/service.ts";
import type { ExternalDnsModeSettings } from "../../controller/modes/external_dns/external_dns_mode.ts";
import {
  observeDnsEndpoint,
  type ObservedRecord,
  observeService,
} from "../../controller/modes/external_dns/observed_record.ts";
import { ownershipSelector } from "../../controller/modes/external_dns/ownership.ts";
import {
  targetsFromAddresses,
  targetsFromService,
  type TargetsResult,
} from "../../controller/modes/external_dns/targets.ts";
import type { DoctorCheck, Finding } from "../doctor_check.ts";
import {
  type ClusterReader,
  clusterReader,
  desiredHosts,
  type DnsWiringApi,
  type HostSourceSettings,
  type Listed,
  type Read,
} from "./cluster_reader.ts";
import { DNS_WIRING_CHECK_ID, finding } from "./dns_wiring_findings.ts";
import { consumptionFinding, recordFindings, recordsSubject } from "./external_dns_wiring_findings.ts";

/** The controller's settings the check compares the cluster with. */
export interface ExternalDnsWiringSettings extends HostSourceSettings {
  /** With `--proxy-service-namespace`, as the controller passes them. */
  readonly externalDns: ExternalDnsModeSettings;
  /** The proxy Service's fallback namespace. */
  readonly podNamespace: string | undefined;
}

/** What the check runs against. */
export interface ExternalDnsWiringContext {
  readonly api: DnsWiringApi;
  readonly settings: ExternalDnsWiringSettings;
}

/** Options of {@linkcode externalDnsWiringCheck}. */
export interface ExternalDnsWiringCheckOptions {
  /** Per request. @default 10_000 */
  readonly timeoutMs?: number;
  /** Wall time, compared with the DNSEndpoints' `creationTimestamp`. @default () => new Date() */
  readonly now?: () => Date;
}

/**
 * Where the records point now, or why that is unknown; the proxy Service is looked up where the
 * controller looks.
 */
async function currentTargets(
  read: ClusterReader,
  settings: ExternalDnsWiringSettings,
): Promise<TargetsResult | Finding> {
  const { externalDns } = settings;
  if (externalDns.proxyIp !== "") {
    return targetsFromAddresses([externalDns.proxyIp], "--external-dns-proxy-ip");
  }
  const ref = {
    namespace: externalDns.proxyServiceNamespace || settings.podNamespace || externalDns.namespace,
    name: externalDns.proxyService,
  };
  const subject = `Service ${ref.namespace}/${ref.name}`;
  const found = await read.get(subject, SERVICE, ref);
  if (found.kind === "failed") return found.finding;
  if (found.kind === "found") return targetsFromService(found.value);
  return finding(subject, [
    "problem",
    `the proxy Service ${ref.namespace}/${ref.name} does not exist, so the records have no address to point at`,
    "check --external-dns-proxy-service and --proxy-service-namespace, or set --external-dns-proxy-ip; the " +
    "controller writes no record until then",
  ]);
}

/** This release's records of the active kind, observed as the controller observes them. */
async function ownedRecords(
  read: ClusterReader,
  settings: ExternalDnsModeSettings,
): Promise<Read<Listed<ObservedRecord>>> {
  const subject = recordsSubject(settings);
  const scope = { namespace: settings.namespace, labelSelector: ownershipSelector(settings.instance) };
  if (settings.output === "crd") {
    const listed = await read.list(subject, DNS_ENDPOINT, scope);
    return listed.kind === "found"
      ? { kind: "found", value: { ...listed.value, items: listed.value.items.map(observeDnsEndpoint) } }
      : listed;
  }
  const listed = await read.list(subject, SERVICE, scope);
  return listed.kind === "found"
    ? {
      kind: "found",
      value: {
        ...listed.value,
        items: listed.value.items.map((service) => observeService(service, settings.annotationPrefix)),
      },
    }
    : listed;
}

/** The DNS wiring check of external-dns mode. */
export function externalDnsWiringCheck(
  options: ExternalDnsWiringCheckOptions = {},
): DoctorCheck<ExternalDnsWiringContext> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const now = options.now ?? (() => new Date());
  return {
    id: DNS_WIRING_CHECK_ID,
    title: "DNS wiring (external-dns)",
    async run(context, signal) {
      const { settings } = context;
      const records = settings.externalDns;
      const read = clusterReader(context.api, { signal, timeoutMs });
      const [hosts, targets, listed] = await Promise.all([
        desiredHosts(read, settings),
        currentTargets(read, settings),
        ownedRecords(read, records),
      ]);
      const findings: Finding[] = [];
      if ("finding" in hosts) findings.push(hosts.finding);
      if ("check" in targets) findings.push(targets);
      if (listed.kind === "failed") findings.push(listed.finding);
      if (listed.kind === "absent") {
        findings.push(finding(recordsSubject(records), [
          "problem",
          "the DNSEndpoint CRD (externaldns.k8s.io/v1alpha1) is not installed: the controller cannot write " +
          "records and external-dns' CRD source has none to read",
          "install external-dns' DNSEndpoint CRD, or use --external-dns-output=service",
        ]));
      }
      if (listed.kind !== "found") return findings;
      const { items: owned, rejected: unreadable } = listed.value;
      if (!("finding" in hosts) && !("check" in targets)) {
        findings.push(...recordFindings({
          settings: records,
          hosts: hosts.hosts,
          sources: hosts.sources,
          targets,
          owned,
          unreadable,
        }));
      }
      const consumed = consumptionFinding({ settings: records, owned, nowMs: now().getTime() });
      if (consumed !== undefined) findings.push(consumed);
      return findings;
    },
  };
}
