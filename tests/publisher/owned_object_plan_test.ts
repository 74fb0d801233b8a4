/**
 * The writer's plan, fed with external-dns mode's records (one group per hostname, its names
 * over both address families): guards, creates, owned-field patches, foreign names, clashes,
 * prunes and what is kept.
 */

import assert from "node:assert/strict";
import type { ObservedRecord } from "../../lib/controller/modes/external_dns/observed_record.ts";
import {
  type OwnedObjectPlan,
  planOwnedObjects,
  sameJson,
  updatePatch,
} from "../../lib/publisher/owned_object_plan.ts";
import { recordOwnership } from "../../lib/controller/modes/external_dns/ownership.ts";
import {
  dnsEndpointName,
  type RecordOutput,
  serviceName,
} from "../../lib/controller/modes/external_dns/record_names.ts";
import {
  buildRecords,
  type DesiredRecord,
  type HostBuild,
  recordGroups,
} from "../../lib/controller/modes/external_dns/build_records.ts";
import type { TargetsResult } from "../../lib/controller/modes/external_dns/targets.ts";
import { INSTANCE, resolved, settings } from "../controller/modes/external_dns/support.ts";

const V4 = resolved(["10.0.0.1"]);

function builds(
  hosts: readonly string[],
  targets: TargetsResult = V4,
  output: "crd" | "service" = "crd",
): HostBuild[] {
  return buildRecords({ hosts, targets, settings: settings({ output }) });
}

/** What the plan is given, in external-dns mode's terms. */
interface RecordPlanInput {
  readonly output: RecordOutput;
  readonly builds: readonly HostBuild[];
  readonly owned: readonly ObservedRecord[];
  readonly foreign?: readonly ObservedRecord[];
  readonly unreadable?: readonly string[];
}

/** Plans `input` the way the sink does: one group per hostname, the test instance's ownership. */
function planRecords(input: RecordPlanInput): OwnedObjectPlan<ObservedRecord> {
  return planOwnedObjects({
    ownership: recordOwnership(INSTANCE),
    groups: recordGroups(input.builds, input.output),
    owned: input.owned,
    ...(input.foreign === undefined ? {} : { foreign: input.foreign }),
    ...(input.unreadable === undefined ? {} : { unreadable: input.unreadable }),
  });
}

/** The object the cluster would hold after creating `record`, with server fields filled in. */
function stored(record: DesiredRecord, overrides: Partial<ObservedRecord> = {}): ObservedRecord {
  return {
    name: record.name,
    uid: `uid-${record.name}`,
    resourceVersion: "7",
    labels: record.labels,
    annotations: record.annotations,
    spec: record.spec,
    group: record.host,
    ...overrides,
  };
}

function storedAll(list: readonly HostBuild[]): ObservedRecord[] {
  return list.flatMap((build) => build.kind === "built" ? build.records.map((record) => stored(record)) : []);
}

type Applied = Extract<OwnedObjectPlan<ObservedRecord>, { kind: "apply" }>;

function applied(plan: OwnedObjectPlan<ObservedRecord>): Applied {
  assert.equal(plan.kind, "apply", JSON.stringify(plan));
  return plan as Applied;
}

function names(list: readonly { readonly name: string }[]): string[] {
  return list.map((item) => item.name);
}

Deno.test("nothing in the cluster: every record is created, every hostname counts as added", () => {
  const plan = applied(planRecords({
    output: "crd",
    builds: builds(["b.example.com", "a.example.com"], resolved(["10.0.0.1"], ["fd00::1"])),
    owned: [],
  }));
  assert.deepEqual(
    names(plan.creates),
    [
      dnsEndpointName("a.example.com", 4),
      dnsEndpointName("a.example.com", 6),
      dnsEndpointName("b.example.com", 4),
      dnsEndpointName("b.example.com", 6),
    ].sort(),
  );
  assert.deepEqual([plan.updates.length, plan.deletes.length, plan.unchanged], [0, 0, 0]);
  assert.deepEqual([plan.groups, plan.added, plan.removed], [2, 2, 0]);
});

Deno.test("everything as desired: no write at all", () => {
  const desired = builds(["a.example.com", "b.example.com"]);
  const plan = applied(planRecords({ output: "crd", builds: desired, owned: storedAll(desired) }));
  assert.deepEqual([plan.creates.length, plan.updates.length, plan.deletes.length], [0, 0, 0]);
  assert.deepEqual([plan.unchanged, plan.groups, plan.added, plan.removed], [2, 2, 0, 0]);
});

Deno.test("updates patch only what differs in the owned fields", async (t) => {
  const [build] = builds(["a.example.com"]);
  const record = build?.kind === "built" ? build.records[0]! : assert.fail("not built");
  const cases: [string, Partial<ObservedRecord>, unknown][] = [
    [
      "new targets",
      {
        spec: {
          endpoints: [{ dnsName: "a.example.com", recordType: "A", recordTTL: 60, targets: ["10.9.9.9"] }],
        },
      },
      { spec: { endpoints: record.spec.endpoints } },
    ],
    ["a label someone added", { labels: { ...record.labels, extra: "x" } }, {
      metadata: { labels: { extra: null } },
    }],
    [
      "an annotation changed",
      { annotations: { ...record.annotations, "ouroboros.lexfrei.tech/source": "controller" } },
      { metadata: { annotations: { "ouroboros.lexfrei.tech/source": "unknown" } } },
    ],
    [
      "same labels and annotations in another key order",
      {
        labels: Object.fromEntries(Object.entries(record.labels).reverse()),
        annotations: Object.fromEntries(Object.entries(record.annotations).reverse()),
      },
      undefined,
    ],
  ];
  for (const [name, overrides, patch] of cases) {
    await t.step(name, () => {
      const plan = applied(
        planRecords({ output: "crd", builds: [build!], owned: [stored(record, overrides)] }),
      );
      if (patch === undefined) {
        assert.deepEqual([plan.updates.length, plan.unchanged], [0, 1]);
        return;
      }
      assert.equal(plan.updates.length, 1);
      assert.deepEqual(plan.updates[0]!.patch, patch);
      assert.equal(plan.updates[0]!.observed.resourceVersion, "7", "the patch is made against what was read");
      assert.deepEqual([plan.creates.length, plan.deletes.length], [0, 0]);
    });
  }
});

Deno.test("service output: a selector or ports on an owned Service are removed; nothing else in spec counts", () => {
  const [build] = builds(["a.example.com"], V4, "service");
  const record = build?.kind === "built" ? build.records[0]! : assert.fail("not built");
  const plan = applied(planRecords({
    output: "service",
    builds: [build!],
    owned: [stored(record, { spec: { selector: { app: "web" }, ports: [{ port: 80, protocol: "TCP" }] } })],
  }));
  assert.deepEqual(plan.updates[0]?.patch, { spec: { selector: null, ports: null } });
});

Deno.test("owned records nobody wants are deleted, and their hostnames count as removed", () => {
  const before = builds(["a.example.com", "b.example.com", "c.example.com"]);
  const plan = applied(planRecords({
    output: "crd",
    builds: builds(["a.example.com", "c.example.com"]),
    owned: storedAll(before),
  }));
  assert.deepEqual(names(plan.deletes), [dnsEndpointName("b.example.com", 4)]);
  assert.deepEqual([plan.creates.length, plan.updates.length, plan.unchanged], [0, 0, 2]);
  assert.deepEqual([plan.added, plan.removed], [0, 1]);
});

Deno.test("a proxy that drops IPv6 prunes the AAAA records, and no hostname counts as removed", () => {
  const before = builds(["a.example.com"], resolved(["10.0.0.1"], ["fd00::1"]));
  const plan = applied(
    planRecords({ output: "crd", builds: builds(["a.example.com"]), owned: storedAll(before) }),
  );
  assert.deepEqual(names(plan.deletes), [dnsEndpointName("a.example.com", 6)]);
  assert.deepEqual([plan.added, plan.removed], [0, 0]);
});

Deno.test("a foreign object holding our name refuses that hostname only", async (t) => {
  const foreignName = dnsEndpointName("taken.example.com", 4);
  const cases: [string, Record<string, string>, string | undefined][] = [
    ["no labels", {}, undefined],
    ["managed-by only", { "app.kubernetes.io/managed-by": "ouroboros" }, undefined],
    ["instance only", { "ouroboros.lexfrei.tech/instance": INSTANCE }, undefined],
    ["managed by someone else", {
      "app.kubernetes.io/managed-by": "helm",
      "ouroboros.lexfrei.tech/instance": INSTANCE,
    }, undefined],
    ["another release", {
      "app.kubernetes.io/managed-by": "ouroboros",
      "ouroboros.lexfrei.tech/instance": "blue",
    }, "blue"],
  ];
  for (const [name, labels, instance] of cases) {
    await t.step(name, () => {
      const foreign: ObservedRecord = {
        name: foreignName,
        uid: "u",
        resourceVersion: "3",
        labels,
        annotations: {},
        spec: {},
      };
      const plan = applied(planRecords({
        output: "crd",
        builds: builds(["free.example.com", "taken.example.com"]),
        owned: [],
        foreign: [foreign],
      }));
      assert.deepEqual(plan.refused, [{
        group: "taken.example.com",
        name: foreignName,
        problem: "foreign-object",
        ...(instance === undefined ? {} : { otherInstance: instance }),
        uid: "u",
      }]);
      assert.deepEqual(names(plan.creates), [dnsEndpointName("free.example.com", 4)]);
      assert.deepEqual([plan.updates.length, plan.deletes.length, plan.groups], [0, 0, 1]);
    });
  }
});

Deno.test("a refused hostname keeps its other owned records (no update, no prune)", () => {
  const dual = resolved(["10.0.0.1"], ["fd00::1"]);
  const old = builds(["h.example.com"], resolved(["10.0.0.2"], ["fd00::2"]));
  const v6 = storedAll(old).filter((record) => record.name.endsWith("-v6"));
  const plan = applied(planRecords({
    output: "crd",
    builds: builds(["h.example.com"], dual),
    owned: v6,
    foreign: [{
      name: dnsEndpointName("h.example.com", 4),
      uid: "u",
      resourceVersion: "1",
      labels: {},
      annotations: {},
      spec: {},
    }],
  }));
  assert.equal(plan.refused.length, 1);
  assert.deepEqual([plan.creates.length, plan.updates.length, plan.deletes.length], [0, 0, 0]);
});

Deno.test("a hostname that failed to build keeps its records; the others proceed", () => {
  const owned = storedAll(builds(["bad.example.com", "good.example.com"]));
  const failing: HostBuild = {
    kind: "failed",
    host: "bad.example.com",
    problem: "invalid-hostname",
    message: "x",
  };
  const good = builds(["good.example.com", "new.example.com"]);
  const plan = applied(planRecords({ output: "crd", builds: [failing, ...good], owned }));
  assert.deepEqual(plan.deletes, [], "bad.example.com's record must not be pruned");
  assert.deepEqual(names(plan.creates), [dnsEndpointName("new.example.com", 4)]);
  assert.deepEqual(
    [plan.groups, plan.added, plan.removed],
    [2, 1, 0],
    "the failed one is neither in place nor removed",
  );
});

Deno.test("guard: no hostname wanted while owned records exist prunes nothing", () => {
  const owned = storedAll(builds(["a.example.com", "b.example.com"]));
  assert.deepEqual(planRecords({ output: "crd", builds: [], owned }), {
    kind: "guarded",
    guard: "empty-desired",
    owned: 2,
  });
});

Deno.test("guard: no hostname and nothing owned is simply nothing to do", () => {
  const plan = applied(planRecords({ output: "crd", builds: [], owned: [] }));
  assert.deepEqual([plan.creates.length, plan.deletes.length, plan.groups], [0, 0, 0]);
});

Deno.test("guard: when every hostname fails to build, nothing is pruned, owned or not", async (t) => {
  const failing = builds(["a.example.com", "b.example.com"], {
    kind: "unusable",
    problem: "headless",
    message: "h",
  });
  for (
    const [name, owned] of [["with owned", storedAll(builds(["a.example.com", "c.example.com"]))], [
      "none owned",
      [],
    ]] as const
  ) {
    await t.step(name, () => {
      const plan = planRecords({ output: "crd", builds: failing, owned });
      assert.equal(plan.kind, "guarded");
      assert.equal(plan.kind === "guarded" && plan.guard, "nothing-built");
    });
  }
});

Deno.test("foreign-only objects never trip the guard", () => {
  const plan = planRecords({
    output: "crd",
    builds: [],
    owned: [],
    foreign: [{ name: "x", uid: "u", resourceVersion: "1", labels: {}, annotations: {}, spec: {} }],
  });
  assert.equal(plan.kind, "apply");
});

Deno.test("two hostnames landing on one name are both refused, never one silently dropped", () => {
  const [a, b] = builds(["a.example.com", "b.example.com"], V4, "service");
  const clash = serviceName("a.example.com");
  const renamed: HostBuild = b?.kind === "built"
    ? { ...b, records: b.records.map((record) => ({ ...record, name: clash })) }
    : assert.fail("not built");
  const plan = applied(planRecords({ output: "service", builds: [a!, renamed], owned: [] }));
  assert.deepEqual(
    plan.refused.map((refusal) => [refusal.group, refusal.problem, refusal.detail]),
    [["a.example.com", "name-clash", "b.example.com"], ["b.example.com", "name-clash", "a.example.com"]],
  );
  assert.equal(plan.creates.length, 0);
});

Deno.test("names of owned objects that could not be read are neither pruned nor written", () => {
  const owned = storedAll(builds(["a.example.com"]));
  const unreadable = [dnsEndpointName("b.example.com", 4), "ouroboros-leftover"];
  const plan = applied(
    planRecords({ output: "crd", builds: builds(["a.example.com", "b.example.com"]), owned, unreadable }),
  );
  assert.deepEqual(plan.refused.map((refusal) => refusal.problem), ["unreadable-object"]);
  assert.deepEqual([plan.creates.length, plan.deletes.length], [0, 0]);
});

Deno.test("sameJson ignores key order but not array order; updatePatch is undefined when equal", () => {
  assert.ok(sameJson({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }));
  assert.ok(!sameJson([1, 2], [2, 1]));
  assert.ok(!sameJson({ a: undefined }, {}));
  assert.ok(!sameJson({ a: 1 }, { a: "1" }));
  const fields = { labels: { a: "1" }, annotations: { b: "2" }, spec: { endpoints: [{ x: 1 }] } };
  assert.equal(updatePatch(fields, structuredClone(fields)), undefined);
  assert.deepEqual(
    updatePatch({ labels: { a: "1" }, annotations: {}, spec: {} }, {
      labels: { a: "1", b: "2" },
      annotations: {},
      spec: { selector: { app: "x" } },
    }),
    { metadata: { labels: { b: null } }, spec: { selector: null } },
  );
});
