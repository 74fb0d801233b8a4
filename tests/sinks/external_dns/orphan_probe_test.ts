/**
 * The startup probe for records of the inactive output, including a switch from crd to service
 * whose printed command, run with the real kubectl against the fake, deletes exactly the
 * orphans.
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../../lib/kube/client.ts";
import { probeOrphans } from "../../../lib/sinks/external_dns/orphan_probe.ts";
import { startFakeApiServer } from "../../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../../support/kubeconfig.ts";
import { installKubeTools, requireKubeTools, skipWithoutKubectl } from "../../support/kubectl.ts";
import { captureLogs, harness, INSTANCE, NAMESPACE, SELECTOR, settings } from "./support.ts";

const never = new AbortController().signal;
const tools = await installKubeTools();

/**
 * Runs a printed command line through `sh`, as an operator pasting it would, with `kubectl` on
 * PATH and a kubeconfig pointing at `server`.
 */
async function runPrinted(command: string, server: string): Promise<{ code: number; stderr: string }> {
  const { kubectl } = requireKubeTools(tools);
  const dir = await Deno.makeTempDir({ prefix: "orphan-kubectl-" });
  try {
    await writeKubeconfig(`${dir}/kubeconfig`, { server });
    const output = await new Deno.Command("/bin/sh", {
      args: ["-c", command],
      clearEnv: true,
      env: {
        HOME: dir,
        KUBECONFIG: `${dir}/kubeconfig`,
        PATH: `${kubectl.slice(0, kubectl.lastIndexOf("/"))}:/usr/bin:/bin`,
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "switching crd → service: the probe WARNs with a command that deletes exactly the old DNSEndpoints",
  ignore: skipWithoutKubectl("the orphan command run with kubectl", tools),
  fn: async () => {
    await using server = await startFakeApiServer();
    using crd = harness(server, { settings: settings({ output: "crd" }) });
    await crd.sink.reconcile(["a.example.com", "b.example.com"], never);
    // Records that must survive the printed command: a user's own, and another release's.
    server.create({
      apiVersion: "externaldns.k8s.io/v1alpha1",
      kind: "DNSEndpoint",
      metadata: { name: "users-own", namespace: NAMESPACE },
      spec: { endpoints: [] },
    });
    server.create({
      apiVersion: "externaldns.k8s.io/v1alpha1",
      kind: "DNSEndpoint",
      metadata: {
        name: "blue-release",
        namespace: NAMESPACE,
        labels: { "app.kubernetes.io/managed-by": "ouroboros", "ouroboros.lexfrei.tech/instance": "blue" },
      },
      spec: { endpoints: [] },
    });

    using logs = captureLogs();
    using service = harness(server, { settings: settings({ output: "service" }) });
    const result = await probeOrphans(
      service.client,
      { activeOutput: "service", namespace: NAMESPACE, instance: INSTANCE },
      never,
    );
    const command =
      `kubectl --namespace ${NAMESPACE} delete dnsendpoints.externaldns.k8s.io --selector='${SELECTOR}'`;
    assert.deepEqual(result, { kind: "found", output: "crd", command });
    const [warn, ...more] = logs.at("WARN");
    assert.deepEqual(more, []);
    assert.ok(warn?.msg.includes(command), warn?.msg);
    assert.match(warn?.msg ?? "", /--external-dns-output=service is active.*DNSEndpoints from an earlier/);
    const list = server.audit.at(-1)!;
    assert.deepEqual(
      [list.query.limit, list.query.labelSelector],
      ["1", SELECTOR],
      "the probe reads one item",
    );

    // The new output takes over; the old kind is left for the operator.
    await service.sink.reconcile(["a.example.com", "b.example.com"], never);
    assert.equal(server.list("v1", "Service", NAMESPACE).length, 2);
    assert.equal(server.list("externaldns.k8s.io/v1alpha1", "DNSEndpoint", NAMESPACE).length, 4);

    const run = await runPrinted(command, server.url);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      server.list("externaldns.k8s.io/v1alpha1", "DNSEndpoint", NAMESPACE).map((o) =>
        (o.metadata as { name: string }).name
      ).sort(),
      ["blue-release", "users-own"],
    );
    assert.equal(server.list("v1", "Service", NAMESPACE).length, 2, "the active kind is untouched");
    const again = await probeOrphans(
      service.client,
      { activeOutput: "service", namespace: NAMESPACE, instance: INSTANCE },
      never,
    );
    assert.deepEqual(again, { kind: "none" });
  },
});

Deno.test("switching service → crd: owned Services are reported the same way", async () => {
  await using server = await startFakeApiServer();
  using old = harness(server, { settings: settings({ output: "service" }) });
  await old.sink.reconcile(["a.example.com"], never);
  using logs = captureLogs();
  const result = await probeOrphans(old.client, {
    activeOutput: "crd",
    namespace: NAMESPACE,
    instance: INSTANCE,
  }, never);
  assert.deepEqual(result, {
    kind: "found",
    output: "service",
    command: `kubectl --namespace ${NAMESPACE} delete services --selector='${SELECTOR}'`,
  });
  assert.equal(logs.at("WARN").length, 1);
});

Deno.test("the probe is silent when there is nothing, and when it may not or cannot look", async (t) => {
  const where = { activeOutput: "service", namespace: NAMESPACE, instance: INSTANCE } as const;
  await t.step("nothing left over", async () => {
    await using server = await startFakeApiServer();
    using client = new KubeClient({ server: server.url });
    using logs = captureLogs();
    assert.deepEqual(await probeOrphans(client, where, never), { kind: "none" });
    assert.deepEqual(logs.lines, []);
  });
  const failures: [string, number, string, string][] = [
    ["RBAC refuses the other kind", 403, "Forbidden", "forbidden"],
    ["a server error", 500, "InternalError", "error"],
  ];
  for (const [name, code, reason, expected] of failures) {
    await t.step(name, async () => {
      await using server = await startFakeApiServer();
      using client = new KubeClient({ server: server.url });
      server.faults.inject("list", { type: "status", code, reason });
      using logs = captureLogs();
      const result = await probeOrphans(client, where, never);
      assert.equal(result.kind === "unknown" && result.reason, expected);
      assert.deepEqual(logs.lines.map((line) => line.level), ["DEBUG"]);
    });
  }
  await t.step("the DNSEndpoint CRD is not installed", async () => {
    await using server = await startFakeApiServer({ omitGroups: ["externaldns.k8s.io"] });
    using client = new KubeClient({ server: server.url });
    using logs = captureLogs();
    const result = await probeOrphans(client, where, never);
    assert.equal(result.kind === "unknown" && result.reason, "not-found");
    assert.deepEqual(logs.lines.map((line) => line.level), ["DEBUG"]);
  });
});
