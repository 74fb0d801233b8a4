/**
 * Check 6, the health of our own parts: proxy and controller pods (`/readyz`, `/metrics`), recent
 * Warning Events, and the leader Lease. The four parts are read at once and each catches its own
 * failures, so one refused read leaves the others' findings.
 *
 * Effects: GET/LIST through the injected client; HTTP to the pods.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { isForbidden, isNotFound } from "../../kube/errors.ts";
import { LEASE, type Lease } from "../../resources/lease.ts";
import { POD_HEALTH, type PodHealth } from "../../resources/pod_health.ts";
import { SERVICE } from "../../resources/service.ts";
import { TIMED_EVENT, type TimedEvent } from "../../resources/timed_event.ts";
import { errorMessage } from "../../util/error_message.ts";
import type { DoctorCheck, Finding } from "../doctor_check.ts";
import { apiserverPodHttp, directPodHttp, type PodHttp } from "../probes/pod_http.ts";
import { controllerPodFinding, HEALTH_CHECK_ID, healthFinding, proxyPodFinding } from "./health_findings.ts";
import { leaderFinding } from "./leader_finding.ts";
import { warningEventFindings } from "./warning_event_findings.ts";

/** The reads the check makes. */
export type HealthApi = Pick<KubeClient, "get" | "listAll" | "getText">;

/** What the check runs against. */
export interface HealthContext {
  readonly api: HealthApi;
  /** `--reach`, with `auto` resolved. */
  readonly reach: "direct" | "apiserver";
  readonly proxyService: { readonly namespace: string; readonly name: string };
  readonly controller: { readonly namespace: string; readonly selector: string; readonly resyncMs: number };
  /** Only with `--leader-elect`. */
  readonly leaderElection?: { readonly namespace: string; readonly name: string };
  /** Its own namespace and those of what it writes. */
  readonly eventNamespaces: readonly string[];
}

/** Options of {@linkcode healthCheck}. */
export interface HealthCheckOptions {
  /** Per request. @default 5_000 */
  readonly timeoutMs?: number;
  /** Wall-clock time, Unix milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** The chart's health ports, when a pod names no port `health`. */
const PROXY_HEALTH_PORT = 8081;
const CONTROLLER_HEALTH_PORT = 8082;

function healthPort(pod: PodHealth, fallback: number): number {
  return pod.ports.find((port) => port.name === "health")?.containerPort ?? fallback;
}

function failed(subject: string, error: unknown, what: string, signal: AbortSignal): Finding {
  if (signal.aborted) {
    return healthFinding(subject, [
      "could-not-check",
      `ran out of time (--check-timeout) while trying to ${what}`,
    ]);
  }
  if (isForbidden(error)) {
    return healthFinding(subject, [
      "could-not-check",
      `not allowed to ${what} (403)`,
      "grant it to the doctor's user (the chart's doctor Role has it)",
    ]);
  }
  return healthFinding(subject, ["could-not-check", `could not ${what}: ${errorMessage(error)}`]);
}

async function proxyFindings(context: HealthContext, http: PodHttp, now: number, signal: AbortSignal) {
  const { api, proxyService: { namespace, name } } = context;
  const subject = `proxy Service ${namespace}/${name}`;
  let selector: string;
  try {
    const service = await api.get(SERVICE, { namespace, name }, { signal });
    selector = Object.entries(service.spec.selector).map(([key, value]) => `${key}=${value}`).join(",");
  } catch (error) {
    if (!isNotFound(error)) return [failed(subject, error, `get services in ${namespace}`, signal)];
    return [healthFinding(subject, [
      "problem",
      "the proxy Service does not exist, so DNS points hairpinned names at nothing",
      "install the proxy (the chart does), or set --proxy-service-namespace and --proxy-service-name",
    ])];
  }
  if (selector === "") {
    return [healthFinding(subject, ["problem", "the Service has no selector, so no proxy pod serves it"])];
  }
  let pods: readonly PodHealth[];
  try {
    pods = (await api.listAll(POD_HEALTH, { namespace, labelSelector: selector, signal })).items;
  } catch (error) {
    return [failed(subject, error, `list pods in ${namespace}`, signal)];
  }
  if (pods.length === 0) {
    return [healthFinding(subject, [
      "problem",
      `no pod matches its selector ${selector}, so hairpinned connections are refused`,
      `kubectl get deployment,pods -n ${namespace} -l ${selector}`,
    ])];
  }
  return await Promise.all(
    pods.map((pod) =>
      perPod(`proxy Pod ${namespace}/${pod.metadata.name}`, async () => {
        const port = healthPort(pod, PROXY_HEALTH_PORT);
        const endpoint = { namespace, name: pod.metadata.name, port, ...ip(pod) };
        const readyz = await http.get(endpoint, "/readyz", signal);
        return proxyPodFinding({ pod, port, readyz }, { now });
      })
    ),
  );
}

/** One pod's finding; a failed read is that pod's could-not-check, not the whole check's. */
async function perPod(subject: string, read: () => Promise<Finding>): Promise<Finding> {
  try {
    return await read();
  } catch (error) {
    return healthFinding(subject, [
      "could-not-check",
      `could not read its health endpoint: ${errorMessage(error)}`,
    ]);
  }
}

function ip(pod: PodHealth): { ip?: string } {
  return pod.status.podIP === undefined ? {} : { ip: pod.status.podIP };
}

async function controllerFindings(
  context: HealthContext,
  http: PodHttp,
  now: number,
  signal: AbortSignal,
): Promise<{ findings: Finding[]; pods: string[] | undefined }> {
  const { api, controller: { namespace, selector, resyncMs } } = context;
  const subject = `controller pods ${selector} in ${namespace}`;
  let pods: readonly PodHealth[];
  try {
    pods = (await api.listAll(POD_HEALTH, { namespace, labelSelector: selector, signal })).items;
  } catch (error) {
    return { findings: [failed(subject, error, `list pods in ${namespace}`, signal)], pods: undefined };
  }
  if (pods.length === 0) {
    return {
      findings: [healthFinding(subject, [
        "problem",
        "no controller pod found: nothing keeps DNS pointed at the proxy",
        `kubectl get pods -n ${namespace} -l ${selector}; if the controller runs elsewhere, set --controller-selector ` +
        "(its namespace is the proxy Service's, or POD_NAMESPACE)",
      ])],
      pods: [],
    };
  }
  const findings = await Promise.all(
    pods.map((pod) =>
      perPod(`controller Pod ${namespace}/${pod.metadata.name}`, async () => {
        const port = healthPort(pod, CONTROLLER_HEALTH_PORT);
        const endpoint = { namespace, name: pod.metadata.name, port, ...ip(pod) };
        const [readyz, metrics] = await Promise.all([
          http.get(endpoint, "/readyz", signal),
          http.get(endpoint, "/metrics", signal),
        ]);
        return controllerPodFinding({ pod, port, readyz, metrics }, { now, resyncMs });
      })
    ),
  );
  return { findings, pods: pods.map((pod) => pod.metadata.name) };
}

async function eventFindings(context: HealthContext, now: number, signal: AbortSignal): Promise<Finding[]> {
  const namespaces = [...new Set(context.eventNamespaces)];
  const events: TimedEvent[] = [];
  const refused: Finding[] = [];
  const read: string[] = [];
  await Promise.all(namespaces.map(async (namespace) => {
    try {
      events.push(...(await context.api.listAll(TIMED_EVENT, { namespace, signal })).items);
      read.push(namespace);
    } catch (error) {
      refused.push(failed(`Events in ${namespace}`, error, `list events in ${namespace}`, signal));
    }
  }));
  return [
    ...(read.length === 0 ? [] : warningEventFindings({ events, namespaces: read.sort(), now })),
    ...refused,
  ];
}

async function readLease(
  api: HealthApi,
  lease: { readonly namespace: string; readonly name: string },
  signal: AbortSignal,
): Promise<Lease | undefined> {
  try {
    return await api.get(LEASE, lease, { signal });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Check 6, the health of our parts. */
export function healthCheck(options: HealthCheckOptions = {}): DoctorCheck<HealthContext> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const clock = options.now ?? Date.now;
  return {
    id: HEALTH_CHECK_ID,
    title: "Health of our parts (proxy and controller readiness, reconciles, Events, leader)",
    async run(context, signal) {
      const now = clock();
      const http = context.reach === "direct"
        ? directPodHttp({ timeoutMs })
        : apiserverPodHttp(context.api, { timeoutMs });
      const guard = async (subject: string, what: string, read: () => Promise<Finding[]>) => {
        try {
          return await read();
        } catch (error) {
          return [failed(subject, error, what, signal)];
        }
      };
      const election = context.leaderElection;
      const [proxy, controller, events, leader] = await Promise.all([
        guard("proxy pods", "read the proxy pods", () => proxyFindings(context, http, now, signal)),
        controllerFindings(context, http, now, signal).catch((error: unknown) => ({
          findings: [failed("controller pods", error, "read the controller pods", signal)],
          pods: undefined,
        })),
        guard("Events", "list events", () => eventFindings(context, now, signal)),
        election === undefined ? undefined : readLease(context.api, election, signal).then(
          (found) => ({ found }),
          (error: unknown) => ({ error }),
        ),
      ]);
      const findings = [...proxy, ...controller.findings, ...events];
      if (election !== undefined && leader !== undefined) {
        const subject = `Lease ${election.namespace}/${election.name}`;
        if ("error" in leader) {
          findings.push(
            failed(subject, leader.error, `get leases.coordination.k8s.io in ${election.namespace}`, signal),
          );
        } else {
          findings.push(leaderFinding({ lease: election, found: leader.found, pods: controller.pods, now }));
        }
      }
      return findings;
    },
  };
}
