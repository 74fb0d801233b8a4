/**
 * The workload opt-in, planned: who is opted in, with which DNS settings, who is left alone and
 * why, and the round trip back to the original template, exactly.
 */

import assert from "node:assert/strict";
import { acceptRecordsEntries } from "../../../lib/dns/answer/records_entries.ts";
import { ORIGINAL_DNS_ANNOTATION } from "../../../lib/dns/par/original_dns.ts";
import {
  planWorkloads,
  type WorkloadPlanOptions,
  type WorkloadStep,
} from "../../../lib/dns/par/plan_workloads.ts";
import { decodeDeployment, type Deployment } from "../../../lib/resources/deployment.ts";
import type { Json } from "../../support/fake_apiserver/json.ts";
import { mergePatch } from "../../support/fake_apiserver/merge_patch.ts";
import { prng } from "../../support/random.ts";
import { deployment, deploymentManifest, type EntryFixture, records } from "../answer/fixtures.ts";

const NS = "10.96.0.53";
const CLUSTER_SEARCHES = ["shop.svc.cluster.local", "svc.cluster.local", "cluster.local"];

function options(
  entries: readonly EntryFixture[],
  extra: Partial<WorkloadPlanOptions> = {},
): WorkloadPlanOptions {
  return {
    entries: acceptRecordsEntries([records("shop", "egress", entries)]).entries,
    nameserver: NS,
    clusterDomain: "cluster.local",
    ...extra,
  };
}

const WEB = [{ labels: { app: "web" }, hostname: "pay.example.com", ips: ["192.0.2.1"] }];

function summary(steps: readonly WorkloadStep[]): string[] {
  return steps.map((step) =>
    `${step.deployment.metadata.name}: ${step.kind}${step.kind === "skipped" ? ` (${step.reason})` : ""}`
  );
}

function apply(before: Json, step: WorkloadStep | undefined): Json {
  assert.ok(step !== undefined && "patch" in step, `a step with a patch: ${JSON.stringify(step)}`);
  return mergePatch(before, step.patch as Json);
}

function decode(value: Json): Deployment {
  const decoded = decodeDeployment(value);
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.value;
}

function templateOf(value: Json): Json {
  return (value as { spec: { template: Json } }).spec.template;
}

Deno.test("planWorkloads: a selected Deployment gets dnsPolicy None and what the kubelet would have given it", () => {
  const [step] = planWorkloads([deployment("web", { podSpec: { dnsPolicy: "ClusterFirst" } })], options(WEB));
  assert.ok(step?.kind === "opt-in");
  assert.match(step.detail, /selected by Records shop\/egress spec\.a\[0\] \(manager\)/);
  assert.deepEqual(step.patch, {
    metadata: {
      annotations: {
        [ORIGINAL_DNS_ANNOTATION]: '{"original":{"dnsPolicy":"ClusterFirst"},"nameservers":["10.96.0.53"]}',
      },
    },
    spec: {
      template: {
        spec: {
          dnsPolicy: "None",
          dnsConfig: {
            nameservers: [NS],
            searches: CLUSTER_SEARCHES,
            options: [{ name: "ndots", value: "5" }],
          },
        },
      },
    },
  });
});

Deno.test("planWorkloads: the template's own DNS settings are kept after the cluster's", () => {
  const [step] = planWorkloads(
    [
      deployment("web", {
        podSpec: {
          dnsConfig: {
            nameservers: ["192.0.2.53", "192.0.2.54", "192.0.2.55"],
            searches: ["corp.example", "svc.cluster.local"],
            options: [{ name: "edns0" }, { name: "ndots", value: "2" }, { name: "timeout", value: "3" }],
          },
        },
      }),
    ],
    options(WEB),
  );
  assert.ok(step?.kind === "opt-in");
  const spec = (step.patch as { spec: { template: { spec: unknown } } }).spec.template.spec;
  assert.deepEqual(spec, {
    dnsPolicy: "None",
    dnsConfig: {
      nameservers: [NS, "192.0.2.53", "192.0.2.54"],
      searches: [...CLUSTER_SEARCHES, "corp.example"],
      options: [{ name: "ndots", value: "2" }, { name: "edns0" }, { name: "timeout", value: "3" }],
    },
  });
});

Deno.test("planWorkloads: who is selected, who is left alone, and why", () => {
  const deployments = [
    deployment("web", { templateLabels: { app: "web", tier: "front" } }),
    deployment("egress", { templateLabels: { app: "egress" } }),
    deployment("api"),
    deployment("labelled-only", { labels: { app: "web" }, templateLabels: { app: "other" } }),
    deployment("blog-web", { namespace: "blog", templateLabels: { app: "web" } }),
    deployment("node-dns", { templateLabels: { app: "web", n: "1" }, podSpec: { dnsPolicy: "Default" } }),
    deployment("host-agent", { templateLabels: { app: "web", n: "2" }, podSpec: { hostNetwork: true } }),
    deployment("host-clusterfirst", {
      templateLabels: { app: "web", n: "3" },
      podSpec: { hostNetwork: true, dnsPolicy: "ClusterFirstWithHostNet" },
    }),
    deployment("custom", {
      templateLabels: { app: "web", n: "4" },
      podSpec: { dnsPolicy: "None", dnsConfig: { nameservers: ["1.1.1.1"] } },
    }),
    deployment("ouroboros-dns", { templateLabels: { app: "web", "app.kubernetes.io/component": "dns" } }),
  ];
  const steps = planWorkloads(
    deployments,
    options([...WEB, { labels: { app: "egress" }, type: "proxy" }], {
      self: { namespace: "shop", labels: { "app.kubernetes.io/component": "dns" } },
    }),
  );
  assert.deepEqual(summary(steps), [
    "web: opt-in",
    "egress: opt-in",
    "node-dns: skipped (its pods resolve through the node (dnsPolicy Default); pointing them at this server could loop, so it is not opted in)",
    "host-agent: skipped (its pods resolve through the node (dnsPolicy ClusterFirst with hostNetwork); pointing them at this server could loop, so it is not opted in)",
    "host-clusterfirst: opt-in",
    "custom: skipped (its pod template has DNS settings of its own (dnsPolicy None); it is not opted in — set its nameserver to this server's Service in its own manifest instead)",
    "ouroboros-dns: skipped (it runs this DNS server; it is never opted in)",
  ]);
});

Deno.test("planWorkloads: an empty selector on the self option protects nothing and matches nothing", () => {
  const steps = planWorkloads(
    [deployment("web")],
    options([{ hostname: "a.example.com", ips: ["192.0.2.1"] }], { self: { namespace: "shop", labels: {} } }),
  );
  assert.deepEqual(
    summary(steps),
    ["web: opt-in"],
    "entries with empty labels select every Deployment of the namespace",
  );
});

Deno.test("planWorkloads: with this server's address unknown, nothing is opted in", () => {
  const steps = planWorkloads([deployment("web")], options(WEB, { nameserver: "" }));
  assert.deepEqual(summary(steps), ["web: skipped (this server's Service has no address yet)"]);
});

Deno.test("planWorkloads: after the opt-in — unchanged, re-targeted, restored, or left to whoever changed it", () => {
  const before = deploymentManifest("web", {
    resourceVersion: "1",
    podSpec: { dnsPolicy: "ClusterFirst" },
  }) as Json;
  const optedIn = apply(before, planWorkloads([decode(before)], options(WEB))[0]);
  assert.deepEqual(summary(planWorkloads([decode(optedIn)], options(WEB))), ["web: unchanged"]);
  assert.deepEqual(summary(planWorkloads([decode(optedIn)], options(WEB, { nameserver: "" }))), [
    "web: unchanged",
  ]);

  const moved = planWorkloads([decode(optedIn)], options(WEB, { nameserver: "10.96.0.99" }));
  assert.deepEqual(summary(moved), ["web: update"]);
  const retargeted = apply(optedIn, moved[0]);
  assert.deepEqual(decode(retargeted).spec.template.spec.dnsConfig?.nameservers, ["10.96.0.99"]);
  assert.deepEqual(summary(planWorkloads([decode(retargeted)], options(WEB, { nameserver: "10.96.0.99" }))), [
    "web: unchanged",
  ]);

  const gone = planWorkloads([decode(retargeted)], options([]));
  assert.deepEqual(summary(gone), ["web: restore"]);
  assert.ok(gone[0]?.kind === "restore");
  assert.equal(gone[0].detail, "no Records entry selects its pods any more");
  assert.deepEqual(templateOf(apply(retargeted, gone[0])), templateOf(before));

  const relabelled = mergePatch(optedIn, { spec: { template: { metadata: { labels: { app: "web2" } } } } });
  assert.deepEqual(summary(planWorkloads([decode(relabelled)], options(WEB))), ["web: restore"]);

  const edited = mergePatch(optedIn, { spec: { template: { spec: { dnsPolicy: "ClusterFirst" } } } });
  for (const entries of [WEB, []]) {
    const [step] = planWorkloads([decode(edited)], options(entries));
    assert.ok(step?.kind === "skipped");
    assert.match(
      step.reason,
      /dnsPolicy is ClusterFirst \(this server wrote None\): changed since the opt-in, so left alone/,
    );
  }
  const broken = mergePatch(optedIn, { metadata: { annotations: { [ORIGINAL_DNS_ANNOTATION]: "{" } } });
  assert.deepEqual(summary(planWorkloads([decode(broken)], options(WEB))), [
    "web: skipped (its annotation ouroboros.dev/original-dns is not JSON; left alone (fix or remove the annotation))",
  ]);
});

Deno.test("planWorkloads: opt-in, re-target and restore give back the original template exactly (property, seeded)", () => {
  const random = prng(2026);
  const maybe = <T>(value: T): T | undefined => (random() < 0.5 ? value : undefined);
  const pickList = (items: string[]) => items.filter(() => random() < 0.5);
  for (let round = 0; round < 300; round++) {
    const dnsConfig: Record<string, unknown> = {};
    if (random() < 0.5) dnsConfig.nameservers = pickList(["192.0.2.53", "192.0.2.54", "2001:db8::53"]);
    if (random() < 0.5) dnsConfig.searches = pickList(["corp.example", "svc.cluster.local", "lab.example"]);
    if (random() < 0.5) {
      dnsConfig.options = [{ name: "ndots", value: "2" }, { name: "edns0" }, { name: "timeout", value: "1" }]
        .filter(() => random() < 0.5);
    }
    const policy = maybe(random() < 0.5 ? "ClusterFirst" : "ClusterFirstWithHostNet");
    const podSpec: Record<string, unknown> = {
      ...(policy === undefined ? {} : { dnsPolicy: policy }),
      ...(random() < 0.6 ? { dnsConfig } : {}),
    };
    const before = deploymentManifest("web", { resourceVersion: "1", podSpec }) as Json;
    const first = planWorkloads([decode(before)], options(WEB));
    assert.deepEqual(summary(first), ["web: opt-in"], `round ${round}`);
    let current = apply(before, first[0]);
    const opted = decode(current).spec.template.spec;
    assert.equal(opted.dnsPolicy, "None");
    assert.equal(opted.dnsConfig?.nameservers?.[0], NS);
    assert.ok((opted.dnsConfig?.nameservers?.length ?? 0) <= 3);
    assert.deepEqual(opted.dnsConfig?.searches?.slice(0, 3), CLUSTER_SEARCHES);
    assert.equal(opted.dnsConfig?.options?.filter((option) => option.name === "ndots").length, 1);
    assert.deepEqual(
      summary(planWorkloads([decode(current)], options(WEB))),
      ["web: unchanged"],
      `round ${round}: settles`,
    );
    if (random() < 0.5) {
      current = apply(
        current,
        planWorkloads([decode(current)], options(WEB, { nameserver: "10.96.0.99" }))[0],
      );
    }
    const restored = apply(current, planWorkloads([decode(current)], options([]))[0]);
    assert.deepEqual(templateOf(restored), templateOf(before), `round ${round}: ${JSON.stringify(podSpec)}`);
    assert.equal(decode(restored).metadata.annotations[ORIGINAL_DNS_ANNOTATION], undefined);
  }
});
