/**
 * The CoreDNS mode builders as the controller runs them, against the fake API server: which
 * ConfigMap each watches, which sink it builds, and that the start-up probes' findings come back
 * as notices for the controller to log (the room itself never logs).
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../../../lib/kube/client.ts";
import { Store } from "../../../../lib/reflector/store.ts";
import type { KubeObject } from "../../../../lib/resources/kube_object.ts";
import {
  corednsImportMode,
  corednsMode,
  type CorednsModeSettings,
} from "../../../../lib/controller/modes/coredns/coredns_mode.ts";
import { DEFAULT_MARKERS } from "../../../../lib/controller/modes/markers.ts";
import type { ModeContext, Notice } from "../../../../lib/controller/modes/sink.ts";
import { type FakeApiServer, startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import { KUBEADM } from "./fixtures/corefiles.ts";
import { NODE_LOCAL_INSTALLED } from "./fixtures/node_local_dns_corefiles.ts";
import { FQDN } from "./support.ts";

const SETTINGS: CorednsModeSettings = {
  coredns: { namespace: "kube-system", configmap: "coredns", key: "Corefile" },
  corednsImport: { namespace: "kube-system", configmap: "coredns-custom", key: "ouroboros.override" },
  proxyFqdn: FQDN,
  markers: DEFAULT_MARKERS,
  nodeLocalDns: { mode: "warn", namespace: "kube-system", configmap: "node-local-dns", key: "Corefile" },
};

interface Harness extends AsyncDisposable {
  readonly server: FakeApiServer;
  readonly context: ModeContext;
  /** `namespace/name role` of every watch the builder registered. */
  readonly watched: string[];
}

/** A cluster whose Corefile has no reload plugin and which runs node-local-dns. */
async function harness(): Promise<Harness> {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const configMap = (name: string, data: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "kube-system" },
    data,
  });
  server.create(configMap("coredns", { Corefile: KUBEADM.replace("    reload\n", "") }));
  server.create(configMap("node-local-dns", { Corefile: "cluster.local:53 {\n}\n" }));
  const client = new KubeClient({ server: server.url });
  const watched: string[] = [];
  const context: ModeContext = {
    client,
    recorder: { record: () => Promise.resolve({ kind: "suppressed" }) },
    watch: <T extends KubeObject>(_type: unknown, ref: { namespace: string; name: string }, role: string) => {
      watched.push(`${ref.namespace}/${ref.name} ${role}`);
      return new Store<T>();
    },
    podNamespace: "ouroboros",
  };
  return {
    server,
    context,
    watched,
    async [Symbol.asyncDispose]() {
      client.close();
      await server.close();
    },
  };
}

/** `level: start of message` of each notice, enough to tell them apart. */
function summary(notices: readonly Notice[]): string[] {
  return notices.map((notice) => `${notice.level}: ${notice.message.slice(0, 40)}`);
}

Deno.test("corednsMode() watches the Corefile's ConfigMap and returns what the probes found as notices", async () => {
  await using h = await harness();
  const mode = corednsMode(SETTINGS, h.context);
  assert.deepEqual(h.watched, ["kube-system/coredns target"]);
  assert.equal(mode.sink.description, "coredns kube-system/coredns[Corefile]");
  assert.deepEqual(mode.details, { proxyFqdn: FQDN, markerId: "", nodeLocalDns: "warn" });
  assert.equal(mode.wildcards, true, "its sink writes wildcards' regex rules");
  assert.ok(mode.probe !== undefined);
  assert.deepEqual(summary(await mode.probe(new AbortController().signal)), [
    "warn: node-local-dns is installed: pods that r",
    "warn: the CoreDNS Corefile has no 'reload' plu",
  ]);
});

Deno.test("corednsImportMode() watches the import ConfigMap and also reports a missing import line", async () => {
  await using h = await harness();
  const mode = corednsImportMode(SETTINGS, h.context);
  assert.deepEqual(h.watched, ["kube-system/coredns-custom target"]);
  assert.equal(mode.sink.description, "coredns-import kube-system/coredns-custom[ouroboros.override]");
  assert.deepEqual(mode.details, { proxyFqdn: FQDN, nodeLocalDns: "warn" });
  assert.equal(mode.wildcards, true, "its sink writes wildcards' regex rules");
  assert.ok(mode.probe !== undefined);
  const notices = await mode.probe(new AbortController().signal);
  assert.deepEqual(summary(notices), [
    "warn: node-local-dns is installed: pods that r",
    "warn: the CoreDNS Corefile has no 'reload' plu",
    "warn: the .:53 block of the CoreDNS Corefile h",
  ]);
  assert.deepEqual(notices[2]?.properties, {
    namespace: "kube-system",
    configmap: "coredns",
    importConfigMap: "kube-system/coredns-custom",
    key: "ouroboros.override",
  });
});

Deno.test("--node-local-dns=manage: both modes watch the node-local-dns ConfigMap too and write both Corefiles", async (t) => {
  for (const [name, build] of [["coredns", corednsMode], ["coredns-import", corednsImportMode]] as const) {
    await t.step(name, async () => {
      await using h = await harness();
      const stored = h.server.get("v1", "ConfigMap", "kube-system", "node-local-dns");
      assert.ok(stored !== undefined);
      h.server.update({ ...stored, data: { Corefile: NODE_LOCAL_INSTALLED } });
      const settings = { ...SETTINGS, nodeLocalDns: { ...SETTINGS.nodeLocalDns, mode: "manage" as const } };
      const mode = build(settings, h.context);
      assert.equal(h.watched.length, 2);
      assert.equal(h.watched[1], "kube-system/node-local-dns target");
      assert.match(mode.sink.description, / \+ node-local-dns kube-system\/node-local-dns\[Corefile\]$/);
      assert.equal(mode.details.nodeLocalDns, "manage");
      assert.ok(mode.probe !== undefined);
      const notices = summary(await mode.probe(new AbortController().signal));
      assert.ok(
        !notices.some((line) => line.startsWith("warn: node-local-dns is installed")),
        notices.join("\n"),
      );
      const outcome = await mode.sink.reconcile(["shop.example.com"], new AbortController().signal);
      if (name === "coredns") assert.equal(outcome.kind, "written");
      else {
        // The harness has no import ConfigMap: that half is refused, the node-local-dns half written.
        assert.ok(outcome.kind === "refused", outcome.kind);
        assert.equal(outcome.scope, "some-hosts");
      }
      const corefile = h.server.get("v1", "ConfigMap", "kube-system", "node-local-dns")?.data as Record<
        string,
        string
      >;
      assert.match(corefile.Corefile ?? "", /^shop\.example\.com:53 \{$/m);
    });
  }
});
