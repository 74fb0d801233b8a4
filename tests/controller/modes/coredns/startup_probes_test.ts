/**
 * The start-up probes against the fake API server, judged by the notices they return for the
 * controller to log, which are the lines an operator reads: node-local-dns present (WARN with the
 * ways out), absent (silent) or unreadable (one DEBUG line);
 * the reload plugin present or missing; in coredns-import mode the import line; 403, 404, a
 * missing key and a black-holed request never fail start-up nor take longer than the deadline.
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../../../lib/kube/client.ts";
import type { Notice } from "../../../../lib/controller/modes/sink.ts";
import {
  runStartupProbes,
  type StartupProbeOptions,
} from "../../../../lib/controller/modes/coredns/startup_probes.ts";
import { type FakeApiServer, startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import { K3S, K3S_WITHOUT_RELOAD, KUBEADM } from "./fixtures/corefiles.ts";

const OPTIONS: Omit<StartupProbeOptions, "signal"> = {
  mode: "coredns",
  coredns: { namespace: "kube-system", configmap: "coredns", key: "Corefile" },
  corednsImport: { namespace: "kube-system", configmap: "coredns-custom", key: "ouroboros.override" },
  nodeLocalDns: { namespace: "kube-system", configmap: "node-local-dns" },
};

function configMap(name: string, data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "kube-system" }, data };
}

async function cluster(
  objects: { corefile?: string; nodeLocalDns?: boolean; corednsData?: Record<string, string> },
): Promise<{ server: FakeApiServer; client: KubeClient } & AsyncDisposable> {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  if (objects.corefile !== undefined || objects.corednsData !== undefined) {
    server.create(
      configMap("coredns", objects.corednsData ?? { Corefile: objects.corefile ?? "" }),
    );
  }
  if (objects.nodeLocalDns === true) {
    server.create(configMap("node-local-dns", { Corefile: "cluster.local:53 {}\n" }));
  }
  const client = new KubeClient({ server: server.url });
  return {
    server,
    client,
    async [Symbol.asyncDispose]() {
      client.close();
      await server.close();
    },
  };
}

const run = (
  client: KubeClient,
  options: Partial<StartupProbeOptions> = {},
  signal = new AbortController().signal,
) => runStartupProbes(client, { ...OPTIONS, signal, ...options });

/** The notices at one level. */
function at(notices: readonly Notice[], level: Notice["level"]): Notice[] {
  return notices.filter((notice) => notice.level === level);
}

/** The notices above DEBUG: what an operator sees at the default log level. */
function loud(notices: readonly Notice[]): Notice[] {
  return notices.filter((notice) => notice.level !== "debug");
}

Deno.test("a healthy kubeadm cluster: nothing above DEBUG", async () => {
  await using c = await cluster({ corefile: KUBEADM });
  const { report, notices } = await run(c.client);
  assert.deepEqual(report, {
    nodeLocalDns: "absent",
    reload: "present",
    importDirective: "not-checked",
  });
  assert.deepEqual(notices, [], "404 for node-local-dns is silent");
});

Deno.test("node-local-dns installed: one WARN naming the ConfigMap and the ways out", async () => {
  await using c = await cluster({ corefile: KUBEADM, nodeLocalDns: true });
  const { report, notices } = await run(c.client);
  assert.equal(report.nodeLocalDns, "present");
  const warns = at(notices, "warn");
  assert.equal(loud(notices).length, 1);
  assert.equal(warns.length, 1);
  assert.match(warns[0]!.message, /node-local-dns is installed/);
  assert.match(warns[0]!.message, /external-dns mode/);
  assert.match(warns[0]!.message, /--node-local-dns=manage/);
  assert.equal(warns[0]!.properties?.nodeLocalDnsConfigMap, "kube-system/node-local-dns");
});

Deno.test("the node-local-dns coordinates come from the options (OUROBOROS_NODE_LOCAL_DNS_*)", async () => {
  await using c = await cluster({ corefile: KUBEADM });
  c.server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "nodelocaldns", namespace: "dns-cache" },
    data: {},
  });
  const { report, notices } = await run(c.client, {
    nodeLocalDns: { namespace: "dns-cache", configmap: "nodelocaldns" },
  });
  assert.equal(report.nodeLocalDns, "present");
  assert.equal(at(notices, "warn")[0]?.properties?.nodeLocalDnsConfigMap, "dns-cache/nodelocaldns");
});

Deno.test("reading node-local-dns forbidden (RBAC without the chart's get on it): one DEBUG line, no WARN", async () => {
  await using c = await cluster({ corefile: KUBEADM, nodeLocalDns: true });
  c.server.faults.inject("get", { type: "status", code: 403, reason: "Forbidden" }, {
    path: /node-local-dns$/,
  });
  const { report, notices } = await run(c.client);
  assert.equal(report.nodeLocalDns, "unknown");
  assert.equal(at(notices, "warn").length, 0);
  const debug = at(notices, "debug");
  assert.equal(debug.length, 1);
  assert.match(debug[0]!.message, /RBAC/);
});

Deno.test("a Corefile without the reload plugin: WARN with the fix", async () => {
  await using c = await cluster({ corefile: K3S_WITHOUT_RELOAD });
  const { report, notices } = await run(c.client);
  assert.equal(report.reload, "missing");
  const warns = at(notices, "warn");
  assert.equal(warns.length, 1);
  assert.match(warns[0]!.message, /no 'reload' plugin/);
  assert.match(warns[0]!.message, /Add 'reload' to the \.:53 server block/);
  assert.equal(warns[0]!.properties?.configmap, "coredns");
});

Deno.test("the CoreDNS ConfigMap forbidden, missing, or without the key: never a WARN", async (t) => {
  await t.step(
    "403 (RBAC made by hand: the chart grants get): one DEBUG line saying what is not verified",
    async () => {
      await using c = await cluster({ corefile: K3S_WITHOUT_RELOAD });
      c.server.faults.inject("get", { type: "status", code: 403, reason: "Forbidden" }, {
        path: /\/coredns$/,
      });
      const { report, notices } = await run(c.client, { mode: "coredns-import" });
      assert.deepEqual(report, {
        nodeLocalDns: "absent",
        reload: "unknown",
        importDirective: "unknown",
      });
      assert.equal(at(notices, "warn").length, 0);
      assert.equal(at(notices, "debug").length, 1);
      assert.match(at(notices, "debug")[0]!.message, /RBAC.*check them by hand/);
    },
  );
  await t.step("404: silent", async () => {
    await using c = await cluster({});
    const { report, notices } = await run(c.client);
    assert.equal(report.reload, "unknown");
    assert.deepEqual(notices, []);
  });
  await t.step("no Corefile key: one DEBUG line", async () => {
    await using c = await cluster({ corednsData: { "Corefile.bak": KUBEADM } });
    const { report, notices } = await run(c.client);
    assert.equal(report.reload, "unknown");
    assert.equal(at(notices, "warn").length, 0);
    assert.equal(at(notices, "debug").length, 1);
    assert.match(at(notices, "debug")[0]!.message, /no Corefile key/);
  });
});

Deno.test("coredns-import mode: WARN when the .:53 block does not import our key, silent when it does", async (t) => {
  await t.step("kubeadm has no import line", async () => {
    await using c = await cluster({ corefile: KUBEADM });
    const { report, notices } = await run(c.client, { mode: "coredns-import" });
    assert.equal(report.importDirective, "missing");
    const warns = at(notices, "warn");
    assert.equal(warns.length, 1);
    assert.match(warns[0]!.message, /import \/etc\/coredns\/custom\/\*\.override/);
    assert.match(warns[0]!.message, /kube-system\/coredns-custom/);
    assert.match(warns[0]!.message, /not with subPath/);
  });
  await t.step("k3s imports *.override", async () => {
    await using c = await cluster({ corefile: K3S });
    const { report, notices } = await run(c.client, { mode: "coredns-import" });
    assert.deepEqual(report, {
      nodeLocalDns: "absent",
      reload: "present",
      importDirective: "present",
    });
    assert.equal(loud(notices).length, 0);
  });
  await t.step("a key the import pattern does not match", async () => {
    await using c = await cluster({ corefile: K3S });
    const { report, notices } = await run(c.client, {
      mode: "coredns-import",
      corednsImport: { ...OPTIONS.corednsImport, key: "ouroboros.rules" },
    });
    assert.equal(report.importDirective, "missing");
    assert.match(at(notices, "warn")[0]!.message, /import \/etc\/coredns\/custom\/\*\.rules/);
  });
  await t.step("coredns mode does not check imports", async () => {
    await using c = await cluster({ corefile: KUBEADM });
    const { report, notices } = await run(c.client);
    assert.equal(report.importDirective, "not-checked");
    assert.equal(loud(notices).length, 0);
  });
});

Deno.test("a black-holed API server costs at most the shared deadline", async () => {
  await using c = await cluster({ corefile: KUBEADM });
  c.server.faults.inject("get", { type: "blackhole" }, { count: 2 });
  const started = performance.now();
  const { report, notices } = await run(c.client, { timeoutMs: 300 });
  const took = performance.now() - started;
  assert.deepEqual(report, { nodeLocalDns: "unknown", reload: "unknown", importDirective: "not-checked" });
  assert.ok(took < 3_000, `probes took ${Math.round(took)} ms`);
  assert.equal(at(notices, "warn").length, 0);
  assert.equal(at(notices, "debug").length, 2);
});

Deno.test("an aborted start-up ends the probes quietly", async () => {
  await using c = await cluster({ corefile: K3S_WITHOUT_RELOAD, nodeLocalDns: true });
  const controller = new AbortController();
  controller.abort();
  const { report, notices } = await run(c.client, {}, controller.signal);
  assert.deepEqual(report, {
    nodeLocalDns: "unknown",
    reload: "unknown",
    importDirective: "unknown",
  });
  assert.deepEqual(notices, []);
});

Deno.test("--node-local-dns=manage: installed is DEBUG, missing is the one WARN", async () => {
  const manage = { ...OPTIONS, nodeLocalDns: { ...OPTIONS.nodeLocalDns, mode: "manage" as const } };
  {
    await using c = await cluster({ corefile: KUBEADM, nodeLocalDns: true });
    const { notices } = await runStartupProbes(c.client, { ...manage, signal: new AbortController().signal });
    assert.equal(loud(notices).length, 0);
    assert.match(at(notices, "debug")[0]!.message, /installed and managed/);
  }
  {
    await using c = await cluster({ corefile: KUBEADM });
    const { notices } = await runStartupProbes(c.client, { ...manage, signal: new AbortController().signal });
    assert.equal(at(notices, "warn").length, 1);
    assert.match(
      at(notices, "warn")[0]!.message,
      /--node-local-dns=manage, but the node-local-dns ConfigMap does not exist/,
    );
  }
});
