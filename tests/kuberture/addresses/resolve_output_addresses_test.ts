import assert from "node:assert/strict";
import {
  type AddressSelection,
  type ResolvedOutputAddresses,
  resolveOutputAddresses,
} from "../../../lib/kuberture/addresses/resolve_output_addresses.ts";
import type { Endpoint, EndpointSlice } from "../../../lib/resources/endpoint_slice.ts";
import type { ObjectMeta } from "../../../lib/resources/kube_object.ts";
import type { Node, NodeAddress } from "../../../lib/resources/node.ts";

function meta(name: string, namespace = ""): ObjectMeta {
  return {
    name,
    namespace,
    uid: `uid-${name}`,
    resourceVersion: "1",
    labels: {},
    annotations: {},
    ownerReferences: [],
  };
}

function slice(
  addressType: string,
  endpoints: readonly Endpoint[],
  name = `kubernetes-${addressType}`,
): EndpointSlice {
  return { metadata: meta(name, "default"), addressType, endpoints };
}

/** A ready-unknown endpoint (no `ready` condition) with one address, on `nodeName` when given. */
function at(address: string, nodeName?: string, ready?: boolean): Endpoint {
  return {
    addresses: [address],
    conditions: ready === undefined ? {} : { ready },
    ...(nodeName === undefined ? {} : { nodeName }),
  };
}

function node(name: string, ...addresses: [string, string][]): Node {
  return {
    metadata: meta(name),
    status: { addresses: addresses.map(([type, address]): NodeAddress => ({ type, address })) },
  };
}

/** Three control-plane Nodes, dual-stack; cp-2 lists its IPv6 InternalIP first. */
const NODES: readonly Node[] = [
  node(
    "cp-1",
    ["InternalIP", "192.168.1.10"],
    ["InternalIP", "fd00::10"],
    ["ExternalIP", "203.0.113.10"],
    ["ExternalIP", "2001:db8::10"],
    ["Hostname", "cp-1"],
  ),
  node("cp-2", ["InternalIP", "fd00::11"], ["InternalIP", "192.168.1.11"], ["ExternalIP", "203.0.113.11"]),
  node("cp-3", ["InternalIP", "10.0.0.3"], ["ExternalIP", "100.64.0.3"], ["InternalIP", "198.51.100.3"]),
];

function resolve(
  slices: readonly EndpointSlice[],
  addressSource: AddressSelection["addressSource"],
  addressType: AddressSelection["addressType"],
  nodes: readonly Node[] = NODES,
): ResolvedOutputAddresses {
  return resolveOutputAddresses({ slices, nodes, output: { addressSource, addressType } });
}

const V4 = slice("IPv4", [
  at("192.168.1.10", "cp-1"),
  at("192.168.1.11", "cp-2", true),
  at("10.0.0.3", "cp-3", false),
]);
const V6 = slice("IPv6", [at("fd00::10", "cp-1", true), at("FD00:0:0::11", "cp-2")]);
const FQDN = slice("FQDN", [at("api.example.com", "cp-1")]);

Deno.test("resolveOutputAddresses, endpointslice: ready endpoints of the family, canonical, sorted", async (t) => {
  const cases: readonly [
    string,
    readonly EndpointSlice[],
    AddressSelection["addressType"],
    readonly string[],
  ][] = [
    ["IPv4: not-ready excluded, absent ready counts", [V4, V6, FQDN], "IPv4", [
      "192.168.1.10",
      "192.168.1.11",
    ]],
    ["IPv6: spelled canonically", [V4, V6, FQDN], "IPv6", ["fd00::10", "fd00::11"]],
    ["both families with addressType Both; FQDN ignored", [V4, V6, FQDN], "Both", [
      "192.168.1.10",
      "192.168.1.11",
      "fd00::10",
      "fd00::11",
    ]],
    [
      "byte order, like kuberture: 10.0.0.10 before 10.0.0.9",
      [
        slice("IPv4", [at("10.0.0.9"), at("10.0.0.10"), at("9.0.0.1")]),
      ],
      "IPv4",
      ["10.0.0.10", "10.0.0.9", "9.0.0.1"],
    ],
    [
      "one address in two slices is one target",
      [
        slice("IPv4", [at("10.0.0.1")], "a"),
        slice("IPv4", [at("10.0.0.1"), at("10.0.0.2")], "b"),
      ],
      "IPv4",
      ["10.0.0.1", "10.0.0.2"],
    ],
    [
      "several addresses of one endpoint all count",
      [
        slice("IPv4", [{ addresses: ["10.0.0.2", "10.0.0.1"], conditions: { ready: true } }]),
      ],
      "IPv4",
      ["10.0.0.1", "10.0.0.2"],
    ],
    [
      "an address not of its slice's family is dropped",
      [
        slice("IPv4", [at("fd00::1"), at("api.example.com"), at("10.0.0.1")]),
      ],
      "IPv4",
      ["10.0.0.1"],
    ],
    ["every endpoint not ready: nothing", [slice("IPv4", [at("10.0.0.1", "cp-1", false)])], "IPv4", []],
    ["no slices: nothing", [], "Both", []],
    ["only an IPv4 slice, IPv6 asked: nothing", [V4], "IPv6", []],
  ];
  for (const [name, slices, addressType, addresses] of cases) {
    await t.step(name, () => {
      assert.deepEqual(resolve(slices, "endpointslice", addressType, []), {
        addresses,
        unmatched: [],
        skippedNodes: [],
      });
    });
  }
});

Deno.test("resolveOutputAddresses, node sources: each serving Node's first address of the type and family", async (t) => {
  const cases: readonly [
    string,
    readonly EndpointSlice[],
    AddressSelection["addressSource"],
    AddressSelection["addressType"],
    readonly string[],
  ][] = [
    ["node-internal IPv4: cp-2's IPv6 listed first is passed over", [V4], "node-internal", "IPv4", [
      "192.168.1.10",
      "192.168.1.11",
    ]],
    ["node-internal IPv6 from an IPv4-only slice", [V4], "node-internal", "IPv6", ["fd00::10", "fd00::11"]],
    ["node-internal, both families", [V4], "node-internal", "Both", [
      "192.168.1.10",
      "192.168.1.11",
      "fd00::10",
      "fd00::11",
    ]],
    ["node-external IPv4", [V4, V6], "node-external", "IPv4", ["203.0.113.10", "203.0.113.11"]],
    ["node-external IPv6: only cp-1 has one", [V4], "node-external", "IPv6", ["2001:db8::10"]],
    ["node-public: the first public address of any type", [V4], "node-public", "IPv4", [
      "203.0.113.10",
      "203.0.113.11",
    ]],
    ["not-ready cp-3 contributes nothing", [V4], "node-internal", "IPv4", ["192.168.1.10", "192.168.1.11"]],
    ["FQDN slices lead to no Node", [FQDN], "node-internal", "Both", []],
  ];
  for (const [name, slices, source, addressType, addresses] of cases) {
    await t.step(name, () => assert.deepEqual(resolve(slices, source, addressType).addresses, addresses));
  }
});

Deno.test("resolveOutputAddresses: node-public skips private, CGNAT and Hostname entries, takes InternalIP when public", () => {
  const nodes = [
    node("cp-3", ["InternalIP", "10.0.0.3"], ["ExternalIP", "100.64.0.3"], ["InternalIP", "198.51.100.3"]),
    node("edge", ["Hostname", "8.8.8.8.example"], ["InternalIP", "198.51.100.9"], [
      "ExternalIP",
      "203.0.113.9",
    ]),
  ];
  const slices = [slice("IPv4", [at("10.0.0.3", "cp-3"), at("10.0.0.9", "edge")])];
  assert.deepEqual(resolve(slices, "node-public", "IPv4", nodes).addresses, ["198.51.100.3", "198.51.100.9"]);
});

Deno.test("resolveOutputAddresses: an endpoint without nodeName is mapped by its IP, however either is spelled", () => {
  const slices = [
    slice("IPv4", [at("192.168.1.10"), at("10.9.9.9"), at("10.9.9.9", undefined, true)]),
    slice("IPv6", [at("FD00:0::11"), at("fd00::99", undefined, false)]),
  ];
  assert.deepEqual(resolve(slices, "node-external", "IPv4"), {
    addresses: ["203.0.113.10", "203.0.113.11"],
    unmatched: ["10.9.9.9"],
    skippedNodes: [],
  });
});

Deno.test("resolveOutputAddresses: a Node matched by another type's address still gives the asked type", () => {
  // The endpoint is cp-1's ExternalIP; node-internal publishes cp-1's InternalIP.
  const slices = [slice("IPv4", [at("203.0.113.10")])];
  assert.deepEqual(resolve(slices, "node-internal", "IPv4").addresses, ["192.168.1.10"]);
});

Deno.test("resolveOutputAddresses: an address claimed by two Nodes maps to both", () => {
  const nodes = [
    node("a", ["InternalIP", "10.0.0.1"], ["InternalIP", "10.0.0.100"]),
    node("b", ["InternalIP", "10.0.0.2"], ["ExternalIP", "10.0.0.100"]),
  ];
  assert.deepEqual(resolve([slice("IPv4", [at("10.0.0.100")])], "node-internal", "IPv4", nodes).addresses, [
    "10.0.0.1",
    "10.0.0.2",
  ]);
});

Deno.test("resolveOutputAddresses: Nodes that give nothing are reported, the others still publish", () => {
  const slices = [
    slice("IPv4", [at("192.168.1.10", "cp-1"), at("10.0.0.3", "cp-3"), at("10.0.0.7", "gone")]),
  ];
  assert.deepEqual(resolve(slices, "node-external", "IPv6"), {
    addresses: ["2001:db8::10"],
    unmatched: [],
    skippedNodes: [{ name: "cp-3", reason: "no-address" }, { name: "gone", reason: "not-found" }],
  });
  assert.deepEqual(resolve(slices, "node-public", "Both").skippedNodes, [{
    name: "gone",
    reason: "not-found",
  }]);
});

Deno.test("resolveOutputAddresses: a nodeName is trusted over the IP, as in kuberture", () => {
  // The endpoint names cp-2 although its address is cp-1's: cp-2 is published.
  assert.deepEqual(
    resolve([slice("IPv4", [at("192.168.1.10", "cp-2")])], "node-internal", "IPv4").addresses,
    [
      "192.168.1.11",
    ],
  );
});
