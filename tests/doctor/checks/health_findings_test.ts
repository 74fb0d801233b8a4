import assert from "node:assert/strict";
import {
  ago,
  CONTROLLER_METRICS,
  controllerPodFinding,
  PROXY_CAUSE_TODO,
  proxyPodFinding,
  readControllerMetrics,
  readyzCause,
} from "../../../lib/doctor/checks/health_findings.ts";
import { leaderFinding } from "../../../lib/doctor/checks/leader_finding.ts";
import { warningEventFindings } from "../../../lib/doctor/checks/warning_event_findings.ts";
import type { Verdict } from "../../../lib/doctor/doctor_check.ts";
import type { PodHttpAnswer } from "../../../lib/doctor/probes/pod_http.ts";
import { createControllerMetrics, RECONCILE_RESULTS } from "../../../lib/controller/metrics.ts";
import { DIAL_CAUSES } from "../../../lib/proxy/dial_cause.ts";
import { unreachableText } from "../../../lib/proxy/readiness.ts";
import type { ContainerHealth, PodHealth } from "../../../lib/resources/pod_health.ts";
import type { TimedEvent } from "../../../lib/resources/timed_event.ts";
import { COREDNS_WARNING, recordedEvent } from "../../support/recorded_event.ts";
import { prng } from "../../support/random.ts";

const NOW = Date.parse("2026-05-01T12:00:00Z");
const META = {
  namespace: "ouroboros",
  uid: "u",
  resourceVersion: "1",
  labels: {},
  annotations: {},
  ownerReferences: [],
};

function pod(
  name: string,
  options: { ready?: boolean; phase?: string; containers?: ContainerHealth[] } = {},
): PodHealth {
  return {
    metadata: { ...META, name },
    ports: [{ name: "health", containerPort: 8081 }],
    status: {
      phase: options.phase ?? "Running",
      podIP: "10.0.0.7",
      ready: options.ready === false
        ? {
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [proxy]",
        }
        : { status: "True" },
      containers: options.containers ?? [{ name: "proxy", ready: options.ready !== false, restartCount: 0 }],
    },
  };
}

const answered = (status: number, text: string): PodHttpAnswer => ({ kind: "answered", status, text });
const unreachable: PodHttpAnswer = {
  kind: "unreachable",
  why: "GET http://10.0.0.7:8081/readyz failed: timed out",
};
const forbidden: PodHttpAnswer = { kind: "forbidden", saw: "not allowed to get pods/proxy in ouroboros" };

Deno.test("the proxy's own /readyz text parses into each cause token, and every token has a todo", () => {
  assert.deepEqual(Object.keys(PROXY_CAUSE_TODO).sort(), [...DIAL_CAUSES].sort());
  for (const cause of DIAL_CAUSES) {
    assert.deepEqual(readyzCause(`${unreachableText(cause, "the error: with a colon")}\n`), {
      cause,
      error: "the error: with a colon",
    });
  }
  assert.equal(readyzCause("shutting down\n"), undefined);
});

Deno.test("the controller's own /metrics reads back: last success, leader, reconciles by result", () => {
  let now = NOW;
  const metrics = createControllerMetrics({
    rss: () => 0,
    version: "test",
    now: () => now,
    leading: () => true,
  });
  metrics.observer.reconciled({ kind: "written", diff: [] } as never, 5);
  now += 1000;
  metrics.observer.reconciled({ kind: "unchanged" } as never, 5);
  const reading = readControllerMetrics(metrics.registry.render());
  assert.equal(reading.lastSuccess, (NOW + 1000) / 1000);
  assert.equal(reading.leader, 1);
  assert.deepEqual(Object.keys(reading.reconciles).sort(), [...RECONCILE_RESULTS].sort());
  assert.equal(reading.reconciles.written, 1);
  assert.equal(reading.reconciles.unchanged, 1);
  assert.ok(
    Object.values(CONTROLLER_METRICS).every((name) => metrics.registry.render().includes(`\n${name}`)),
  );
});

Deno.test("property: any cause and error the proxy writes come back whole, whatever the error holds", () => {
  const random = prng(15);
  const alphabet = "ab: ()\n\t-_/😀é)(";
  for (let i = 0; i < 500; i++) {
    const cause = DIAL_CAUSES[Math.floor(random() * DIAL_CAUSES.length)]!;
    const length = Math.floor(random() * 40);
    let error = "x";
    for (let j = 0; j < length; j++) error += alphabet[Math.floor(random() * alphabet.length)];
    error = `${error.trim()}x`;
    assert.deepEqual(readyzCause(`${unreachableText(cause, error)}\n`), { cause, error });
  }
});

Deno.test("property: ago never decreases as the duration grows", () => {
  const seconds = (text: string) =>
    Number(text.slice(0, -1)) * { s: 1, m: 60, h: 3600, d: 86_400 }[text.at(-1)!]!;
  const random = prng(6);
  let previous = 0;
  for (let ms = 0; ms < 10 * 86_400_000; ms += Math.floor(random() * 600_000)) {
    const value = seconds(ago(ms));
    assert.ok(value >= previous, `${ms} ms: ${ago(ms)}`);
    previous = value;
  }
});

Deno.test("ago: the largest readable unit", () => {
  const table: [number, string][] = [[0, "0s"], [89_000, "89s"], [185_000, "3m"], [5 * 3_600_000, "5h"], [
    3 * 86_400_000,
    "3d",
  ]];
  for (const [ms, text] of table) assert.equal(ago(ms), text);
});

Deno.test("proxy pod findings: a table of /readyz answers and pod states", () => {
  const table: [string, PodHealth, PodHttpAnswer, Verdict, RegExp, RegExp?][] = [
    ["ready", pod("p"), answered(200, "ok\n"), "ok", /^ready: \/readyz reaches the backend$/],
    [
      "refused",
      pod("p", { ready: false }),
      answered(503, `${unreachableText("connection-refused", "Connection refused (os error 111)")}\n`),
      "problem",
      /^not ready: its backend is unreachable \(connection-refused\): Connection refused .*; the kubelet reports it not Ready \(ContainersNotReady/,
      /--backend names the ingress controller's Service and its HTTP port/,
    ],
    [
      "dns",
      pod("p", { ready: false }),
      answered(503, unreachableText("dns-nxdomain", "failed to lookup address information")),
      "problem",
      /\(dns-nxdomain\)/,
      /does not resolve/,
    ],
    [
      "timeout",
      pod("p", { ready: false }),
      answered(503, unreachableText("timeout", "no answer")),
      "problem",
      /\(timeout\)/,
      /NetworkPolicy/,
    ],
    ["shutting down", pod("p"), answered(503, "shutting down\n"), "warning", /^shutting down/],
    [
      "odd answer",
      pod("p"),
      answered(500, "boom"),
      "problem",
      /^\/readyz answered 500: boom/,
      /kubectl logs/,
    ],
    [
      "unread but Ready",
      pod("p"),
      unreachable,
      "ok",
      /could not be read \(.*timed out\), but the kubelet reports it Ready/,
    ],
    [
      "unread and not Ready",
      pod("p", { ready: false }),
      unreachable,
      "problem",
      /could not be read .*; the kubelet reports it not Ready/,
      /kubectl get --raw \/api\/v1\/namespaces\/ouroboros\/pods\/p:8081\/proxy\/readyz -v=8/,
    ],
    [
      "forbidden",
      pod("p"),
      forbidden,
      "could-not-check",
      /^not allowed to get pods\/proxy in ouroboros/,
      /--reach=direct/,
    ],
    [
      "pending",
      pod("p", { phase: "Pending" }),
      answered(200, "ok"),
      "problem",
      /the pod is Pending/,
      /kubectl describe pod/,
    ],
    [
      "crash loop",
      pod("p", {
        containers: [{
          name: "proxy",
          ready: false,
          restartCount: 4,
          waitingReason: "CrashLoopBackOff",
          lastTermination: { reason: "Error" },
        }],
      }),
      unreachable,
      "problem",
      /container proxy is waiting: CrashLoopBackOff \(restarted 4 times, last ended Error\)/,
      /kubectl logs -n ouroboros p -c proxy --previous/,
    ],
    [
      "recent OOM",
      pod("p", {
        containers: [{
          name: "proxy",
          ready: true,
          restartCount: 1,
          lastTermination: { reason: "OOMKilled", finishedAt: "2026-05-01T11:55:00Z" },
        }],
      }),
      answered(200, "ok"),
      "warning",
      /container proxy restarted 1 time, last 5m ago \(OOMKilled\)/,
      /raise its memory limit/,
    ],
    [
      "old restart",
      pod("p", {
        containers: [{
          name: "proxy",
          ready: true,
          restartCount: 2,
          lastTermination: { reason: "Error", finishedAt: "2026-04-29T12:00:00Z" },
        }],
      }),
      answered(200, "ok"),
      "ok",
      /restarted 2 times, last 2d ago \(Error\)/,
    ],
  ];
  for (const [name, p, readyz, verdict, saw, todo] of table) {
    const finding = proxyPodFinding({ pod: p, port: 8081, readyz }, { now: NOW });
    assert.equal(finding.verdict, verdict, `${name}: ${JSON.stringify(finding)}`);
    assert.equal(finding.subject, "proxy Pod ouroboros/p");
    assert.match(finding.saw, saw, name);
    if (todo === undefined) assert.equal(finding.todo, undefined, name);
    else assert.match(finding.todo ?? "", todo, name);
  }
});

function metricsText(lastSuccess: number, counts: Record<string, number>, leader = 1): PodHttpAnswer {
  const lines = [
    `${CONTROLLER_METRICS.lastSuccess} ${lastSuccess}`,
    `${CONTROLLER_METRICS.leader} ${leader}`,
    ...Object.entries(counts).map(([result, value]) =>
      `${CONTROLLER_METRICS.reconciles}{result="${result}"} ${value}`
    ),
  ];
  return answered(200, `# HELP x y\n${lines.join("\n")}\n`);
}

Deno.test("controller pod findings: readiness, the last reconcile against --resync, standby, dry run", () => {
  const recent = NOW / 1000 - 180;
  const table: [string, PodHttpAnswer, PodHttpAnswer, Verdict, RegExp, RegExp?][] = [
    [
      "healthy",
      answered(200, "ok"),
      metricsText(recent, { written: 1, unchanged: 4, error: 0 }),
      "ok",
      /^ready; last successful reconcile 3m ago \(reconciles since start: 1 written, 4 unchanged\)$/,
    ],
    [
      "stale",
      answered(200, "ok"),
      metricsText(NOW / 1000 - 3600, { written: 1, error: 12 }),
      "problem",
      /last successful reconcile 60m ago \(reconciles since start: 1 written, 12 error\), longer than two resync periods \(--resync=10m\)/,
      /kubectl logs -n ouroboros c/,
    ],
    [
      "standby",
      answered(200, "ok"),
      metricsText(0, {}, 0),
      "ok",
      /^ready; standing by while another replica leads$/,
    ],
    [
      "dry run",
      answered(200, "ok"),
      metricsText(0, { previewed: 3 }),
      "warning",
      /--dry-run/,
      /drop --dry-run/,
    ],
    [
      "just started",
      answered(503, "not ready: no reconcile has finished yet"),
      metricsText(0, {}),
      "problem",
      /^not ready: no reconcile has finished yet$/,
    ],
    [
      "refused",
      answered(503, "not ready: the last reconcile was refused (end-before-begin): END marker on line 3"),
      metricsText(0, { refused: 2 }),
      "problem",
      /^not ready: the last reconcile was refused \(end-before-begin\): END marker on line 3; no successful reconcile since it started \(reconciles since start: 2 refused\)$/,
      /its Warning Events say more/,
    ],
    [
      "unsynced",
      answered(503, "not ready: waiting for the first list of: Ingress (forbidden)"),
      metricsText(0, {}),
      "problem",
      /waiting for the first list of: Ingress \(forbidden\)/,
      /RBAC/,
    ],
    [
      "metrics unread",
      answered(200, "ok"),
      unreachable,
      "could-not-check",
      /its \/metrics could not be read/,
    ],
  ];
  for (const [name, readyz, metrics, verdict, saw, todo] of table) {
    const finding = controllerPodFinding({ pod: pod("c"), port: 8082, readyz, metrics }, {
      now: NOW,
      resyncMs: 600_000,
    });
    assert.equal(finding.verdict, verdict, `${name}: ${JSON.stringify(finding)}`);
    assert.match(finding.saw, saw, name);
    if (todo !== undefined) assert.match(finding.todo ?? "", todo, name);
  }
});

/** An Event as the recorder writes it, read back, then changed by `overrides`. */
function event(overrides: Partial<TimedEvent> & { at: string }): TimedEvent {
  const { at, ...changes } = overrides;
  return { ...recordedEvent(COREDNS_WARNING, at), ...changes };
}

Deno.test("warning Events: ours, Warning, within the hour, newest first; none is one ok finding", () => {
  const findings = warningEventFindings({
    events: [
      event({ at: "2026-05-01T11:50:00Z", count: 3 }),
      event({ at: "2026-05-01T11:58:00Z", reason: "CorefileMarkersDamaged", message: "END before BEGIN" }),
      event({ at: "2026-05-01T10:30:00Z" }), // older than an hour
      event({ at: "2026-05-01T11:59:00Z", type: "Normal" }),
      event({ at: "2026-05-01T11:59:00Z", component: "kubelet" }),
    ],
    namespaces: ["kube-system"],
    now: NOW,
  });
  assert.deepEqual(findings.map((f) => [f.verdict, f.subject, f.saw]), [
    [
      "warning",
      "Event on ConfigMap kube-system/coredns",
      "CorefileMarkersDamaged (last 2m ago): END before BEGIN",
    ],
    [
      "warning",
      "Event on ConfigMap kube-system/coredns",
      "CorefileReverted (×3, last 10m ago): another writer removed our block",
    ],
  ]);
  assert.match(
    findings[0]?.todo ?? "",
    /kubectl get events -n kube-system --field-selector type=Warning,reason=CorefileMarkersDamaged/,
  );
  const none = warningEventFindings({ events: [], namespaces: ["kube-system", "ouroboros"], now: NOW });
  assert.deepEqual(none.map((f) => [f.verdict, f.subject]), [["ok", "Events in kube-system, ouroboros"]]);
  const many = warningEventFindings({
    events: Array.from({ length: 13 }, (_, i) => event({ at: `2026-05-01T11:${String(10 + i)}:00Z` })),
    namespaces: ["kube-system"],
    now: NOW,
  });
  assert.equal(many.length, 11);
  assert.match(many[10]?.saw ?? "", /^3 more Warning Events/);
});

Deno.test("leader: a table of Lease states", () => {
  const lease = { namespace: "ouroboros", name: "ouroboros-controller" };
  const found = (spec: Record<string, unknown>) => ({ metadata: { ...META, name: lease.name }, spec });
  const pods = ["ctl-a", "ctl-b"];
  const table: [
    string,
    ReturnType<typeof found> | undefined,
    readonly string[] | undefined,
    Verdict,
    RegExp,
  ][] = [
    [
      "held",
      found({
        holderIdentity: "ctl-a_1234abcd",
        leaseDurationSeconds: 15,
        renewTime: "2026-05-01T11:59:58.000000Z",
      }),
      pods,
      "ok",
      /^held by pod ctl-a \(ctl-a_1234abcd\) \(renewed 2s ago, lease duration 15s\)$/,
    ],
    ["missing", undefined, pods, "problem", /does not exist/],
    ["released", found({ holderIdentity: "" }), pods, "problem", /nobody holds/],
    [
      "expired",
      found({ holderIdentity: "ctl-a_1", leaseDurationSeconds: 15, renewTime: "2026-05-01T11:58:00Z" }),
      pods,
      "problem",
      /renewed 2m ago, lease duration 15s: the leader stopped renewing/,
    ],
    [
      "stranger",
      found({ holderIdentity: "other_1", leaseDurationSeconds: 15, renewTime: "2026-05-01T11:59:59Z" }),
      pods,
      "warning",
      /held by other_1, which is not a current controller pod/,
    ],
    [
      "pods unknown",
      found({ holderIdentity: "other_1", leaseDurationSeconds: 15, renewTime: "2026-05-01T11:59:59Z" }),
      undefined,
      "ok",
      /^held by other_1 \(renewed 1s ago/,
    ],
  ];
  for (const [name, lease_, podNames, verdict, saw] of table) {
    const finding = leaderFinding({ lease, found: lease_, pods: podNames, now: NOW });
    assert.equal(finding.verdict, verdict, `${name}: ${JSON.stringify(finding)}`);
    assert.match(finding.saw, saw, name);
  }
});
