/**
 * The addresses one kuberture output publishes, from the source's EndpointSlices and, for the
 * `node-*` sources, the Nodes (an endpoint's Node by `nodeName`, else any Node listing its IP).
 * Ready endpoints only (no `ready` condition counts as ready); canonical, sorted, unique.
 *
 * Where we differ from kuberture, on purpose (docs/differences.md, From kuberture, lists these too):
 * - `addressType: Both` publishes both families in one target (kuberture has one family per output);
 * - `node-*` sources filter each Node's addresses by family, not the slices: kuberture took the
 *   first address of the type whatever its family, so an `IPv6` output found nothing when the
 *   `kubernetes` slice was IPv4 only (the usual dual-stack case);
 * - canonical spelling (RFC 5952), so two spellings of one address are one target and match;
 * - an IP claimed by several Nodes maps to all of them (kuberture kept the last).
 * What kuberture logs as it goes comes back as `unmatched` and `skippedNodes`.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Endpoint, EndpointSlice } from "../../resources/endpoint_slice.ts";
import type { Node } from "../../resources/node.ts";
import { formatIp, type IpAddress, parseIp } from "../../util/ip.ts";
import { isPublicAddress } from "./public_address.ts";

/** What an output asks for (structurally a `Pick` of `KubertureOutput`). */
export interface AddressSelection {
  readonly addressSource: "endpointslice" | "node-internal" | "node-external" | "node-public";
  /** One family, or both. */
  readonly addressType: "IPv4" | "IPv6" | "Both";
}

/** A Node a ready endpoint led to that gave no address. */
export interface SkippedNode {
  readonly name: string;
  /** `not-found`: no listed Node has the `nodeName`; `no-address`: none of the type and family. */
  readonly reason: "not-found" | "no-address";
}

/** The answer of {@linkcode resolveOutputAddresses}. */
export interface ResolvedOutputAddresses {
  /** Canonical, sorted, unique, of the asked families; empty: nothing to publish. */
  readonly addresses: readonly string[];
  /** `node-*` sources: IPs of ready endpoints without `nodeName` that no Node lists. */
  readonly unmatched: readonly string[];
  /** `node-*` sources: the Nodes that contributed nothing. */
  readonly skippedNodes: readonly SkippedNode[];
}

/** What {@linkcode resolveOutputAddresses} reads. */
export interface ResolveInput {
  readonly slices: readonly EndpointSlice[];
  /** Every Node; may be empty for the `endpointslice` source. */
  readonly nodes: readonly Node[];
  readonly output: AddressSelection;
}

type Family = IpAddress["family"];

const SLICE_FAMILIES: Readonly<Record<string, Family>> = { IPv4: 4, IPv6: 6 };

const NODE_ADDRESS_TYPES: Readonly<Record<AddressSelection["addressSource"], string | undefined>> = {
  "endpointslice": undefined,
  "node-internal": "InternalIP",
  "node-external": "ExternalIP",
  "node-public": undefined,
};

function familiesOf(addressType: AddressSelection["addressType"]): readonly Family[] {
  if (addressType === "Both") return [4, 6];
  return [addressType === "IPv4" ? 4 : 6];
}

function isReady(endpoint: Endpoint): boolean {
  return endpoint.conditions.ready !== false;
}

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** The ready endpoints of the slices carrying IP addresses, with their slice's family. */
function* readyEndpoints(slices: readonly EndpointSlice[]): Generator<[Endpoint, Family]> {
  for (const slice of slices) {
    const family = SLICE_FAMILIES[slice.addressType];
    if (family === undefined) continue;
    for (const endpoint of slice.endpoints) if (isReady(endpoint)) yield [endpoint, family];
  }
}

/** The address in canonical spelling when it is an IP of `family`; `undefined` otherwise. */
function canonical(text: string, family: Family): string | undefined {
  const parsed = parseIp(text);
  return parsed?.family === family ? formatIp(parsed) : undefined;
}

function endpointAddresses(input: ResolveInput, families: readonly Family[]): ResolvedOutputAddresses {
  const addresses: string[] = [];
  for (const [endpoint, family] of readyEndpoints(input.slices)) {
    if (!families.includes(family)) continue;
    for (const text of endpoint.addresses) {
      const address = canonical(text, family);
      if (address !== undefined) addresses.push(address);
    }
  }
  return { addresses: sortedUnique(addresses), unmatched: [], skippedNodes: [] };
}

/** Canonical IP → the Nodes listing it among their addresses. */
function nodesByAddress(nodes: readonly Node[]): Map<string, Node[]> {
  const byAddress = new Map<string, Node[]>();
  for (const node of nodes) {
    for (const { address } of node.status.addresses) {
      const parsed = parseIp(address);
      if (parsed === undefined) continue;
      const key = formatIp(parsed);
      const claimed = byAddress.get(key) ?? [];
      if (!claimed.includes(node)) claimed.push(node);
      byAddress.set(key, claimed);
    }
  }
  return byAddress;
}

/** The Node's address the source asks for, in `family`, canonical; `undefined` when it has none. */
function nodeAddress(
  node: Node,
  source: AddressSelection["addressSource"],
  family: Family,
): string | undefined {
  const wantedType = NODE_ADDRESS_TYPES[source];
  for (const { type, address } of node.status.addresses) {
    if (wantedType !== undefined && type !== wantedType) continue;
    const parsed = parseIp(address);
    if (parsed?.family !== family) continue;
    if (source === "node-public" && !isPublicAddress(parsed)) continue;
    return formatIp(parsed);
  }
  return undefined;
}

function nodeAddresses(input: ResolveInput, families: readonly Family[]): ResolvedOutputAddresses {
  const byName = new Map(input.nodes.map((node) => [node.metadata.name, node]));
  const byAddress = nodesByAddress(input.nodes);
  const serving = new Map<string, Node>();
  const missing = new Set<string>();
  const unmatched: string[] = [];
  for (const [endpoint, family] of readyEndpoints(input.slices)) {
    if (endpoint.nodeName !== undefined) {
      const node = byName.get(endpoint.nodeName);
      if (node === undefined) missing.add(endpoint.nodeName);
      else serving.set(node.metadata.name, node);
      continue;
    }
    for (const text of endpoint.addresses) {
      const address = canonical(text, family) ?? text;
      const claimed = byAddress.get(address) ?? [];
      if (claimed.length === 0) unmatched.push(address);
      for (const node of claimed) serving.set(node.metadata.name, node);
    }
  }
  const addresses: string[] = [];
  const skippedNodes: SkippedNode[] = [...missing].map((name) => ({ name, reason: "not-found" }));
  for (const node of serving.values()) {
    const found = families.map((family) => nodeAddress(node, input.output.addressSource, family))
      .filter((address) => address !== undefined);
    if (found.length === 0) skippedNodes.push({ name: node.metadata.name, reason: "no-address" });
    addresses.push(...found);
  }
  skippedNodes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { addresses: sortedUnique(addresses), unmatched: sortedUnique(unmatched), skippedNodes };
}

/**
 * Resolves one output's addresses. Never throws; an empty `addresses` is the caller's cue to keep
 * what is published (kuberture's split-brain guard).
 */
export function resolveOutputAddresses(input: ResolveInput): ResolvedOutputAddresses {
  const families = familiesOf(input.output.addressType);
  return input.output.addressSource === "endpointslice"
    ? endpointAddresses(input, families)
    : nodeAddresses(input, families);
}
