/**
 * The real kubectl 1.35 against the kinds the fake serves for `ouroboros kuberture`:
 * EndpointSlices (selected by their Service's label), Nodes (cluster-scoped, `no`) and
 * ReplicaSets (`rs`, with `/scale`), so those kinds' discovery facts and paths are the real ones
 * (their `api-resources` rows are checked in `kubectl_test.ts`).
 */

import assert from "node:assert/strict";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { ignoreWithoutKubectl as ignore, ok, withKubectl } from "./kubectl_run.ts";

function endpointSlice(name: string, service: string, addresses: readonly string[]) {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name, namespace: "default", labels: { "kubernetes.io/service-name": service } },
    addressType: "IPv4",
    endpoints: addresses.map((address) => ({ addresses: [address], conditions: { ready: true } })),
    ports: [{ name: "https", port: 6443, protocol: "TCP" }],
  };
}

function names(list: { items: { metadata: { name: string } }[] }): string[] {
  return list.items.map((item) => item.metadata.name);
}

Deno.test({ name: "kubectl get endpointslices -l selects the slices of one Service", ignore }, async () => {
  await using server = await startFakeApiServer();
  server.create(endpointSlice("kubernetes", "kubernetes", ["192.168.1.10", "192.168.1.11"]));
  server.create(endpointSlice("kube-dns-abcde", "kube-dns", ["10.244.0.5"]));
  await withKubectl(server, async (kubectl) => {
    const selected = JSON.parse(
      ok(
        await kubectl([
          "get",
          "endpointslices",
          "-n",
          "default",
          "-l",
          "kubernetes.io/service-name=kubernetes",
          "-o",
          "json",
        ]),
      ),
    );
    assert.deepEqual(names(selected), ["kubernetes"]);
    assert.deepEqual(selected.items[0].endpoints.map((e: { addresses: string[] }) => e.addresses[0]), [
      "192.168.1.10",
      "192.168.1.11",
    ]);
    assert.equal(selected.items[0].metadata.generation, 1, "EndpointSlices keep a generation");
    const table = ok(
      await kubectl([
        "get",
        "endpointslices.discovery.k8s.io",
        "-n",
        "default",
        "-l",
        "kubernetes.io/service-name",
      ]),
    );
    assert.match(table, /^kube-dns-abcde\s/m);
    assert.match(table, /^kubernetes\s/m);
  });
});

Deno.test(
  { name: "kubectl get nodes and no: cluster-scoped, status written only through /status", ignore },
  async () => {
    await using server = await startFakeApiServer();
    server.create({ apiVersion: "v1", kind: "Node", metadata: { name: "worker-1" } });
    await withKubectl(server, async (kubectl, _spawn, dir) => {
      const file = `${dir}/node.json`;
      await Deno.writeTextFile(
        file,
        JSON.stringify({
          apiVersion: "v1",
          kind: "Node",
          metadata: { name: "cp-1", labels: { "node-role.kubernetes.io/control-plane": "" } },
          status: { addresses: [{ type: "InternalIP", address: "192.168.1.10" }] },
        }),
      );
      assert.match(ok(await kubectl(["create", "--validate=false", "-f", file])), /^node\/cp-1 created$/m);
      assert.deepEqual(names(JSON.parse(ok(await kubectl(["get", "nodes", "-o", "json"])))), [
        "cp-1",
        "worker-1",
      ]);
      const controlPlane = JSON.parse(
        ok(await kubectl(["get", "no", "-l", "node-role.kubernetes.io/control-plane", "-o", "json"])),
      );
      assert.deepEqual(names(controlPlane), ["cp-1"]);
      assert.equal(controlPlane.items[0].metadata.namespace, undefined, "a Node has no namespace");
      assert.equal(controlPlane.items[0].metadata.generation, undefined, "Nodes keep no generation");
      assert.equal(
        controlPlane.items[0].status?.addresses,
        undefined,
        "status sent with the object is dropped",
      );
      // The kubelet writes addresses through the status subresource.
      assert.match(
        ok(
          await kubectl([
            "patch",
            "node",
            "cp-1",
            "--subresource=status",
            "--type=merge",
            "-p",
            '{"status":{"addresses":[{"type":"InternalIP","address":"192.168.1.10"}]}}',
          ]),
        ),
        /node\/cp-1 patched/,
      );
      const node = JSON.parse(ok(await kubectl(["get", "node", "cp-1", "-o", "json"])));
      assert.deepEqual(node.status.addresses, [{ type: "InternalIP", address: "192.168.1.10" }]);
    });
  },
);

Deno.test({ name: "kubectl get rs shows a ReplicaSet with its owner; scale rs works", ignore }, async () => {
  await using server = await startFakeApiServer();
  server.create({
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name: "kuberture-6c9f7",
      namespace: "ouroboros",
      ownerReferences: [
        { apiVersion: "apps/v1", kind: "Deployment", name: "kuberture", uid: "d-uid", controller: true },
      ],
    },
    spec: { replicas: 1, selector: { matchLabels: { app: "kuberture" } } },
  });
  await withKubectl(server, async (kubectl) => {
    const list = JSON.parse(ok(await kubectl(["get", "rs", "-n", "ouroboros", "-o", "json"])));
    assert.deepEqual(names(list), ["kuberture-6c9f7"]);
    assert.equal(list.items[0].metadata.generation, 1);
    assert.deepEqual(list.items[0].metadata.ownerReferences, [
      { apiVersion: "apps/v1", kind: "Deployment", name: "kuberture", uid: "d-uid", controller: true },
    ]);
    assert.match(
      ok(await kubectl(["scale", "rs/kuberture-6c9f7", "-n", "ouroboros", "--replicas=2"])),
      /replicaset.apps\/kuberture-6c9f7 scaled/,
    );
    const scaled = server.get("apps/v1", "ReplicaSet", "ouroboros", "kuberture-6c9f7")!;
    assert.equal((scaled.spec as { replicas: number }).replicas, 2);
    assert.equal((scaled.metadata as { generation: number }).generation, 2, "a spec change bumps generation");
  });
});
