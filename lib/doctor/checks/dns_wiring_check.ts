/**
 * `ouroboros doctor`'s DNS wiring check for the two CoreDNS modes: does CoreDNS actually answer
 * the hairpinned names with the proxy? It reads (never writes) the Corefile, the import
 * ConfigMap and the CoreDNS Deployments (coredns-import mode), the node-local-dns ConfigMap, and
 * the Ingresses (and Gateway API objects) the desired set comes from, then judges them with the
 * pure `dns_wiring_findings.ts`.
 *
 * Decisions:
 * - A 403 is `could-not-check` naming the verb, resource and namespace that RBAC refused; other
 *   read failures (timeouts, 5xx) are `could-not-check` with the error. A missing Corefile
 *   ConfigMap is a problem in both modes: coredns-import mode needs its import line too.
 * - The desired set is computed as the controller computes it (`desiredHostnames`, same
 *   options). A Gateway API route kind whose CRD is not installed (404) holds nothing, as in the
 *   controller; TLSRoute is read at the first served version of v1, v1alpha3, v1alpha2.
 * - The CoreDNS Deployment is found by what it mounts: every Deployment in the Corefile's
 *   namespace with a volume of the import ConfigMap.
 *
 * Effects: HTTP GET/LIST through the injected client.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { isForbidden, isNotFound } from "../../kube/errors.ts";
import { desiredHostnames, type DesiredSetOptions } from "../../hostnames/desired_set.ts";
import { CONFIG_MAP, type ConfigMap } from "../../resources/config_map.ts";
import { DEPLOYMENT_VOLUMES } from "../../resources/deployment_volumes.ts";
import { GATEWAY } from "../../resources/gateway.ts";
import { GRPC_ROUTE } from "../../resources/grpc_route.ts";
import { HTTP_ROUTE } from "../../resources/http_route.ts";
import { INGRESS } from "../../resources/ingress.ts";
import type { KubeObject } from "../../resources/kube_object.ts";
import type { ResourceType } from "../../resources/resource_type.ts";
import { TLS_ROUTE_VERSIONS, type TlsRoute } from "../../resources/tls_route.ts";
import type { CorefileLocation } from "../../sinks/coredns/corefile_location.ts";
import type { BlockMarkers } from "../../sinks/markers.ts";
import { errorMessage } from "../../util/error_message.ts";
import type { GatewayRouteKind } from "../../hostnames/sources.ts";
import type { DoctorCheck, Finding } from "../doctor_check.ts";
import {
  corefileBlockFinding,
  DNS_WIRING_CHECK_ID,
  finding,
  importKeyFinding,
  importLineFinding,
  mountFindings,
  nodeLocalDnsFinding,
  reloadFinding,
} from "./dns_wiring_findings.ts";

/** The reads the check makes. */
export type DnsWiringApi = Pick<KubeClient, "get" | "listAll">;

/** The controller's settings the check compares the cluster with. */
export interface DnsWiringSettings {
  readonly mode: "coredns" | "coredns-import";
  /** `--coredns-namespace/-configmap/-key`. */
  readonly coredns: CorefileLocation;
  /** `--coredns-import-namespace/-configmap/-key`. */
  readonly corednsImport: CorefileLocation;
  /** `--marker-id`'s markers. */
  readonly markers: BlockMarkers;
  /** `--proxy-fqdn`, ending with a dot. */
  readonly proxyFqdn: string;
  /** The node-local-dns ConfigMap and `--node-local-dns`. */
  readonly nodeLocalDns: CorefileLocation & { readonly mode: "warn" | "manage" };
  /** The desired set's options, as the controller passes them (cluster domain, filters, wildcards). */
  readonly desired: DesiredSetOptions;
  /** `--gateway-api`. */
  readonly gatewayApi: boolean;
  /** `--gateway-route-kinds`. @default every kind */
  readonly gatewayRouteKinds?: readonly GatewayRouteKind[];
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

type Read<T> =
  | { readonly kind: "found"; readonly value: T }
  | { readonly kind: "absent" }
  | { readonly kind: "failed"; readonly finding: Finding };

/** The desired hostnames, or the finding that says why they could not be computed. */
type Hosts = { readonly hosts: readonly string[] } | { readonly finding: Finding };

interface Reader {
  get(subject: string, location: Omit<CorefileLocation, "key">): Promise<Read<ConfigMap>>;
  list<T extends KubeObject>(subject: string, type: ResourceType<T>, namespace?: string): Promise<Read<T[]>>;
}

function reader(api: DnsWiringApi, signal: AbortSignal, timeoutMs: number): Reader {
  const failed = (subject: string, error: unknown, verb: string, what: string): Read<never> => {
    signal.throwIfAborted();
    if (isNotFound(error)) return { kind: "absent" };
    return {
      kind: "failed",
      finding: isForbidden(error)
        ? finding(subject, [
          "could-not-check",
          `RBAC does not allow ${verb} on ${what} (403)`,
          `run doctor as a user allowed to ${verb} ${what}`,
        ])
        : finding(subject, ["could-not-check", `could not ${verb} ${what}: ${errorMessage(error)}`]),
    };
  };
  return {
    async get(subject, { namespace, configmap }) {
      try {
        const value = await api.get(CONFIG_MAP, { namespace, name: configmap }, { signal, timeoutMs });
        return { kind: "found", value };
      } catch (error) {
        return failed(subject, error, "get", `configmaps in namespace ${namespace}`);
      }
    },
    async list(subject, type, namespace) {
      const where = namespace === undefined ? "in all namespaces" : `in namespace ${namespace}`;
      try {
        const page = await api.listAll(type, {
          ...(namespace === undefined ? {} : { namespace }),
          signal,
          timeoutMs,
        });
        return { kind: "found", value: [...page.items] };
      } catch (error) {
        return failed(subject, error, "list", `${type.plural}.${type.group || "core"} ${where}`);
      }
    },
  };
}

/** Lists what the desired set comes from and computes it as the controller does. */
async function desiredHosts(read: Reader, settings: DnsWiringSettings): Promise<Hosts> {
  const subject = "desired hostnames";
  let failure: Finding | undefined;
  const items = <T>(result: Read<T[]>): T[] => {
    if (result.kind === "found") return result.value;
    if (result.kind === "failed") failure ??= result.finding;
    return [];
  };
  const ingresses = items(await read.list(subject, INGRESS));
  const kinds = settings.gatewayRouteKinds ?? ["HTTPRoute", "GRPCRoute", "TLSRoute"];
  const gatewayApi = settings.gatewayApi;
  const gateways = gatewayApi ? items(await read.list(subject, GATEWAY)) : [];
  const routes = gatewayApi && kinds.includes("HTTPRoute") ? items(await read.list(subject, HTTP_ROUTE)) : [];
  const grpcRoutes = gatewayApi && kinds.includes("GRPCRoute")
    ? items(await read.list(subject, GRPC_ROUTE))
    : [];
  let tlsRoutes: TlsRoute[] = [];
  if (gatewayApi && kinds.includes("TLSRoute")) {
    for (const type of TLS_ROUTE_VERSIONS) {
      const result = await read.list(subject, type);
      if (result.kind === "absent") continue;
      tlsRoutes = items(result);
      break;
    }
  }
  if (failure !== undefined) return { finding: failure };
  const desired = desiredHostnames({ ingresses, gateways, routes, grpcRoutes, tlsRoutes }, settings.desired);
  return { hosts: desired.hosts };
}

function where(location: CorefileLocation): string {
  return `ConfigMap ${location.namespace}/${location.configmap}[${location.key}]`;
}

async function corednsFindings(read: Reader, settings: DnsWiringSettings, hosts: Hosts): Promise<Finding[]> {
  const { coredns, corednsImport, mode } = settings;
  const subject = where(coredns);
  const found = await read.get(subject, coredns);
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
    const corefile = found.value.data[coredns.key];
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
  if (mode === "coredns-import") findings.push(...await importFindings(read, settings, hosts));
  return findings;
}

async function importFindings(read: Reader, settings: DnsWiringSettings, hosts: Hosts): Promise<Finding[]> {
  const { corednsImport, coredns } = settings;
  const subject = where(corednsImport);
  const findings: Finding[] = [];
  const found = await read.get(subject, corednsImport);
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
  const namespace = coredns.namespace;
  const deployments = await read.list(`Deployments in ${namespace}`, DEPLOYMENT_VOLUMES, namespace);
  if (deployments.kind === "failed") findings.push(deployments.finding);
  else {
    findings.push(...mountFindings(deployments.kind === "found" ? deployments.value : [], {
      namespace,
      configmap: corednsImport.configmap,
      key: corednsImport.key,
    }));
  }
  return findings;
}

async function nodeLocalFindings(read: Reader, settings: DnsWiringSettings, hosts: Hosts): Promise<Finding> {
  const location = settings.nodeLocalDns;
  const subject = where(location);
  const found = await read.get(subject, location);
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

/**
 * The DNS wiring check of the coredns and coredns-import modes.
 *
 * @example
 * ```ts
 * import { DEFAULT_MARKERS } from "../../sinks/markers.ts";
 * import { type DnsWiringApi, dnsWiringCheck } from "./dns_wiring_check.ts";
 *
 * declare const api: DnsWiringApi;
 * declare const signal: AbortSignal;
 * const findings = await dnsWiringCheck().run({
 *   api,
 *   settings: {
 *     mode: "coredns",
 *     coredns: { namespace: "kube-system", configmap: "coredns", key: "Corefile" },
 *     corednsImport: { namespace: "kube-system", configmap: "coredns-custom", key: "ouroboros.override" },
 *     markers: DEFAULT_MARKERS,
 *     proxyFqdn: "ouroboros-proxy.ouroboros.svc.cluster.local.",
 *     nodeLocalDns: { namespace: "kube-system", configmap: "node-local-dns", key: "Corefile", mode: "warn" },
 *     desired: { clusterDomain: "cluster.local" },
 *     gatewayApi: false,
 *   },
 * }, signal);
 * findings.every((finding) => finding.check === "dns-wiring"); // true
 * ```
 */
export function dnsWiringCheck(options: DnsWiringCheckOptions = {}): DoctorCheck<DnsWiringContext> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    id: DNS_WIRING_CHECK_ID,
    title: "DNS wiring (CoreDNS)",
    async run(context, signal) {
      const read = reader(context.api, signal, timeoutMs);
      const hosts = await desiredHosts(read, context.settings);
      const [dns, nodeLocal] = await Promise.all([
        corednsFindings(read, context.settings, hosts),
        nodeLocalFindings(read, context.settings, hosts),
      ]);
      return [...dns, nodeLocal];
    },
  };
}
