/**
 * Properties of resolveOutputAddresses over random clusters: random Nodes (addresses of every
 * type, family and spelling, private and public), random slices (IPv4, IPv6, FQDN, endpoints
 * ready, not ready or silent, with or without a nodeName, some naming no Node) and a random
 * output. Seeded, so a failure names the case that reproduces it.
 */

import assert from "node:assert/strict";
import { isPublicAddress } from "../../../lib/kuberture/addresses/public_address.ts";
import {
  type AddressSelection,
  type ResolveInput,
  resolveOutputAddresses,
} from "../../../lib/kuberture/addresses/resolve_output_addresses.ts";
import type { Endpoint, EndpointSlice } from "../../../lib/resources/endpoint_slice.ts";
import type { ObjectMeta } from "../../../lib/resources/kube_object.ts";
import type { Node } from "../../../lib/resources/node.ts";
import { formatIp, parseIp } from "../../../lib/util/ip.ts";
import { prng } from "../../support/random.ts";

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function count(random: Random, max: number): number {
  return Math.floor(random() * (max + 1));
}

const V4 = [
  "10.0.0.1",
  "10.0.0.2",
  "192.168.1.10",
  "100.64.0.1",
  "203.0.113.5",
  "8.8.8.8",
  "1.2.3.4",
  "127.0.0.1",
];
const V6 = [
  "fd00::1",
  "FD00:0::1",
  "2001:db8::5",
  "2001:DB8:0::5",
  "2a01:4f8::1",
  "fe80::1",
  "::1",
  "::ffff:1.2.3.4",
];
const NOT_IP = ["api.example.com", "cp-1", ""];
const NODE_NAMES = ["n0", "n1", "n2", "n3"];
const SOURCES: readonly AddressSelection["addressSource"][] = [
  "endpointslice",
  "node-internal",
  "node-external",
  "node-public",
];
const FAMILIES: readonly AddressSelection["addressType"][] = ["IPv4", "IPv6", "Both"];

function meta(name: string): ObjectMeta {
  return {
    name,
    namespace: "",
    uid: "",
    resourceVersion: "1",
    labels: {},
    annotations: {},
    ownerReferences: [],
  };
}

function anyAddress(random: Random): string {
  const roll = random();
  return roll < 0.45 ? pick(random, V4) : roll < 0.9 ? pick(random, V6) : pick(random, NOT_IP);
}

function randomNode(random: Random, name: string): Node {
  const addresses = Array.from({ length: count(random, 5) }, () => ({
    type: pick(random, ["InternalIP", "InternalIP", "ExternalIP", "ExternalIP", "Hostname", "InternalDNS"]),
    address: anyAddress(random),
  }));
  return { metadata: meta(name), status: { addresses } };
}

function randomEndpoint(random: Random, addressType: string): Endpoint {
  const own = addressType === "IPv4" ? V4 : addressType === "IPv6" ? V6 : NOT_IP;
  const addresses = Array.from(
    { length: 1 + count(random, 1) },
    () => random() < 0.9 ? pick(random, own) : anyAddress(random),
  );
  const ready = pick(random, [true, false, undefined]);
  const nodeName = random() < 0.5 ? pick(random, [...NODE_NAMES, "missing"]) : undefined;
  return {
    addresses,
    conditions: ready === undefined ? {} : { ready },
    ...(nodeName === undefined ? {} : { nodeName }),
  };
}

function randomInput(random: Random): ResolveInput {
  const nodes = NODE_NAMES.slice(0, count(random, NODE_NAMES.length)).map((name) => randomNode(random, name));
  const slices = Array.from({ length: count(random, 3) }, (_, index): EndpointSlice => {
    const addressType = pick(random, ["IPv4", "IPv4", "IPv6", "IPv6", "FQDN"]);
    const endpoints = Array.from({ length: count(random, 4) }, () => randomEndpoint(random, addressType));
    return { metadata: meta(`slice-${index}`), addressType, endpoints };
  });
  return {
    slices,
    nodes,
    output: { addressSource: pick(random, SOURCES), addressType: pick(random, FAMILIES) },
  };
}

function reversed(input: ResolveInput): ResolveInput {
  return {
    ...input,
    nodes: [...input.nodes].reverse(),
    slices: [...input.slices].reverse().map((slice) => ({
      ...slice,
      endpoints: [...slice.endpoints].reverse(),
    })),
  };
}

function withoutNotReady(input: ResolveInput): ResolveInput {
  return {
    ...input,
    slices: input.slices.map((slice) => ({
      ...slice,
      endpoints: slice.endpoints.filter((endpoint) => endpoint.conditions.ready !== false),
    })),
  };
}

function canonical(text: string): string | undefined {
  const parsed = parseIp(text);
  return parsed === undefined ? undefined : formatIp(parsed);
}

/** Where an address of the answer may come from, by the rules of the source. */
function possibleOrigins(input: ResolveInput): Set<string> {
  const { addressSource } = input.output;
  const origins = new Set<string>();
  if (addressSource === "endpointslice") {
    for (const slice of input.slices) {
      for (const endpoint of slice.endpoints) {
        if (endpoint.conditions.ready === false) continue;
        for (const address of endpoint.addresses) origins.add(`${slice.addressType} ${canonical(address)}`);
      }
    }
    return origins;
  }
  const type = addressSource === "node-internal"
    ? "InternalIP"
    : addressSource === "node-external"
    ? "ExternalIP"
    : "";
  for (const node of input.nodes) {
    for (const entry of node.status.addresses) {
      if (type !== "" && entry.type !== type) continue;
      if (addressSource === "node-public" && !isPublicAddress(entry.address)) continue;
      const address = canonical(entry.address);
      if (address !== undefined) origins.add(address);
    }
  }
  return origins;
}

const CASES = 3_000;

Deno.test("resolveOutputAddresses over random clusters: sorted, unique, canonical, of the family, from ready endpoints", () => {
  const random = prng(0x6b75626572);
  for (let index = 0; index < CASES; index++) {
    const input = randomInput(random);
    const where = `case ${index}: ${JSON.stringify(input)}`;
    const result = resolveOutputAddresses(input);
    const { addresses } = result;

    for (let i = 1; i < addresses.length; i++) {
      assert.ok(addresses[i - 1]! < addresses[i]!, `sorted and unique: ${addresses.join(",")}\n${where}`);
    }
    const families = input.output.addressType === "Both"
      ? [4, 6]
      : [input.output.addressType === "IPv4" ? 4 : 6];
    const origins = possibleOrigins(input);
    for (const address of addresses) {
      const parsed = parseIp(address);
      assert.ok(parsed !== undefined && formatIp(parsed) === address, `canonical ${address}\n${where}`);
      assert.ok(families.includes(parsed.family), `${address} is of the asked family\n${where}`);
      const origin = input.output.addressSource === "endpointslice"
        ? `${parsed.family === 4 ? "IPv4" : "IPv6"} ${address}`
        : address;
      assert.ok(origins.has(origin), `${address} comes from where the source says\n${where}`);
      if (input.output.addressSource === "node-public") assert.ok(isPublicAddress(address), where);
    }
    assert.ok(
      result.unmatched.every((address, i) => i === 0 || result.unmatched[i - 1]! < address),
      `unmatched sorted and unique\n${where}`,
    );
    assert.deepEqual(
      resolveOutputAddresses(withoutNotReady(input)),
      result,
      `not-ready endpoints change nothing\n${where}`,
    );
    assert.deepEqual(
      resolveOutputAddresses(reversed(input)),
      result,
      `order of the input changes nothing\n${where}`,
    );
  }
});

Deno.test("resolveOutputAddresses over random clusters: dual-stack is the union of the two families", () => {
  const random = prng(0x64756f);
  for (let index = 0; index < CASES; index++) {
    const input = randomInput(random);
    const at = (addressType: AddressSelection["addressType"]) =>
      resolveOutputAddresses({ ...input, output: { ...input.output, addressType } }).addresses;
    assert.deepEqual(
      at("Both"),
      [...at("IPv4"), ...at("IPv6")].sort(),
      `case ${index}: ${JSON.stringify(input)}`,
    );
  }
});
