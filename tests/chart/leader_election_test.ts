/**
 * High availability in the chart, rendered by Helm 4 and Helm 3: one replica renders exactly what
 * it did before; more replicas need `controller.leaderElection.enabled` and then get the election
 * flags, a Role on their one Lease (create cannot be narrowed by name, get, update and watch are), soft
 * spreading over nodes and zones, a PodDisruptionBudget and a rollout that starts the new pod
 * first. etc-hosts mode refuses the election, and the durations are checked as the binary checks
 * them.
 */

import assert from "node:assert/strict";
import {
  chartHelms,
  container,
  DEPLOYMENT_MODES,
  find,
  type K8sObject,
  matches,
  MODES,
  notes,
  ofKind,
  podSpec,
  podTemplate,
  rbacMatrix,
  renderFails,
  renderOk,
  rules,
  selectorLabels,
  selectorOf,
} from "./support.ts";

const { helm4, helms, test } = await chartHelms("chart leader-election tests");

/** Three replicas electing a leader. */
const HA = ["controller.replicaCount=3", "controller.leaderElection.enabled=true"];

/** The election flags of release "ouroboros" in namespace "ouroboros" with the default durations. */
const ELECTION_ARGS = [
  "--leader-elect",
  "--leader-election-namespace=ouroboros",
  "--leader-election-id=ouroboros-controller",
  "--leader-election-lease-duration=15s",
  "--leader-election-renew-deadline=10s",
  "--leader-election-retry-period=2s",
];

const LEASE_ROLE = "Role ouroboros/ouroboros-leader-election";

function controllerArgs(objects: readonly K8sObject[], name = "ouroboros"): string[] {
  return container(find(objects, "Deployment", name), "controller").args ?? [];
}

/** Asserts the controller Deployment's rollout: stop-first (surge 0) or start-first (surge 1). */
function assertRollout(objects: readonly K8sObject[], maxSurge: 0 | 1, label: string): void {
  const { strategy } = find(objects, "Deployment", "ouroboros").spec as { strategy: unknown };
  assert.deepEqual(strategy, {
    type: "RollingUpdate",
    rollingUpdate: { maxSurge, maxUnavailable: 1 - maxSurge },
  }, label);
}

/** The PodDisruptionBudgets whose selector picks the controller's pods. */
function controllerBudgets(objects: readonly K8sObject[], release = "ouroboros"): K8sObject[] {
  return ofKind(objects, "PodDisruptionBudget").filter((pdb) =>
    matches(selectorOf(pdb), selectorLabels("controller", release))
  );
}

/** Every Role or ClusterRole grant that mentions Leases. */
function leaseGrants(objects: readonly K8sObject[]): string[] {
  return Object.values(rbacMatrix(objects)).flat().filter((grant) => grant.includes("leases"));
}

test("one replica (the default): no election flag, no Lease RBAC, no PodDisruptionBudget, no spreading", async () => {
  for (const helm of helms()) {
    for (const mode of DEPLOYMENT_MODES) {
      const label = `${helm.label} ${mode}`;
      const objects = await renderOk(helm, { set: MODES[mode] });
      assert.ok(!controllerArgs(objects).some((arg) => arg.startsWith("--leader-")), label);
      assert.deepEqual(leaseGrants(objects), [], label);
      assert.deepEqual(controllerBudgets(objects), [], label);
      const spec = podSpec(find(objects, "Deployment", "ouroboros"));
      assert.equal(spec.affinity, undefined, label);
      assert.equal(spec.topologySpreadConstraints, undefined, label);
      // Without election two controllers must never run at once, even during a rollout.
      assertRollout(objects, 0, label);
    }
  }
});

test("three replicas with leader election: election flags, a Lease Role by name, spreading and a PodDisruptionBudget", async () => {
  for (const helm of helms()) {
    for (const mode of DEPLOYMENT_MODES) {
      const label = `${helm.label} ${mode}`;
      const single = await renderOk(helm, { set: MODES[mode] });
      const objects = await renderOk(helm, { set: [...MODES[mode], ...HA] });
      const deployment = find(objects, "Deployment", "ouroboros");
      assert.equal((deployment.spec as { replicas: number }).replicas, 3, label);
      // The same arguments as one replica, followed by the election's.
      assert.deepEqual(controllerArgs(objects), [...controllerArgs(single), ...ELECTION_ARGS], label);

      // RBAC: what one replica has, plus create on Leases and get/update on this release's Lease only.
      assert.deepEqual(rbacMatrix(objects), {
        ...rbacMatrix(single),
        [LEASE_ROLE]: rules(
          "coordination.k8s.io/leases: create",
          "coordination.k8s.io/leases/ouroboros-controller: get,update,watch",
        ),
      }, label);
      const binding = find(objects, "RoleBinding", "ouroboros-leader-election");
      assert.equal(binding.metadata.namespace, "ouroboros", label);
      assert.deepEqual(binding.roleRef, {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "Role",
        name: "ouroboros-leader-election",
      }, label);
      assert.deepEqual(binding.subjects, [{
        kind: "ServiceAccount",
        name: "ouroboros",
        namespace: "ouroboros",
      }]);

      // Soft spreading over nodes and zones, on the controller's own pods.
      const pod = podTemplate(deployment);
      const own = { matchLabels: selectorLabels("controller") };
      assert.deepEqual(pod.spec.affinity, {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 100, podAffinityTerm: { topologyKey: "kubernetes.io/hostname", labelSelector: own } },
          ],
        },
      }, label);
      assert.deepEqual(pod.spec.topologySpreadConstraints, [
        {
          maxSkew: 1,
          topologyKey: "topology.kubernetes.io/zone",
          whenUnsatisfiable: "ScheduleAnyway",
          labelSelector: own,
        },
      ], label);
      assert.ok(matches(own.matchLabels, pod.metadata.labels), label);

      // One replica at a time may be disrupted, and a crash-looping one never blocks a drain.
      const [budget, ...more] = controllerBudgets(objects);
      assert.equal(more.length, 0, label);
      assert.equal(budget?.metadata.name, "ouroboros", label);
      assert.deepEqual(budget?.spec, {
        maxUnavailable: 1,
        unhealthyPodEvictionPolicy: "AlwaysAllow",
        selector: own,
      }, label);
      assert.ok(
        !matches(
          selectorOf(budget!),
          podTemplate(find(objects, "Deployment", "ouroboros-proxy")).metadata.labels,
        ),
      );

      // Only the Lease holder writes, so the new pod may start before the old one stops.
      assertRollout(objects, 1, label);
    }
  }
});

test("one replica with leader election: the Lease and a start-first rollout, but no spreading or budget", async () => {
  for (const helm of helms()) {
    const objects = await renderOk(helm, { set: ["controller.leaderElection.enabled=true"] });
    assert.deepEqual(controllerArgs(objects).slice(-ELECTION_ARGS.length), ELECTION_ARGS, helm.label);
    assert.ok(rbacMatrix(objects)[LEASE_ROLE] !== undefined, helm.label);
    assertRollout(objects, 1, helm.label);
    assert.deepEqual(controllerBudgets(objects), [], helm.label);
    assert.equal(podSpec(find(objects, "Deployment", "ouroboros")).affinity, undefined, helm.label);
  }
});

test("refused: more than one replica without leader election, in every Deployment mode, naming both values", async () => {
  for (const helm of helms()) {
    for (const mode of DEPLOYMENT_MODES) {
      const stderr = await renderFails(helm, { set: [...MODES[mode], "controller.replicaCount=2"] });
      assert.match(
        stderr,
        /controller\.replicaCount=2 needs controller\.leaderElection\.enabled=true: without leader election every replica writes/,
        `${helm.label} ${mode}`,
      );
      assert.match(stderr, /or controller\.replicaCount=1/, `${helm.label} ${mode}: what is accepted`);
      // The same count with the election renders, and so does 0 (a parked controller) without it.
      await renderOk(helm, {
        set: [...MODES[mode], "controller.replicaCount=2", "controller.leaderElection.enabled=true"],
      });
      await renderOk(helm, { set: [...MODES[mode], "controller.replicaCount=0"] });
    }
  }
});

test("the Lease belongs to the release: two releases never share one; id and namespace can be set", async () => {
  for (const helm of helms()) {
    const lease = async (release: string, namespace = "ouroboros", extra: string[] = []) => {
      const objects = await renderOk(helm, { release, namespace, set: [...HA, ...extra] });
      const fullname = release.includes("ouroboros") ? release : `${release}-ouroboros`;
      const args = controllerArgs(objects, fullname);
      const flag = (name: string) =>
        args.find((arg) => arg.startsWith(`--leader-election-${name}=`))?.split("=")[1];
      const roles = Object.entries(rbacMatrix(objects)).filter(([, grants]) =>
        grants.some((g) => g.includes("leases"))
      );
      assert.equal(roles.length, 1, `${helm.label} ${release}: one Lease Role`);
      return { id: flag("id"), namespace: flag("namespace"), role: roles[0]![0], grants: roles[0]![1] };
    };
    const first = await lease("ouroboros");
    const second = await lease("edge");
    assert.equal(first.id, "ouroboros-controller");
    assert.equal(second.id, "edge-ouroboros-controller");
    assert.notEqual(first.id, second.id);
    assert.deepEqual(
      second.grants,
      rules(
        "coordination.k8s.io/leases: create",
        "coordination.k8s.io/leases/edge-ouroboros-controller: get,update,watch",
      ),
    );
    // The same release name in another namespace: another Lease namespace.
    const elsewhere = await lease("ouroboros", "ingress");
    assert.equal(elsewhere.namespace, "ingress");
    assert.equal(elsewhere.role, "Role ingress/ouroboros-leader-election");

    // Both set: the Role follows the Lease into its namespace, named after the release's namespace.
    const custom = await lease("edge", "ouroboros", [
      "controller.leaderElection.id=shared.lease",
      "controller.leaderElection.namespace=kube-system",
    ]);
    assert.deepEqual(custom, {
      id: "shared.lease",
      namespace: "kube-system",
      role: "Role kube-system/ouroboros:edge-ouroboros-leader-election",
      grants: rules(
        "coordination.k8s.io/leases: create",
        "coordination.k8s.io/leases/shared.lease: get,update,watch",
      ),
    });
  }
});

test("the operator's affinity and topology spread constraints replace the defaults", async () => {
  const affinity = {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: "role", operator: "In", values: ["infra"] }] }],
      },
    },
  };
  const spread = [{ maxSkew: 2, topologyKey: "rack", whenUnsatisfiable: "DoNotSchedule" }];
  for (const helm of helms()) {
    const objects = await renderOk(helm, {
      values: {
        controller: {
          replicaCount: 2,
          leaderElection: { enabled: true },
          affinity,
          topologySpreadConstraints: spread,
        },
      },
    });
    const spec = podSpec(find(objects, "Deployment", "ouroboros"));
    assert.deepEqual(spec.affinity, affinity, helm.label);
    assert.deepEqual(spec.topologySpreadConstraints, spread, helm.label);
    // Each replaces only its own default.
    const onlyAffinity = podSpec(find(
      await renderOk(helm, {
        values: { controller: { replicaCount: 2, leaderElection: { enabled: true }, affinity } },
      }),
      "Deployment",
      "ouroboros",
    ));
    assert.deepEqual(onlyAffinity.affinity, affinity, helm.label);
    assert.equal(onlyAffinity.topologySpreadConstraints?.[0]?.topologyKey, "topology.kubernetes.io/zone");
  }
});

test("etc-hosts: leader election is refused with the reason; replicaCount does not apply to the DaemonSet", async () => {
  for (const helm of helms()) {
    for (const set of [MODES["etc-hosts"], ["controller.mode=etc-hosts", "etcHosts.proxyIP=10.96.0.50"]]) {
      const stderr = await renderFails(helm, { set: [...set, "controller.leaderElection.enabled=true"] });
      assert.match(
        stderr,
        /controller\.leaderElection\.enabled=true is refused in etc-hosts mode: .*each writes only its own node's hosts file, so there is nothing to elect\. Set controller\.leaderElection\.enabled=false/,
        helm.label,
      );
    }
    const objects = await renderOk(helm, { set: [...MODES["etc-hosts"], "controller.replicaCount=3"] });
    const args = container(find(objects, "DaemonSet", "ouroboros-etc-hosts"), "controller").args ?? [];
    assert.ok(!args.some((arg) => arg.startsWith("--leader-")), helm.label);
    assert.deepEqual(leaseGrants(objects), [], helm.label);
    // Only the proxy's budget (on by default): none for the DaemonSet.
    assert.deepEqual(
      ofKind(objects, "PodDisruptionBudget").map((o) => o.metadata.name),
      ["ouroboros-proxy"],
      helm.label,
    );
    // Without a controller nothing elects, so nothing is refused either.
    const none = await renderOk(helm, { set: ["controller.enabled=false", ...HA] });
    assert.deepEqual(leaseGrants(none), [], helm.label);
  }
});

test("durations: refused unless leaseDuration > renewDeadline > 1.2 × retryPeriod > 0, as the controller checks", async () => {
  const cases: { durations: [string, string, string]; ok: boolean }[] = [
    { durations: ["15s", "10s", "2s"], ok: true },
    { durations: ["1m", "59s", "49s"], ok: true },
    { durations: ["1m", "59s", "50s"], ok: false }, // 60 s > 59 s
    { durations: ["1h", "59m59.5s", "500ms"], ok: true },
    { durations: ["300ms", "250ms", "200ms"], ok: true }, // 240 ms < 250 ms
    { durations: ["300ms", "250ms", "209ms"], ok: false }, // 250.8 ms
    { durations: ["10s", "10s", "2s"], ok: false },
    { durations: ["9s", "10s", "2s"], ok: false },
    { durations: ["15s", "10s", "0s"], ok: false },
  ];
  for (const helm of helms()) {
    for (const { durations: [lease, renew, retry], ok } of cases) {
      const set = [
        "controller.leaderElection.enabled=true",
        `controller.leaderElection.leaseDuration=${lease}`,
        `controller.leaderElection.renewDeadline=${renew}`,
        `controller.leaderElection.retryPeriod=${retry}`,
      ];
      const label = `${helm.label} ${lease}/${renew}/${retry}`;
      if (ok) {
        const args = controllerArgs(await renderOk(helm, { set }));
        assert.deepEqual(args.slice(-3), [
          `--leader-election-lease-duration=${lease}`,
          `--leader-election-renew-deadline=${renew}`,
          `--leader-election-retry-period=${retry}`,
        ], label);
      } else {
        const stderr = await renderFails(helm, { set });
        assert.ok(
          stderr.includes(
            "controller.leaderElection durations must satisfy leaseDuration > renewDeadline > 1.2 × retryPeriod > 0 " +
              `(the controller refuses to start otherwise); got leaseDuration=${lease}, renewDeadline=${renew}, ` +
              `retryPeriod=${retry}.`,
          ),
          `${label}:\n${stderr}`,
        );
      }
    }
  }
});

test("NOTES: the Lease and how to see its holder, only when electing", async () => {
  // Helm 4 only: `helm install --dry-run=client` of Helm 3 still asks a cluster for its version.
  const helm = helm4();
  const text = await notes(helm, { release: "edge", set: HA });
  assert.match(
    text,
    /Leader election: 3 replica\(s\) elect a leader through Lease ouroboros\/edge-ouroboros-controller/,
    helm.label,
  );
  assert.match(
    text,
    /kubectl --namespace ouroboros get lease edge-ouroboros-controller --output jsonpath='\{\.spec\.holderIdentity\}'/,
  );
  assert.doesNotMatch(await notes(helm), /Leader election|get lease/, helm.label);
});
