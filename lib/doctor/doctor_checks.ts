/**
 * Which checks `ouroboros doctor` runs, each with its context built from the controller's own
 * settings, so it judges what the controller actually does.
 * - All checks run at once, each within `--check-timeout` counted from the start (shared host
 *   reading included): the whole run takes one timeout at worst.
 * - "In the cluster" means no `--kubeconfig`: only there is an unreachable ClusterIP a problem.
 * - Unknown hosts (a 403, time) make the host checks could-not-check, never "ok, nothing to check".
 *
 * Effects: reads through the injected client; DNS and TCP through the checks' own probes.
 *
 * @module
 */

import type { KubeClient } from "../kube/client.ts";
import { lookupAddresses } from "../dns/upstream/lookup_addresses.ts";
import type { DoctorCheck, Finding } from "./doctor_check.ts";
import type { CheckReport } from "./doctor_report.ts";
import { sampleHosts } from "./host_sample.ts";
import { clusterReader, desiredHosts, type HostSourceSettings } from "./checks/cluster_reader.ts";
import { dnsWiringCheck } from "./checks/dns_wiring_check.ts";
import { etcHostsWiringCheck } from "./checks/etc_hosts_wiring_check.ts";
import { externalDnsWiringCheck } from "./checks/external_dns_wiring_check.ts";
import { healthCheck } from "./checks/health_check.ts";
import { needCheck } from "./checks/need_check.ts";
import { pathCheck } from "./checks/path_check.ts";
import { probeDirectCheck } from "./checks/probe_direct_check.ts";
import { resolutionCheck } from "./checks/resolution_check.ts";
import { serviceTargets } from "./checks/service_targets.ts";
import { SERVICE } from "../resources/service.ts";
import { blockMarkers } from "../controller/modes/markers.ts";
import { errorMessage } from "../util/error_message.ts";
import { isForbidden, isNotFound } from "../kube/errors.ts";
import { untilAborted } from "./probes/probe_deadline.ts";
import { corednsSettings, desiredSetOptions } from "../controller/controller_settings.ts";
import type { DoctorSettings, ServiceRef } from "./doctor_settings.ts";

/** The client calls the checks make: reads only. */
export type DoctorApi = Pick<KubeClient, "get" | "listAll" | "getJson" | "getText">;

/** Where the doctor runs, as far as the checks care. */
export interface DoctorEnvironment {
  /** No `--kubeconfig`: on the pod's service account. */
  readonly inCluster: boolean;
  /** /etc/resolv.conf in a pod; undefined elsewhere (a workstation's resolver is not a pod's). */
  readonly resolvConf: string | undefined;
  /** The Helm release (`OUROBOROS_INSTANCE`), for "helm test <release>" in the advice. */
  readonly release: string | undefined;
  /** For tests; resolv.conf cannot name a port. @default 53 */
  readonly resolverPort?: number;
}

/** A check's context, or the findings standing for it when the context could not be had. */
type Prepared<C> = { readonly context: C } | { readonly findings: readonly Finding[] };

/**
 * Runs one check within `timeoutMs` from the call, preparation included; running out or failing
 * is a could-not-check, and a check that ignores its signal is cut off all the same.
 */
async function runCheck<C>(
  check: DoctorCheck<C>,
  prepared: Prepared<C> | Promise<Prepared<C>>,
  timeoutMs: number,
): Promise<CheckReport> {
  const deadline = AbortSignal.timeout(timeoutMs);
  let findings: readonly Finding[];
  try {
    const ready = await untilAborted(Promise.resolve(prepared), deadline);
    findings = "findings" in ready
      ? ready.findings
      : await untilAborted(check.run(ready.context, deadline), deadline);
  } catch (error) {
    findings = [{
      check: check.id,
      subject: check.title,
      verdict: "could-not-check",
      saw: deadline.aborted
        ? `the check ran out of time (--check-timeout=${timeoutMs / 1000}s)`
        : errorMessage(error),
    }];
  }
  return { id: check.id, title: check.title, findings };
}

/** One finding standing for a whole check that does not apply here. */
function notApplicable(id: string, title: string, saw: string): CheckReport {
  return { id, title, findings: [{ check: id, subject: title, verdict: "ok", saw }] };
}

/** The proxy Service; its namespace defaults to the pod's. */
function proxyServiceRef(settings: DoctorSettings): ServiceRef | undefined {
  const { values, podNamespace } = settings.controller;
  const namespace = values.proxyServiceNamespace || podNamespace || "";
  if (namespace === "" || values.proxyServiceName === "") return undefined;
  return { namespace, name: values.proxyServiceName };
}

/** The addresses hairpinned names should resolve to in this mode, and where they come from. */
async function expectedAddresses(
  api: DoctorApi,
  settings: DoctorSettings,
  signal: AbortSignal,
): Promise<{ expected: readonly string[]; expectedFrom: string }> {
  const { controller } = settings;
  const { mode } = controller.values;
  if (mode === "external-dns" && controller.externalDns.proxyIp !== "") {
    const expected = controller.externalDns.proxyIp.split(",").map((ip) => ip.trim()).filter((ip) =>
      ip !== ""
    );
    return { expected, expectedFrom: "--external-dns-proxy-ip" };
  }
  const ref = mode === "external-dns"
    ? {
      namespace: controller.values.proxyServiceNamespace || controller.podNamespace ||
        controller.externalDns.namespace,
      name: controller.externalDns.proxyService,
    }
    : proxyServiceRef(settings);
  if (ref === undefined || ref.namespace === "") {
    return {
      expected: [],
      expectedFrom: "the proxy Service's namespace is unknown here: set --proxy-service-namespace",
    };
  }
  const where = `Service ${ref.namespace}/${ref.name}`;
  try {
    const service = await api.get(SERVICE, ref, { signal, timeoutMs: 10_000 });
    return { expected: serviceTargets(service).addresses, expectedFrom: `the ClusterIPs of ${where}` };
  } catch (error) {
    return {
      expected: [],
      expectedFrom: isForbidden(error)
        ? `RBAC does not allow get on services in namespace ${ref.namespace} (403), so the proxy's addresses are unknown`
        : isNotFound(error)
        ? `${where} does not exist`
        : `could not read ${where}: ${errorMessage(error)}`,
    };
  }
}

/** The hosts for the resolution and path checks, or why they are unknown. */
type Chosen = { readonly hosts: readonly string[]; readonly sampledFrom?: number } | {
  readonly unknown: Finding;
};

/** The hosts for the resolution and path checks: `--host`, else the desired set, sampled. */
async function chosenHosts(api: DoctorApi, settings: DoctorSettings, signal: AbortSignal): Promise<Chosen> {
  const given = settings.values.host.filter((host) => host !== "");
  let names: readonly string[] = given;
  if (given.length === 0) {
    const desired = await desiredHosts(
      clusterReader(api, { signal, timeoutMs: 10_000 }),
      hostSources(settings),
    );
    if ("finding" in desired) return { unknown: desired.finding };
    names = desired.hosts;
  }
  const sample = sampleHosts(names, settings.values.hostLimit);
  return sample.hosts.length < sample.total
    ? { hosts: sample.hosts, sampledFrom: sample.total }
    : { hosts: sample.hosts };
}

/** The findings standing for a hosts-based check when the hosts are unknown. */
function hostsUnknown(id: string, unknown: Finding): Prepared<never> {
  return {
    findings: [{
      check: id,
      subject: "hairpinned hostnames",
      verdict: "could-not-check",
      saw: `the hostnames to check are unknown: ${unknown.saw}`,
      todo: unknown.todo ?? "name them with --host",
    }],
  };
}

function hostSources(settings: DoctorSettings): HostSourceSettings {
  const { controller } = settings;
  return {
    desired: desiredSetOptions(controller),
    gatewayApi: controller.values.gatewayApi,
    gatewayRouteKinds: controller.values.gatewayRouteKinds,
  };
}

/** Check 3 for the configured mode. */
function wiringReport(api: DoctorApi, settings: DoctorSettings, timeoutMs: number): Promise<CheckReport> {
  const { controller } = settings;
  const { mode } = controller.values;
  const sources = hostSources(settings);
  if (mode === "coredns" || mode === "coredns-import") {
    const coredns = corednsSettings(controller);
    return runCheck(dnsWiringCheck(), {
      context: {
        api,
        settings: {
          mode,
          coredns: coredns.coredns,
          corednsImport: coredns.corednsImport,
          markers: coredns.markers,
          proxyFqdn: coredns.proxyFqdn,
          nodeLocalDns: coredns.nodeLocalDns,
          ...sources,
        },
      },
    }, timeoutMs);
  }
  if (mode === "external-dns") {
    const externalDns = {
      ...controller.externalDns,
      proxyServiceNamespace: controller.values.proxyServiceNamespace,
    };
    return runCheck(externalDnsWiringCheck(), {
      context: { api, settings: { externalDns, podNamespace: controller.podNamespace, ...sources } },
    }, timeoutMs);
  }
  return runCheck(etcHostsWiringCheck(), {
    context: {
      api,
      settings: {
        path: controller.values.etcHosts,
        proxyIp: controller.values.proxyIp,
        markers: blockMarkers(controller.values.markerId),
        ...sources,
      },
    },
  }, timeoutMs);
}

/** Where the controller records Events: its own namespace and the namespaces of what it writes. */
function eventNamespaces(settings: DoctorSettings, own: string): string[] {
  const { controller } = settings;
  const namespaces = [own];
  const { mode } = controller.values;
  if (mode === "coredns" || mode === "coredns-import") {
    namespaces.push(controller.coredns.namespace);
    if (controller.values.nodeLocalDns === "manage") namespaces.push(controller.values.nodeLocalDnsNamespace);
  }
  if (mode === "coredns-import") namespaces.push(controller.corednsImport.namespace);
  if (mode === "external-dns") namespaces.push(controller.externalDns.namespace);
  return [...new Set(namespaces.filter((namespace) => namespace !== ""))];
}

/** Check 6, or why it cannot run (the proxy Service's namespace unknown). */
function healthReport(
  api: DoctorApi,
  settings: DoctorSettings,
  environment: DoctorEnvironment,
): Promise<CheckReport> {
  const check = healthCheck();
  const proxyService = proxyServiceRef(settings);
  if (proxyService === undefined) {
    return Promise.resolve({
      id: check.id,
      title: check.title,
      findings: [{
        check: check.id,
        subject: "ouroboros's pods",
        verdict: "could-not-check",
        saw: "the namespace ouroboros runs in is unknown here",
        todo: "set --proxy-service-namespace (and --proxy-service-name) to the proxy Service",
      }],
    });
  }
  const { values, controller } = settings;
  const reach = values.reach === "auto" ? (environment.inCluster ? "direct" : "apiserver") : values.reach;
  const election = controller.election;
  return runCheck(check, {
    context: {
      api,
      reach,
      proxyService,
      controller: {
        namespace: proxyService.namespace,
        selector: values.controllerSelector,
        resyncMs: values.resync,
      },
      ...(election.kind === "on"
        ? { leaderElection: { namespace: election.lease.namespace, name: election.lease.name } }
        : {}),
      eventNamespaces: eventNamespaces(settings, proxyService.namespace),
    },
  }, values.checkTimeout);
}

/** Runs every check; reports in order need, probe-direct, DNS wiring, resolution, path, health. */
export async function runDoctorChecks(
  settings: DoctorSettings,
  options: { readonly api: DoctorApi; readonly environment: DoctorEnvironment },
): Promise<CheckReport[]> {
  const { api, environment } = options;
  const { values } = settings;
  const timeoutMs = values.checkTimeout;
  const { inCluster } = environment;
  // Read once for the checks that use them, against the same --check-timeout.
  const prepare = AbortSignal.timeout(timeoutMs);
  const chosen = chosenHosts(api, settings, prepare).catch((error: unknown): Chosen => ({
    unknown: {
      check: "hosts",
      subject: "hairpinned hostnames",
      verdict: "could-not-check",
      saw: prepare.aborted ? "reading the Ingresses ran out of time" : errorMessage(error),
    },
  }));
  const expected = expectedAddresses(api, settings, prepare);
  const proxyService = proxyServiceRef(settings);
  const routes = settings.controller.routes;
  const etcHosts = settings.controller.values.mode === "etc-hosts";
  const resolution = resolutionCheck();
  const path = pathCheck({ routes: routes !== undefined });
  const runs: Promise<CheckReport>[] = [
    runCheck(needCheck(), {
      context: {
        api,
        ingressService: settings.ingressService,
        gatewayApi: settings.controller.values.gatewayApi,
      },
    }, timeoutMs),
    ...(values.probeDirect
      ? [runCheck(
        probeDirectCheck(),
        chosen.then((hosts) => ({
          context: {
            api,
            ingressService: settings.ingressService,
            inCluster,
            gatewayApi: settings.controller.values.gatewayApi,
            ...("hosts" in hosts && hosts.hosts[0] !== undefined ? { host: hosts.hosts[0] } : {}),
          },
        })),
        timeoutMs,
      )]
      : []),
    wiringReport(api, settings, timeoutMs),
    etcHosts
      ? Promise.resolve(notApplicable(
        resolution.id,
        resolution.title,
        "not applicable in etc-hosts mode: pods resolve through the cluster DNS, not the node's hosts file " +
          "(the DNS wiring check compares that file)",
      ))
      : runCheck(
        resolution,
        Promise.all([chosen, expected]).then(([hosts, addresses]) =>
          "unknown" in hosts ? hostsUnknown(resolution.id, hosts.unknown) : {
            context: {
              api,
              lookup: lookupAddresses,
              ...hosts,
              ...addresses,
              resolvConf: environment.resolvConf,
              ...(environment.resolverPort === undefined ? {} : { resolverPort: environment.resolverPort }),
              clusterDnsService: settings.clusterDnsService,
              inCluster,
              ...(environment.release === undefined ? {} : { release: environment.release }),
            },
          }
        ),
        timeoutMs,
      ),
    runCheck(
      path,
      chosen.then((hosts) =>
        "unknown" in hosts ? hostsUnknown(path.id, hosts.unknown) : {
          context: {
            api,
            ...(proxyService === undefined ? {} : { proxyService }),
            ...hosts,
            inCluster,
            ...(routes === undefined ? {} : { routes }),
          },
        }
      ),
      timeoutMs,
    ),
    healthReport(api, settings, environment),
  ];
  return await Promise.all(runs);
}
