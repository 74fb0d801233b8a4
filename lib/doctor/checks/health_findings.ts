/**
 * The health check's judgements, one finding per pod.
 * - `/readyz` decides; when unreadable, the kubelet's `Ready` condition (same probe) does.
 * - Controller readiness latches, so `/metrics` is read too: a leader whose last success is older
 *   than twice `--resync` is a problem.
 * - Cause tokens and metric names are restated from `lib/proxy` and `lib/controller` (the doctor
 *   may not import them); a test holds both sides equal.
 *
 * Pure: no I/O; the time is passed in.
 *
 * @module
 */

import type { ContainerHealth, PodHealth } from "../../resources/pod_health.ts";
import { type Finding, type Verdict, VERDICTS } from "../doctor_check.ts";
import type { PodHttpAnswer } from "../probes/pod_http.ts";

/** The check's id. */
export const HEALTH_CHECK_ID = "health";

/** What to do per cause token of the proxy's `/readyz` (`lib/proxy/dial_cause.ts`). */
export const PROXY_CAUSE_TODO: Readonly<Record<string, string>> = {
  "connection-refused": "nothing listens where --backend points: check that --backend names the ingress " +
    "controller's Service and its HTTP port, and that the Service has ready endpoints",
  "dns-nxdomain": "the backend name in --backend does not resolve: check the Service's name and namespace " +
    "(<name>.<namespace>.svc.<cluster domain>)",
  "dns-timeout": "the cluster DNS did not answer the proxy in time: check the CoreDNS pods, and that no " +
    "NetworkPolicy blocks the proxy's egress to kube-dns on port 53",
  "dns-error": "resolving the backend failed: check the cluster DNS and the proxy pod's /etc/resolv.conf",
  timeout: "connecting to the backend timed out: a NetworkPolicy probably drops the proxy's traffic; allow " +
    "egress from the proxy pods to the ingress controller's pods on its HTTP and HTTPS ports",
  unreachable: "there is no route to the backend: check that the ingress Service has endpoints and that " +
    "the pod network works between nodes",
};

/** The controller's metric names read here (`lib/controller/metrics.ts`). */
export const CONTROLLER_METRICS = {
  lastSuccess: "ouroboros_controller_last_successful_reconcile_timestamp_seconds",
  reconciles: "ouroboros_controller_reconciles_total",
  leader: "ouroboros_leader",
} as const;

/** The controller's own words (`lib/controller/readiness.ts`) for a fresh start. */
const NO_RECONCILE_YET = "no reconcile has finished yet";

/** One piece of a pod's verdict; a pod's finding folds them. */
type Part = readonly [Verdict, string, (string | undefined)?];

/** A finding of this check. */
export function healthFinding(subject: string, [verdict, saw, todo]: Part): Finding {
  return { check: HEALTH_CHECK_ID, subject, verdict, saw, ...(todo === undefined ? {} : { todo }) };
}

/** The worst verdict decides; the todo is the first worst part's. */
function fold(subject: string, parts: readonly Part[]): Finding {
  const rank = (verdict: Verdict) => VERDICTS.indexOf(verdict);
  const worst = parts.reduce((a, b) => rank(b[0]) > rank(a[0]) ? b : a);
  const todo = parts.find((part) => part[0] === worst[0] && part[2] !== undefined)?.[2];
  return healthFinding(subject, [worst[0], parts.map((part) => part[1]).join("; "), todo]);
}

/** A duration in the largest unit that keeps it readable: `45s`, `3m`, `5h`, `2d`. */
export function ago(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 90) return `${seconds}s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)}m`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}

/**
 * The cause token and error of a proxy's `/readyz` 503 body.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readyzCause } from "./health_findings.ts";
 *
 * assert.deepEqual(readyzCause("backend unreachable (dns-nxdomain): failed to lookup address information\n"), {
 *   cause: "dns-nxdomain",
 *   error: "failed to lookup address information",
 * });
 * ```
 */
export function readyzCause(text: string): { readonly cause: string; readonly error: string } | undefined {
  const match = /^backend unreachable \(([a-z-]+)\): (.*)$/s.exec(text.trim());
  return match === null ? undefined : { cause: match[1]!, error: match[2]! };
}

/** What the controller's `/metrics` says about its work. */
export interface ControllerMetricsReading {
  /** Unix seconds of the last successful reconcile; 0 before the first. */
  readonly lastSuccess?: number;
  /** 1 while it leads (or election is off), 0 while it stands by. */
  readonly leader?: number;
  /** By result, since start. */
  readonly reconciles: Readonly<Record<string, number>>;
}

/** Reads the controller's series from a Prometheus text exposition. */
export function readControllerMetrics(text: string): ControllerMetricsReading {
  const reconciles: Record<string, number> = {};
  let lastSuccess: number | undefined;
  let leader: number | undefined;
  for (const line of text.split("\n")) {
    const match = /^([A-Za-z_:][\w:]*)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (match === null) continue;
    const [, name, labels = "", raw] = match;
    const value = Number(raw);
    if (name === CONTROLLER_METRICS.lastSuccess) lastSuccess = value;
    else if (name === CONTROLLER_METRICS.leader) leader = value;
    else if (name === CONTROLLER_METRICS.reconciles) {
      const result = /result="([^"]*)"/.exec(labels)?.[1];
      if (result !== undefined) reconciles[result] = value;
    }
  }
  return {
    ...(lastSuccess === undefined ? {} : { lastSuccess }),
    ...(leader === undefined ? {} : { leader }),
    reconciles,
  };
}

/** How to read a pod's `/readyz` by hand, for todos. */
export function readyzRecipe(pod: PodHealth, port: number): string {
  const { namespace, name } = pod.metadata;
  return `kubectl get --raw /api/v1/namespaces/${namespace}/pods/${name}:${port}/proxy/readyz -v=8`;
}

function restartPart(pod: PodHealth, container: ContainerHealth, now: number): Part | undefined {
  const { namespace, name } = pod.metadata;
  const logs = `kubectl logs -n ${namespace} ${name} -c ${container.name} --previous`;
  const last = container.lastTermination;
  const times = `${container.restartCount} time${container.restartCount === 1 ? "" : "s"}`;
  // A waiting container is a problem; a restart within the hour a warning; older ones only named.
  if (container.waitingReason !== undefined && container.waitingReason !== "ContainerCreating") {
    return [
      "problem",
      `container ${container.name} is waiting: ${container.waitingReason} (restarted ${times}` +
      `${last === undefined ? "" : `, last ended ${last.reason}`})`,
      `read why it stopped: ${logs}`,
    ];
  }
  if (container.restartCount === 0) return undefined;
  const finished = last?.finishedAt === undefined ? Number.NaN : Date.parse(last.finishedAt);
  const when = Number.isNaN(finished) ? "" : `, last ${ago(now - finished)} ago`;
  const sentence = `container ${container.name} restarted ${times}${when}${
    last === undefined ? "" : ` (${last.reason})`
  }`;
  if (!Number.isNaN(finished) && now - finished < 3_600_000) {
    const oom = last?.reason === "OOMKilled" ? "; OOMKilled: raise its memory limit" : "";
    return ["warning", sentence, `read why: ${logs}${oom}`];
  }
  return ["ok", sentence];
}

/** The pod's own state: scheduled, addressed, Ready per the kubelet, restarts. */
function podParts(pod: PodHealth, now: number): { ready: boolean | undefined; parts: Part[] } {
  const parts: Part[] = [];
  const condition = pod.status.ready;
  const ready = condition === undefined ? undefined : condition.status === "True";
  if (pod.status.phase !== undefined && pod.status.phase !== "Running") {
    parts.push([
      "problem",
      `the pod is ${pod.status.phase}`,
      `kubectl describe pod -n ${pod.metadata.namespace} ${pod.metadata.name}`,
    ]);
  }
  for (const container of pod.status.containers) {
    const part = restartPart(pod, container, now);
    if (part !== undefined) parts.push(part);
  }
  if (ready === false) {
    const why = [condition?.reason, condition?.message].filter((text) => text !== undefined).join(": ");
    parts.push(["problem", `the kubelet reports it not Ready${why === "" ? "" : ` (${why})`}`]);
  }
  return { ready, parts };
}

/** What `/readyz` could not tell, said from the kubelet's side. */
function unreadPart(
  answer: Exclude<PodHttpAnswer, { kind: "answered" }>,
  ready: boolean | undefined,
  recipe: string,
): Part {
  if (answer.kind === "forbidden") {
    return [
      "could-not-check",
      `${answer.saw}, so /readyz was not read`,
      `grant get on pods/proxy in ${
        answer.saw.replace(/^.* in /, "")
      }, or run in the cluster with --reach=direct ` +
      "(helm test <release>)",
    ];
  }
  if (ready === true) {
    return ["ok", `its /readyz could not be read (${answer.why}), but the kubelet reports it Ready`];
  }
  return [
    ready === false ? "problem" : "could-not-check",
    `its /readyz could not be read (${answer.why})`,
    `read the cause by hand: ${recipe}, or run in the cluster: helm test <release>`,
  ];
}

/** A proxy pod and what its `/readyz` answered. */
export interface ProxyPodView {
  readonly pod: PodHealth;
  readonly port: number;
  readonly readyz: PodHttpAnswer;
}

/** The finding of one proxy pod. */
export function proxyPodFinding(view: ProxyPodView, options: { readonly now: number }): Finding {
  const { pod, readyz } = view;
  const subject = `proxy Pod ${pod.metadata.namespace}/${pod.metadata.name}`;
  const { ready, parts } = podParts(pod, options.now);
  const recipe = readyzRecipe(pod, view.port);
  if (readyz.kind !== "answered") {
    return fold(subject, [unreadPart(readyz, ready, recipe), ...parts]);
  }
  const text = readyz.text.trim();
  if (readyz.status === 200) return fold(subject, [["ok", "ready: /readyz reaches the backend"], ...parts]);
  const cause = readyzCause(text);
  if (cause !== undefined) {
    return fold(subject, [
      [
        "problem",
        `not ready: its backend is unreachable (${cause.cause}): ${cause.error}`,
        PROXY_CAUSE_TODO[cause.cause],
      ],
      ...parts,
    ]);
  }
  if (text === "shutting down") {
    return fold(subject, [["warning", "shutting down (the pod is terminating)"], ...parts]);
  }
  return fold(subject, [
    [
      "problem",
      `/readyz answered ${readyz.status}: ${text}`,
      `read its log: kubectl logs -n ${pod.metadata.namespace} ${pod.metadata.name}`,
    ],
    ...parts,
  ]);
}

/** A controller pod and what its `/readyz` and `/metrics` answered. */
export interface ControllerPodView extends ProxyPodView {
  readonly metrics: PodHttpAnswer;
}

/** How the controller's work is judged. */
export interface ControllerJudgement {
  /** Unix milliseconds. */
  readonly now: number;
  /** `--resync`: every resync reconciles, so a leader succeeds at least this often. */
  readonly resyncMs: number;
}

function reconcileCounts(reading: ControllerMetricsReading): string {
  const counts = Object.entries(reading.reconciles).filter(([, value]) => value > 0)
    .map(([result, value]) => `${value} ${result}`);
  return counts.length === 0 ? "no reconciles yet" : `reconciles since start: ${counts.join(", ")}`;
}

function metricsPart(answer: PodHttpAnswer, judgement: ControllerJudgement, logs: string): Part {
  if (answer.kind !== "answered" || answer.status !== 200) {
    const why = answer.kind === "answered"
      ? `it answered ${answer.status}`
      : answer.kind === "forbidden"
      ? answer.saw
      : answer.why;
    return ["could-not-check", `its /metrics could not be read (${why}), so its last reconcile is unknown`];
  }
  const reading = readControllerMetrics(answer.text);
  if (reading.leader === 0) return ["ok", "standing by while another replica leads"];
  const counts = reconcileCounts(reading);
  const failed = (reading.reconciles.error ?? 0) + (reading.reconciles.refused ?? 0);
  if (reading.lastSuccess === undefined) {
    return ["could-not-check", `its /metrics has no ${CONTROLLER_METRICS.lastSuccess}`];
  }
  if (reading.lastSuccess === 0) {
    if ((reading.reconciles.previewed ?? 0) > 0) {
      return [
        "warning",
        `it runs with --dry-run: it previews and writes nothing (${counts})`,
        "drop --dry-run to let it write",
      ];
    }
    if (failed > 0) {
      return ["problem", `no successful reconcile since it started (${counts})`, `read why: ${logs}`];
    }
    return ["warning", NO_RECONCILE_YET, "run the doctor again in a minute"];
  }
  const age = judgement.now - reading.lastSuccess * 1000;
  const sentence = `last successful reconcile ${ago(age)} ago (${counts})`;
  if (age > 2 * judgement.resyncMs) {
    return [
      "problem",
      `${sentence}, longer than two resync periods (--resync=${ago(judgement.resyncMs)})`,
      `read why its reconciles fail: ${logs}`,
    ];
  }
  return ["ok", sentence];
}

/** The finding of one controller pod. */
export function controllerPodFinding(view: ControllerPodView, judgement: ControllerJudgement): Finding {
  const { pod, readyz } = view;
  const { namespace, name } = pod.metadata;
  const subject = `controller Pod ${namespace}/${name}`;
  const logs = `kubectl logs -n ${namespace} ${name}`;
  const { ready, parts } = podParts(pod, judgement.now);
  let first: Part;
  if (readyz.kind !== "answered") first = unreadPart(readyz, ready, readyzRecipe(pod, view.port));
  else if (readyz.status === 200) first = ["ok", "ready"];
  else {
    const reason = readyz.text.trim().replace(/^not ready: /, "");
    const hint = reason.startsWith("waiting for the first list")
      ? "it cannot list what it watches: check its RBAC and its connection to the API server"
      : "fix what the reason says (its Warning Events say more)";
    first = ["problem", `not ready: ${reason}`, `${hint}; ${logs}`];
  }
  const work = metricsPart(view.metrics, judgement, logs);
  // "Not ready: no reconcile has finished yet" says it already.
  const said = first[0] === "problem" && work[1] === NO_RECONCILE_YET;
  return fold(subject, [first, ...(said ? [] : [work]), ...parts]);
}
