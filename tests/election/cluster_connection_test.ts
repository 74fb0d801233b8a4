import assert from "node:assert/strict";
import { connectToCluster } from "../../lib/election/cluster_connection.ts";
import { DEFAULT_ELECTION_TIMING } from "../../lib/election/election_timing.ts";
import { WriteFencedError } from "../../lib/kube/errors.ts";
import { CONFIG_MAP } from "../../lib/resources/config_map.ts";
import { MetricsRegistry } from "../../lib/util/metrics.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
import { tempDir } from "../support/temp_dir.ts";

const never = new AbortController().signal;
const MANIFEST = { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "default", name: "a" } };

Deno.test("connectToCluster: with a Lease every write waits for leadership; without one writes go out; both count requests", async () => {
  await using server = await startFakeApiServer();
  await using dir = await tempDir("cluster-connection-");
  const kubeconfig = await writeKubeconfig(`${dir.path}/config`, { server: server.url });
  const env = () => undefined;

  const electing = await connectToCluster({
    kubeconfig,
    env,
    election: {
      lease: { namespace: "default", name: "leader", timing: DEFAULT_ELECTION_TIMING },
      identity: "pod-1",
    },
    fieldManager: "tester",
  });
  try {
    assert.match(electing.elector?.identity ?? "", /^pod-1_[0-9a-f]{8}$/);
    await assert.rejects(electing.client.create(CONFIG_MAP, MANIFEST, { signal: never }), WriteFencedError);
    assert.equal(server.list("v1", "ConfigMap", "default").length, 0, "the fenced write never left");
  } finally {
    electing.close();
  }

  const plain = await connectToCluster({ kubeconfig, env, fieldManager: "tester" });
  try {
    assert.equal(plain.elector, undefined);
    await plain.client.create(CONFIG_MAP, MANIFEST, { signal: never });
    const written = server.audit.find((entry) => entry.method === "POST");
    assert.equal(written?.query.fieldManager, "tester");
    const registry = new MetricsRegistry();
    plain.registerMetrics(registry);
    assert.match(registry.render(), /ouroboros_kube_requests_total\{[^}]*verb="create"[^}]*\} 1/);
  } finally {
    plain.close();
  }
});
