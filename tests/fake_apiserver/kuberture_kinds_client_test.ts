/**
 * Our client and the new resource types against the fake API server: a watch of EndpointSlices
 * narrowed by their Service's label sees exactly that Service's slices come, change (with the
 * `ready` condition decoded) and go; Nodes list cluster-wide; a Pod's and a ReplicaSet's owner
 * references read back as written, which is the Pod → ReplicaSet → Deployment walk.
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../lib/kube/client.ts";
import type { WatchEvent } from "../../lib/kube/list_watch.ts";
import {
  ENDPOINT_SLICE,
  type EndpointSlice,
  SERVICE_NAME_LABEL,
} from "../../lib/resources/endpoint_slice.ts";
import { NODE } from "../../lib/resources/node.ts";
import { POD } from "../../lib/resources/pod.ts";
import { REPLICA_SET } from "../../lib/resources/replica_set.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { waitFor } from "../support/wait.ts";

function slice(name: string, service: string, ready: boolean | undefined) {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name, namespace: "default", labels: { [SERVICE_NAME_LABEL]: service } },
    addressType: "IPv4",
    endpoints: [{
      addresses: ["192.168.1.10"],
      nodeName: "cp-1",
      conditions: ready === undefined ? {} : { ready },
    }],
  };
}

Deno.test("a label-selected watch of EndpointSlices sees only the kubernetes Service's slices", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  server.create(slice("kubernetes", "kubernetes", undefined));
  server.create(slice("other-abcde", "other", true));
  const controller = new AbortController();
  const events: WatchEvent<EndpointSlice>[] = [];
  const watching = (async () => {
    for await (
      const event of client.watch(ENDPOINT_SLICE, {
        namespace: "default",
        labelSelector: `${SERVICE_NAME_LABEL}=kubernetes`,
        resourceVersion: "0",
        allowWatchBookmarks: false,
        timeoutSeconds: 30,
        signal: controller.signal,
      })
    ) events.push(event);
  })();
  try {
    await waitFor("the initial ADDED", () => events.length === 1, { timeoutMs: 10_000 });
    server.update(slice("other-abcde", "other", false));
    server.update(slice("kubernetes", "kubernetes", false));
    server.create(slice("kubernetes-v6", "kubernetes", true));
    server.remove("discovery.k8s.io/v1", "EndpointSlice", "default", "kubernetes");
    await waitFor("four events", () => events.length >= 4, { timeoutMs: 10_000 });
  } finally {
    controller.abort();
    await watching;
  }
  const seen = events.map((event) =>
    event.type === "ADDED" || event.type === "MODIFIED" || event.type === "DELETED"
      ? [event.type, event.object.metadata.name, event.object.endpoints[0]?.conditions.ready]
      : [event.type]
  );
  assert.deepEqual(seen, [
    ["ADDED", "kubernetes", undefined],
    ["MODIFIED", "kubernetes", false],
    ["ADDED", "kubernetes-v6", true],
    ["DELETED", "kubernetes", false],
  ]);
});

Deno.test("Nodes list cluster-wide; a Pod's and a ReplicaSet's owners lead to the Deployment", async () => {
  await using server = await startFakeApiServer();
  using client = new KubeClient({ server: server.url });
  server.create({
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "cp-1" },
    status: {
      addresses: [{ type: "InternalIP", address: "192.168.1.10" }, { type: "Hostname", address: "cp-1" }],
    },
  });
  const owner = (apiVersion: string, kind: string, name: string) => ({
    apiVersion,
    kind,
    name,
    uid: `uid-${name}`,
    controller: true,
  });
  server.create({
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name: "kuberture-6c9f7",
      namespace: "ouroboros",
      ownerReferences: [owner("apps/v1", "Deployment", "kuberture")],
    },
    spec: { selector: { matchLabels: { app: "kuberture" } } },
  });
  server.create({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "kuberture-6c9f7-x2x9q",
      namespace: "ouroboros",
      ownerReferences: [owner("apps/v1", "ReplicaSet", "kuberture-6c9f7")],
    },
    spec: { containers: [{ name: "kuberture", image: "example" }] },
  });

  const nodes = await client.listAll(NODE);
  assert.deepEqual(nodes.items.map((node) => [node.metadata.name, node.status.addresses]), [
    ["cp-1", [{ type: "InternalIP", address: "192.168.1.10" }, { type: "Hostname", address: "cp-1" }]],
  ]);

  const pod = await client.get(POD, { namespace: "ouroboros", name: "kuberture-6c9f7-x2x9q" });
  const [podOwner] = pod.metadata.ownerReferences;
  assert.equal(podOwner?.kind, "ReplicaSet");
  const replicaSet = await client.get(REPLICA_SET, { namespace: "ouroboros", name: podOwner.name });
  assert.deepEqual(replicaSet.metadata.ownerReferences, [owner("apps/v1", "Deployment", "kuberture")]);
});
