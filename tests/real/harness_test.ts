/**
 * The pure parts of the real-component suite's harness, in the unit suite: the token file and
 * kubeconfigs it writes (read back by ouroboros's own kubeconfig parser), the chart-flag
 * overrides, the RBAC judge (403s, unused grants, cluster-wide grants), the single-writer judge,
 * the kubelet-style ConfigMap layout, CoreDNS's refusal lines and the test summary the runner
 * reads. The scenarios themselves run in `deno task test:real`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parse } from "yaml";
import { parseKubeconfig } from "../../lib/kube/kubeconfig.ts";
import { tempDir } from "../support/temp_dir.ts";
import { flagName, overrideFlags } from "./chart_workloads.ts";
import { writeAtomically } from "./configmap_volume.ts";
import { corefileErrors } from "./coredns.ts";
import { adminIdentity, kubeconfigFor, newToken, serviceAccountIdentity, tokenFile } from "./identities.ts";
import {
  type AuditedRequest,
  describeGrant,
  forbidden,
  grantsOf,
  parseAuditLog,
  unusedGrants,
  withClusterWide,
} from "./rbac_usage.ts";
import { testSummary } from "./run_suite.ts";
import { writesOutsideLeadership } from "./single_writer.ts";

Deno.test("real harness: the token file quotes the group list; a ServiceAccount has the groups its tokens carry", () => {
  const sa = serviceAccountIdentity("ouroboros", "ouroboros", "t1");
  assert.equal(sa.user, "system:serviceaccount:ouroboros:ouroboros");
  assert.deepEqual(sa.groups, ["system:serviceaccounts", "system:serviceaccounts:ouroboros"]);
  assert.equal(
    tokenFile([adminIdentity("t0"), sa]),
    "t0,real-suite-admin,admin,system:masters\n" +
      't1,system:serviceaccount:ouroboros:ouroboros,sa-ouroboros-ouroboros,"system:serviceaccounts,system:serviceaccounts:ouroboros"\n',
  );
  assert.match(newToken(() => 0.5), /^(80){16}$/);
});

Deno.test("real harness: the kubeconfig written for an identity is one ouroboros itself reads", () => {
  const identity = serviceAccountIdentity("kube-system", "coredns", "secret-token");
  const text = kubeconfigFor(
    { server: "https://127.0.0.1:6443", caPem: "-----BEGIN CERTIFICATE-----\n" },
    identity,
  );
  const parsed = parseKubeconfig(text, { baseDir: "/", parseYaml: parse });
  assert.ok(parsed.ok, JSON.stringify(parsed));
  const context = parsed.value.contexts.get(parsed.value.currentContext);
  assert.equal(context?.namespace, "default");
  assert.equal(parsed.value.users.get(context?.user ?? "")?.token, "secret-token");
  assert.equal(parsed.value.clusters.get(context?.cluster ?? "")?.server, "https://127.0.0.1:6443");
});

Deno.test("real harness: chart flags are overridden by name, the rest kept in order", () => {
  assert.equal(flagName("--listen-health=:8082"), "listen-health");
  assert.equal(flagName("--leader-elect"), "leader-elect");
  assert.equal(flagName("controller"), undefined);
  assert.deepEqual(
    overrideFlags(["controller", "--mode=coredns", "--listen-health=:8082", "--leader-elect"], [
      "--listen-health=127.0.0.1:0",
      "--kubeconfig=/k",
    ]),
    ["controller", "--mode=coredns", "--leader-elect", "--listen-health=127.0.0.1:0", "--kubeconfig=/k"],
  );
});

const USER = "system:serviceaccount:ouroboros:ouroboros";

function request(fields: Partial<AuditedRequest>): AuditedRequest {
  return {
    user: USER,
    uid: "a",
    verb: "get",
    apiGroup: "",
    resource: "configmaps",
    code: 200,
    requestURI: "/",
    received: "2026-12-05T09:00:00.000000Z",
    completed: "2026-12-05T09:00:00.000100Z",
    ...fields,
  };
}

Deno.test("real harness: the audit log is read as completed resource requests with user, uid and status", () => {
  const lines = [
    JSON.stringify({
      stage: "ResponseComplete",
      verb: "patch",
      requestURI: "/api/v1/namespaces/kube-system/configmaps/coredns",
      requestReceivedTimestamp: "2026-12-05T09:00:00.100000Z",
      stageTimestamp: "2026-12-05T09:00:00.200000Z",
      user: { username: USER, uid: "r1" },
      objectRef: { resource: "configmaps", namespace: "kube-system", name: "coredns", apiVersion: "v1" },
      responseStatus: { code: 200 },
    }),
    JSON.stringify({
      stage: "ResponseComplete",
      verb: "get",
      requestURI: "/readyz",
      user: { username: USER },
    }),
    "not json",
  ];
  assert.deepEqual(parseAuditLog(lines.join("\n")), [{
    user: USER,
    uid: "r1",
    verb: "patch",
    apiGroup: "",
    resource: "configmaps",
    namespace: "kube-system",
    name: "coredns",
    code: 200,
    requestURI: "/api/v1/namespaces/kube-system/configmaps/coredns",
    received: "2026-12-05T09:00:00.100000Z",
    completed: "2026-12-05T09:00:00.200000Z",
  }]);
});

Deno.test("real harness: a grant is used by any authorized request (404 too), by name and namespace; 403s are named", () => {
  const namespaced = grantsOf([
    { verbs: ["get", "patch"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["coredns"] },
    { verbs: ["create"], apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectrulesreviews"] },
  ], "kube-system");
  const unbound = grantsOf([{
    verbs: ["list", "watch"],
    apiGroups: ["networking.k8s.io"],
    resources: ["ingresses"],
  }], "x");
  const clusterWideToo = grantsOf([{
    verbs: ["list"],
    apiGroups: ["networking.k8s.io"],
    resources: ["ingresses"],
  }], "kube-system");
  const grants = withClusterWide(unbound, [...namespaced, ...clusterWideToo]);
  assert.deepEqual(grants.map(describeGrant), [
    "list networking.k8s.io/ingresses cluster-wide",
    "watch networking.k8s.io/ingresses cluster-wide",
    "get core/configmaps in kube-system [coredns]",
    "patch core/configmaps in kube-system [coredns]",
  ]);
  const requests = [
    request({ verb: "get", namespace: "kube-system", name: "coredns", code: 404 }),
    request({ verb: "patch", namespace: "kube-system", name: "other" }),
    request({ verb: "list", apiGroup: "networking.k8s.io", resource: "ingresses", namespace: "default" }),
    request({
      verb: "watch",
      apiGroup: "networking.k8s.io",
      resource: "ingresses",
      code: 403,
      requestURI: "/w",
    }),
    request({ user: "someone-else", verb: "patch", namespace: "kube-system", name: "coredns" }),
  ];
  assert.deepEqual(unusedGrants(grants, requests, USER).map(describeGrant), [
    "watch networking.k8s.io/ingresses cluster-wide",
    "patch core/configmaps in kube-system [coredns]",
  ]);
  assert.deepEqual(forbidden(requests, USER).map((r) => r.requestURI), ["/w"]);
});

Deno.test("real harness: the single-writer judge names a write made after another replica took the Lease", () => {
  const lease = (uid: string, at: string) =>
    request({ uid, verb: "update", apiGroup: "coordination.k8s.io", resource: "leases", completed: at });
  const write = (uid: string, at: string) => request({ uid, verb: "patch", received: at });
  const rules = {
    isGuardedWrite: (r: AuditedRequest) => r.verb === "patch",
    isLeaseWrite: (r: AuditedRequest) => r.resource === "leases",
  };
  const history = [
    lease("a", "2026-12-05T09:00:01.000000Z"),
    write("a", "2026-12-05T09:00:02.000000Z"),
    lease("b", "2026-12-05T09:00:05.000000Z"),
    write("b", "2026-12-05T09:00:06.000000Z"),
    write("a", "2026-12-05T09:00:07.000000Z"), // woke from SIGSTOP and wrote without renewing
  ];
  assert.deepEqual(
    writesOutsideLeadership(history, rules).map(({ write, leaseHolder }) => [write.uid, leaseHolder]),
    [["a", "b"]],
  );
  assert.deepEqual(writesOutsideLeadership(history.slice(0, 4), rules), []);
  assert.equal(
    writesOutsideLeadership([write("a", "2026-12-05T09:00:00.000000Z")], rules)[0]?.leaseHolder,
    undefined,
  );
});

Deno.test("real harness: the ConfigMap copy swaps ..data atomically, links each key through it and drops old keys", async () => {
  await using dir = await tempDir("ouroboros-volume-");
  const now = new Date("2026-12-05T08:40:00Z");
  await writeAtomically(dir.path, { Corefile: "one", extra: "x" }, { now, sequence: 0 });
  const first = await Deno.readLink(`${dir.path}/..data`);
  assert.equal(first, "..2026_12_05_08_40_00.000000000");
  assert.equal(await Deno.readLink(`${dir.path}/Corefile`), "..data/Corefile");
  assert.equal(await Deno.readTextFile(`${dir.path}/Corefile`), "one");
  await writeAtomically(dir.path, { Corefile: "two" }, { now, sequence: 1 });
  assert.equal(await Deno.readTextFile(`${dir.path}/Corefile`), "two");
  const names = (await Array.fromAsync(Deno.readDir(dir.path))).map((entry) => entry.name).sort();
  assert.deepEqual(
    names,
    ["..2026_12_05_08_40_00.000000001", "..data", "Corefile"],
    "old version and key gone",
  );
});

Deno.test("real harness: CoreDNS's refusals of a Corefile are picked out of its log; the runner reads deno test's summary", () => {
  const log = [
    "[INFO] plugin/reload: Running configuration SHA512 = 1234",
    "[ERROR] Restart failed: Corefile:12 - Error during parsing: Unknown directive 'rewrit'",
    "[INFO] Reloading complete",
  ].join("\n");
  assert.deepEqual(corefileErrors(log), [
    "[ERROR] Restart failed: Corefile:12 - Error during parsing: Unknown directive 'rewrit'",
  ]);
  assert.deepEqual(testSummary("running 2 tests\nok | 7 passed | 0 failed (3m)\n"), { passed: 7, failed: 0 });
  assert.deepEqual(testSummary("FAILED | 5 passed (2 steps) | 2 failed (9s)\n"), { passed: 5, failed: 2 });
  assert.equal(testSummary("error: Module not found"), undefined);
});

Deno.test("real harness: a server-side apply that created its object (patch → 201) used create too; one that updated did not", () => {
  const grants = grantsOf([{ verbs: ["create", "patch"], apiGroups: [""], resources: ["services"] }], "ns");
  const apply = (code: number) =>
    request({ verb: "patch", resource: "services", namespace: "ns", name: "s", code });
  assert.deepEqual(unusedGrants(grants, [apply(200)], USER).map(describeGrant), [
    "create core/services in ns",
  ]);
  assert.deepEqual(unusedGrants(grants, [apply(201)], USER).map(describeGrant), []);
});
