/**
 * The DNS wiring check of the two CoreDNS modes: does CoreDNS answer the hairpinned names with
 * the proxy? Reads the Corefile, import ConfigMap, CoreDNS Deployments and node-local-dns
 * ConfigMap, and judges them with `dns_wiring_findings.ts`.
 *
 * Effects: HTTP GET/LIST through the injected client.
 *
 * @module
 */

import { CONFIG_MAP } from "../../resources/config_map.ts";
import { DEPLOYMENT_VOLUMES } from "../../resources/deployment_volumes.ts";
import type { CorefileLocation } from "../../controller/modes/coredns/corefile_location.ts";
import type { BlockMarkers } from "../../controller/modes/markers.ts";
import type { DoctorCheck, Finding } from "../doctor_check.ts";
import {
  type ClusterReader,
  clusterReader,
  desiredHosts,
  type DnsWiringApi,
  type Hosts,
  type HostSourceSettings,
} from "./cluster_reader.ts";
import {
  corefileBlockFinding,
  DNS_WIRING_CHECK_ID,
  finding,
  importKeyFinding,
  importLineFinding,
  nodeLocalDnsFinding,
  reloadFinding,
} from "./dns_wiring_findings.ts";
import { importDirectories, mountFindings } from "./import_mount_findings.ts";

export type { DnsWiringApi } from "./cluster_reader.ts";

/** The controller's settings the check compares the cluster with. */
export interface DnsWiringSettings extends HostSourceSettings {
  readonly mode: "coredns" | "coredns-import";
  readonly coredns: CorefileLocation;
  readonly corednsImport: CorefileLocation;
  readonly markers: BlockMarkers;
  /** Ends with a dot. */
  readonly proxyFqdn: string;
  readonly nodeLocalDns: CorefileLocation & { readonly mode: "warn" | "manage" };
}

/** What the check runs against. */
export interface DnsWiringContext {
  readonly api: DnsWiringApi;
  readonly settings: DnsWiringSettings;
}

/** Options of {@linkcode dnsWiringCheck}. */
export interface DnsWiringCheckOptions {
  /** Per request. @default 10_000 */
  readonly timeoutMs?: number;
}

function getConfigMap(read: ClusterReader, subject: string, location: Omit<CorefileLocation, "key">) {
  return read.get(subject, CONFIG_MAP, { namespace: location.namespace, name: location.configmap });
}

function where(location: CorefileLocation): string {
  return `ConfigMap ${location.namespace}/${location.configmap}[${location.key}]`;
}

async function corednsFindings(
  read: ClusterReader,
  settings: DnsWiringSettings,
  hosts: Hosts,
): Promise<Finding[]> {
  const { coredns, corednsImport, mode } = settings;
  const subject = where(coredns);
  const found = await getConfigMap(read, subject, coredns);
  let corefile: string | undefined;
  const findings: Finding[] = [];
  if (found.kind === "failed") findings.push(found.finding);
  else if (found.kind === "absent") {
    findings.push(
      finding(subject, [
        "problem",
        `ConfigMap ${coredns.namespace}/${coredns.configmap} does not exist, so there is no Corefile to ` +
        (mode === "coredns" ? "edit" : "import the rules"),
        "set --coredns-namespace and --coredns-configmap to the ConfigMap that holds the CoreDNS Corefile",
      ]),
    );
  } else {
    corefile = found.value.data[coredns.key];
    if (corefile === undefined) {
      findings.push(
        finding(subject, [
          "problem",
          `the ConfigMap has no ${JSON.stringify(coredns.key)} key`,
          "set --coredns-key to the key that holds the Corefile",
        ]),
      );
    } else {
      if (mode === "coredns") {
        findings.push(
          "finding" in hosts ? hosts.finding : corefileBlockFinding(corefile, {
            subject,
            hosts: hosts.hosts,
            proxyFqdn: settings.proxyFqdn,
            markers: settings.markers,
          }),
        );
      } else {
        findings.push(importLineFinding(corefile, { subject, key: corednsImport.key }));
      }
      findings.push(reloadFinding(subject, corefile));
    }
  }
  if (mode === "coredns-import") findings.push(...await importFindings(read, settings, { hosts, corefile }));
  return findings;
}

async function importFindings(
  read: ClusterReader,
  settings: DnsWiringSettings,
  { hosts, corefile }: { readonly hosts: Hosts; readonly corefile: string | undefined },
): Promise<Finding[]> {
  const { corednsImport, coredns } = settings;
  const subject = where(corednsImport);
  const findings: Finding[] = [];
  const found = await getConfigMap(read, subject, corednsImport);
  if (found.kind === "failed") findings.push(found.finding);
  else if (found.kind === "absent") {
    findings.push(
      finding(subject, [
        "problem",
        `ConfigMap ${corednsImport.namespace}/${corednsImport.configmap} does not exist`,
        "create it (empty) where CoreDNS mounts it, or set --coredns-import-namespace and --coredns-import-configmap",
      ]),
    );
  } else if ("finding" in hosts) findings.push(hosts.finding);
  else {
    findings.push(importKeyFinding(found.value.data[corednsImport.key], {
      subject,
      hosts: hosts.hosts,
      proxyFqdn: settings.proxyFqdn,
    }));
  }
  // A pod mounts ConfigMaps of its own namespace only: CoreDNS runs where the import ConfigMap is.
  const namespace = corednsImport.namespace;
  const deployments = await read.list(`Deployments in ${namespace}`, DEPLOYMENT_VOLUMES, { namespace });
  if (deployments.kind === "failed") findings.push(deployments.finding);
  else {
    findings.push(...mountFindings(deployments.kind === "found" ? deployments.value.items : [], {
      namespace,
      configmap: corednsImport.configmap,
      key: corednsImport.key,
      ...(corefile === undefined
        ? {}
        : { directories: importDirectories(corefile, { key: corednsImport.key, corefileKey: coredns.key }) }),
    }));
  }
  return findings;
}

async function nodeLocalFindings(
  read: ClusterReader,
  settings: DnsWiringSettings,
  hosts: Hosts,
): Promise<Finding> {
  const location = settings.nodeLocalDns;
  const subject = where(location);
  const found = await getConfigMap(read, subject, location);
  if (found.kind === "failed") return found.finding;
  if (found.kind === "found" && settings.nodeLocalDns.mode === "manage" && "finding" in hosts) {
    return hosts.finding;
  }
  const corefile = found.kind === "absent" ? undefined : found.value.data[location.key] ?? null;
  return nodeLocalDnsFinding(corefile, {
    subject,
    mode: location.mode,
    hosts: "hosts" in hosts ? hosts.hosts : [],
    proxyFqdn: settings.proxyFqdn,
    markers: settings.markers,
  });
}

/** The DNS wiring check of the coredns and coredns-import modes. */
export function dnsWiringCheck(options: DnsWiringCheckOptions = {}): DoctorCheck<DnsWiringContext> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    id: DNS_WIRING_CHECK_ID,
    title: "DNS wiring (CoreDNS)",
    async run(context, signal) {
      const read = clusterReader(context.api, { signal, timeoutMs });
      const hosts = await desiredHosts(read, context.settings);
      const [dns, nodeLocal] = await Promise.all([
        corednsFindings(read, context.settings, hosts),
        nodeLocalFindings(read, context.settings, hosts),
      ]);
      return [...dns, nodeLocal];
    },
  };
}
