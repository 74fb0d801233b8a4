/**
 * `controller.dryRun`, rendered by Helm 4 and Helm 3: the controller gets `--dry-run`, its RBAC
 * keeps exactly the reads of a normal install and drops every write (Events included), the hosts
 * file is mounted read-only, no uninstall hook is rendered (a preview wrote nothing, and a block
 * carrying its markers would be another writer's), and a preview runs one replica without a Lease.
 */

import assert from "node:assert/strict";
import {
  chartHelms,
  container,
  find,
  isHook,
  type K8sObject,
  MODES,
  notes,
  rbacMatrix,
  renderFails,
  renderOk,
  rules,
} from "./support.ts";

const { helm4, helms, test } = await chartHelms("chart dry-run tests");

const DRY_RUN = "controller.dryRun=true";
const READ_VERBS = new Set(["get", "list", "watch"]);

/** The verb of a ruleSet grant ("core/configmaps/coredns: get" -> "get"). */
const verbOf = (grant: string): string => grant.slice(grant.lastIndexOf(": ") + 2);

/** The controller container of a render: the Deployment's, or the etc-hosts DaemonSet's. */
function controllerOf(objects: readonly K8sObject[]) {
  const workload = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "ouroboros") ??
    find(objects, "DaemonSet", "ouroboros-etc-hosts");
  return container(workload, "controller");
}

/** The RBAC of the controller itself (hooks left out), keyed as rbacMatrix keys it. */
function controllerRbac(objects: readonly K8sObject[]): Record<string, string[]> {
  return rbacMatrix(objects.filter((object) => !isHook(object)));
}

test("every mode: --dry-run, and the controller keeps exactly its reads, without a single write or Event", async () => {
  for (const helm of helms()) {
    for (const [mode, set] of Object.entries(MODES)) {
      for (const extra of [[], ["controller.gatewayApi.enabled=true"]]) {
        const label = `${helm.label} ${mode} ${extra.join(" ")}`;
        const live = await renderOk(helm, { set: [...set, ...extra] });
        const preview = await renderOk(helm, { set: [...set, ...extra, DRY_RUN] });
        const liveArgs = controllerOf(live).args ?? [];
        assert.deepEqual(controllerOf(preview).args, [...liveArgs, "--dry-run"], label);
        assert.ok(!liveArgs.includes("--dry-run"), label);

        // The live install writes (so the comparison below means something) ...
        const liveRbac = controllerRbac(live);
        assert.ok(Object.values(liveRbac).flat().some((grant) => !READ_VERBS.has(verbOf(grant))), label);
        // ... and the preview has the same Roles with only their reads; a Role left with none is gone.
        const readsOnly = Object.fromEntries(
          Object.entries(liveRbac)
            .map(([role, grants]) => [role, grants.filter((grant) => READ_VERBS.has(verbOf(grant)))] as const)
            .filter(([, grants]) => grants.length > 0),
        );
        assert.deepEqual(rbacMatrix(preview), readsOnly, label);
      }
    }
  }
});

test("the read-only RBAC of each mode, written out", async () => {
  const ingresses = rules("networking.k8s.io/ingresses: list,watch");
  // controller.nodeLocalDns.mode=warn (the default): the start-up check's one read, kept in a preview.
  const nodeLocalDns = rules("core/configmaps/node-local-dns: get");
  const expected: Record<keyof typeof MODES, Record<string, string[]>> = {
    "coredns": {
      "ClusterRole /ouroboros:ouroboros": ingresses,
      "Role kube-system/ouroboros:ouroboros-coredns": rules("core/configmaps/coredns: get,list,watch"),
      "Role kube-system/ouroboros:ouroboros-node-local-dns": nodeLocalDns,
    },
    "coredns-import": {
      "ClusterRole /ouroboros:ouroboros": ingresses,
      "Role kube-system/ouroboros:ouroboros-coredns-import": rules(
        "core/configmaps/coredns-custom: get,list,watch",
      ),
      // The start-up check's read of the main Corefile: get only, live or preview.
      "Role kube-system/ouroboros:ouroboros-coredns": rules("core/configmaps/coredns: get"),
      "Role kube-system/ouroboros:ouroboros-node-local-dns": nodeLocalDns,
    },
    "external-dns": {
      "ClusterRole /ouroboros:ouroboros": ingresses,
      // The orphan probe's list of the inactive kind is a read, so a preview keeps it.
      "Role ouroboros/ouroboros:ouroboros-externaldns": rules(
        "externaldns.k8s.io/dnsendpoints: get,list",
        "core/services: list",
      ),
      "Role ouroboros/ouroboros-externaldns-discover": rules("core/services/ouroboros-proxy: list,watch"),
    },
    "etc-hosts": { "ClusterRole /ouroboros:ouroboros": ingresses },
  };
  for (const helm of helms()) {
    for (const [mode, set] of Object.entries(MODES) as [keyof typeof MODES, readonly string[]][]) {
      assert.deepEqual(rbacMatrix(await renderOk(helm, { set: [...set, DRY_RUN] })), expected[mode], mode);
    }
    const service = await renderOk(helm, {
      set: [...MODES["external-dns"], "externalDns.output=service", DRY_RUN],
    });
    assert.deepEqual(
      rbacMatrix(service)["Role ouroboros/ouroboros:ouroboros-externaldns"],
      rules("core/services: get,list", "externaldns.k8s.io/dnsendpoints: list"),
    );
  }
});

test("no uninstall hook in a preview, in any mode (each would write: remove a block, a key, records)", async () => {
  for (const helm of helms()) {
    for (const [mode, set] of Object.entries(MODES)) {
      const hooks = (objects: readonly K8sObject[]) =>
        objects.filter(isHook).map((o) => `${o.kind} ${o.metadata.name}`);
      assert.ok(
        hooks(await renderOk(helm, { set })).length > 0,
        `${helm.label} ${mode}: a live install has hooks`,
      );
      assert.deepEqual(hooks(await renderOk(helm, { set: [...set, DRY_RUN] })), [], `${helm.label} ${mode}`);
    }
  }
});

test("etc-hosts preview: the hosts file is mounted read-only; a live install may write it", async () => {
  for (const helm of helms()) {
    const mount = async (set: readonly string[]) =>
      container(find(await renderOk(helm, { set }), "DaemonSet", "ouroboros-etc-hosts"), "controller")
        .volumeMounts;
    assert.deepEqual(await mount([...MODES["etc-hosts"], DRY_RUN]), [
      { name: "hosts", mountPath: "/host/etc/hosts", readOnly: true },
    ], helm.label);
    assert.deepEqual(await mount(MODES["etc-hosts"]), [{ name: "hosts", mountPath: "/host/etc/hosts" }]);
  }
});

test("refused: a preview with more than one replica or with leader election, naming both values", async () => {
  for (const helm of helms()) {
    const cases: [string[], RegExp][] = [
      [
        ["controller.replicaCount=2", "controller.leaderElection.enabled=true"],
        /set controller\.replicaCount=1 \(now 2\) and controller\.leaderElection\.enabled=false \(now true\)/,
      ],
      [
        ["controller.replicaCount=2"],
        /set controller\.replicaCount=1 \(now 2\) and controller\.leaderElection\.enabled=false \(now false\)/,
      ],
      [
        ["controller.leaderElection.enabled=true"],
        /set controller\.replicaCount=1 \(now 1\) and controller\.leaderElection\.enabled=false \(now true\)/,
      ],
    ];
    for (const [set, message] of cases) {
      const stderr = await renderFails(helm, { set: [...set, DRY_RUN] });
      assert.match(
        stderr,
        /controller\.dryRun=true previews and writes nothing, not even the Lease/,
        helm.label,
      );
      assert.match(stderr, message, `${helm.label} ${set.join(" ")}`);
    }
  }
});

test("NOTES of a preview: where to read the diffs, and that uninstalling cleans nothing", async () => {
  // Helm 4 only: `helm install --dry-run=client` of Helm 3 still asks a cluster for its version.
  const helm = helm4();
  const text = await notes(helm, { set: [DRY_RUN] });
  assert.match(text, /Preview only \(controller\.dryRun=true\): the controller writes nothing/);
  assert.match(
    text,
    /1\. The changes the controller would make, as diffs in its log:\n +kubectl --namespace ouroboros logs deployment\/ouroboros\n/,
  );
  assert.match(text, /no cleanup hook runs, since a preview wrote nothing/);
  assert.doesNotMatch(text, /block in the Corefile|nslookup|pre-delete/);
  const hosts = await notes(helm, { set: [...MODES["etc-hosts"], DRY_RUN] });
  assert.match(
    hosts,
    /logs --selector 'app\.kubernetes\.io\/name=ouroboros,app\.kubernetes\.io\/instance=ouroboros,app\.kubernetes\.io\/component=etc-hosts' --prefix/,
  );
  assert.match(hosts, /pod-security\.kubernetes\.io\/enforce=privileged/);
  assert.doesNotMatch(await notes(helm), /Preview only/);
});
