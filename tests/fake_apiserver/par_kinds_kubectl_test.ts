/**
 * The real kubectl 1.35 against par's kinds as the fake serves them: a `Records` object applied
 * and read back by its plural and its group-qualified name (so the discovery facts are the real
 * CRD's), and a Deployment opted in and restored by `WorkloadManager` through the project's
 * `KubeClient.mergePatch`, read back by kubectl at each step.
 */

import assert from "node:assert/strict";
import { WorkloadManager } from "../../lib/dns/par/workload_manager.ts";
import { KubeClient } from "../../lib/kube/client.ts";
import { DEPLOYMENT } from "../../lib/resources/deployment.ts";
import { decodeRecords, RECORDS } from "../../lib/resources/records.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { ignoreWithoutKubectl as ignore, ok, withKubectl } from "./kubectl_run.ts";

/** par's own sample, in the namespace it selects. */
const RECORDS_YAML = `apiVersion: dns.par.dev/v1alpha1
kind: Records
metadata:
  name: records-sample
  namespace: shop
spec:
  a:
    - labels:
        app: example-proxy
      hostname: google.com
      ip-addresses: ["1.1.1.1", "1.1.1.2"]
      forward-type: proxy
    - labels:
        app: example-manager
      hostname: google.com
      ip-addresses: ["1.1.1.3", "1.1.1.4"]
      forward-type: manager
`;

const DEPLOYMENT_YAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: example-manager
  namespace: shop
spec:
  replicas: 1
  selector:
    matchLabels: { app: example-manager }
  template:
    metadata:
      labels: { app: example-manager }
    spec:
      dnsPolicy: ClusterFirst
      dnsConfig:
        options: [{ name: edns0 }]
      containers:
        - name: client
          image: nicolaka/netshoot
`;

Deno.test(
  { name: "kubectl apply and get of par's Records, by plural and by group-qualified name", ignore },
  async () => {
    await using server = await startFakeApiServer();
    await withKubectl(server, async (kubectl, _spawn, dir) => {
      await Deno.writeTextFile(`${dir}/records.yaml`, RECORDS_YAML);
      assert.match(
        ok(await kubectl(["apply", "--validate=false", "-f", "records.yaml"])),
        /^records\.dns\.par\.dev\/records-sample created$/m,
      );
      const printed = JSON.parse(
        ok(await kubectl(["get", "records", "-n", "shop", "records-sample", "-o", "json"])),
      );
      assert.equal(printed.apiVersion, "dns.par.dev/v1alpha1");
      assert.equal(printed.metadata.generation, 1, "a custom resource keeps a generation");
      const decoded = decodeRecords(printed);
      assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
      assert.deepEqual(decoded.value.spec.a.map((entry) => [entry.forwardType, entry.ipAddresses]), [
        ["proxy", ["1.1.1.1", "1.1.1.2"]],
        ["manager", ["1.1.1.3", "1.1.1.4"]],
      ]);
      const table = ok(await kubectl(["get", "records.dns.par.dev", "--all-namespaces"]));
      assert.match(table, /^shop\s+records-sample\s/m);
      const resources = ok(await kubectl(["api-resources", "--api-group=dns.par.dev", "--no-headers"]));
      assert.deepEqual(resources.trim().split(/\s+/), ["records", "dns.par.dev/v1alpha1", "true", "Records"]);
    });
  },
);

Deno.test({
  name: "kubectl reads back a Deployment opted in and restored through KubeClient.mergePatch",
  ignore,
}, async () => {
  await using server = await startFakeApiServer();
  using client = new KubeClient({ server: server.url });
  const manager = new WorkloadManager(client, { clusterDomain: "cluster.local" });
  const sync = async () =>
    await manager.sync({
      deployments: (await client.listAll(DEPLOYMENT)).items,
      records: (await client.listAll(RECORDS)).items,
      nameserver: "10.96.0.53",
    }, new AbortController().signal);

  await withKubectl(server, async (kubectl, _spawn, dir) => {
    await Deno.writeTextFile(`${dir}/records.yaml`, RECORDS_YAML);
    await Deno.writeTextFile(`${dir}/deployment.yaml`, DEPLOYMENT_YAML);
    ok(await kubectl(["apply", "--validate=false", "-f", "deployment.yaml", "-f", "records.yaml"]));
    const read = async () =>
      JSON.parse(ok(await kubectl(["get", "deployment", "example-manager", "-n", "shop", "-o", "json"])));
    const original = await read();

    const opted = await sync();
    assert.deepEqual(opted.map((outcome) => [outcome.target, outcome.kind]), [[
      "Deployment shop/example-manager",
      "written",
    ]]);
    const patched = await read();
    assert.equal(patched.spec.template.spec.dnsPolicy, "None");
    assert.deepEqual(patched.spec.template.spec.dnsConfig, {
      nameservers: ["10.96.0.53"],
      searches: ["shop.svc.cluster.local", "svc.cluster.local", "cluster.local"],
      options: [{ name: "ndots", value: "5" }, { name: "edns0" }],
    });
    assert.deepEqual(JSON.parse(patched.metadata.annotations["ouroboros.dev/original-dns"]), {
      original: { dnsPolicy: "ClusterFirst", dnsConfig: { options: [{ name: "edns0" }] } },
      nameservers: ["10.96.0.53"],
    });
    assert.equal(
      patched.metadata.generation,
      original.metadata.generation + 1,
      "the pod template changed: a rollout",
    );
    const jsonpath = ok(
      await kubectl([
        "get",
        "deployment",
        "example-manager",
        "-n",
        "shop",
        "-o",
        "jsonpath={.spec.template.spec.dnsPolicy} {.spec.template.spec.dnsConfig.nameservers[0]}",
      ]),
    );
    assert.equal(jsonpath, "None 10.96.0.53");

    ok(await kubectl(["delete", "records", "records-sample", "-n", "shop"]));
    const restored = await sync();
    assert.deepEqual(restored.map((outcome) => outcome.kind === "written" && outcome.action), ["restore"]);
    const back = await read();
    assert.deepEqual(back.spec.template, original.spec.template, "kubectl sees the original pod template");
    assert.equal(back.metadata.annotations?.["ouroboros.dev/original-dns"], undefined);
  });
});
