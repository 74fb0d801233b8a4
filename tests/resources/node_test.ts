import assert from "node:assert/strict";
import { decodeNode, NODE } from "../../lib/resources/node.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

const meta = { name: "cp-1", resourceVersion: "31" };

Deno.test("decodeNode keeps the status addresses in the kubelet's order", () => {
  const decoded = decodeNode({
    apiVersion: "v1",
    kind: "Node",
    metadata: meta,
    spec: { podCIDR: "10.244.0.0/24" },
    status: {
      addresses: [
        { type: "InternalIP", address: "192.168.1.10" },
        { type: "InternalIP", address: "fd00::10" },
        { type: "ExternalIP", address: "203.0.113.10" },
        { type: "Hostname", address: "cp-1" },
      ],
      conditions: [{ type: "Ready", status: "True" }],
    },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.equal(decoded.value.metadata.namespace, "", "cluster-scoped");
  assert.deepEqual(decoded.value.status.addresses, [
    { type: "InternalIP", address: "192.168.1.10" },
    { type: "InternalIP", address: "fd00::10" },
    { type: "ExternalIP", address: "203.0.113.10" },
    { type: "Hostname", address: "cp-1" },
  ]);
});

Deno.test("decodeNode reads a Node without status (just registered) as having no addresses", () => {
  const decoded = decodeNode({ metadata: meta });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.status.addresses, []);
});

Deno.test("decodeNode refuses malformed addresses, naming the field", async (t) => {
  const cases: readonly [string, unknown, string][] = [
    ["status a list", { metadata: meta, status: [] }, "status is an array, not an object"],
    [
      "addresses a string",
      { metadata: meta, status: { addresses: "10.0.0.1" } },
      "status.addresses is a string, not a list",
    ],
    [
      "an address without type",
      { metadata: meta, status: { addresses: [{ address: "10.0.0.1" }] } },
      "status.addresses[0].type is missing",
    ],
    [
      "an address without address",
      { metadata: meta, status: { addresses: [{ type: "InternalIP" }] } },
      "status.addresses[0].address is missing",
    ],
  ];
  for (const [name, raw, reason] of cases) {
    await t.step(name, () => assert.deepEqual(decodeNode(raw), { ok: false, reason }));
  }
});

Deno.test("NODE is the cluster-scoped core v1 nodes resource", () => {
  assert.equal(NODE.namespaced, false);
  assert.equal(resourcePath(NODE, { namespace: "ignored", name: "cp-1" }), "/api/v1/nodes/cp-1");
  assert.equal(NODE.decode, decodeNode);
});
