/**
 * The startup probe for records of the inactive output and what it says, including a switch from
 * crd to service whose printed command, run with the real kubectl against the fake, deletes
 * exactly the orphans.
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../../../lib/kube/client.ts";
import { orphanNotices, probeOrphans } from "../../../../lib/controller/modes/external_dns/orphan_probe.ts";
import { startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../../../support/kubeconfig.ts";
import { installKubeTools, requireKubeTools, skipWithoutKubectl } from "../../../support/kubectl.ts";
import { harness, INSTANCE, NAMESPACE, SELECTOR, settings } from "./support.ts";
import { tempDir } from "../../../support/temp_dir.ts";

const never = new AbortController().signal;
const tools = await installKubeTools();

/**
 * Runs a printed command line through `sh`, as an operator pasting it would, with `kubectl` on
 * PATH and a kubeconfig pointing at `server`.
 */
async function runPrinted(command: string, server: string): Promise<{ code: number; stderr: string }> {
  const { kubectl } = requireKubeTools(tools);
  await using temp = await tempDir("orphan-kubectl-");
  const dir = temp.path;
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

    using service = harness(server, { settings: settings({ output: "service" }) });
    const where = { activeOutput: "service", namespace: NAMESPACE, instance: INSTANCE } as const;
    const result = await probeOrphans(service.client, { ...where, signal: never });
    const command =
      `kubectl --namespace ${NAMESPACE} delete dnsendpoints.externaldns.k8s.io --selector='${SELECTOR}'`;
    assert.deepEqual(result, { kind: "found", output: "crd", command });
    const [warn, ...more] = orphanNotices(result, where);
    assert.deepEqual(more, []);
    assert.equal(warn?.level, "warn");
    assert.ok(warn?.message.includes(command), warn?.message);
    assert.match(
      warn?.message ?? "",
      /--external-dns-output=service is active.*DNSEndpoints from an earlier/,
    );
    assert.deepEqual(warn?.properties, { namespace: NAMESPACE, command });
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
    const again = await probeOrphans(service.client, { ...where, signal: never });
    assert.deepEqual(again, { kind: "none" });
    assert.deepEqual(orphanNotices(again, where), []);
  },
});

Deno.test("switching service → crd: owned Services are reported the same way", async () => {
  await using server = await startFakeApiServer();
  using old = harness(server, { settings: settings({ output: "service" }) });
  await old.sink.reconcile(["a.example.com"], never);
  const where = { activeOutput: "crd", namespace: NAMESPACE, instance: INSTANCE } as const;
  const result = await probeOrphans(old.client, { ...where, signal: never });
  assert.deepEqual(result, {
    kind: "found",
    output: "service",
    command: `kubectl --namespace ${NAMESPACE} delete services --selector='${SELECTOR}'`,
  });
  assert.deepEqual(orphanNotices(result, where).map((notice) => notice.level), ["warn"]);
});

Deno.test("the probe is silent when there is nothing, and when it may not or cannot look", async (t) => {
  const where = { activeOutput: "service", namespace: NAMESPACE, instance: INSTANCE } as const;
  await t.step("nothing left over", async () => {
    await using server = await startFakeApiServer();
    using client = new KubeClient({ server: server.url });
    const result = await probeOrphans(client, { ...where, signal: never });
    assert.deepEqual(result, { kind: "none" });
    assert.deepEqual(orphanNotices(result, where), []);
  });
  const failures: [string, number, string, string][] = [
    ["RBAC made by hand refuses the other kind (the chart grants its list)", 403, "Forbidden", "forbidden"],
    ["a server error", 500, "InternalError", "error"],
  ];
  for (const [name, code, reason, expected] of failures) {
    await t.step(name, async () => {
      await using server = await startFakeApiServer();
      using client = new KubeClient({ server: server.url });
      server.faults.inject("list", { type: "status", code, reason });
      const result = await probeOrphans(client, { ...where, signal: never });
      assert.equal(result.kind === "unknown" && result.reason, expected);
      const notices = orphanNotices(result, where);
      assert.deepEqual(notices.map((notice) => notice.level), ["debug"]);
      assert.deepEqual(notices[0]?.properties, {
        namespace: NAMESPACE,
        inactive: "crd",
        reason: expected,
        error: result.kind === "unknown" ? result.error : "",
      });
    });
  }
  await t.step("the DNSEndpoint CRD is not installed", async () => {
    await using server = await startFakeApiServer({ omitGroups: ["externaldns.k8s.io"] });
    using client = new KubeClient({ server: server.url });
    const result = await probeOrphans(client, { ...where, signal: never });
    assert.equal(result.kind === "unknown" && result.reason, "not-found");
    assert.deepEqual(orphanNotices(result, where).map((notice) => notice.level), ["debug"]);
  });
});

Deno.test("an aborted probe rejects with the abort reason", async () => {
  await using server = await startFakeApiServer();
  using client = new KubeClient({ server: server.url });
  const controller = new AbortController();
  controller.abort(new Error("shutting down"));
  await assert.rejects(
    probeOrphans(client, {
      activeOutput: "crd",
      namespace: NAMESPACE,
      instance: INSTANCE,
      signal: controller.signal,
    }),
    /shutting down/,
  );
});
