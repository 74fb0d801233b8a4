/**
 * chart/quickstart.yaml: in step with the chart (`deno task chart:quickstart` regenerates it), the
 * default install without hooks plus a Namespace, every namespaced object placed in a namespace,
 * valid objects, pods that the Namespace's "restricted" Pod Security level admits, and a header
 * that tells how to install and how to uninstall by hand.
 */

import assert from "node:assert/strict";
import { QUICKSTART_PATH, renderQuickstart } from "./quickstart.ts";
import {
  chartHelms,
  CLUSTER_SCOPED,
  ids,
  isHook,
  parseObjects,
  podSpec,
  renderOk,
  restrictedViolations,
  validateObject,
} from "./support.ts";

const { helm4, test } = await chartHelms("quickstart tests", { helm3: false });
const TEXT = await Deno.readTextFile(QUICKSTART_PATH);

test("chart/quickstart.yaml is in step with the chart (regenerate with `deno task chart:quickstart`)", async () => {
  const expected = await renderQuickstart(helm4());
  assert.ok(TEXT === expected, "chart/quickstart.yaml is stale: run `deno task chart:quickstart`");
});

test("the quickstart is the default install without hooks, after its Namespace, every object in place", async () => {
  const objects = parseObjects(TEXT);
  const [namespace, ...rest] = objects;
  assert.equal(namespace?.kind, "Namespace");
  assert.equal(namespace.metadata.name, "ouroboros");
  assert.equal(namespace.metadata.labels?.["pod-security.kubernetes.io/enforce"], "restricted");
  const chart = (await renderOk(helm4())).filter((object) => !isHook(object));
  assert.deepEqual(rest, chart, "the quickstart holds exactly the chart's non-hook objects");
  assert.deepEqual(ids(objects), [
    "ClusterRole /ouroboros:ouroboros",
    "ClusterRoleBinding /ouroboros:ouroboros",
    "Deployment ouroboros/ouroboros",
    "Deployment ouroboros/ouroboros-proxy",
    "Namespace /ouroboros",
    "PodDisruptionBudget ouroboros/ouroboros-proxy",
    "Role kube-system/ouroboros:ouroboros-coredns",
    "Role kube-system/ouroboros:ouroboros-node-local-dns",
    "RoleBinding kube-system/ouroboros:ouroboros-coredns",
    "RoleBinding kube-system/ouroboros:ouroboros-node-local-dns",
    "Service ouroboros/ouroboros-proxy",
    "ServiceAccount ouroboros/ouroboros",
  ]);
  for (const object of objects) {
    assert.ok(!isHook(object), `${object.kind} ${object.metadata.name} is a hook`);
    assert.notEqual(object.kind, "Job", "no Job: applied by kubectl it would run at once");
    if (!CLUSTER_SCOPED.has(object.kind)) {
      assert.ok(object.metadata.namespace, `${object.kind} ${object.metadata.name} has no namespace`);
    }
    await validateObject(object);
  }
  for (const deployment of objects.filter((object) => object.kind === "Deployment")) {
    assert.deepEqual(restrictedViolations(podSpec(deployment)), [], deployment.metadata.name);
  }
});

Deno.test("the quickstart's header says how to install, and how to uninstall without the hooks", () => {
  const header = TEXT.slice(0, TEXT.indexOf("\n---\n"));
  assert.ok(header.split("\n").every((line) => line.startsWith("#")), "the header is comments only");
  assert.match(header, /kubectl apply --server-side --filename chart\/quickstart\.yaml/);
  assert.match(header, /pre-delete hook does not run under kubectl/);
  assert.match(header, /kubectl --namespace ouroboros scale deployment ouroboros --replicas=0/);
  assert.match(header, /kubectl --namespace kube-system edit configmap coredns/);
  assert.match(
    header,
    /sed '\/# === BEGIN ouroboros \(do not edit by hand\) ===\/,\/# === END ouroboros ===\/d'/,
  );
  assert.match(header, /kubectl delete --filename chart\/quickstart\.yaml/);
  assert.ok(header.indexOf("--replicas=0") < header.indexOf("kubectl delete"), "the controller stops first");
});
